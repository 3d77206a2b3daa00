package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Comment is a discussion on a space or one of its change requests.
type Comment struct{ ent.Schema }

func (Comment) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Comment) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable(),
		field.String("change_request_id").Optional().Nillable().Immutable(),
		field.Enum("status").Values("open", "resolved").Default("open"),
		field.Text("body").Default(""),
		field.String("posted_by").Optional(),
	}
}

func (Comment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("space", Space.Type).Ref("comments").Field("space_id").Unique().Required().Immutable(),
	}
}

func (Comment) Indexes() []ent.Index {
	return []ent.Index{index.Fields("space_id", "status")}
}
