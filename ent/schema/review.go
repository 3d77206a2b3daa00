package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ChangeRequestReview is one review a user submitted on a change request:
// approved or changes requested, against the change request's content as
// it was then. Reviews are never edited: submitting again supersedes the
// reviewer's earlier ones, and so does requesting them again.
type ChangeRequestReview struct{ ent.Schema }

func (ChangeRequestReview) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (ChangeRequestReview) Fields() []ent.Field {
	return []ent.Field{
		// The space, copied: node(id:) finds a review's space without a
		// join, and a purged space's reviews go with it.
		field.String("space_id").Immutable(),
		field.String("change_request_id").Immutable(),
		field.String("reviewer_id").Immutable(),
		// Who asked the reviewer, when they had been asked.
		field.String("requested_by").Optional().Nillable().Immutable(),
		field.Enum("status").Values("approved", "changes-requested").Immutable(),
		// The change request's revision the review was made against.
		field.String("revision_id").Immutable(),
		// The change request's edit count then (ChangeRequest.edits): a
		// later edit makes the review outdated.
		field.Int("edits").Immutable(),
		// A newer review by the same reviewer, or a new request to them,
		// supersedes it.
		field.Bool("superseded").Default(false),
		// The comment the review's text became, if it had one.
		field.String("comment_id").Optional().Nillable().Immutable(),
	}
}

func (ChangeRequestReview) Indexes() []ent.Index {
	return []ent.Index{
		// A change request's reviews in keyset order (lists, and the reviews
		// of a page of change requests read at once).
		index.Fields("change_request_id", "created_at", "id"),
		// A reviewer's reviews of a change request, superseded together.
		index.Fields("change_request_id", "reviewer_id"),
	}
}

// ReviewRequest asks a user to review a change request.
type ReviewRequest struct{ ent.Schema }

func (ReviewRequest) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (ReviewRequest) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable(),
		field.String("change_request_id").Immutable(),
		field.String("user_id").Immutable(),
		field.String("requested_by"),
		// The change request's revision when the request was (last) made.
		field.String("revision_id"),
	}
}

func (ReviewRequest) Indexes() []ent.Index {
	return []ent.Index{
		// One request per user and change request, listed in user order.
		index.Fields("change_request_id", "user_id").Unique(),
	}
}
