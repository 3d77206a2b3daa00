package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// PageDerived is what Folio reads out of a body (a PageContent): its
// structured document, plain text, search sections, links and heading
// anchors. Like the body it is stored once per text, shared by every page,
// revision and server instance, and computed once, by the first read that
// needs it. Rows are keyed by the body's hash and the converter's format
// version (markdown.FormatVersion): when the converter's output changes the
// version is bumped, and rows of other versions are neither read nor
// trusted (they can be deleted).
type PageDerived struct{ ent.Schema }

func (PageDerived) Fields() []ent.Field {
	return []ent.Field{
		// "<content hash>.v<version>": one row per body and format, so that
		// concurrent first reads insert the same row and keep one.
		field.String("id").Immutable().NotEmpty(),
		field.String("content_hash").Immutable(),
		field.Int("version").Immutable(),
		// JSON of markdown.Document, []markdown.Link, []string and
		// []markdown.Section; text is markdown.Text.
		field.Text("document").Immutable(),
		field.Text("text").Immutable(),
		field.Text("links").Immutable(),
		field.Text("anchors").Immutable(),
		field.Text("sections").Immutable(),
	}
}

func (PageDerived) Indexes() []ent.Index {
	return []ent.Index{index.Fields("version")}
}
