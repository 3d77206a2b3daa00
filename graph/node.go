package graph

import (
	"context"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/paging"
)

// node finds an object by ID among the types the caller may see. IDs carry
// no type, so each kind is tried in turn; every lookup is by primary key.
func (r *Resolver) node(ctx context.Context, id string) (model.Node, error) {
	if id == auth.ViewerID(ctx) {
		return viewerUser(ctx)
	}
	if org, _, err := visibleOrganization(ctx, id); err == nil {
		return org, nil
	} else if _, ok := apperr.As(err); !ok {
		return nil, err
	}
	return nil, apperr.NotFoundf("node %s not found", id)
}

// pageInfo is the Relay view of a page.
func pageInfo[T any](p paging.Page[T]) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: p.Next != nil}
	if n := len(p.Cursors); n > 0 {
		info.EndCursor = &p.Cursors[n-1]
	}
	return info
}

// enumString turns an optional ent enum into an optional string.
func enumString[T ~string](v *T) *string {
	if v == nil {
		return nil
	}
	s := string(*v)
	return &s
}
