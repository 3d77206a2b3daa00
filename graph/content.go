package graph

import (
	"context"
	"net/url"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/file"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/paging"
)

// SpaceRevision is the current revision of a space the caller can read.
func (r *Resolver) SpaceRevision(ctx context.Context, spaceID string) (*ent.Revision, error) {
	s, _, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	return loadRevision(ctx, s.RevisionID)
}

// ChangeRequestRevision is the current revision of a change request.
func (r *Resolver) ChangeRequestRevision(ctx context.Context, spaceID, crID string) (*ent.Revision, error) {
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	return loadRevision(ctx, cr.RevisionID)
}

// spaceRevisionByID is a revision of a space the caller can read, current
// or not (for node).
func (r *Resolver) spaceRevisionByID(ctx context.Context, spaceID, id string) (*model.Revision, error) {
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	rev, err := loadRevision(ctx, id)
	if err != nil {
		return nil, err
	}
	if rev.SpaceID != spaceID || scopedRevision(ctx, rev) != nil {
		return nil, apperr.NotFoundf("revision %s not found", id)
	}
	return r.revisionObject(rev, nil)
}

// revisionObject is a revision as GraphQL shows it (model.Revision), for
// resolvers that read one: a nil revision stays nil.
func (r *Resolver) revisionObject(rev *ent.Revision, err error) (*model.Revision, error) {
	if rev == nil || err != nil {
		return nil, err
	}
	return &model.Revision{Revision: rev, AppURL: r.RevisionAppURL(rev)}, nil
}

func loadRevision(ctx context.Context, id string) (*ent.Revision, error) {
	if id == "" {
		return nil, apperr.NotFoundf("this content has no revision yet")
	}
	return loader.For(ctx).RevisionByID.Load(ctx, id)()
}

// RevisionPages are the root pages of a revision, each with its subpages.
func (r *Resolver) RevisionPages(ctx context.Context, rev *ent.Revision) ([]*model.Page, error) {
	t, err := loader.For(ctx).RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	return wrapPages(t, t.Children[""], rev.SpaceID), nil
}

// Subpages are the children of a page, in order.
func (r *Resolver) Subpages(p *model.Page) []*model.Page {
	return wrapPages(p.Tree, p.Tree.Children[p.PageID], p.SpaceID)
}

func wrapPages(t *loader.Tree, ps []*ent.Page, spaceID string) []*model.Page {
	out := make([]*model.Page, len(ps))
	for i, p := range ps {
		out[i] = &model.Page{Page: p, Tree: t, SpaceID: spaceID, InTree: true}
	}
	return out
}

// RevisionPage finds a page of a revision by its id.
func (r *Resolver) RevisionPage(ctx context.Context, rev *ent.Revision, pageID string) (*model.Page, error) {
	t, err := loader.For(ctx).RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	p, ok := t.ByID[pageID]
	if !ok {
		return nil, apperr.NotFoundf("page %s not found", pageID)
	}
	return &model.Page{Page: p, Tree: t, SpaceID: rev.SpaceID}, nil
}

// PageMarkdown is a page's markdown body; bodies of many pages load together.
func (r *Resolver) PageMarkdown(ctx context.Context, p *model.Page) (string, error) {
	if p.ContentHash == "" {
		return "", nil
	}
	if p.InTree {
		bodies, err := loader.For(ctx).RevisionBodies.Load(ctx, p.Tree.RevisionID)()
		return bodies[p.ContentHash], err
	}
	return loader.For(ctx).PageMarkdown.Load(ctx, p.ContentHash)()
}

// PageDocument is a page's body as GitBook's structured document, converted
// once per body and stored (loader.PageDerived).
func (r *Resolver) PageDocument(ctx context.Context, p *model.Page) (markdown.Document, error) {
	d, err := loader.For(ctx).PageDerived.Load(ctx, p.ContentHash)()
	if err != nil {
		return markdown.Document{}, err
	}
	return d.Document, nil
}

// RevisionAppURL is a revision's `urls.app`. Folio has no app of its own,
// so it is the revision's API address: it answers for the space's current
// revision, earlier ones and a change request's alike, and keeps answering
// after the content moves on.
func (r *Resolver) RevisionAppURL(rev *ent.Revision) string {
	return r.BaseURL + "/v1/spaces/" + rev.SpaceID + "/revisions/" + rev.ID
}

// PageAppURL is a page's `urls.app`: the page in its revision, by id
// (model.PageTree writes the same for the pages of a tree).
func (r *Resolver) PageAppURL(p *model.Page) string {
	return r.BaseURL + "/v1/spaces/" + p.SpaceID + "/revisions/" + p.Tree.RevisionID + "/page/" + p.PageID
}

func fileKey(f *ent.File) paging.Cursor { return paging.Cursor{Time: f.CreatedAt, ID: f.FileID} }

// RevisionFiles pages through a revision's files, oldest first.
func (r *Resolver) RevisionFiles(ctx context.Context, rev *ent.Revision, args paging.Args) (paging.Page[*ent.File], error) {
	files, err := loader.For(ctx).RevisionFiles.Load(ctx, rev.ID)()
	if err != nil {
		return paging.Page[*ent.File]{}, err
	}
	return paging.Slice(args, files, fileKey), nil
}

// AllRevisionFiles is every file of a revision, oldest first (the
// revision object's `files`).
func (r *Resolver) AllRevisionFiles(ctx context.Context, rev *ent.Revision) ([]*ent.File, error) {
	return loader.For(ctx).RevisionFiles.Load(ctx, rev.ID)()
}

// RevisionFile finds a file of a revision by its id.
func (r *Resolver) RevisionFile(ctx context.Context, rev *ent.Revision, fileID string) (*ent.File, error) {
	files, err := loader.For(ctx).RevisionFiles.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.FileID == fileID {
			return f, nil
		}
	}
	return nil, apperr.NotFoundf("file %s not found", fileID)
}

// FileDownloadURL is where Folio serves a file's bytes. The path carries the
// bytes' SHA-256: it cannot be guessed without the file.
func (r *Resolver) FileDownloadURL(f *ent.File) string {
	return r.BaseURL + "/files/" + f.BlobKey + "/" + url.PathEscape(f.Name)
}

// FileByBlobKey finds a file row for a download (its type and name).
func (r *Resolver) FileByBlobKey(ctx context.Context, key string) (*ent.File, error) {
	f, err := r.Client.File.Query().Where(file.BlobKey(key)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("file not found")
	}
	return f, err
}

// optional turns "" into nil for optional GraphQL strings.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ChangeRequestOpenComments counts a change request's open comments.
func (r *Resolver) ChangeRequestOpenComments(ctx context.Context, cr *ent.ChangeRequest) (int, error) {
	return loader.For(ctx).ChangeRequestOpenComments.Load(ctx, cr.ID)()
}

// MergedFrom is the change request whose merge made rev, if any: only a
// merge revision has one, so other revisions cost no statement.
func (r *Resolver) MergedFrom(ctx context.Context, rev *ent.Revision) (*ent.ChangeRequest, error) {
	if rev.Type != revision.TypeMerge {
		return nil, nil
	}
	cr, err := r.Client.ChangeRequest.Query().
		Where(changerequest.SpaceID(rev.SpaceID), changerequest.RevisionMerged(rev.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return cr, err
}
