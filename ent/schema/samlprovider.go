package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/access"
)

// SAMLProvider is a SAML identity provider members of an organization sign
// in through.
type SAMLProvider struct{ ent.Schema }

func (SAMLProvider) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SAMLProvider) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("label").Validate(length(1, 30)),
		field.String("sso_url").Optional().Nillable().Validate(length(0, 2048)),
		field.String("entity_id").Optional().Nillable().Validate(length(0, 1024)),
		field.Text("certificate").Optional().Nillable().Validate(length(0, 10000)),
		field.String("default_team_id").Optional().Nillable(),
		field.Enum("default_role").GoType(access.Role("")).Optional().Nillable(),
	}
}

func (SAMLProvider) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("saml_providers").Field("organization_id").Unique().Required().Immutable(),
		edge.From("default_team", Team.Type).Ref("saml_providers").Field("default_team_id").Unique(),
	}
}

func (SAMLProvider) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at")}
}
