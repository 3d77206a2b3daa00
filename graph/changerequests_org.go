package graph

import (
	"context"
	"fmt"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/paging"
)

// OrganizationChangeRequests pages through the change requests of an
// organization's spaces the caller can read, with one status (default
// open), newest first unless asked otherwise; creator and contributor
// filter as for a space's list. The readable spaces are a subquery with
// the space rule's predicate (contentScope), so the count is exact, a page
// seeks, and neither costs more with more spaces or grants.
func (r *Resolver) OrganizationChangeRequests(ctx context.Context, orgID string, status, creator, contributor *string, args paging.Args) (paging.Page[*ent.ChangeRequest], error) {
	var none paging.Page[*ent.ChangeRequest]
	if _, err := visibleOrganizationMembership(ctx, orgID); err != nil {
		return none, err
	}
	st := changerequest.StatusOpen
	if status != nil {
		st = changerequest.Status(*status)
		if err := changerequest.StatusValidator(st); err != nil {
			return none, apperr.InvalidField("status", "must be draft, open, archived or merged")
		}
	}
	// The change requests of every organization a list shows are read
	// together, the rows numbered by their space's organization.
	kind := fmt.Sprintf("organization change requests|%s|%s|%s", st, optionKey(creator), optionKey(contributor))
	return pageUnder(ctx, loader.Organizations, kind, orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.ChangeRequest], error) {
		scopes, err := contentScopes(ctx, orgs)
		if err != nil {
			return nil, err
		}
		readable := func(s *sql.Selector) {
			t := sql.Table(space.Table)
			spaces := sql.Select(t.C(space.FieldID)).From(t).Where(sql.IsNull(t.C(space.FieldDeletedAt)))
			anyScope(scopes, contentScope.spaces)(spaces)
			s.Where(sql.In(s.C(changerequest.FieldSpaceID), spaces))
		}
		q := r.Client.ChangeRequest.Query().Where(readable, changerequest.StatusEQ(st))
		if creator != nil {
			q.Where(changerequest.CreatedBy(*creator))
		}
		if contributor != nil {
			q.Where(contributedBy(*contributor))
		}
		// The rows do not say their organization: their spaces come with
		// them (one statement for the list, however many organizations),
		// and are what the change requests' `space` shows.
		q.WithSpace()
		orgOf := func(cr *ent.ChangeRequest) string { return cr.Edges.Space.OrganizationID }
		// What an admin sees unfiltered is kept; what access filters is
		// counted in the page's statement.
		count := countedInPage
		if creator == nil && contributor == nil && allAdmin(scopes) {
			count = r.keptCount(db.CountChangeRequests(string(st)))
		}
		pages, err := listPagesCounted(ctx, q, spaceOrganization, orgs, args, changerequest.FieldCreatedAt, args.Keyset(changerequest.FieldCreatedAt), changeRequestKey, orgOf, count)
		if err != nil {
			return nil, err
		}
		crs := itemsOf(pages)
		spaces := loader.For(ctx).SpaceByID
		for _, cr := range crs {
			spaces.Prime(ctx, cr.SpaceID, cr.Edges.Space)
		}
		return pages, showChangeRequests(ctx, crs)
	})
}

// allAdmin tells whether scopes are all an admin's: they see every live
// space of their organizations.
func allAdmin(scopes map[string]contentScope) bool {
	for _, sc := range scopes {
		if !sc.admin {
			return false
		}
	}
	return true
}

// spaceOrganization is the organization of a change request's space, as
// SQL: what a list of organizations' change requests is partitioned by.
func spaceOrganization(s *sql.Selector) string {
	d := sql.Dialect(s.Dialect())
	sp := d.Table(space.Table).As("cr_space")
	q, _ := d.Select(sp.C(space.FieldOrganizationID)).From(sp).
		Where(sql.ColumnsEQ(sp.C(space.FieldID), s.C(changerequest.FieldSpaceID))).Query()
	return "(" + q + ")"
}
