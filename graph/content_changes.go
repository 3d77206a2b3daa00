package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/merge"
	"github.com/folio/folio/internal/paging"
)

// DefaultChangesLimit is how many changes a diff answers unless asked.
const DefaultChangesLimit = 10

// checkChangesLimit validates the limit of a diff.
func checkChangesLimit(limit *int) (int, error) {
	if limit == nil {
		return DefaultChangesLimit, nil
	}
	if *limit < 1 || *limit > paging.MaxLimit {
		return 0, apperr.InvalidField("limit", "must be between 1 and %d", paging.MaxLimit)
	}
	return *limit, nil
}

// RevisionSemanticChanges are the changes a revision of the space made to
// its first parent (a revision without parents: everything it holds was
// created), with the change request a merge revision came from.
func (r *Resolver) RevisionSemanticChanges(ctx context.Context, spaceID, revID string, limit *int) (*model.RevisionChanges, error) {
	rev, err := r.SpaceRevisionByID(ctx, spaceID, revID)
	if err != nil {
		return nil, err
	}
	return r.ChangesOfRevision(ctx, rev, limit)
}

// ChangeRequestChanges are the changes a change request makes to the
// space's revision it was last brought up to date with (its merge base).
func (r *Resolver) ChangeRequestChanges(ctx context.Context, spaceID, crID string, limit *int) (*model.RevisionChanges, error) {
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	return r.ChangesOfChangeRequest(ctx, cr, limit)
}

// ChangesOfChangeRequest is ChangeRequestChanges for a change request
// already read (GraphQL's ChangeRequest.changes).
func (r *Resolver) ChangesOfChangeRequest(ctx context.Context, cr *ent.ChangeRequest, limit *int) (*model.RevisionChanges, error) {
	n, err := checkChangesLimit(limit)
	if err != nil {
		return nil, err
	}
	return r.revisionDiff(ctx, cr.SpaceID, cr.RevisionMergedAncestor, cr.RevisionID, n)
}

