package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// UserIdentity links a user to an account at an identity provider: kind
// "oidc", the provider's name and the subject (the provider's stable id of
// the person, the ID token's sub). A later sign-in through the same
// provider and subject is the same user whatever email it then carries.
type UserIdentity struct{ ent.Schema }

func (UserIdentity) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (UserIdentity) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("kind").Immutable().Validate(length(1, 20)),
		field.String("provider").Immutable().Validate(length(1, 40)),
		field.String("subject").Immutable().Validate(length(1, 255)),
		// The email the provider vouched for when the link was made.
		field.String("email").Validate(length(0, 320)),
	}
}

func (UserIdentity) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("identities").Field("user_id").Unique().Required().Immutable(),
	}
}

func (UserIdentity) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("kind", "provider", "subject").Unique(),
		index.Fields("user_id"),
	}
}
