package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/fetch"
)

// Webhook is an endpoint of an organization that receives its events,
// signed with the webhook's secret (Standard Webhooks, internal/webhook).
// The secret is sealed at rest (internal/secrets: WebhookSecret) and shown
// once, when the webhook is created.
type Webhook struct{ ent.Schema }

func (Webhook) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Webhook) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable().NotEmpty(),
		field.String("url").Validate(all(length(1, 2048), fetch.CheckURL)),
		// Action ids of the events catalog, or "*" for all.
		field.JSON("events", []string{}),
		field.String("description").Optional().Validate(length(0, 500)),
		field.Bool("active").Default(true),
		field.String("secret_sealed").StorageKey("secret").Sensitive(),
		field.String("created_by").Optional(),
		// The first failed attempt since the last success: an endpoint
		// failing for FOLIO_WEBHOOK_DISABLE_AFTER is disabled.
		field.Time("failing_since").Optional().Nillable(),
		// When the dispatcher disabled the webhook (active false).
		field.Time("disabled_at").Optional().Nillable(),
	}
}

func (Webhook) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at", "id")}
}

// WebhookAttempt is one attempt of a delivery, as the deliveries list
// shows it.
type WebhookAttempt struct {
	Sequence   int       `json:"sequence"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMs int64     `json:"durationMs"`
}

// WebhookDelivery is the sending of one event to one webhook: a record of
// sending, written under events.ExemptDelivery. (webhook_id, event_id) is
// unique, so an event the dispatcher sees twice is delivered once.
type WebhookDelivery struct{ ent.Schema }

func (WebhookDelivery) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.String("webhook_id").Immutable().NotEmpty(),
		field.String("organization_id").Immutable().NotEmpty(),
		field.String("event_id").Immutable().NotEmpty(),
		field.String("action").Immutable().NotEmpty(),
		// pending (an attempt is due), succeeded, dead (every attempt of
		// the sequence failed).
		field.Enum("state").Values("pending", "succeeded", "dead").Default("pending"),
		// Sequence counts the attempt sequences: 1, then one more per
		// redelivery; attempts are those of the current sequence.
		field.Int("sequence").Default(1),
		field.Int("attempts").Default(0),
		field.Int("last_status_code").Optional().Nillable(),
		field.String("last_error").Optional(),
		field.Time("next_attempt_at").Optional().Nillable(),
		field.JSON("attempt_log", []WebhookAttempt{}).Optional(),
	}
}

func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("webhook_id", "event_id").Unique(),
		index.Fields("webhook_id", "created_at", "id"),
	}
}

// WebhookCursor is the dispatcher's place in the events table: the id of
// the last event fanned out. One row ("events"), updated under a row lock
// so each event is fanned out by one instance.
type WebhookCursor struct{ ent.Schema }

func (WebhookCursor) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("last_event_id").Default(""),
		field.Time("updated_at").Optional().Nillable(),
	}
}
