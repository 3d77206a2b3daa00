package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
)

// EmailToken is a link Folio mailed to a user: one that verifies their
// address or one that sets a new password. As for sessions, only the
// SHA-256 of the link's secret is stored; a link works once and until
// expires_at.
type EmailToken struct{ ent.Schema }

func (EmailToken) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (EmailToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("purpose").Values("verify_email", "reset_password").Immutable(),
		// The address the link was mailed to: a verification proves this
		// address only (not one the user changed to since).
		field.String("email").Immutable().MaxLen(320),
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Time("created_at").Default(clock.Now).Immutable(),
		field.Time("expires_at").Immutable(),
	}
}

func (EmailToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("email_tokens").Field("user_id").Unique().Required().Immutable(),
	}
}

func (EmailToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "purpose")}
}