// ChangesOfRevision is RevisionSemanticChanges for a revision already read
// (GraphQL's Revision.changes).
func (r *Resolver) ChangesOfRevision(ctx context.Context, rev *ent.Revision, limit *int) (*model.RevisionChanges, error) {
	n, err := checkChangesLimit(limit)
	if err != nil {
		return nil, err
	}
	base := ""
	if len(rev.Parents) > 0 {
		base = rev.Parents[0]
	}
	out, err := r.revisionDiff(ctx, rev.SpaceID, base, rev.ID, n)
	if err != nil {
		return nil, err
	}
	if rev.Type == revision.TypeMerge {
		// Through a loader: a list of revisions' changes reads them together.
		if out.MergedFrom, err = loader.For(ctx).Reads().MergedFrom.Load(ctx, rev.ID)(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// revisionDiff runs the tree diff engine (merge.Diff) over two revisions'
// pages, compared by their stored fields and body hashes, then compares
// their files by id. The trees and files of both load together.
func (r *Resolver) revisionDiff(ctx context.Context, spaceID, before, after string, limit int) (*model.RevisionChanges, error) {
	l := loader.For(ctx)
	revs := []string{after}
	if before != "" {
		revs = append(revs, before)
	}
	trees, errs := l.RevisionTree.LoadMany(ctx, revs)()
	files, ferrs := l.RevisionFiles.LoadMany(ctx, revs)()
	for i := range revs {
		if errs != nil && errs[i] != nil {
			return nil, errs[i]
		}
		if ferrs != nil && ferrs[i] != nil {
			return nil, ferrs[i]
		}
	}
	tb, fb := trees[0], files[0]
	ta, fa := loader.NewTree(nil), []*ent.File(nil)
	if before != "" {
		ta, fa = trees[1], files[1]
	}
	wrap := func(t *loader.Tree, id string) *model.Page {
		p, ok := t.ByID[id]
		if !ok {
			return nil
		}
		// Not InTree: only the edited pages' bodies are read, by hash.
		return &model.Page{Page: p, Tree: t, SpaceID: spaceID}
	}
	var all []*model.RevisionChange
	for _, c := range merge.Diff(mergePages(ta), mergePages(tb)) {
		switch c.Kind {
		case merge.PageCreated:
			all = append(all, &model.RevisionChange{Type: model.ChangePageCreated, Page: wrap(tb, c.PageID)})
		case merge.PageDeleted:
			all = append(all, &model.RevisionChange{Type: model.ChangePageDeleted, Page: wrap(ta, c.PageID)})
		case merge.PageMoved:
			all = append(all, &model.RevisionChange{Type: model.ChangePageMoved, Page: wrap(tb, c.PageID), Before: wrap(ta, c.PageID),
				ParentBefore: wrap(ta, c.ParentBefore), ParentAfter: wrap(tb, c.ParentAfter)})
		case merge.PageEdited:
			ch := &model.RevisionChange{Type: model.ChangePageEdited, Page: wrap(tb, c.PageID), Before: wrap(ta, c.PageID)}
			for _, f := range c.Fields {
				ch.Attributes = append(ch.Attributes, pageAttribute[f])
			}
			all = append(all, ch)
		}
	}
	all = append(all, fileChanges(fa, fb)...)
	out := &model.RevisionChanges{Changes: all}
	if len(all) > limit {
		out.Changes, out.More = all[:limit], len(all)-limit
	}
	return out, nil
}

// pageAttribute is the GitBook name of each field merge.Diff compares.
var pageAttribute = map[merge.Field]string{
	merge.FieldTitle: model.AttrTitle, merge.FieldEmoji: model.AttrEmoji, merge.FieldDescription: model.AttrDescription,
	merge.FieldSlug: model.AttrSlug, merge.FieldKind: model.AttrType, merge.FieldHidden: model.AttrHidden,
	merge.FieldHref: model.AttrTarget, merge.FieldBody: model.AttrDocument,
}

// mergePages is a tree as the diff engine sees it; bodies compare by hash.
func mergePages(t *loader.Tree) map[string]merge.Page {
	out := make(map[string]merge.Page, len(t.Pages))
	for _, p := range t.Pages {
		out[p.PageID] = merge.Page{ID: p.PageID, Parent: p.ParentPageID, Position: p.Position, Title: p.Title,
			Emoji: p.Emoji, Description: p.Description, Slug: p.Slug, Kind: p.Kind.String(), Hidden: p.Hidden,
			Href: p.Href, Body: p.ContentHash}
	}
	return out
}

// fileChanges compares two revisions' files by id: created and edited in
// the after revision's order (created_at, id), then deleted in the
// before's.
func fileChanges(before, after []*ent.File) []*model.RevisionChange {
	old := make(map[string]*ent.File, len(before))
	for _, f := range before {
		old[f.FileID] = f
	}
	var out []*model.RevisionChange
	seen := map[string]bool{}
	for _, f := range after {
		seen[f.FileID] = true
		b, ok := old[f.FileID]
		if !ok {
			out = append(out, &model.RevisionChange{Type: model.ChangeFileCreated, File: f})
			continue
		}
		var attrs []string
		add := func(changed bool, name string) {
			if changed {
				attrs = append(attrs, name)
			}
		}
		add(b.Name != f.Name, model.AttrName)
		add(b.ContentType != f.ContentType, model.AttrContentType)
		add(b.Size != f.Size, model.AttrSize)
		add(b.BlobKey != f.BlobKey || b.Name != f.Name, model.AttrDownloadURL)
		add(!sameInt(b.Width, f.Width) || !sameInt(b.Height, f.Height), model.AttrDimensions)
		if len(attrs) > 0 {
			out = append(out, &model.RevisionChange{Type: model.ChangeFileEdited, File: f, FileBefore: b, Attributes: attrs})
		}
	}
	for _, f := range before {
		if !seen[f.FileID] {
			out = append(out, &model.RevisionChange{Type: model.ChangeFileDeleted, File: f})
		}
	}
	return out
}

func sameInt(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// showChangeRequestsTogether records that a list shows these change
// requests: their revisions and merge bases are read together (rows, trees,
// files), and their contributors, when their items ask, whatever batches
// the resolution falls into.
func showChangeRequestsTogether(ctx context.Context, crs []*ent.ChangeRequest) {
	revs := make([]string, 0, 2*len(crs))
	ids := make([]string, len(crs))
	for i, cr := range crs {
		ids[i] = cr.ID
		for _, id := range []string{cr.RevisionID, cr.RevisionMergedAncestor} {
			if id != "" {
				revs = append(revs, id)
			}
		}
	}
	loader.For(ctx).ShowTogether(revs)
	loader.For(ctx).Reads().ShowChangeRequestsTogether(ids)
}
