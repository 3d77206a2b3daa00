package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// What a team is given: the grants to a team on objects of one kind
// (Team.sharedSpaces, sharedCollections, sharedSites, and the count
// Team.spaces), most recently shared first unless asked otherwise. The
// teams a list shows are read together.

// teamGrantsQuery keeps the grants to teams on objects of kind; grants on
// deleted spaces (restorable, their grants kept) are left out.
func (r *Resolver) teamGrantsQuery(kind grant.ObjectKind) *ent.GrantQuery {
	q := r.Client.Grant.Query().Where(grant.PrincipalKindEQ(grant.PrincipalKindTeam), grant.ObjectKindEQ(kind))
	if kind == grant.ObjectKindSpace {
		q.Where(func(s *sql.Selector) {
			t := sql.Table(space.Table)
			s.Where(sql.In(s.C(grant.FieldObjectID), sql.Select(t.C(space.FieldID)).From(t).Where(sql.IsNull(t.C(space.FieldDeletedAt)))))
		})
	}
	return q
}

// TeamSharedGrants pages through the grants to a team on objects of kind.
func (r *Resolver) TeamSharedGrants(ctx context.Context, t *ent.Team, kind grant.ObjectKind, args paging.Args) (paging.Page[*ent.Grant], error) {
	if _, _, err := visibleTeam(ctx, t.OrganizationID, t.ID); err != nil {
		return paging.Page[*ent.Grant]{}, err
	}
	q := r.teamGrantsQuery(kind)
	return pageUnder(ctx, loader.Teams, "grants "+kind.String(), t.ID, args, func(ctx context.Context, teams []string) (map[string]paging.Page[*ent.Grant], error) {
		pages, err := listPages(ctx, q, grant.FieldPrincipalID, teams, args, grant.FieldCreatedAt,
			func(g *ent.Grant) paging.Cursor { return paging.Cursor{Time: g.CreatedAt, ID: g.ID} },
			func(g *ent.Grant) string { return g.PrincipalID })
		if err != nil {
			return nil, err
		}
		return pages, r.primeShared(ctx, kind, itemsOf(pages))
	})
}

// primeShared reads the objects of a level's grants in one statement and
// primes their loaders: always read, rather than left to loaders whose
// cache a sibling list (the organization's spaces) may or may not have
// filled yet, so that a query's statements do not depend on timing.
func (r *Resolver) primeShared(ctx context.Context, kind grant.ObjectKind, grants []*ent.Grant) error {
	if len(grants) == 0 {
		return nil
	}
	ids := make([]string, len(grants))
	for i, g := range grants {
		ids[i] = g.ObjectID
	}
	l := loader.For(ctx)
	switch kind {
	case grant.ObjectKindSpace:
		rows, err := r.Client.Space.Query().Where(space.IDIn(ids...), space.DeletedAtIsNil()).All(ctx)
		for _, s := range rows {
			l.SpaceByID.Prime(ctx, s.ID, s)
		}
		return err
	case grant.ObjectKindCollection:
		rows, err := r.Client.Collection.Query().Where(collection.IDIn(ids...)).All(ctx)
		for _, c := range rows {
			l.CollectionByID.Prime(ctx, c.ID, c)
		}
		return err
	default:
		rows, err := r.Client.Site.Query().Where(site.IDIn(ids...)).All(ctx)
		for _, s := range rows {
			l.SiteByID.Prime(ctx, s.ID, s)
		}
		return err
	}
}

// TeamSpaceCount is the number of spaces shared with a team (Team.spaces,
// REST team.spaces), counted for every team a list shows at once.
func (r *Resolver) TeamSpaceCount(ctx context.Context, t *ent.Team) (int, error) {
	q := r.teamGrantsQuery(grant.ObjectKindSpace)
	return loader.PerParent(ctx, loader.Teams, "space grants count", t.ID, func(ctx context.Context, teams []string) (map[string]int, error) {
		var rows []struct {
			Team  string `json:"team"`
			Count int    `json:"count"`
		}
		err := q.Where(grant.PrincipalIDIn(teams...)).Modify(func(s *sql.Selector) {
			s.Select(sql.As(s.C(grant.FieldPrincipalID), "team"), sql.As(sql.Count("*"), "count")).GroupBy(s.C(grant.FieldPrincipalID))
		}).Scan(ctx, &rows)
		out := make(map[string]int, len(teams))
		for _, row := range rows {
			out[row.Team] = row.Count
		}
		return out, err
	})
}

// sharedObjects resolves the objects of a page of grants, all at once
// (their loads batch), keeping nil for those the caller cannot see.
func sharedObjects[T any](ctx context.Context, page paging.Page[*ent.Grant], load func(id string) func() (T, error), visible func(T) (bool, error)) ([]*T, error) {
	thunks := make([]func() (T, error), len(page.Items))
	for i, g := range page.Items {
		thunks[i] = load(g.ObjectID)
	}
	out := make([]*T, len(thunks))
	for i, th := range thunks {
		v, err := th()
		if _, ok := apperr.As(err); ok {
			continue
		}
		if err != nil {
			return nil, err
		}
		ok, err := visible(v)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = &v
		}
	}
	return out, nil
}

// TeamSharedSpaces are the spaces of a page of a team's space grants; nil
// where the caller has no role on the space.
func (r *Resolver) TeamSharedSpaces(ctx context.Context, page paging.Page[*ent.Grant]) ([]*ent.Space, error) {
	l := loader.For(ctx)
	objs, err := sharedObjects(ctx, page, func(id string) func() (*ent.Space, error) { return l.SpaceByID.Load(ctx, id) },
		func(s *ent.Space) (bool, error) { role, err := spaceRole(ctx, s); return role != nil, err })
	return derefAll(objs), err
}

// TeamSharedCollections is TeamSharedSpaces for collections.
func (r *Resolver) TeamSharedCollections(ctx context.Context, page paging.Page[*ent.Grant]) ([]*ent.Collection, error) {
	l := loader.For(ctx)
	objs, err := sharedObjects(ctx, page, func(id string) func() (*ent.Collection, error) { return l.CollectionByID.Load(ctx, id) },
		func(c *ent.Collection) (bool, error) { role, err := collectionRole(ctx, c); return role != nil, err })
	return derefAll(objs), err
}

// TeamSharedSites is TeamSharedSpaces for docs sites.
func (r *Resolver) TeamSharedSites(ctx context.Context, page paging.Page[*ent.Grant]) ([]*ent.Site, error) {
	l := loader.For(ctx)
	objs, err := sharedObjects(ctx, page, func(id string) func() (*ent.Site, error) { return l.SiteByID.Load(ctx, id) },
		func(s *ent.Site) (bool, error) { role, _, err := siteRole(ctx, s); return role != nil, err })
	return derefAll(objs), err
}

// derefAll turns pointers to pointers into pointers, nil kept.
func derefAll[T any](in []**T) []*T {
	out := make([]*T, len(in))
	for i, p := range in {
		if p != nil {
			out[i] = *p
		}
	}
	return out
}
