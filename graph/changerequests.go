package graph

import (
	"context"
	"fmt"
	"strconv"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

func changeRequestKey(c *ent.ChangeRequest) paging.Cursor {
	return paging.Cursor{Time: c.CreatedAt, ID: c.ID}
}

// SpaceChangeRequests pages through a space's change requests with status
// (default open) and, optionally, those created by contributor. The change
// requests of every space a list shows are read together (pageUnder).
func (r *Resolver) SpaceChangeRequests(ctx context.Context, spaceID string, status, contributor *string, args paging.Args) (paging.Page[*ent.ChangeRequest], error) {
	var none paging.Page[*ent.ChangeRequest]
	if err := siteScopeHides(ctx, "space", spaceID); err != nil {
		return none, err
	}
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return none, err
	}
	st := changerequest.StatusOpen
	if status != nil {
		st = changerequest.Status(*status)
		if err := changerequest.StatusValidator(st); err != nil {
			return none, apperr.InvalidField("status", "must be draft, open, archived or merged")
		}
	}
	kind := fmt.Sprintf("space change requests|%s|%s", st, optionKey(contributor))
	return pageUnder(ctx, loader.Spaces, kind, spaceID, args, func(ctx context.Context, spaces []string) (map[string]paging.Page[*ent.ChangeRequest], error) {
		q := r.Client.ChangeRequest.Query().Where(changerequest.StatusEQ(st))
		if contributor != nil {
			q.Where(contributedBy(*contributor))
		}
		pages, err := listPages(ctx, q, changerequest.FieldSpaceID, spaces, args, changerequest.FieldCreatedAt, changeRequestKey,
			func(cr *ent.ChangeRequest) string { return cr.SpaceID })
		if err != nil {
			return nil, err
		}
		return pages, showChangeRequests(ctx, itemsOf(pages))
	})
}

// showChangeRequests records change requests that lists show together (one
// level: every space's page of them) and primes what each shows, for the
// whole level at once: the change request by id (its comments' scope and
// permissions), and its author.
func showChangeRequests(ctx context.Context, crs []*ent.ChangeRequest) error {
	showChangeRequestsTogether(ctx, crs)
	l := loader.For(ctx)
	users := make([]string, len(crs))
	for i, cr := range crs {
		l.ChangeRequestByID.Prime(ctx, cr.ID, cr)
		users[i] = cr.CreatedBy
	}
	return l.PrimeUsers(ctx, users)
}

// FindChangeRequest reads a change request of a space by id or by number.
func (r *Resolver) FindChangeRequest(ctx context.Context, spaceID, idOrNumber string) (*ent.ChangeRequest, error) {
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	q := r.Client.ChangeRequest.Query().Where(changerequest.SpaceID(spaceID))
	if n, err := strconv.Atoi(idOrNumber); err == nil {
		q.Where(changerequest.Number(n))
	} else {
		q.Where(changerequest.ID(idOrNumber))
	}
	cr, err := q.Only(ctx)
	if ent.IsNotFound(err) || (err == nil && scopedChangeRequest(ctx, cr) != nil) {
		return nil, apperr.NotFoundf("change request %s not found", idOrNumber)
	}
	return cr, err
}

