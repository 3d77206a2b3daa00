package schema

import (
	"github.com/folio/folio/internal/mergerules"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Space holds the pages and files of one body of content.
type Space struct{ ent.Schema }

func (Space) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Space) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id"),
		field.String("parent_id").Optional().Nillable(),
		field.String("title").Default("").Validate(length(0, 50)),
		field.String("emoji").Optional().Nillable().Validate(length(0, 50)),
		field.Enum("visibility").
			Values("public", "unlisted", "share-link", "visitor-auth", "in-collection", "private").
			Default("private"),
		// live: direct edits; locked: no edits; unset: edits through change
		// requests only.
		field.Enum("edit_mode").Values("live", "locked").Optional().Nillable(),
		field.Enum("default_level").Values(DefaultLevels...).Optional().Nillable(),
		field.Float("position"),
		// Secret of share-link spaces, sealed (internal/secrets, area
		// secrets.SpaceShareKey).
		field.String("share_key_sealed").StorageKey("share_key").Sensitive(),
		// Active revision; empty until the space has content.
		field.String("revision_id").Default(""),
		// Last change-request number given out: numbers count up per space
		// and never repeat.
		field.Int("change_request_seq").Default(0),
		// Merge rules of the space's change requests (none, rules, or
		// inherit: the organization's); absent: inherit.
		field.JSON("merge_rules", &mergerules.Config{}).Optional(),
		// Soft delete: set when deleted, restorable for 7 days, then purged.
		field.Time("deleted_at").Optional().Nillable(),
	}
}

func (Space) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("spaces").Field("organization_id").Unique().Required(),
		edge.From("parent", Collection.Type).Ref("spaces").Field("parent_id").Unique(),
		edge.To("change_requests", ChangeRequest.Type),
		edge.To("comments", Comment.Type),
		edge.To("custom_field_values", CustomFieldValue.Type),
	}
}

func (Space) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "created_at"),
		index.Fields("parent_id", "position"),
		index.Fields("deleted_at"),
	}
}
