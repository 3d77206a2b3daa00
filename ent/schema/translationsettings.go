package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// TranslationSettings configures the translation of an organization's
// content into languages.
type TranslationSettings struct{ ent.Schema }

func (TranslationSettings) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (TranslationSettings) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("title").Validate(length(1, 100)),
		field.Strings("languages").Default([]string{}),
	}
}

func (TranslationSettings) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("translations").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (TranslationSettings) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at")}
}
