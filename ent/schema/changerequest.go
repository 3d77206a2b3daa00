package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ChangeRequest proposes edits to a space. Spaces count them by status.
type ChangeRequest struct{ ent.Schema }

func (ChangeRequest) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (ChangeRequest) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable(),
		// Counts up per space and never repeats.
		field.Int("number").Immutable(),
		field.Enum("status").Values("draft", "open", "archived", "merged").Default("open"),
		field.String("subject").Default("").Validate(length(0, 100)),
		// The description as markdown; "" when none.
		field.Text("description").Default(""),
		field.String("created_by").Optional(),
		// The change request's own content.
		field.String("revision_id").Default(""),
		// The space's revision it was created from.
		field.String("revision_initial").Default("").Immutable(),
		// The space's revision last brought in (created from, or updated
		// from): the base of a three-way merge.
		field.String("revision_merged_ancestor").Default(""),
		// The space's revision the merge created.
		field.String("revision_merged").Optional().Nillable(),
		field.String("merged_by").Optional().Nillable(),
		field.Time("merged_at").Optional().Nillable(),
		// Counts the edits of the change request's own content (batches,
		// imports), not updates from the space: a review made before the
		// latest edit is outdated (ChangeRequestReview.edits).
		field.Int("edits").Default(0),
	}
}

func (ChangeRequest) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("space", Space.Type).Ref("change_requests").Field("space_id").Unique().Required().Immutable(),
	}
}

func (ChangeRequest) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("space_id", "number").Unique(),
		// A space's change requests of one status, in keyset order.
		index.Fields("space_id", "status", "created_at", "id"),
	}
}
