package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/access"
)

// Grant shares one object (a space, a collection or a site) with one
// principal (a user or a team) of the object's organization, with a role.
// Grants only raise a role (internal/access.Effective). The object and the
// principal are kinds and ids rather than edges: one table answers "every
// grant on this space and the collections above it" with one IN list, and
// "every grant to this user and their teams" with one seek. Whatever
// removes an object, a team or a membership removes its grants in the same
// transaction (graph/sharing_cleanup.go).
type Grant struct{ ent.Schema }

func (Grant) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Grant) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id"),
		field.Enum("object_kind").Values("space", "collection", "site"),
		field.String("object_id"),
		field.Enum("principal_kind").Values("user", "team"),
		field.String("principal_id"),
		field.Enum("role").GoType(access.Role("")),
		field.String("granted_by").Optional().Nillable(),
	}
}

func (Grant) Indexes() []ent.Index {
	return []ent.Index{
		// One grant per principal and object; also the seek of an object's
		// grants (its lists and aggregate), in principal order.
		index.Fields("object_id", "principal_kind", "principal_id").Unique(),
		// A caller's grants in an organization: their own and their teams'.
		index.Fields("principal_id", "organization_id"),
		index.Fields("organization_id", "object_kind"),
	}
}
