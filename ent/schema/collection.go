package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Collection groups spaces and other collections of one organization.
type Collection struct{ ent.Schema }

func (Collection) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Collection) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id"),
		field.String("parent_id").Optional().Nillable(),
		field.String("title").Default("").Validate(length(0, 50)),
		field.String("description").Optional().Nillable().Validate(length(0, 100)),
		field.Enum("default_level").Values(DefaultLevels...).Optional().Nillable(),
		// Order among the siblings of the same parent (ascending). Moves
		// place an item between two neighbours, at the midpoint.
		field.Float("position"),
	}
}

func (Collection) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("collections").Field("organization_id").Unique().Required(),
		edge.To("children", Collection.Type).From("parent").Field("parent_id").Unique(),
		edge.To("spaces", Space.Type),
	}
}

func (Collection) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "created_at"),
		index.Fields("parent_id", "position"),
	}
}