// SpaceChangeRequest is FindChangeRequest for GraphQL's
// Space.changeRequest: the change request asked of every space a list
// shows is looked for in all of them at once.
func (r *Resolver) SpaceChangeRequest(ctx context.Context, spaceID, idOrNumber string) (*ent.ChangeRequest, error) {
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	cr, err := loader.PerParent(ctx, loader.Spaces, "change request "+idOrNumber, spaceID, func(ctx context.Context, spaces []string) (map[string]*ent.ChangeRequest, error) {
		q := r.Client.ChangeRequest.Query().Where(changerequest.SpaceIDIn(spaces...))
		if n, err := strconv.Atoi(idOrNumber); err == nil {
			q.Where(changerequest.Number(n))
		} else {
			q.Where(changerequest.ID(idOrNumber))
		}
		rows, err := q.All(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]*ent.ChangeRequest, len(rows))
		l := loader.For(ctx)
		authors := make(map[string][]string, len(rows))
		for _, cr := range rows {
			out[cr.SpaceID] = cr
			l.ChangeRequestByID.Prime(ctx, cr.ID, cr)
			authors[cr.ID] = []string{cr.CreatedBy}
		}
		// Shown together (what is read under them is read for all), their
		// authors read on the first ask: a change request found by number
		// costs one statement.
		showChangeRequestsTogether(ctx, rows)
		l.NameUsers(loader.ChangeRequests, authors)
		return out, nil
	})
	if err == nil && (cr == nil || scopedChangeRequest(ctx, cr) != nil) {
		return nil, apperr.NotFoundf("change request %s not found", idOrNumber)
	}
	return cr, err
}

// CreateChangeRequest opens a change request on the space's current
// content. Numbers count up per space and never repeat: the space's counter
// is incremented in the same transaction, which serialises creators.
func (r *Resolver) CreateChangeRequest(ctx context.Context, spaceID string, subject *string) (*ent.ChangeRequest, error) {
	if _, err := editableSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	var cr *ent.ChangeRequest
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) (err error) {
		cr, err = createChangeRequestTx(ctx, tx, spaceID, auth.ViewerID(ctx), "", subject)
		return err
	})
	return cr, err
}

// createChangeRequestTx opens a change request in tx by createdBy, on
// revision base ("": the space's current content), with its event.
func createChangeRequestTx(ctx context.Context, tx *ent.Client, spaceID, createdBy, base string, subject *string) (*ent.ChangeRequest, error) {
	s, err := tx.Space.UpdateOneID(spaceID).AddChangeRequestSeq(1).Save(ctx)
	if err != nil {
		return nil, err
	}
	if base == "" {
		base = s.RevisionID
	}
	create := tx.ChangeRequest.Create().SetSpaceID(spaceID).SetNumber(s.ChangeRequestSeq).
		SetCreatedBy(createdBy).SetRevisionID(base).SetRevisionInitial(base).SetRevisionMergedAncestor(base)
	if subject != nil {
		create.SetSubject(*subject)
	}
	cr, err := create.Save(ctx)
	if err != nil {
		return nil, entError(err)
	}
	record(ctx, changeRequestEvent(events.ChangeRequestCreated, s.OrganizationID, cr, map[string]any{"number": cr.Number, "subject": cr.Subject}))
	return cr, nil
}

// changeRequestEvent is an event whose target is cr.
func changeRequestEvent(action, orgID string, cr *ent.ChangeRequest, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: orgID,
		Target:  events.Target{Type: "change-request", ID: cr.ID, Label: cr.Subject},
		SpaceID: cr.SpaceID, ChangeRequestID: cr.ID, Payload: payload,
	}
}

