package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Team groups members of one organization.
type Team struct{ ent.Schema }

func (Team) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("title").Validate(length(1, 64)),
	}
}

func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("teams").Field("organization_id").Unique().Required().Immutable(),
		edge.To("members", TeamMember.Type),
		edge.To("saml_providers", SAMLProvider.Type),
	}
}

func (Team) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at", "id")}
}

// TeamMember puts a user (a member of the team's organization) in a team as
// an owner (manages the team's members) or a member.
type TeamMember struct{ ent.Schema }

func (TeamMember) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (TeamMember) Fields() []ent.Field {
	return []ent.Field{
		field.String("team_id").Immutable(),
		field.String("user_id").Immutable(),
		field.Enum("role").Values("owner", "member").Default("member"),
	}
}

func (TeamMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("members").Field("team_id").Unique().Required().Immutable(),
		edge.From("user", User.Type).Ref("team_memberships").Field("user_id").Unique().Required().Immutable(),
	}
}

func (TeamMember) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "user_id").Unique(),
		index.Fields("user_id"),
		// Keyset paging of a team's members: (created_at, id) is the order and the cursor.
		index.Fields("team_id", "created_at", "id"),
	}
}
