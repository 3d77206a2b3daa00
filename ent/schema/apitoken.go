package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// APIToken authenticates a user. Only the SHA-256 of the token is stored: the
// token itself is shown once, when created.
type APIToken struct{ ent.Schema }

func (APIToken) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (APIToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("hash").Unique().Immutable().Sensitive(),
		field.String("name").Default("").MaxLen(255),
		field.String("user_id").Immutable(),
		// expires_at: no authentication after it (nil: never expires).
		field.Time("expires_at").Optional().Nillable().Immutable(),
		// last_used_at: touched at most once a minute (telemetry).
		field.Time("last_used_at").Optional().Nillable(),
	}
}

func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("tokens").Field("user_id").Unique().Required().Immutable(),
	}
}
