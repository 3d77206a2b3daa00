package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/changerequestreview"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/reviewrequest"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/paging"
)

// MaxRequestedReviewers bounds the users asked to review one change
// request (and one request's users).
const MaxRequestedReviewers = 100

// ReviewOutdated tells whether a review no longer counts: its reviewer
// reviewed again or was asked again since (superseded, GitBook's meaning),
// or the change request's content was edited after it (Folio's: its edit
// count moved on). Updates from the space are not edits: they bring in
// only what was merged there.
func ReviewOutdated(rv *ent.ChangeRequestReview, cr *ent.ChangeRequest) bool {
	return rv.Superseded || rv.Edits != cr.Edits
}

// reviewOutdatedSQL is ReviewOutdated in SQL, for a list's filter: the
// change request's edit count is read by primary key.
func reviewOutdatedSQL(outdated bool) predicate.ChangeRequestReview {
	return func(s *sql.Selector) {
		edited := sql.ExprP(fmt.Sprintf("%s <> (SELECT c.%s FROM %s c WHERE c.%s = %s)",
			s.C(changerequestreview.FieldEdits), changerequest.FieldEdits, changerequest.Table, changerequest.FieldID,
			s.C(changerequestreview.FieldChangeRequestID)))
		p := sql.Or(sql.EQ(s.C(changerequestreview.FieldSuperseded), true), edited)
		if !outdated {
			p = sql.Not(p)
		}
		s.Where(p)
	}
}

func reviewKey(rv *ent.ChangeRequestReview) paging.Cursor {
	return paging.Cursor{Time: rv.CreatedAt, ID: rv.ID}
}

// openChangeRequest is a change request that can still be reviewed or
// given reviewers: open or draft.
func openChangeRequest(cr *ent.ChangeRequest) error {
	if cr.Status == changerequest.StatusMerged || cr.Status == changerequest.StatusArchived {
		return apperr.Conflictf("change request %d is %s: it is no longer reviewed", cr.Number, cr.Status)
	}
	return nil
}

// ChangeRequestReviews pages through a change request's reviews, newest
// first, optionally only the outdated (or only the current) ones. The
// reviews of every change request a list shows are read together.
func (r *Resolver) ChangeRequestReviews(ctx context.Context, cr *ent.ChangeRequest, outdated *bool, args paging.Args) (paging.Page[*ent.ChangeRequestReview], error) {
	if _, _, err := visibleSpace(ctx, cr.SpaceID); err != nil {
		return paging.Page[*ent.ChangeRequestReview]{}, err
	}
	kind := "reviews|-"
	if outdated != nil {
		kind = fmt.Sprintf("reviews|%t", *outdated)
	}
	return pageUnder(ctx, loader.ChangeRequests, kind, cr.ID, args, func(ctx context.Context, crs []string) (map[string]paging.Page[*ent.ChangeRequestReview], error) {
		q := r.Client.ChangeRequestReview.Query()
		if outdated != nil {
			q.Where(reviewOutdatedSQL(*outdated))
		}
		pages, err := listPages(ctx, q, changerequestreview.FieldChangeRequestID, crs, args, changerequestreview.FieldCreatedAt, reviewKey,
			func(rv *ent.ChangeRequestReview) string { return rv.ChangeRequestID })
		if err != nil {
			return nil, err
		}
		return pages, r.primeReviewUsers(ctx, itemsOf(pages))
	})
}

// primeReviewUsers reads the reviewers and requesters of a level of
// reviews in one statement.
func (r *Resolver) primeReviewUsers(ctx context.Context, rvs []*ent.ChangeRequestReview) error {
	var users []string
	for _, rv := range rvs {
		users = append(users, rv.ReviewerID, deref(rv.RequestedBy))
	}
	return loader.For(ctx).PrimeUsers(ctx, users)
}

