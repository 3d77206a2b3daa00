package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
)

// ChangeRequestContributors are the users who edited a change request's
// content (its edit and import revisions: actionType edit) or commented on
// it (actionType comment), with how many times, latest first.
func (r *Resolver) ChangeRequestContributors(ctx context.Context, spaceID, crID string) ([]*model.Contributor, error) {
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	return r.ContributorsOf(ctx, cr)
}

// ContributorsOf is ChangeRequestContributors for a change request already
// read (GraphQL's ChangeRequest.contributors); a list's change requests
// read theirs together.
func (r *Resolver) ContributorsOf(ctx context.Context, cr *ent.ChangeRequest) ([]*model.Contributor, error) {
	cs, err := loader.For(ctx).Reads().Contributors.Load(ctx, cr.ID)()
	if err != nil {
		return nil, err
	}
	out := make([]*model.Contributor, len(cs))
	for i, c := range cs {
		action := model.ContributorEdit
		if c.Comment {
			action = model.ContributorComment
		}
		out[i] = &model.Contributor{User: c.User, Count: c.Count, ActionType: action, UpdatedAt: c.UpdatedAt}
	}
	return out, nil
}

// contributedBy keeps the change requests userID contributed to, as
// ChangeRequestContributors counts them: an edit or import revision of the
// change request, or a comment on it. In SQL, so that a list's count is
// exact.
func contributedBy(userID string) predicate.ChangeRequest {
	return func(s *sql.Selector) {
		revs := sql.Table(revision.Table)
		comments := sql.Table(comment.Table)
		s.Where(sql.Or(
			sql.Exists(sql.Select(revs.C(revision.FieldID)).From(revs).Where(sql.And(
				sql.ColumnsEQ(revs.C(revision.FieldChangeRequestID), s.C("id")),
				sql.EQ(revs.C(revision.FieldCreatedBy), userID),
				sql.In(revs.C(revision.FieldType), revision.TypeEdits.String(), revision.TypeImport.String()),
			))),
			sql.Exists(sql.Select(comments.C(comment.FieldID)).From(comments).Where(sql.And(
				sql.ColumnsEQ(comments.C(comment.FieldChangeRequestID), s.C("id")),
				sql.EQ(comments.C(comment.FieldPostedBy), userID),
			))),
		))
	}
}
