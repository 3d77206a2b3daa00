package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/schema"
	"github.com/folio/folio/ent/webhook"
	"github.com/folio/folio/ent/webhookdelivery"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/secrets"
	wh "github.com/folio/folio/internal/webhook"
)

// Sending events to webhooks.
//
// The dispatcher (WebhookDispatcher, one per instance) fans events out:
// under the row lock of the one cursor row it reads the events after the
// cursor, makes a delivery per matching active webhook of the event's
// organization and queues one job per delivery (JobWebhookDelivery), then
// moves the cursor, all in one transaction, so each event is fanned out
// once across instances. Events commit in an order their ids (taken before
// commit) need not follow, so each pass also looks back WebhookLookback
// before the cursor; the unique (webhook_id, event_id) of deliveries keeps
// a late event from being delivered twice. A webhook receives the events
// that occurred after it was created.
//
// A delivery job sends one attempt (internal/webhook: Standard Webhooks
// signature, through the guarded fetcher) and records it on the delivery;
// a failure is retried by the job runner after its backoff, doubling, until
// the last attempt leaves the delivery dead. Redelivery starts a new
// sequence with a new job. A webhook failing without a success for
// DisableAfter is disabled (webhook.disabled, by the system).

// JobWebhookDelivery is the job kind of one delivery's attempt sequence.
const JobWebhookDelivery = "webhook.delivery"

// WebhookLookback is how far before the cursor each pass looks for events
// committed late.
const WebhookLookback = 10 * time.Second

const webhookBatch = 500

// WebhookSettings bound the sending.
type WebhookSettings struct {
	// Timeout bounds one attempt.
	Timeout time.Duration
	// DisableAfter is how long an endpoint may fail without a success
	// before it is disabled.
	DisableAfter time.Duration
}

func deliveryJobID(deliveryID string, sequence int) string {
	return "whd_" + deliveryID + "_" + strconv.Itoa(sequence)
}

// DispatchWebhookEvents fans out the events after the cursor; it answers
// how many deliveries it made.
func (r *Resolver) DispatchWebhookEvents(ctx context.Context) (int, error) {
	hooks, err := r.Client.Webhook.Query().Where(webhook.Active(true)).All(ctx)
	if err != nil || len(hooks) == 0 {
		return 0, err
	}
	byOrg := map[string][]*ent.Webhook{}
	for _, w := range hooks {
		byOrg[w.OrganizationID] = append(byOrg[w.OrganizationID], w)
	}
	orgs := make([]string, 0, len(byOrg))
	for o := range byOrg {
		orgs = append(orgs, o)
	}
	ctx = events.Exempt(ctx, events.ExemptDelivery)
	made := 0
	err = r.withTx(ctx, func(tx *ent.Client) error {
		if _, err := tx.ExecContext(ctx, db.Numbered(r.Dialect, `INSERT INTO webhook_cursors (id, last_event_id) VALUES (?, '') ON CONFLICT (id) DO NOTHING`), "events"); err != nil {
			return err
		}
		lock := ""
		if r.Dialect == "postgres" {
			lock = " FOR UPDATE"
		}
		rows, err := tx.QueryContext(ctx, db.Numbered(r.Dialect, `SELECT last_event_id FROM webhook_cursors WHERE id = ?`+lock), "events")
		if err != nil {
			return err
		}
		var cursor string
		if rows.Next() {
			err = rows.Scan(&cursor)
		}
		rows.Close()
		if err != nil {
			return err
		}
		fresh, err := tx.Event.Query().Where(event.IDGT(cursor), event.OrganizationIDIn(orgs...)).
			Order(ent.Asc(event.FieldID)).Limit(webhookBatch).All(ctx)
		if err != nil {
			return err
		}
		var late []*ent.Event
		if cursor != "" {
			late, err = tx.Event.Query().Where(event.IDGT(v7Floor(clock.Now().Add(-WebhookLookback))), event.IDLTE(cursor),
				event.OrganizationIDIn(orgs...)).Order(ent.Asc(event.FieldID)).Limit(webhookBatch).All(ctx)
			if err != nil {
				return err
			}
		}
		all := append(late, fresh...)
		if len(all) == 0 {
			return nil
		}
		ids := make([]string, len(all))
		for i, e := range all {
			ids[i] = e.ID
		}
		// Deliveries made already (late events seen by an earlier pass).
		have := map[string]bool{}
		existing, err := tx.WebhookDelivery.Query().Where(webhookdelivery.EventIDIn(ids...)).
			Select(webhookdelivery.FieldWebhookID, webhookdelivery.FieldEventID).All(ctx)
		if err != nil {
			return err
		}
		for _, d := range existing {
			have[d.WebhookID+" "+d.EventID] = true
		}
		for _, e := range all {
			for _, w := range byOrg[e.OrganizationID] {
				if have[w.ID+" "+e.ID] || e.OccurredAt.Before(w.CreatedAt) || !subscribed(w, e.Action) {
					continue
				}
				d, err := tx.WebhookDelivery.Create().SetWebhookID(w.ID).SetOrganizationID(w.OrganizationID).
					SetEventID(e.ID).SetAction(e.Action).SetNextAttemptAt(clock.Now()).Save(ctx)
				if err != nil {
					return err
				}
				if err := r.enqueueDelivery(ctx, tx, d); err != nil {
					return err
				}
				made++
			}
		}
		if len(fresh) > 0 {
			_, err = tx.ExecContext(ctx, db.Numbered(r.Dialect, `UPDATE webhook_cursors SET last_event_id = ?, updated_at = ? WHERE id = ?`),
				fresh[len(fresh)-1].ID, clock.Now(), "events")
		}
		return err
	})
	if made > 0 && r.Jobs != nil {
		r.Jobs.Wake()
	}
	return made, err
}

