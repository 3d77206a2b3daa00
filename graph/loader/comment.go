package loader

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/commentreaction"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/user"
)

// CommentLoaders batch what a comment or reply shows besides its own row:
// reply counts, reactions, and the users behind them (replies are paged by
// graph.RepliesOf, a list of comments at a time). Comments and
// replies a list shows together (ShowCommentsTogether) are read together, so a page
// of 50 comments costs the statements of a page of 5.
type CommentLoaders struct {
	// ReplyCount counts a comment's replies.
	ReplyCount *Loader[int]
	// Reactions loads the reactions on a comment or reply (by its id),
	// oldest first (created_at, id); the reacting users are loaded with
	// them (UserByID).
	Reactions *Loader[[]*ent.CommentReaction]
	// ChangeRequestByID finds change requests, for the primary content of
	// a comment's target.
	ChangeRequestByID *Loader[*ent.ChangeRequest]

	together together
}

// ShowCommentsTogether records that one list shows these comments or replies (by
// id): the first read of any of them reads them all.
func (cl *CommentLoaders) ShowCommentsTogether(ids []string) { cl.together.add(ids) }

// ShowComments records a page of comments as shown together and primes
// their authors and resolvers in one statement.
func (l *Loaders) ShowComments(ctx context.Context, comments []*ent.Comment) error {
	ids := make([]string, len(comments))
	users := make([]string, 0, len(comments))
	for i, c := range comments {
		ids[i] = c.ID
		users = append(users, c.PostedBy)
		if c.ResolvedBy != nil {
			users = append(users, *c.ResolvedBy)
		}
	}
	l.ShowCommentsTogether(ids)
	return l.PrimeUsers(ctx, users)
}

// ShowReplies is ShowComments for a page of replies.
func (l *Loaders) ShowReplies(ctx context.Context, replies []*ent.CommentReply) error {
	ids := make([]string, len(replies))
	users := make([]string, len(replies))
	for i, r := range replies {
		ids[i], users[i] = r.ID, r.PostedBy
	}
	l.ShowCommentsTogether(ids)
	return l.PrimeUsers(ctx, users)
}

// PrimeUsers loads in one statement the users ids name (authors, resolvers,
// reacting users of a level of objects) and primes UserByID with them;
// users that no longer exist are left to answer not found. It reads every
// user it is given, even one an earlier read brought: levels read side by
// side (a space's comments and its change requests) would otherwise each
// skip or read a shared user depending on which ran first, and a list's
// statements would vary from run to run.
func (l *Loaders) PrimeUsers(ctx context.Context, ids []string) error {
	seen := make(map[string]bool, len(ids))
	want := make([]string, 0, len(ids))
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return nil
	}
	rows, err := l.client.User.Query().Where(user.IDIn(want...)).All(ctx)
	if err != nil {
		return err
	}
	for _, u := range rows {
		l.UserByID.Prime(ctx, u.ID, u)
	}
	return nil
}

func newCommentLoaders(b batching, client *ent.Client, l *Loaders) *CommentLoaders {
	cl := &CommentLoaders{}
	cl.ReplyCount = mapLoader(b, byLevel(&cl.together, "replyCount", func(ctx context.Context, ids []string) (map[string]int, error) {
		var rows []struct {
			CommentID string `json:"comment_id"`
			Count     int    `json:"count"`
		}
		err := client.CommentReply.Query().Where(commentreply.CommentIDIn(ids...)).
			GroupBy(commentreply.FieldCommentID).Aggregate(ent.Count()).Scan(ctx, &rows)
		out := make(map[string]int, len(rows))
		for _, r := range rows {
			out[r.CommentID] = r.Count
		}
		return out, err
	}))
	cl.Reactions = mapLoader(b, byLevel(&cl.together, "reactions", func(ctx context.Context, ids []string) (map[string][]*ent.CommentReaction, error) {
		rows, err := client.CommentReaction.Query().Where(commentreaction.SubjectIDIn(ids...)).
			Order(ent.Asc(commentreaction.FieldCreatedAt), ent.Asc(commentreaction.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		users := make([]string, len(rows))
		out := make(map[string][]*ent.CommentReaction, len(ids))
		for i, r := range rows {
			users[i] = r.UserID
			out[r.SubjectID] = append(out[r.SubjectID], r)
		}
		return out, l.PrimeUsers(ctx, users)
	}))
	cl.ChangeRequestByID = newLoader(b, func(ctx context.Context, ids []string) ([]*ent.ChangeRequest, error) {
		return client.ChangeRequest.Query().Where(changerequest.IDIn(ids...)).All(ctx)
	}, func(c *ent.ChangeRequest) string { return c.ID }, "change request")
	return cl
}