// UpdateChangeRequest changes the subject and status (draft, open,
// archived); merged comes only from a merge, and a merged change request
// keeps its status. Needs the edit role on the space.
func (r *Resolver) UpdateChangeRequest(ctx context.Context, spaceID, id string, in model.UpdateChangeRequestInput) (*ent.ChangeRequest, error) {
	s, err := editableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	cr, err := r.FindChangeRequest(ctx, spaceID, id)
	if err != nil {
		return nil, err
	}
	var subject, description *string
	var status *changerequest.Status
	fields := []string{}
	if v, ok := in.Description.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("description", "cannot be null: \"\" clears it")
		}
		if err := checkDescription(*v); err != nil {
			return nil, err
		}
		description = v
		fields = append(fields, "description")
	}
	if v, ok := in.Subject.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("subject", "cannot be null")
		}
		subject = v
		fields = append(fields, "subject")
	}
	if v, ok := in.Status.ValueOK(); ok {
		switch {
		case v == nil:
			return nil, apperr.InvalidField("status", "cannot be null")
		case *v == changerequest.StatusMerged:
			return nil, apperr.InvalidField("status", "a change request becomes merged only by merging it")
		case *v != changerequest.StatusDraft && *v != changerequest.StatusOpen && *v != changerequest.StatusArchived:
			return nil, apperr.InvalidField("status", "must be draft, open or archived")
		case cr.Status == changerequest.StatusMerged:
			return nil, apperr.Conflictf("change request %d is merged: its status cannot change", cr.Number)
		}
		status = v
		fields = append(fields, "status")
	}
	var updated *ent.ChangeRequest
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.ChangeRequest.UpdateOne(cr)
		if subject != nil {
			upd.SetSubject(*subject)
		}
		if description != nil {
			upd.SetDescription(*description)
		}
		if status != nil {
			upd.SetStatus(*status)
		}
		var err error
		if updated, err = upd.Save(ctx); err != nil {
			return entError(err)
		}
		// Status changes (open, draft, archived: closing) are updates
		// whose payload carries the new status.
		payload := map[string]any{"number": updated.Number, "fields": fields}
		if status != nil {
			payload["status"] = string(*status)
		}
		record(ctx, changeRequestEvent(events.ChangeRequestUpdated, s.OrganizationID, updated, payload))
		return nil
	})
	return updated, err
}

// ChangeRequestAuthor is the user who created cr; nil when that user is
// gone.
func (r *Resolver) ChangeRequestAuthor(ctx context.Context, cr *ent.ChangeRequest) (*ent.User, error) {
	if cr.CreatedBy == "" {
		return nil, nil
	}
	u, err := loader.UserNamedBy(ctx, loader.ChangeRequests, cr.ID, cr.CreatedBy)
	if _, ok := apperr.As(err); ok {
		return nil, nil
	}
	return u, err
}

// PrimeChangeRequests reads the open comment counts of a whole list of
// change requests in one statement, and who merged them in one batch,
// before a REST list presents them one after another: each presenter then
// finds its count and merger cached. Their spaces and authors come with
// the list's own reads (showChangeRequests).
func (r *Resolver) PrimeChangeRequests(ctx context.Context, crs []*ent.ChangeRequest) error {
	ids := make([]string, len(crs))
	var mergers []string
	for i, cr := range crs {
		ids[i] = cr.ID
		if cr.MergedBy != nil && *cr.MergedBy != "" {
			mergers = append(mergers, *cr.MergedBy)
		}
	}
	l := loader.For(ctx)
	// Who merged them, in one batch (OptionalUser answers from it).
	merged := l.UserByID.LoadMany(ctx, mergers)
	err := l.PrimeChangeRequestOpenComments(ctx, ids)
	merged()
	return err
}

// Outdated tells whether the space moved on since the change request was
// created or last updated from it.
func (r *Resolver) Outdated(ctx context.Context, cr *ent.ChangeRequest) (bool, error) {
	if cr.Status == changerequest.StatusMerged || cr.Status == changerequest.StatusArchived {
		return false, nil
	}
	s, err := loader.For(ctx).SpaceByID.Load(ctx, cr.SpaceID)()
	if err != nil {
		return false, err
	}
	return s.RevisionID != cr.RevisionMergedAncestor, nil
}

// ChangeRequestURLs are the `urls` of a change request.
func (r *Resolver) ChangeRequestURLs(cr *ent.ChangeRequest) *model.ChangeRequestURLs {
	// Folio has no app of its own: `app` (required by the reference) is
	// the API location, the one address that answers.
	loc := r.BaseURL + "/v1/spaces/" + cr.SpaceID + "/change-requests/" + cr.ID
	return &model.ChangeRequestURLs{Location: loc, App: loc}
}