// v7Floor is the smallest UUIDv7 of millisecond t: ids compare as text in
// time order.
func v7Floor(t time.Time) string {
	ms := uint64(t.UnixMilli())
	return fmt.Sprintf("%08x-%04x-0000-0000-000000000000", ms>>16, ms&0xffff)
}

func subscribed(w *ent.Webhook, action string) bool {
	return slices.Contains(w.Events, WebhookWildcard) || slices.Contains(w.Events, action)
}

// WebhookMessage is the body a webhook receives.
type WebhookMessage struct {
	ID        string           `json:"id"`
	Type      string           `json:"type"`
	Timestamp string           `json:"timestamp"`
	Data      WebhookEventData `json:"data"`
}

// WebhookEventData is the event, in AuditEvent's shape.
type WebhookEventData struct {
	ID              string         `json:"id"`
	Action          string         `json:"action"`
	OccurredAt      string         `json:"occurredAt"`
	Source          string         `json:"source"`
	Actor           map[string]any `json:"actor"`
	Target          map[string]any `json:"target"`
	Payload         map[string]any `json:"payload"`
	OrganizationID  string         `json:"organizationId"`
	SpaceID         string         `json:"spaceId,omitempty"`
	ChangeRequestID string         `json:"changeRequestId,omitempty"`
}

func webhookBody(e *ent.Event) ([]byte, error) {
	p := e.Payload
	if p == nil {
		p = map[string]any{}
	}
	return json.Marshal(WebhookMessage{
		ID: e.ID, Type: e.Action, Timestamp: e.OccurredAt.UTC().Format(time.RFC3339Nano),
		Data: WebhookEventData{
			ID: e.ID, Action: e.Action, OccurredAt: e.OccurredAt.UTC().Format(time.RFC3339Nano), Source: e.Source,
			Actor:          map[string]any{"type": e.ActorType, "id": e.ActorID, "label": e.ActorLabel},
			Target:         map[string]any{"type": e.TargetType, "id": e.TargetID, "label": e.TargetLabel},
			Payload:        p,
			OrganizationID: e.OrganizationID, SpaceID: e.SpaceID, ChangeRequestID: e.ChangeRequestID,
		},
	})
}

