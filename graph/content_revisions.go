package graph

import (
	"context"
	"net/url"
	"sort"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// SpaceRevisionByID is any revision of a space the caller can read: the
// current one, an earlier one, or a change request's. Another space's
// revision is 404, as an unknown id.
func (r *Resolver) SpaceRevisionByID(ctx context.Context, spaceID, id string) (*ent.Revision, error) {
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
	return rev, nil
}

// RevisionPageByPath finds a page of a revision by its path: nested paths
// as a/b or a%2Fb, leading and trailing slashes ignored.
func (r *Resolver) RevisionPageByPath(ctx context.Context, rev *ent.Revision, path string) (*model.Page, error) {
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	path = strings.Trim(path, "/")
	t, err := loader.For(ctx).RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	p, ok := t.ByPath(path)
	if !ok {
		return nil, apperr.NotFoundf("no page at path %q", path)
	}
	return &model.Page{Page: p, Tree: t, SpaceID: rev.SpaceID}, nil
}

// PageParent is the page's parent in its revision; nil for a root page.
// The tree is already loaded, so it costs no statement.
func (r *Resolver) PageParent(p *model.Page) *model.Page {
	parent, ok := p.Tree.ByID[p.ParentPageID]
	if !ok {
		return nil
	}
	return &model.Page{Page: parent, Tree: p.Tree, SpaceID: p.SpaceID, InTree: p.InTree}
}

// PageAncestors are the pages from the root down to the page's parent, for
// breadcrumbs.
func (r *Resolver) PageAncestors(p *model.Page) []*model.Page {
	var out []*model.Page
	for a := r.PageParent(p); a != nil; a = r.PageParent(a) {
		out = append(out, a)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func revisionKey(rev *model.Revision) paging.Cursor {
	return paging.Cursor{Time: rev.CreatedAt, ID: rev.ID}
}

// SpaceHistory pages through the space's main line: its current revision,
// that revision's first parent, and so on, newest first unless asked
// otherwise. Change requests' revisions are not on it. Every revision of
// the space loads in one statement (for a list of spaces, one in all), and
// the line is walked in memory; the pages of every space a list shows are
// cut at once, and their revisions shown together (pageUnder).
func (r *Resolver) SpaceHistory(ctx context.Context, s *ent.Space, args paging.Args) (paging.Page[*model.Revision], error) {
	if err := siteScopeHides(ctx, "space", s.ID); err != nil {
		return paging.Page[*model.Revision]{}, err
	}
	if err := spaceContent(ctx, s); err != nil {
		return paging.Page[*model.Revision]{}, err
	}
	l := loader.For(ctx)
	spaceOf := func(id string) *ent.Space {
		if id == s.ID {
			return s
		}
		return l.ShownSpace(id)
	}
	return pageUnder(ctx, loader.Spaces, "history", s.ID, args, func(ctx context.Context, ids []string) (map[string]paging.Page[*model.Revision], error) {
		// Every space's revisions at once: one batch, not one batch wait a
		// space.
		revs, errs := l.Reads().SpaceRevisions.LoadMany(ctx, ids)()
		pages := make(map[string]paging.Page[*model.Revision], len(ids))
		var shown []string
		for i, id := range ids {
			sp := spaceOf(id)
			if sp == nil {
				continue
			}
			if len(errs) > i && errs[i] != nil {
				return nil, errs[i]
			}
			line := r.mainLine(sp, revs[i])
			page := paging.Slice(args, line, revisionKey)
			pages[id] = page
			// The page's revisions and their parents are read together (rows,
			// trees, files) when their items ask, e.g. for their changes.
			for _, rev := range page.Items {
				shown = append(shown, rev.ID)
				if len(rev.Parents) > 0 {
					shown = append(shown, rev.Parents[0])
				}
			}
		}
		l.ShowTogether(shown)
		return pages, nil
	})
}

// mainLine is a space's main line of revisions, oldest first, from all
// of its revisions.
func (r *Resolver) mainLine(s *ent.Space, all []*ent.Revision) []*model.Revision {
	byID := make(map[string]*ent.Revision, len(all))
	for _, rev := range all {
		byID[rev.ID] = rev
	}
	var line []*model.Revision
	for id := s.RevisionID; id != ""; {
		rev, ok := byID[id]
		if !ok {
			break
		}
		delete(byID, id) // a cycle cannot loop
		line = append(line, &model.Revision{Revision: rev, AppURL: r.RevisionAppURL(rev)})
		id = ""
		if len(rev.Parents) > 0 {
			id = rev.Parents[0]
		}
	}
	sort.Slice(line, func(i, j int) bool { return revisionKey(line[i]).Less(revisionKey(line[j])) })
	return line
}

// SpaceCurrentPageByPath is a page of the space's current revision by path.
func (r *Resolver) SpaceCurrentPageByPath(ctx context.Context, s *ent.Space, path string) (*model.Page, error) {
	if err := spaceContent(ctx, s); err != nil {
		return nil, err
	}
	if s.RevisionID == "" {
		return nil, apperr.NotFoundf("no page at path %q", path)
	}
	rev, err := loadRevision(ctx, s.RevisionID)
	if err != nil {
		return nil, err
	}
	return r.RevisionPageByPath(ctx, rev, path)
}

// orNull turns "not found" into GraphQL's null for nullable lookups by
// argument (revision(id:), page(path:)); other errors stay errors.
func orNull[T any](v *T, err error) (*T, error) {
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return nil, nil
	}
	return v, err
}