// MergeChangeRequest merges a change request into its space: a three-way
// merge of the change request's content with the space's, from their last
// common revision. A clean merge makes a merge revision the space's content
// and marks the change request merged; conflicts change nothing (409).
func (r *Resolver) MergeChangeRequest(ctx context.Context, spaceID, id string) (*model.MergeResult, error) {
	s, cr, err := r.editableChangeRequest(ctx, spaceID, id)
	if err != nil {
		return nil, err
	}
	verdict, err := r.checkMergeable(ctx, s, cr)
	if err != nil {
		return nil, err
	}
	merged, err := r.threeWay(ctx, cr.RevisionMergedAncestor, s.RevisionID, cr.RevisionID)
	if err != nil {
		return nil, err
	}
	moved, err := r.mergeMovedPages(ctx, spaceID, s.RevisionID, merged)
	if err != nil {
		return nil, err
	}
	var rev *ent.Revision
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if rev, err = merged.write(ctx, tx, r.Dialect, spaceID, revision.TypeMerge, []string{s.RevisionID, cr.RevisionID}, auth.ViewerID(ctx)); err != nil {
			return err
		}
		if _, err := moveSpaceRevision(ctx, tx, s, rev.ID); err != nil {
			return err
		}
		if err := r.redirectMovedPages(ctx, tx, spaceID, moved); err != nil {
			return err
		}
		if err := r.reindex(ctx, tx, spaceID, merged.before(), merged); err != nil {
			return err
		}
		n, err := tx.ChangeRequest.Update().
			Where(changerequest.ID(cr.ID), changerequest.RevisionID(cr.RevisionID), changerequest.StatusIn(changerequest.StatusOpen, changerequest.StatusDraft)).
			SetStatus(changerequest.StatusMerged).SetRevisionMerged(rev.ID).
			SetMergedBy(auth.ViewerID(ctx)).SetMergedAt(rev.CreatedAt).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflictf("the change request changed while it was merged: retry")
		}
		payload := map[string]any{"number": cr.Number, "revisionId": rev.ID}
		if verdict.Bypassed {
			// Merged by an allow_bypass user although rules failed: the
			// audit log says which.
			payload["bypassed"] = true
			payload["bypassedRules"] = bypassedRules(verdict)
		}
		record(ctx, changeRequestEvent(events.ChangeRequestMerged, s.OrganizationID, cr, payload))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, spaceID)
	return &model.MergeResult{Revision: rev.ID, Result: model.MergeResultMerge}, nil
}

// UpdateChangeRequestFromMain brings the space's changes into a change
// request by the same three-way rule; afterwards it is no longer outdated.
func (r *Resolver) UpdateChangeRequestFromMain(ctx context.Context, spaceID, id string) (*model.MergeResult, error) {
	s, cr, err := r.editableChangeRequest(ctx, spaceID, id)
	if err != nil {
		return nil, err
	}
	if s.RevisionID == cr.RevisionMergedAncestor {
		return &model.MergeResult{Revision: cr.RevisionID, Result: model.MergeResultUpdate}, nil
	}
	merged, err := r.threeWay(ctx, cr.RevisionMergedAncestor, cr.RevisionID, s.RevisionID)
	if err != nil {
		return nil, err
	}
	var rev *ent.Revision
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if rev, err = merged.write(ctx, tx, r.Dialect, spaceID, revision.TypeUpdate, []string{cr.RevisionID, s.RevisionID}, auth.ViewerID(ctx)); err != nil {
			return err
		}
		n, err := tx.ChangeRequest.Update().
			Where(changerequest.ID(cr.ID), changerequest.RevisionID(cr.RevisionID)).
			SetRevisionID(rev.ID).SetRevisionMergedAncestor(s.RevisionID).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflictf("the change request changed while it was updated: retry")
		}
		record(ctx, changeRequestEvent(events.ChangeRequestUpdatedFromMain, s.OrganizationID, cr,
			map[string]any{"number": cr.Number, "revisionId": rev.ID, "baseRevisionId": s.RevisionID}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &model.MergeResult{Revision: rev.ID, Result: model.MergeResultUpdate}, nil
}
