package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Comment is a discussion on a space or one of its change requests,
// optionally targeting a page and a block of it. Replies and reactions are
// rows of their own (CommentReply, CommentReaction).
type Comment struct{ ent.Schema }

func (Comment) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Comment) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable(),
		// Set when the comment was posted inside a change request: the space's
		// lists and counts hold only comments without one.
		field.String("change_request_id").Optional().Nillable().Immutable(),
		field.Enum("status").Values("open", "resolved").Default("open"),
		// The body as markdown, bounded like page markdown.
		field.Text("body").Default(""),
		field.String("posted_by").Optional(),
		field.Time("edited_at").Optional().Nillable(),
		field.Time("resolved_at").Optional().Nillable(),
		field.String("resolved_by").Optional().Nillable(),
		// The revision the target was read in when the comment was posted.
		field.String("revision_id").Default("").Immutable(),
		// The targeted page (its page id, stable across revisions) with its
		// title and path as posted: they answer once the page is gone.
		field.String("page_id").Optional().Nillable().Immutable(),
		field.String("page_title").Default("").Immutable(),
		field.String("page_path").Default("").Immutable(),
		// The targeted block (its key in the page's document) and a short
		// preview of its text as posted.
		field.String("node_id").Optional().Nillable().Immutable(),
		field.String("node_preview").Default("").Immutable(),
		// The review whose text the comment is, when a review posted it.
		field.String("review_id").Optional().Nillable().Immutable(),
	}
}

func (Comment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("space", Space.Type).Ref("comments").Field("space_id").Unique().Required().Immutable(),
	}
}

func (Comment) Indexes() []ent.Index {
	return []ent.Index{
		// Open comments counted per space and per change request.
		index.Fields("space_id", "status", "change_request_id"),
		index.Fields("change_request_id", "status"),
		// Lists in postedAt order, with and without a status filter.
		index.Fields("space_id", "change_request_id", "created_at", "id"),
		index.Fields("space_id", "change_request_id", "status", "created_at", "id"),
	}
}

// CommentReply is one reply under a comment; replies are flat.
type CommentReply struct{ ent.Schema }

func (CommentReply) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (CommentReply) Fields() []ent.Field {
	return []ent.Field{
		field.String("comment_id").Immutable(),
		// The comment's space and change request, copied: node(id:) finds a
		// reply's space without a join, and commenters are counted per scope.
		field.String("space_id").Immutable(),
		field.String("change_request_id").Optional().Nillable().Immutable(),
		field.Text("body").Default(""),
		field.String("posted_by").Optional(),
		field.Time("edited_at").Optional().Nillable(),
	}
}

func (CommentReply) Indexes() []ent.Index {
	return []ent.Index{
		// A comment's replies in order, and their count.
		index.Fields("comment_id", "created_at", "id"),
		index.Fields("space_id", "change_request_id"),
	}
}

// CommentReaction is one user's emoji on a comment or a reply (subject_id):
// adding it twice keeps one row.
type CommentReaction struct{ ent.Schema }

func (CommentReaction) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (CommentReaction) Fields() []ent.Field {
	return []ent.Field{
		field.String("subject_id").Immutable(),
		field.String("space_id").Immutable(),
		// Normalized by internal/emoji.
		field.String("emoji").Immutable(),
		field.String("user_id").Immutable(),
		field.Time("created_at").Immutable(),
	}
}

func (CommentReaction) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("subject_id", "emoji", "user_id").Unique(),
		index.Fields("space_id"),
	}
}
