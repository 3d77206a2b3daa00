package graph

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/paging"
)

// listTotalColumn is the window count a first page of spaces reads with
// its rows.
const listTotalColumn = "list_total"

// OrganizationSpacesPresented is OrganizationSpaces for a read that
// presents every space of the page with its counts and urls (REST's
// GET /v1/orgs/{id}/spaces): the same spaces, filtered by the same scopes,
// in the same order, but one statement brings the page, its total (a
// window count; a later page counts apart, since its rows start after the
// cursor) and each space's counts and publication
// (loader.SelectSpaceCounts), instead of a page, a count and a counts
// statement. The spaces are primed and shown together as
// OrganizationSpaces' are, so what their presentation loads costs what it
// did.
func (r *Resolver) OrganizationSpacesPresented(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.Space], error) {
	var none paging.Page[*ent.Space]
	if _, err := visibleOrganizationMembership(ctx, orgID); err != nil {
		return none, err
	}
	scopes, err := contentScopes(ctx, []string{orgID})
	if err != nil {
		return none, err
	}
	q := r.Client.Space.Query().Where(space.OrganizationID(orgID), space.DeletedAtIsNil(), anyScope(scopes, contentScope.spaces))
	firstPage := args.After == nil
	total := 0
	if !firstPage {
		if total, err = q.Clone().Count(ctx); err != nil {
			return none, err
		}
	}
	rows, err := q.Where(predicate.Space(args.Keyset(space.FieldCreatedAt))).
		Order(space.OrderOption(args.OrderBy(space.FieldCreatedAt))).Limit(args.Limit + 1).
		Modify(func(s *sql.Selector) {
			if firstPage {
				s.AppendSelectExprAs(sql.Raw("count(*) OVER ()"), listTotalColumn)
			}
			loader.SelectSpaceCounts(s)
		}).All(ctx)
	if err != nil {
		return none, err
	}
	if firstPage && len(rows) > 0 {
		if total, err = windowTotal(rows[0]); err != nil {
			return none, err
		}
	}
	l := loader.For(ctx)
	if err := l.PrimeSelectedSpaceCounts(ctx, rows); err != nil {
		return none, err
	}
	page := paging.Cut(args, rows, total, spaceKey)
	showSpaces(ctx, page.Items)
	return page, nil
}

// windowTotal reads the window count selected with s.
func windowTotal(s *ent.Space) (int, error) {
	v, err := s.Value(listTotalColumn)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("graph: list total of type %T", v)
	}
	return int(n), nil
}
