package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
)

// UpdateChangeRequestContent applies a batch of changes to a change
// request's content and makes the result its new revision, all or nothing.
func (r *Resolver) UpdateChangeRequestContent(ctx context.Context, spaceID, id string, changes []*model.ContentChangeInput) (*ent.ChangeRequest, error) {
	s, cr, err := r.editableChangeRequest(ctx, spaceID, id)
	if err != nil {
		return nil, err
	}
	d, err := newDraft(ctx, cr.RevisionID)
	if err != nil {
		return nil, err
	}
	if err := r.applyChanges(ctx, d, changes); err != nil {
		return nil, err
	}
	d.changeRequest = cr.ID
	var updated *ent.ChangeRequest
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		rev, err := d.write(ctx, tx, r.Dialect, spaceID, revision.TypeEdits, []string{cr.RevisionID}, auth.ViewerID(ctx))
		if err != nil {
			return err
		}
		// Only if nobody moved the change request on meanwhile.
		n, err := tx.ChangeRequest.Update().
			Where(changerequest.ID(cr.ID), changerequest.RevisionID(cr.RevisionID)).
			SetRevisionID(rev.ID).AddEdits(1).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflictf("the change request changed while this batch was applied: retry")
		}
		if updated, err = tx.ChangeRequest.Get(ctx, cr.ID); err != nil {
			return err
		}
		record(ctx, changeRequestEvent(events.ChangeRequestContentUpdated, s.OrganizationID, updated,
			map[string]any{"number": updated.Number, "revisionId": rev.ID, "changes": len(changes)}))
		return nil
	})
	return updated, err
}

// UpdateSpaceContent applies a batch of changes directly to a space in live
// edit mode, all or nothing. Locked spaces answer 423, spaces edited only
// through change requests 409.
func (r *Resolver) UpdateSpaceContent(ctx context.Context, spaceID string, changes []*model.ContentChangeInput) (*ent.Space, error) {
	s, err := unlockedSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	if s.EditMode == nil || *s.EditMode != space.EditModeLive {
		return nil, apperr.Conflictf("the space is edited through change requests: set editMode to live to edit it directly")
	}
	d, err := newDraft(ctx, s.RevisionID)
	if err != nil {
		return nil, err
	}
	if err := r.applyChanges(ctx, d, changes); err != nil {
		return nil, err
	}
	var updated *ent.Space
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		rev, err := d.write(ctx, tx, r.Dialect, spaceID, revision.TypeEdits, []string{s.RevisionID}, auth.ViewerID(ctx))
		if err != nil {
			return err
		}
		if updated, err = moveSpaceRevision(ctx, tx, s, rev.ID); err != nil {
			return err
		}
		if err := r.reindex(ctx, tx, spaceID, d.before(), d); err != nil {
			return err
		}
		record(ctx, spaceEvent(events.SpaceContentUpdated, updated, map[string]any{"revisionId": rev.ID, "changes": len(changes)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, spaceID).Prime(ctx, spaceID, updated)
	return updated, nil
}

// moveChangeRequestRevision points an import's change request at rev,
// provided it is still at the revision the import started from (409
// otherwise: retry).
func moveChangeRequestRevision(ctx context.Context, tx *ent.Client, cr *ent.ChangeRequest, rev string) error {
	n, err := tx.ChangeRequest.Update().Where(changerequest.ID(cr.ID), changerequest.RevisionID(cr.RevisionID)).
		SetRevisionID(rev).AddEdits(1).Save(ctx)
	if err == nil && n == 0 {
		err = apperr.Conflictf("the change request changed during the import: retry")
	}
	return err
}

// moveSpaceRevision points the space at rev, provided the space is still
// at the revision the caller started from (409 otherwise: retry).
func moveSpaceRevision(ctx context.Context, tx *ent.Client, s *ent.Space, rev string) (*ent.Space, error) {
	n, err := tx.Space.Update().Where(space.ID(s.ID), space.RevisionID(s.RevisionID)).SetRevisionID(rev).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apperr.Conflictf("the space's content changed meanwhile: retry")
	}
	return tx.Space.Get(ctx, s.ID)
}
