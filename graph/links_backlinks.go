package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
)

// PageBacklinks lists the pages of a space's current content (or of a
// change request's, crID) that link to a page, in tree order: links to it
// by path or by /pages/<id>, with or without an anchor; a page's links to
// its own anchors are not backlinks.
func (r *Resolver) PageBacklinks(ctx context.Context, spaceID, crID, pageID string) ([]*model.Page, error) {
	var rev *ent.Revision
	var err error
	if crID != "" {
		rev, err = r.ChangeRequestRevision(ctx, spaceID, crID)
	} else {
		rev, err = r.SpaceRevision(ctx, spaceID)
	}
	if err != nil {
		return nil, err
	}
	if _, err := r.RevisionPage(ctx, rev, pageID); err != nil {
		return nil, err
	}
	set, err := r.revisionLinks(ctx, rev, "")
	if err != nil {
		return nil, err
	}
	t, err := loader.For(ctx).RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	linking := map[string]bool{}
	for _, u := range set.usages {
		if u.Target.Kind == model.LinkPage && u.Target.PageID == pageID {
			for _, p := range u.Locations {
				linking[p.PageID] = true
			}
		}
	}
	var out []*model.Page
	var walk func(parent string)
	walk = func(parent string) {
		for _, p := range t.Children[parent] {
			if linking[p.PageID] {
				out = append(out, &model.Page{Page: p, Tree: t, SpaceID: spaceID})
			}
			walk(p.PageID)
		}
	}
	walk("")
	return out, nil
}
