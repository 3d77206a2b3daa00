package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CustomFieldValue is a space's value of one of its organization's custom
// fields. The value's JSON is checked against the field's type and options
// when written.
type CustomFieldValue struct{ ent.Schema }

func (CustomFieldValue) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (CustomFieldValue) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable(),
		// The definition's id; deleting a definition deletes its values.
		field.String("custom_field_id").Immutable(),
		field.JSON("value", json.RawMessage{}),
	}
}

func (CustomFieldValue) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("space", Space.Type).Ref("custom_field_values").Field("space_id").Unique().Required().Immutable(),
	}
}

func (CustomFieldValue) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("space_id", "custom_field_id").Unique(),
		index.Fields("custom_field_id"),
	}
}
