package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
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
	rows, err := spacesThunk()
	if err != nil {
		return none, err
	}
	readable, err := spacesWithRole(ctx, rows)
	if err != nil {
		return none, err
	}
	ids := make([]string, len(readable))
	for i, s := range readable {
		ids[i] = s.ID
	}
	q := r.Client.ChangeRequest.Query().Where(changerequest.SpaceIDIn(ids...), changerequest.StatusEQ(st))
	if creator != nil {
		q.Where(changerequest.CreatedBy(*creator))
	}
	if contributor != nil {
		q.Where(contributedBy(*contributor))
	}
	page, err := listPage(ctx, q, args, changerequest.FieldCreatedAt, changeRequestKey)
	showChangeRequestsTogether(ctx, page.Items)
	return page, err
}
