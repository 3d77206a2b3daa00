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
	}
}

func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("tokens").Field("user_id").Unique().Required().Immutable(),
	}
}