// DeliverWebhook is the job of one delivery's attempt sequence: it sends
// one attempt and records it.
func (r *Resolver) DeliverWebhook(ctx context.Context, j jobs.Job) error {
	deliveryID, seqText, _ := strings.Cut(j.Payload, ":")
	seq, _ := strconv.Atoi(seqText)
	ctx = events.Exempt(ctx, events.ExemptDelivery)
	d, err := r.Client.WebhookDelivery.Get(ctx, deliveryID)
	if ent.IsNotFound(err) {
		return nil // its webhook was deleted
	}
	if err != nil {
		return jobs.Retry(err)
	}
	if d.Sequence != seq || d.State != webhookdelivery.StatePending {
		return nil // a redelivery replaced this sequence
	}
	w, err := r.Client.Webhook.Get(ctx, d.WebhookID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return jobs.Retry(err)
	}
	if !w.Active {
		_, err := r.Client.WebhookDelivery.UpdateOne(d).SetState(webhookdelivery.StateDead).
			SetLastError("the webhook is disabled").ClearNextAttemptAt().Save(ctx)
		return err
	}
	e, err := r.Client.Event.Get(ctx, d.EventID)
	if ent.IsNotFound(err) {
		_, err := r.Client.WebhookDelivery.UpdateOne(d).SetState(webhookdelivery.StateDead).
			SetLastError("the event is gone (retention)").ClearNextAttemptAt().Save(ctx)
		return err
	}
	if err != nil {
		return jobs.Retry(err)
	}
	body, err := webhookBody(e)
	if err != nil {
		return err
	}
	secret, err := r.WebhookSecret(w)
	if err != nil {
		return err
	}
	f := r.Fetcher
	f.Timeout = r.WebhookSettings.Timeout
	now := clock.Now()
	res := wh.Send(ctx, f, w.URL, secret, wh.Message{ID: e.ID, Time: now, Body: body})
	if ctx.Err() != nil {
		return ctx.Err() // cut by shutdown: the job runs again
	}
	att := schema.WebhookAttempt{Sequence: d.Sequence, At: now, StatusCode: res.StatusCode, DurationMs: res.Duration.Milliseconds()}
	if res.Err != nil {
		att.Error = res.Err.Error()
	} else if !res.OK() {
		att.Error = fmt.Sprintf("the endpoint answered %d", res.StatusCode)
	}
	u := r.Client.WebhookDelivery.UpdateOne(d).SetAttempts(j.Attempts).AppendAttemptLog([]schema.WebhookAttempt{att}).
		SetLastError(att.Error)
	if res.StatusCode != 0 {
		u.SetLastStatusCode(res.StatusCode)
	} else {
		u.ClearLastStatusCode()
	}
	switch {
	case res.OK():
		u.SetState(webhookdelivery.StateSucceeded).ClearNextAttemptAt()
	case j.Last:
		u.SetState(webhookdelivery.StateDead).ClearNextAttemptAt()
	default:
		u.SetNextAttemptAt(now.Add(r.Jobs.BackoffAfter(j.Kind, j.Attempts)))
	}
	if _, err := u.Save(ctx); err != nil {
		return jobs.Retry(err)
	}
	if err := r.webhookHealth(ctx, w, res.OK(), now); err != nil {
		slog.ErrorContext(ctx, "webhook: cannot record the endpoint's health", "webhook", w.ID, "err", err)
	}
	if res.OK() || j.Last {
		return nil
	}
	return jobs.Retry(errors.New(att.Error))
}

// webhookHealth clears a webhook's failing time after a success, sets it
// at a first failure, and disables the webhook once it has failed for
// DisableAfter.
func (r *Resolver) webhookHealth(ctx context.Context, w *ent.Webhook, ok bool, now time.Time) error {
	switch {
	case ok && w.FailingSince != nil:
		return r.Client.Webhook.UpdateOne(w).ClearFailingSince().Exec(ctx)
	case ok:
		return nil
	case w.FailingSince == nil:
		// Only the first failure sets it: a concurrent one keeps it.
		return r.Client.Webhook.Update().Where(webhook.ID(w.ID), webhook.FailingSinceIsNil()).SetFailingSince(now).Exec(ctx)
	case now.Sub(*w.FailingSince) < r.WebhookSettings.DisableAfter:
		return nil
	}
	since := *w.FailingSince
	// A change of the webhook: recorded, by the system (the job's origin).
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.Webhook.Update().Where(webhook.ID(w.ID), webhook.Active(true)).
			SetActive(false).SetDisabledAt(now).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, webhookEvent(events.WebhookDisabled, w, map[string]any{"failingSince": since.UTC().Format(time.RFC3339)}))
		return nil
	})
}

// WebhookSecret is the signing secret of w.
func (r *Resolver) WebhookSecret(w *ent.Webhook) (string, error) {
	return r.openSecret(secrets.WebhookSecret, w.ID, w.SecretSealed)
}

// WebhookDispatcher runs DispatchWebhookEvents when this instance commits
// events (Committed) and otherwise every Poll; idle, it makes no statement
// between ticks.
type WebhookDispatcher struct {
	Resolver *Resolver
	Poll     time.Duration
	Logger   *slog.Logger
	wake     chan struct{}
}

// NewWebhookDispatcher makes a dispatcher over r.
func NewWebhookDispatcher(r *Resolver, poll time.Duration, logger *slog.Logger) *WebhookDispatcher {
	if poll <= 0 {
		poll = time.Second
	}
	return &WebhookDispatcher{Resolver: r, Poll: poll, Logger: logger, wake: make(chan struct{}, 1)}
}

// Committed wakes the dispatcher (graph.Notifier).
func (d *WebhookDispatcher) Committed([]string) {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run dispatches until stop closes or ctx ends.
func (d *WebhookDispatcher) Run(stop <-chan struct{}, ctx context.Context) {
	t := time.NewTicker(d.Poll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.wake:
		}
		for {
			n, err := d.Resolver.DispatchWebhookEvents(events.WithCorrelationID(ctx, "webhook-dispatch"))
			if err != nil && ctx.Err() == nil {
				d.Logger.Error("webhooks: dispatch failed", "err", err)
			}
			if err != nil || n < webhookBatch {
				break
			}
		}
	}
}

// Notifiers fans Committed out to each of its notifiers.
type Notifiers []Notifier

// Committed tells each notifier.
func (ns Notifiers) Committed(ids []string) {
	for _, n := range ns {
		if n != nil {
			n.Committed(ids)
		}
	}
}
