package schema

import (
	"regexp"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

var customFieldName = regexp.MustCompile(`^[a-z_\-0-9]+$`)

// CustomField defines a field every space of the organization may carry a
// value for, addressed by its name.
type CustomField struct{ ent.Schema }

func (CustomField) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (CustomField) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("name").Immutable().
			Validate(all(length(1, 50), matches(customFieldName, "lower-case letters, digits, '_' and '-'"))),
		// text, number, boolean: a single value; select and multi-select
		// pick from options (multi-select: several). URLs and dates are text.
		field.Enum("type").Values("text", "number", "boolean", "select", "multi-select").Immutable(),
		field.String("title").Optional().Nillable().Validate(length(0, 100)),
		field.String("description").Optional().Nillable().Validate(length(0, 200)),
		field.String("placeholder").Optional().Nillable().Validate(length(0, 100)),
		field.Strings("options").Optional(),
	}
}

func (CustomField) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("custom_fields").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (CustomField) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "name").Unique(),
		index.Fields("organization_id", "created_at"),
	}
}
