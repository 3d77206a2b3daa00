package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
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
		// An OAuth access token (graph/oauth.go): the client that obtained
		// it and the grant it belongs to (revoking one ends the other).
		field.String("oauth_client_id").Optional().Nillable().Immutable(),
		field.String("oauth_grant_id").Optional().Nillable().Immutable(),
	}
}

func (APIToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("oauth_grant_id")}
}

func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("tokens").Field("user_id").Unique().Required().Immutable(),
	}
}
