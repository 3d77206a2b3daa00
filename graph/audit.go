package graph

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// The audit log: an organization's events (graph/events.go writes them),
// read by its admins only. Ids are UUIDv7, so the newest-first order is the
// primary key's, and a page is a seek on the indexes (organization_id, …,
// id) of the events table whatever filter of action, actor or target it
// uses.

// JobAuditRetention is the kind of the periodic job that deletes events
// older than the retention (FOLIO_AUDIT_RETENTION).
const JobAuditRetention = "audit-retention"

// Audit log page sizes (GitBook's listOrganizationAuditEvents: limit 1–100,
// default 20).
const (
	AuditDefaultLimit = 20
	AuditMaxLimit     = 100
)

// AuditFilter is an audit log query's filters: exact matches, combined;
// From and To bound occurred_at inclusively. Nil or empty: no filter.
type AuditFilter struct {
	Action, Actor, Target *string
	From, To              *time.Time
}

// AuditPage is how to page through the log: Limit events after After
// (older) or, Backward, before After (newer), newest first either way.
type AuditPage struct {
	Limit    int
	After    *paging.Cursor
	Backward bool
}

// AuditPageArgs validates page arguments of the audit log; names are the
// arguments' names for errors (REST: limit/page; GraphQL: first/after,
// last/before).
func AuditPageArgs(limit *int, after *string, limitName, afterName string, backward bool) (AuditPage, error) {
	p := AuditPage{Limit: AuditDefaultLimit, Backward: backward}
	if limit != nil {
		if *limit < 1 || *limit > AuditMaxLimit {
			return p, apperr.InvalidField(limitName, "must be between 1 and %d", AuditMaxLimit)
		}
		p.Limit = *limit
	}
	if after != nil && *after != "" {
		c, err := paging.DecodeCursor(*after)
		if err != nil {
			return p, apperr.InvalidField(afterName, "is not a valid page cursor")
		}
		p.After = c
	}
	return p, nil
}

// OrganizationAuditEventActions is the catalog of actions (admins only).
func (r *Resolver) OrganizationAuditEventActions(ctx context.Context, orgID string) ([]events.Action, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	return events.Actions(), nil
}

// OrganizationAuditEvents is a page of orgID's events, newest first (admins only).
// count is that of every event matching the filters: one COUNT over the
// same index range the page seeks.
func (r *Resolver) OrganizationAuditEvents(ctx context.Context, orgID string, f AuditFilter, p AuditPage) (paging.Page[*ent.Event], error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return paging.Page[*ent.Event]{}, err
	}
	where := []predicate.Event{event.OrganizationID(orgID)}
	if f.Action != nil && *f.Action != "" {
		where = append(where, event.ActionEQ(*f.Action))
	}
	if f.Actor != nil && *f.Actor != "" {
		where = append(where, event.ActorID(*f.Actor))
	}
	if f.Target != nil && *f.Target != "" {
		where = append(where, event.TargetID(*f.Target))
	}
	if f.From != nil {
		where = append(where, event.OccurredAtGTE(f.From.UTC()))
	}
	if f.To != nil {
		where = append(where, event.OccurredAtLTE(f.To.UTC()))
	}
	q := r.Client.Event.Query().Where(where...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return paging.Page[*ent.Event]{}, err
	}
	key := func(e *ent.Event) paging.Cursor { return paging.Cursor{ID: e.ID} }
	if p.Backward {
		// The newer events just before the cursor: read oldest first from
		// it, then turned back to newest first.
		if p.After != nil {
			q.Where(event.IDGT(p.After.ID))
		}
		rows, err := q.Order(ent.Asc(event.FieldID)).Limit(p.Limit + 1).All(ctx)
		if err != nil {
			return paging.Page[*ent.Event]{}, err
		}
		more := len(rows) > p.Limit
		if more {
			rows = rows[:p.Limit]
		}
		slices.Reverse(rows)
		page := paging.Cut(paging.Args{Limit: p.Limit}, rows, total, key)
		// Backward, "more" lies before the page, and after it lies at
		// least the cursor's event.
		page.HasPrevious, page.Next = more, nil
		if p.After != nil && len(page.Cursors) > 0 {
			page.Next = &page.Cursors[len(page.Cursors)-1]
		}
		return page, nil
	}
	if p.After != nil {
		q.Where(event.IDLT(p.After.ID))
	}
	rows, err := q.Order(ent.Desc(event.FieldID)).Limit(p.Limit + 1).All(ctx)
	if err != nil {
		return paging.Page[*ent.Event]{}, err
	}
	return paging.Cut(paging.Args{Limit: p.Limit, After: p.After}, rows, total, key), nil
}

// OrganizationAuditEvent is one event of orgID (admins only). An id that is not a
// UUID, or an event of another organization, is not found.
func (r *Resolver) OrganizationAuditEvent(ctx context.Context, orgID, id string) (*ent.Event, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	if _, err := uuid.Parse(id); err != nil {
		return nil, apperr.NotFoundf("audit event %s not found", id)
	}
	e, err := r.Client.Event.Query().Where(event.ID(id), event.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("audit event %s not found", id)
	}
	return e, err
}

// AuditEventLocation is the API URL of an event.
func (r *Resolver) AuditEventLocation(e *ent.Event) string {
	return r.BaseURL + "/v1/orgs/" + e.OrganizationID + "/audit-events/" + e.ID
}

// auditRetentionBatch is how many events one statement of the retention
// job deletes: short statements, so writers recording events are never
// held up long by the retention's locks.
const auditRetentionBatch = 1000

// PurgeExpiredEvents deletes the events that occurred before now minus
// retention, in keyset batches of ids (oldest first), checking ctx between
// them; it answers how many it deleted. The deletion records nothing (it
// removes what is already past keeping: events.ExemptMaintenance).
func (r *Resolver) PurgeExpiredEvents(ctx context.Context, retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	ctx = events.Exempt(ctx, events.ExemptMaintenance)
	cutoff := clock.Now().Add(-retention)
	deleted := 0
	for after := ""; ; {
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		// By id, the primary key; occurred_at (indexed) picks the expired
		// ones. UUIDv7 ids follow time, so the expired events are mostly
		// the first ids and the walk stops at the first batch with none.
		ids, err := r.Client.Event.Query().Where(event.IDGT(after), event.OccurredAtLT(cutoff)).
			Order(ent.Asc(event.FieldID)).Limit(auditRetentionBatch).IDs(ctx)
		if err != nil || len(ids) == 0 {
			return deleted, err
		}
		after = ids[len(ids)-1]
		n, err := r.Client.Event.Delete().Where(event.IDIn(ids...)).Exec(ctx)
		deleted += n
		if err != nil {
			return deleted, err
		}
	}
}

// auditPayload is an event's payload, an empty object when it has none.
func auditPayload(e *ent.Event) map[string]any {
	if e.Payload == nil {
		return map[string]any{}
	}
	return e.Payload
}
