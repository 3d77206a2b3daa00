package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/access"
)

// Invite is an organization invite link: whoever holds its id may join the
// organization with its role.
type Invite struct{ ent.Schema }

func (Invite) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Invite) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.Enum("role").GoType(access.Role("")),
		field.String("created_by").Optional().Immutable(),
		// Set on an invitation mailed to one address
		// (inviteUsersToOrganization): only the user with that email may
		// accept it, once, whatever the inviteLinks setting. Lower-cased.
		// Such invites are not invite links and are not listed as ones.
		field.String("email").Optional().Nillable().Immutable().Validate(length(3, 320)),
	}
}

func (Invite) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("invites").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (Invite) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "created_at", "id"),
		// One invitation per address and organization (links, without an
		// email, are not concerned: NULLs do not collide).
		index.Fields("organization_id", "email").Unique(),
	}
}