// FindReview is one review of a change request.
func (r *Resolver) FindReview(ctx context.Context, cr *ent.ChangeRequest, id string) (*ent.ChangeRequestReview, error) {
	if _, _, err := visibleSpace(ctx, cr.SpaceID); err != nil {
		return nil, err
	}
	rv, err := r.Client.ChangeRequestReview.Query().
		Where(changerequestreview.ID(id), changerequestreview.ChangeRequestID(cr.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("review %s not found", id)
	}
	return rv, err
}

// reviewNode is node(id:) for a review: found in its space, through the
// change request's own read.
func (r *Resolver) reviewNode(ctx context.Context, spaceID, id string) (*ent.ChangeRequestReview, error) {
	if _, _, err := visibleSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	rv, err := r.Client.ChangeRequestReview.Query().
		Where(changerequestreview.ID(id), changerequestreview.SpaceID(spaceID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("review %s not found", id)
	}
	return rv, err
}

// ReviewChangeRequest is the change request a review is of.
func (r *Resolver) ReviewChangeRequest(ctx context.Context, rv *ent.ChangeRequestReview) (*ent.ChangeRequest, error) {
	return loader.For(ctx).ChangeRequestByID.Load(ctx, rv.ChangeRequestID)()
}

// IsReviewOutdated is ReviewOutdated for a review read alone.
func (r *Resolver) IsReviewOutdated(ctx context.Context, rv *ent.ChangeRequestReview) (bool, error) {
	cr, err := r.ReviewChangeRequest(ctx, rv)
	if err != nil {
		return false, err
	}
	return ReviewOutdated(rv, cr), nil
}

// ReviewComment is the comment a review's text became; nil when it had
// none or the comment was deleted.
func (r *Resolver) ReviewComment(ctx context.Context, rv *ent.ChangeRequestReview) (*ent.Comment, error) {
	if rv.CommentID == nil {
		return nil, nil
	}
	comments, err := loader.PerParent(ctx, loader.ChangeRequests, "review comments", rv.ChangeRequestID, func(ctx context.Context, crs []string) (map[string]map[string]*ent.Comment, error) {
		rows, err := r.Client.Comment.Query().Where(func(s *sql.Selector) {
			t := sql.Table(changerequestreview.Table)
			s.Where(sql.In(s.C(comment.FieldID), sql.Select(t.C(changerequestreview.FieldCommentID)).From(t).
				Where(sql.In(t.C(changerequestreview.FieldChangeRequestID), anySlice(crs)...))))
		}).All(ctx)
		out := make(map[string]map[string]*ent.Comment, len(crs))
		for _, c := range rows {
			cr := deref(c.ChangeRequestID)
			if out[cr] == nil {
				out[cr] = map[string]*ent.Comment{}
			}
			out[cr][c.ID] = c
		}
		return out, err
	})
	if err != nil {
		return nil, err
	}
	return comments[*rv.CommentID], nil
}

// OptionalUser is a user by id; nil when the id is empty or the user is
// gone.
func (r *Resolver) OptionalUser(ctx context.Context, id *string) (*ent.User, error) {
	if id == nil || *id == "" {
		return nil, nil
	}
	u, err := loader.For(ctx).UserByID.Load(ctx, *id)()
	if _, ok := apperr.As(err); ok || ent.IsNotFound(err) {
		return nil, nil
	}
	return u, err
}

// RequestedReviewers are the users asked to review a change request, in
// the order they were first asked (at most MaxRequestedReviewers). The
// requests of every change request a list shows are read together.
func (r *Resolver) RequestedReviewers(ctx context.Context, cr *ent.ChangeRequest) ([]*ent.ReviewRequest, error) {
	if _, _, err := visibleSpace(ctx, cr.SpaceID); err != nil {
		return nil, err
	}
	st, err := r.reviewState(ctx, cr.ID)
	if err != nil {
		return nil, err
	}
	return st.requests, nil
}

// PageRequestedReviewers is RequestedReviewers as a REST page.
func (r *Resolver) PageRequestedReviewers(ctx context.Context, cr *ent.ChangeRequest, args paging.Args) (paging.Page[*ent.ReviewRequest], error) {
	all, err := r.RequestedReviewers(ctx, cr)
	if err != nil {
		return paging.Page[*ent.ReviewRequest]{}, err
	}
	return paging.Slice(args, all, func(rq *ent.ReviewRequest) paging.Cursor {
		return paging.Cursor{Time: rq.CreatedAt, ID: rq.ID}
	}), nil
}

// reviewState is what a change request's mergeability reads of its
// reviews: the requests, and each reviewer's latest review (older ones
// are superseded, so outdated, and count for nothing).
type reviewState struct {
	requests []*ent.ReviewRequest
	latest   []*ent.ChangeRequestReview
}

// reviewState reads the review state of every change request of cr's
// level at once: two statements, and one for the users they name.
func (r *Resolver) reviewState(ctx context.Context, crID string) (*reviewState, error) {
	return loader.PerParent(ctx, loader.ChangeRequests, "review state", crID, func(ctx context.Context, crs []string) (map[string]*reviewState, error) {
		out := make(map[string]*reviewState, len(crs))
		for _, id := range crs {
			out[id] = &reviewState{}
		}
		reqs, err := r.Client.ReviewRequest.Query().Where(reviewrequest.ChangeRequestIDIn(crs...)).
			Order(ent.Asc(reviewrequest.FieldCreatedAt), ent.Asc(reviewrequest.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		rvs, err := r.Client.ChangeRequestReview.Query().
			Where(changerequestreview.ChangeRequestIDIn(crs...), changerequestreview.Superseded(false)).
			Order(ent.Asc(changerequestreview.FieldCreatedAt), ent.Asc(changerequestreview.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		var users []string
		for _, rq := range reqs {
			out[rq.ChangeRequestID].requests = append(out[rq.ChangeRequestID].requests, rq)
			users = append(users, rq.UserID, rq.RequestedBy)
		}
		for _, rv := range rvs {
			out[rv.ChangeRequestID].latest = append(out[rv.ChangeRequestID].latest, rv)
			users = append(users, rv.ReviewerID)
		}
		return out, loader.For(ctx).PrimeUsers(ctx, users)
	})
}

// reviewableSpaceUsers checks that every user of users may review space s
// (the review role or above, by the same rule as the caller's own role),
// naming field when one may not.
func (r *Resolver) reviewableSpaceUsers(ctx context.Context, s *ent.Space, users []string, field string) error {
	roles, err := r.usersSpaceRoles(ctx, s, users)
	if err != nil {
		return err
	}
	for i, u := range users {
		if !access.AtLeast(roles[u], access.Review) {
			return apperr.InvalidField(fmt.Sprintf("%s[%d]", field, i), "user %s cannot review this space: reviewers need the review role or above", u)
		}
	}
	return nil
}

// usersSpaceRoles is the effective role of each of users on space s
// (access.Effective; nil for non-members): their memberships and grants
// are read in two statements.
func (r *Resolver) usersSpaceRoles(ctx context.Context, s *ent.Space, users []string) (map[string]*access.Role, error) {
	members, err := r.Client.Member.Query().
		Where(member.OrganizationID(s.OrganizationID), member.UserIDIn(users...), member.Disabled(false)).All(ctx)
	if err != nil {
		return nil, err
	}
	chain, objects, err := levelChain(ctx, s.OrganizationID, s.ID, enumString(s.DefaultLevel), s.ParentID)
	if err != nil {
		return nil, err
	}
	grants, err := r.usersGrants(ctx, objects, users)
	if err != nil {
		return nil, err
	}
	t := accessTarget{id: s.ID, org: s.OrganizationID, chain: chain, objects: objects}
	out := make(map[string]*access.Role, len(members))
	for _, m := range members {
		out[m.UserID], _ = t.rule(m.Role, grants[m.UserID])
	}
	return out, nil
}

// CheckReviewer checks that the caller may review the space's change
// requests, before their review's body is read.
func (r *Resolver) CheckReviewer(ctx context.Context, spaceID string) error {
	_, err := spaceWithRole(ctx, spaceID, access.Review)
	return err
}

// CheckReviewRequester checks that the caller may ask for reviews of the
// space's change requests (the edit role), before the body is read.
func (r *Resolver) CheckReviewRequester(ctx context.Context, spaceID string) error {
	_, err := editableSpace(ctx, spaceID)
	return err
}

// ReviewersRequest is what requestReviewersForChangeRequest asks.
type ReviewersRequest struct {
	Users []string
	// Subject and Description (markdown), when given, replace the change
	// request's.
	Subject, Description *string
}

// RequestReviewers asks users to review a change request (the edit role
// on its space). Each must be able to review the space and not be its
// author. Asking someone already asked renews the request; either way
// their earlier reviews become outdated. Answers the requests made.
func (r *Resolver) RequestReviewers(ctx context.Context, spaceID, crID string, in ReviewersRequest) ([]*ent.ReviewRequest, error) {
	s, err := editableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	users, err := checkReviewerList(in.Users, cr)
	if err != nil {
		return nil, err
	}
	var fields []string
	if in.Subject != nil {
		if n := len([]rune(*in.Subject)); n > 100 {
			return nil, apperr.InvalidField("subject", "is %d characters long; at most 100", n)
		}
		fields = append(fields, "subject")
	}
	if in.Description != nil {
		if err := checkDescription(*in.Description); err != nil {
			return nil, err
		}
		fields = append(fields, "description")
	}
	if err := openChangeRequest(cr); err != nil {
		return nil, err
	}
	if err := r.reviewableSpaceUsers(ctx, s, users, "users"); err != nil {
		return nil, err
	}
	viewer := auth.ViewerID(ctx)
	var out []*ent.ReviewRequest
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		existing, err := tx.ReviewRequest.Query().Where(reviewrequest.ChangeRequestID(cr.ID)).All(ctx)
		if err != nil {
			return err
		}
		asked := make(map[string]*ent.ReviewRequest, len(existing))
		for _, rq := range existing {
			asked[rq.UserID] = rq
		}
		added := 0
		for _, u := range users {
			if asked[u] == nil {
				added++
			}
		}
		if len(existing)+added > MaxRequestedReviewers {
			return apperr.InvalidField("users", "would ask %d users to review change request %d; at most %d", len(existing)+added, cr.Number, MaxRequestedReviewers)
		}
		for _, u := range users {
			var rq *ent.ReviewRequest
			if prev := asked[u]; prev != nil {
				rq, err = tx.ReviewRequest.UpdateOne(prev).SetRequestedBy(viewer).SetRevisionID(cr.RevisionID).Save(ctx)
			} else {
				rq, err = tx.ReviewRequest.Create().SetSpaceID(cr.SpaceID).SetChangeRequestID(cr.ID).
					SetUserID(u).SetRequestedBy(viewer).SetRevisionID(cr.RevisionID).Save(ctx)
			}
			if err != nil {
				return entError(err)
			}
			out = append(out, rq)
		}
		if _, err := tx.ChangeRequestReview.Update().
			Where(changerequestreview.ChangeRequestID(cr.ID), changerequestreview.ReviewerIDIn(users...), changerequestreview.Superseded(false)).
			SetSuperseded(true).Save(ctx); err != nil {
			return err
		}
		if len(fields) > 0 {
			upd := tx.ChangeRequest.UpdateOne(cr)
			if in.Subject != nil {
				upd.SetSubject(*in.Subject)
			}
			if in.Description != nil {
				upd.SetDescription(*in.Description)
			}
			if cr, err = upd.Save(ctx); err != nil {
				return entError(err)
			}
			record(ctx, changeRequestEvent(events.ChangeRequestUpdated, s.OrganizationID, cr, map[string]any{"number": cr.Number, "fields": fields}))
		}
		record(ctx, changeRequestEvent(events.ReviewersRequested, s.OrganizationID, cr, map[string]any{"number": cr.Number, "users": users}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).ChangeRequestByID.Clear(ctx, cr.ID)
	return out, nil
}

// checkReviewerList checks the users of a request: 1 to
// MaxRequestedReviewers ids, not the author; duplicates count once.
func checkReviewerList(users []string, cr *ent.ChangeRequest) ([]string, error) {
	if len(users) == 0 {
		return nil, apperr.InvalidField("users", "is required: at least one user id")
	}
	if len(users) > MaxRequestedReviewers {
		return nil, apperr.InvalidField("users", "has %d users; at most %d", len(users), MaxRequestedReviewers)
	}
	var out []string
	for i, u := range users {
		switch {
		case strings.TrimSpace(u) == "":
			return nil, apperr.InvalidField(fmt.Sprintf("users[%d]", i), "is empty: a user id")
		case u == cr.CreatedBy:
			return nil, apperr.InvalidField(fmt.Sprintf("users[%d]", i), "is the change request's author, who cannot review it")
		case !slices.Contains(out, u):
			out = append(out, u)
		}
	}
	return out, nil
}

// checkDescription checks a change request's description (markdown).
func checkDescription(md string) error {
	if err := markdown.Check(md); err != nil {
		return apperr.InvalidField("description", "%s", err.Error())
	}
	return nil
}

// RemoveRequestedReviewer stops asking a user to review a change request
// (the edit role on its space); nothing happens when they were not asked.
func (r *Resolver) RemoveRequestedReviewer(ctx context.Context, spaceID, crID, userID string) error {
	s, err := editableSpace(ctx, spaceID)
	if err != nil {
		return err
	}
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// A user not asked: nothing to write (a delete counts as a write
		// even when it matches nothing).
		asked, err := tx.ReviewRequest.Query().Where(reviewrequest.ChangeRequestID(cr.ID), reviewrequest.UserID(userID)).Exist(ctx)
		if err != nil || !asked {
			return err
		}
		if _, err := tx.ReviewRequest.Delete().Where(reviewrequest.ChangeRequestID(cr.ID), reviewrequest.UserID(userID)).Exec(ctx); err != nil {
			return err
		}
		record(ctx, changeRequestEvent(events.ReviewerRemoved, s.OrganizationID, cr, map[string]any{"number": cr.Number, "userId": userID}))
		return nil
	})
}

// SubmitReview records the caller's review of a change request: the
// review role on its space, not its author, while it is open or a draft.
// The caller's earlier reviews become outdated; a comment, when given,
// is posted in the change request with the review.
func (r *Resolver) SubmitReview(ctx context.Context, spaceID, crID, statusName string, comment *string) (*ent.ChangeRequestReview, error) {
	s, err := spaceWithRole(ctx, spaceID, access.Review)
	if err != nil {
		return nil, err
	}
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	status := changerequestreview.Status(statusName)
	if err := changerequestreview.StatusValidator(status); err != nil {
		return nil, apperr.InvalidField("status", "must be approved or changes-requested")
	}
	if comment != nil {
		if err := checkCommentBody(*comment); err != nil {
			return nil, apperr.InvalidField("comment", "%s", strings.TrimPrefix(err.Error(), "body: "))
		}
	}
	viewer := auth.ViewerID(ctx)
	if viewer == cr.CreatedBy {
		return nil, &apperr.Error{Kind: apperr.Forbidden, Message: "the author of a change request cannot review it"}
	}
	if err := openChangeRequest(cr); err != nil {
		return nil, err
	}
	var rv *ent.ChangeRequestReview
	reviewID := ids.New() // the comment names its review
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// Read in the write: a review counts against the content as it is
		// when it is stored.
		cur, err := tx.ChangeRequest.Get(ctx, cr.ID)
		if err != nil {
			return err
		}
		if _, err := tx.ChangeRequestReview.Update().
			Where(changerequestreview.ChangeRequestID(cr.ID), changerequestreview.ReviewerID(viewer), changerequestreview.Superseded(false)).
			SetSuperseded(true).Save(ctx); err != nil {
			return err
		}
		create := tx.ChangeRequestReview.Create().SetID(reviewID).SetSpaceID(cr.SpaceID).SetChangeRequestID(cr.ID).
			SetReviewerID(viewer).SetStatus(status).SetRevisionID(cur.RevisionID).SetEdits(cur.Edits)
		rq, err := tx.ReviewRequest.Query().Where(reviewrequest.ChangeRequestID(cr.ID), reviewrequest.UserID(viewer)).Only(ctx)
		if err == nil {
			create.SetRequestedBy(rq.RequestedBy)
		} else if !ent.IsNotFound(err) {
			return err
		}
		if comment != nil {
			c, err := tx.Comment.Create().SetSpaceID(cr.SpaceID).SetChangeRequestID(cr.ID).
				SetBody(*comment).SetPostedBy(viewer).SetRevisionID(cur.RevisionID).SetReviewID(reviewID).Save(ctx)
			if err != nil {
				return entError(err)
			}
			create.SetCommentID(c.ID)
			record(ctx, commentEvent(events.CommentPosted, commentScope{Space: s, CR: cur}, c.ID, ""))
		}
		if rv, err = create.Save(ctx); err != nil {
			return entError(err)
		}
		payload := map[string]any{"number": cur.Number, "reviewId": rv.ID, "status": string(status)}
		if rv.CommentID != nil {
			payload["commentId"] = *rv.CommentID
		}
		record(ctx, changeRequestEvent(events.ReviewSubmitted, s.OrganizationID, cur, payload))
		return nil
	})
	return rv, err
}

// Replier is a user who replied to a comment: how often, and when last.
type Replier struct {
	User      *ent.User
	Count     int
	UpdatedAt time.Time
}

// ReviewCommentRepliers are the users who replied to a review's comment,
// most recent first (GitBook's Comment.repliers): the replies to the
// review comments of a level of change requests are read in one statement.
func (r *Resolver) ReviewCommentRepliers(ctx context.Context, rv *ent.ChangeRequestReview) ([]Replier, error) {
	if rv.CommentID == nil {
		return nil, nil
	}
	byComment, err := loader.PerParent(ctx, loader.ChangeRequests, "review comment repliers", rv.ChangeRequestID, func(ctx context.Context, crs []string) (map[string]map[string][]Replier, error) {
		replies, err := r.Client.CommentReply.Query().
			Where(commentreply.ChangeRequestIDIn(crs...), func(s *sql.Selector) {
				t := sql.Table(changerequestreview.Table)
				s.Where(sql.In(s.C(commentreply.FieldCommentID), sql.Select(t.C(changerequestreview.FieldCommentID)).From(t).
					Where(sql.In(t.C(changerequestreview.FieldChangeRequestID), anySlice(crs)...))))
			}).
			Select(commentreply.FieldChangeRequestID, commentreply.FieldCommentID, commentreply.FieldPostedBy, commentreply.FieldCreatedAt).All(ctx)
		if err != nil {
			return nil, err
		}
		var users []string
		for _, rp := range replies {
			users = append(users, rp.PostedBy)
		}
		if err := loader.For(ctx).PrimeUsers(ctx, users); err != nil {
			return nil, err
		}
		out := map[string]map[string][]Replier{}
		for _, rp := range replies {
			u, err := r.OptionalUser(ctx, &rp.PostedBy)
			if err != nil {
				return nil, err
			}
			if u == nil {
				continue
			}
			cr := deref(rp.ChangeRequestID)
			if out[cr] == nil {
				out[cr] = map[string][]Replier{}
			}
			reps := out[cr][rp.CommentID]
			i := slices.IndexFunc(reps, func(x Replier) bool { return x.User.ID == u.ID })
			if i < 0 {
				reps = append(reps, Replier{User: u})
				i = len(reps) - 1
			}
			reps[i].Count++
			if rp.CreatedAt.After(reps[i].UpdatedAt) {
				reps[i].UpdatedAt = rp.CreatedAt
			}
			out[cr][rp.CommentID] = reps
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	reps := byComment[*rv.CommentID]
	slices.SortFunc(reps, func(a, b Replier) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	return reps, nil
}

// removeMemberReviewRequests stops asking userID, who is leaving
// organization orgID, to review its change requests: a
// change_request.reviewer_removed for each request, in the removal's
// transaction. (Their reviews stay: they were made.)
func removeMemberReviewRequests(ctx context.Context, tx *ent.Client, orgID, userID string) error {
	inOrg := func(s *sql.Selector) {
		t := sql.Table(space.Table)
		s.Where(sql.In(s.C(reviewrequest.FieldSpaceID), sql.Select(t.C(space.FieldID)).From(t).Where(sql.EQ(t.C(space.FieldOrganizationID), orgID))))
	}
	gone, err := tx.ReviewRequest.Query().Where(reviewrequest.UserID(userID), inOrg).All(ctx)
	if err != nil || len(gone) == 0 {
		return err
	}
	ids, crIDs := make([]string, len(gone)), make([]string, len(gone))
	for i, rq := range gone {
		ids[i], crIDs[i] = rq.ID, rq.ChangeRequestID
	}
	crs, err := tx.ChangeRequest.Query().Where(changerequest.IDIn(crIDs...)).All(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.ReviewRequest.Delete().Where(reviewrequest.IDIn(ids...)).Exec(ctx); err != nil {
		return err
	}
	for _, cr := range crs {
		record(ctx, changeRequestEvent(events.ReviewerRemoved, orgID, cr, map[string]any{"number": cr.Number, "userId": userID}))
	}
	return nil
}
