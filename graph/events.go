package graph

import (
	"context"
	"fmt"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// Notifier learns the ids of events once their write has committed (the
// subscription hub and the webhook dispatcher of this instance; other
// instances learn through the database).
type Notifier interface {
	Committed(ids []string)
}

// write is the one hook every write goes through: it runs fn in one
// transaction and inserts, in that transaction, the events fn added with
// record (one statement, whatever their number; on PostgreSQL a trigger
// on the events table sends the NOTIFY). A write that fails records
// nothing; a write that changed rows but recorded nothing is refused
// (events.Guard counts its mutations). Every ent mutation must be made
// through the tx and the ctx fn is given.
func (r *Resolver) write(ctx context.Context, fn func(ctx context.Context, tx *ent.Client) error) error {
	ctx, scope := events.Begin(ctx)
	var ids []string
	err := r.withTx(ctx, func(tx *ent.Client) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		var err error
		ids, err = r.insertEvents(ctx, tx, scope)
		return err
	})
	if err == nil && len(ids) > 0 && r.Events != nil {
		r.Events.Committed(ids)
	}
	return err
}

// record adds an event to the write of ctx (Resolver.write).
func record(ctx context.Context, e events.Event) { events.Add(ctx, e) }

// insertEvents stores the scope's events in tx.
func (r *Resolver) insertEvents(ctx context.Context, tx *ent.Client, scope *events.Scope) ([]string, error) {
	evs := scope.Events()
	if len(evs) == 0 {
		if scope.Writes() > 0 && events.Enforce.Load() {
			return nil, fmt.Errorf("a write changed %d rows but recorded no event (graph.record)", scope.Writes())
		}
		return nil, nil
	}
	recs, err := events.Complete(ctx, clock.Now(), evs)
	if err != nil {
		return nil, err
	}
	creates := make([]*ent.EventCreate, len(recs))
	ids := make([]string, len(recs))
	for i, rec := range recs {
		ids[i] = rec.ID
		creates[i] = tx.Event.Create().SetID(rec.ID).SetOccurredAt(rec.OccurredAt).
			SetOrganizationID(rec.OrganizationID).SetAction(rec.Action).
			SetSource(rec.Origin.Source).SetActorType(rec.Origin.Actor.Type).
			SetActorID(rec.Origin.Actor.ID).SetActorLabel(rec.Origin.Actor.Label).
			SetTargetType(rec.Target.Type).SetTargetID(rec.Target.ID).SetTargetLabel(rec.Target.Label).
			SetSpaceID(rec.SpaceID).SetChangeRequestID(rec.ChangeRequestID).
			SetCorrelationID(rec.CorrelationID).SetPayload(rec.Payload)
	}
	if err := tx.Event.CreateBulk(creates...).Exec(ctx); err != nil {
		return nil, fmt.Errorf("record events: %w", err)
	}
	return ids, nil
}
