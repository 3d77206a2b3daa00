package graph

import (
	"context"

	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/translationsettings"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/paging"
)

// node finds an object by ID among the types the caller may see. IDs carry
// no type, so each kind is tried in turn by primary key; the object is then
// read through the same check as its own query, so node shows nothing the
// caller could not read otherwise.
func (r *Resolver) node(ctx context.Context, id string) (model.Node, error) {
	if id == auth.ViewerID(ctx) {
		return viewerUser(ctx)
	}
	lookups := []func() (model.Node, error){
		func() (model.Node, error) { o, _, err := visibleOrganization(ctx, id); return o, err },
		func() (model.Node, error) { s, _, err := visibleSpace(ctx, id); return s, err },
		func() (model.Node, error) { c, _, err := visibleCollection(ctx, id); return c, err },
		func() (model.Node, error) {
			t, err := r.Client.Team.Query().Where(team.ID(id)).Only(ctx)
			if err != nil {
				return nil, entError(err)
			}
			return r.OrganizationTeam(ctx, t.OrganizationID, id)
		},
		func() (model.Node, error) {
			ts, err := r.Client.TranslationSettings.Query().Where(translationsettings.ID(id)).Only(ctx)
			if err != nil {
				return nil, entError(err)
			}
			return r.TranslationByID(ctx, ts.OrganizationID, id)
		},
		func() (model.Node, error) {
			cf, err := r.Client.CustomField.Query().Where(customfield.ID(id)).Only(ctx)
			if err != nil {
				return nil, entError(err)
			}
			return r.CustomFieldByName(ctx, cf.OrganizationID, cf.Name)
		},
		func() (model.Node, error) {
			p, err := r.Client.SAMLProvider.Query().Where(samlprovider.ID(id)).Only(ctx)
			if err != nil {
				return nil, entError(err)
			}
			return r.SAMLProviderByID(ctx, p.OrganizationID, id)
		},
	}
	for _, lookup := range lookups {
		n, err := lookup()
		if err == nil {
			return n, nil
		}
		if _, ok := apperr.As(err); !ok {
			return nil, err
		}
	}
	return nil, apperr.NotFoundf("node %s not found", id)
}

// pageInfo is the Relay view of a page.
func pageInfo[T any](p paging.Page[T]) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: p.Next != nil, HasPreviousPage: p.HasPrevious}
	if n := len(p.Cursors); n > 0 {
		info.StartCursor = &p.Cursors[0]
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
