package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Event is the record of one change, written by the write's own
// transaction through graph's one hook (graph/events.go): the audit log,
// GraphQL subscriptions and webhooks all read these rows, so a write that
// rolls back leaves none and every instance sees the same events.
//
// Ids are UUIDv7: they sort by time, so the newest-first audit log, the
// resume point of a subscription (`after`, Last-Event-ID) and the webhook
// dispatcher's cursor all seek the primary key's order.
type Event struct{ ent.Schema }

func (Event) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.Time("occurred_at").Immutable(),
		// Empty for a change outside any organization (a user's own API
		// token); such events reach subscribers and webhooks of no one.
		field.String("organization_id").Optional().Immutable(),
		field.String("action").Immutable().NotEmpty(),
		field.String("source").Immutable().NotEmpty(),
		field.String("actor_type").Immutable().NotEmpty(),
		field.String("actor_id").Immutable().NotEmpty(),
		field.String("actor_label").Optional().Immutable(),
		field.String("target_type").Immutable().NotEmpty(),
		field.String("target_id").Immutable().NotEmpty(),
		field.String("target_label").Optional().Immutable(),
		// What subscriptions filter on: the space and change request the
		// change happened in, when it did.
		field.String("space_id").Optional().Immutable(),
		field.String("change_request_id").Optional().Immutable(),
		// The request id of the request that made the change (jobs: their
		// job id), shared by every event of one request.
		field.String("correlation_id").Optional().Immutable(),
		field.Int("schema_version").Default(1).Immutable(),
		// Allow-listed details (internal/events.PayloadKeys): never a
		// secret, never a body.
		field.JSON("payload", map[string]any{}).Optional().Immutable(),
	}
}

func (Event) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "id"),
		index.Fields("organization_id", "action", "id"),
		index.Fields("organization_id", "actor_id", "id"),
		index.Fields("organization_id", "target_id", "id"),
		index.Fields("space_id", "id"),
		index.Fields("occurred_at"),
	}
}
