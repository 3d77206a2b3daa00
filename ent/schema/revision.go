package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/ids"
)

// Revision is an immutable snapshot of a space's content: its files are the
// rows of File that carry its id; its pages are the rows of the chunks its
// RevisionChunk rows name, one chunk per bucket (revisions share chunks, so a
// new revision writes only the buckets it changes).
type Revision struct{ ent.Schema }

func (Revision) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").DefaultFunc(ids.New).Immutable().NotEmpty(),
		field.String("space_id"),
		// initial: a new space's empty content; edits: a batch of changes;
		// merge: a change request merged into the space; update: the space's
		// content brought into a change request; import: imported content.
		field.Enum("type").Values("initial", "edits", "merge", "update", "import").Immutable(),
		field.Strings("parents").Default([]string{}).Immutable(),
		field.String("created_by").Optional().Immutable(),
		field.Time("created_at").Default(clock.Now).Immutable(),
		// The change request whose content edits or import made the
		// revision; unset for every other revision. Contributors of a change
		// request are the authors of its revisions (and of its comments).
		field.String("change_request_id").Optional().Immutable(),
		// buckets is the number of buckets (a power of two) its pages are
		// spread over by the hash of their page_id (internal/db.Bucket).
		// Revisions made before chunks have 1: one chunk of every page.
		field.Int("buckets").Default(1).Immutable(),
		// canonical: every sibling group has positions 0..n-1 and unique
		// slugs, which a partial merge needs of ours. The application writes
		// only canonical revisions; seeded, imported-before or migrated ones
		// are false and checked whole (TreeShape) at their first merge.
		field.Bool("canonical").Default(false).Immutable(),
		// page_count is the number of pages it holds; unset on revisions
		// made before it was recorded (counted when needed).
		field.Int("page_count").Optional().Nillable().Immutable(),
		// The commit a Git import built it from; unset otherwise.
		field.JSON("git", &RevisionGit{}).Optional().Immutable(),
	}
}

func (Revision) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("space_id", "created_at"),
		index.Fields("change_request_id", "created_by"),
	}
}

// RevisionChunk maps one bucket of a revision to the chunk holding the
// revision's pages of that bucket. A bucket without pages has no row.
type RevisionChunk struct{ ent.Schema }

func (RevisionChunk) Fields() []ent.Field {
	return []ent.Field{
		field.String("revision_id").Immutable(),
		field.Int("bucket").Immutable(),
		field.String("chunk_id").Immutable(),
	}
}

func (RevisionChunk) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("revision_id", "bucket").Unique(),
		index.Fields("chunk_id"),
	}
}

// Page is one page of one chunk, a set of pages that revisions share (see
// RevisionChunk). Its page_id is stable across revisions; a chunk is never
// changed once written: a revision that changes a page writes a new chunk of
// that page's bucket.
type Page struct{ ent.Schema }

func (Page) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (Page) Fields() []ent.Field {
	return []ent.Field{
		field.String("chunk_id").Immutable(),
		field.String("page_id").Immutable(),
		// "" for a root page.
		field.String("parent_page_id").Default(""),
		field.Int("position").Default(0),
		field.Enum("kind").Values("document", "group", "link").Default("document"),
		field.String("title").Validate(length(1, 256)),
		field.String("emoji").Default("").Validate(length(0, 50)),
		field.String("slug").Validate(length(1, 100)),
		field.String("description").Default("").Validate(length(0, 1000)),
		field.Bool("hidden").Default(false),
		// Target of link pages.
		field.String("href").Default("").Validate(length(0, 2048)),
		// SHA-256 of the markdown body (PageContent id); "" when empty.
		field.String("content_hash").Default(""),
		// When the page was created, and when its content or settings last
		// changed: carried from revision to revision.
		field.Time("created_at").Immutable(),
		field.Time("updated_at").Immutable(),
	}
}

func (Page) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("chunk_id", "page_id").Unique(),
		// A merge that places pages reads whole sibling groups: by parent
		// within each chunk of a revision, not every row of the revision.
		index.Fields("chunk_id", "parent_page_id"),
		// The purge of bodies no page holds any more asks, per batch of
		// bodies, which are still held (PurgeOrphanedContents).
		index.Fields("content_hash"),
	}
}

// PageContent is a markdown body, stored once whatever the number of pages
// and revisions that hold it; its id is the SHA-256 of the text.
type PageContent struct{ ent.Schema }

func (PageContent) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.Text("markdown").Immutable(),
	}
}

// File is a file of one revision; its bytes are in blob storage under
// blob_key (their SHA-256), stored once.
type File struct{ ent.Schema }

func (File) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (File) Fields() []ent.Field {
	return []ent.Field{
		field.String("revision_id").Immutable(),
		field.String("file_id").Immutable(),
		field.String("name").Validate(length(1, 256)),
		field.String("content_type").Default("application/octet-stream"),
		field.Int64("size"),
		field.String("blob_key"),
		field.Int("width").Optional().Nillable(),
		field.Int("height").Optional().Nillable(),
		field.Time("created_at").Immutable(),
	}
}

func (File) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("revision_id", "file_id").Unique(),
		index.Fields("blob_key"),
	}
}
