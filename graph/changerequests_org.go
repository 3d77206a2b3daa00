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
	"github.com/folio/folio/internal/paging"
)

// OrganizationChangeRequests pages through the change requests of an
// organization's spaces the caller can read, with one status (default
// open), newest first unless asked otherwise; creator and contributor
// filter as for a space's list. The readable spaces are found with the
// space rules, then the change requests are counted and paged in SQL over
// those spaces only, so the count is exact and a page seeks.
func (r *Resolver) OrganizationChangeRequests(ctx context.Context, orgID string, status, creator, contributor *string, args paging.Args) (paging.Page[*ent.ChangeRequest], error) {
	var none paging.Page[*ent.ChangeRequest]
	spacesThunk := loader.For(ctx).OrgSpaces.Load(ctx, orgID)
	if _, _, err := visibleOrganization(ctx, orgID); err != nil {
		return none, err
	}
	st := changerequest.StatusOpen
	if status != nil {
		st = changerequest.Status(*status)
		if err := changerequest.StatusValidator(st); err != nil {
			return none, apperr.InvalidField("status", "must be draft, open, archived or merged")
		}
	}
	if _, err := spacesThunk(); err != nil {
		return none, err
	}
	// The change requests of every organization a list shows are read
	// together: their readable spaces are worked out in memory, and the
	// rows numbered by their space's organization.
	kind := fmt.Sprintf("organization change requests|%s|%s|%s", st, optionKey(creator), optionKey(contributor))
	return pageUnder(ctx, loader.Organizations, kind, orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.ChangeRequest], error) {
		rows, errs := loader.For(ctx).OrgSpaces.LoadMany(ctx, orgs)()
		orgOf := map[string]string{}
		var ids []string
		for i, org := range orgs {
			if len(errs) > i && errs[i] != nil {
				return nil, errs[i]
			}
			readable, err := spacesWithRole(ctx, rows[i])
			if err != nil {
				return nil, err
			}
			for _, s := range readable {
				ids = append(ids, s.ID)
				orgOf[s.ID] = org
			}
		}
		q := r.Client.ChangeRequest.Query().Where(changerequest.SpaceIDIn(ids...), changerequest.StatusEQ(st))
		if creator != nil {
			q.Where(changerequest.CreatedBy(*creator))
		}
		if contributor != nil {
			q.Where(contributedBy(*contributor))
		}
		pages, err := listPagesBy(ctx, q, spaceOrganization, orgs, args, changerequest.FieldCreatedAt, changeRequestKey,
			func(cr *ent.ChangeRequest) string { return orgOf[cr.SpaceID] })
		if err != nil {
			return nil, err
		}
		return pages, showChangeRequests(ctx, itemsOf(pages))
	})
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
