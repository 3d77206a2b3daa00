package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/clock"
)

// Member ties a user to an organization with a role (nil: guest).
type Member struct{ ent.Schema }

func (Member) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (Member) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("user_id").Immutable(),
		field.Enum("role").GoType(access.Role("")).Optional().Nillable(),
		field.Time("joined_at").Default(clock.Now).Immutable(),
		field.Time("last_seen_at").Optional().Nillable(),
		field.Bool("sso").Default(false),
		field.Bool("disabled").Default(false),
	}
}

func (Member) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("members").Field("organization_id").Unique().Required().Immutable(),
		edge.From("user", User.Type).Ref("memberships").Field("user_id").Unique().Required().Immutable(),
	}
}

func (Member) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "user_id").Unique(),
		index.Fields("user_id"),
		// Keyset paging of an organization's members by either sort: the
		// cursor is (sort column, id), a row value these indexes seek to.
		index.Fields("organization_id", "joined_at", "id"),
		index.Fields("organization_id", "last_seen_at", "id"),
	}
}
