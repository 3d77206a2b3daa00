package graph

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreaction"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/emoji"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/paging"
)

// Comments live in a scope: a space (change_request_id NULL) or one of its
// change requests. A space's lists and counts hold only its own comments.

// MaxReactionEmoji bounds the different emoji on one comment or reply (the
// cost cap of Comment.reactions and CommentReply.reactions).
const MaxReactionEmoji = 50

// previewRunes is the length of a targeted block's preview.
const previewRunes = 100

// CommentFilter narrows a list of comments.
type CommentFilter struct {
	Status     *string  // open, resolved or all (default)
	TargetPage *string  // a page id
	Authors    []string // user ids
}

// CommentPost is a new comment.
type CommentPost struct {
	Markdown string
	Page     *string
	Node     *string
}

// CommentChange is a PUT of a comment or reply: nil fields are left alone
// (Resolved is ignored for replies).
type CommentChange struct {
	Markdown *string
	Resolved *bool
	Added    []string
	Removed  []string
}

// omitted is an optional GraphQL input's value; nil when absent or null.
func omitted[T any](o graphql.Omittable[*T]) *T { return o.Value() }

func commentKey(c *ent.Comment) paging.Cursor { return paging.Cursor{Time: c.CreatedAt, ID: c.ID} }

func replyKey(c *ent.CommentReply) paging.Cursor { return paging.Cursor{Time: c.CreatedAt, ID: c.ID} }

// AscendingUnlessAsked is the order of lists that read oldest first unless
// the caller asks otherwise (replies, commenters).
func AscendingUnlessAsked(order *string) *string {
	if order == nil {
		asc := string(paging.Asc)
		return &asc
	}
	return order
}

// commentsWritable tells whether comments may be posted and changed in a
// change request: not once it is merged or archived.
func commentsWritable(cr *ent.ChangeRequest) bool {
	return cr.Status != changerequest.StatusMerged && cr.Status != changerequest.StatusArchived
}

// inScope tells whether a comment's change request (nil: the space) is the
// scope's.
func inScope(sc commentScope, crID *string) bool {
	if sc.CR == nil {
		return crID == nil
	}
	return crID != nil && *crID == sc.CR.ID
}

func (sc commentScope) crID() *string {
	if sc.CR == nil {
		return nil
	}
	return &sc.CR.ID
}

// crIDOrEmpty is the change request's id, "" for the space's comments.
func (sc commentScope) crIDOrEmpty() string {
	if sc.CR == nil {
		return ""
	}
	return sc.CR.ID
}

// where selects the scope's comments.
func (sc commentScope) where() predicate.Comment {
	if sc.CR == nil {
		return comment.And(comment.SpaceID(sc.Space.ID), comment.ChangeRequestIDIsNil())
	}
	return comment.And(comment.SpaceID(sc.Space.ID), comment.ChangeRequestID(sc.CR.ID))
}

// primaryRevision is the content a scope's page targets are read in: the
// change request's own revision while it is open (or a draft), the space's
// current one otherwise.
func primaryRevision(s *ent.Space, cr *ent.ChangeRequest) string {
	if cr != nil && commentsWritable(cr) {
		return cr.RevisionID
	}
	return s.RevisionID
}

// ScopeComments pages through the comments of a space (crID nil) or of one
// of its change requests, newest first unless asked otherwise.
func (r *Resolver) ScopeComments(ctx context.Context, spaceID string, crID *string, f CommentFilter, args paging.Args) (paging.Page[*ent.Comment], error) {
	sc, err := r.visibleCommentScope(ctx, spaceID, crID)
	if err != nil {
		return paging.Page[*ent.Comment]{}, err
	}
	return r.scopeComments(ctx, sc, f, args)
}

// ChangeRequestComments is ScopeComments for a change request already
// read (GraphQL's ChangeRequest.comments), which need not be found again.
func (r *Resolver) ChangeRequestComments(ctx context.Context, cr *ent.ChangeRequest, f CommentFilter, args paging.Args) (paging.Page[*ent.Comment], error) {
	s, role, err := discussedSpace(ctx, cr.SpaceID)
	if err != nil {
		return paging.Page[*ent.Comment]{}, err
	}
	return r.scopeComments(ctx, commentScope{Space: s, Role: role, CR: cr}, f, args)
}

// scopeComments is a page of a visible scope's comments. The comments of
// every space (or change request) a list shows are read together
// (pageUnder), and what they show primed (ShowComments).
func (r *Resolver) scopeComments(ctx context.Context, sc commentScope, f CommentFilter, args paging.Args) (paging.Page[*ent.Comment], error) {
	if err := filterComments(r.Client.Comment.Query(), f); err != nil {
		return paging.Page[*ent.Comment]{}, err
	}
	kind := fmt.Sprintf("comments|%s|%s|%q", optionKey(f.Status), optionKey(f.TargetPage), f.Authors)
	// A space's own comments have no change request; a change request's
	// are all in its space.
	of, parent, column := loader.Spaces, sc.Space.ID, comment.FieldSpaceID
	parentOf := func(c *ent.Comment) string { return c.SpaceID }
	if sc.CR != nil {
		of, parent, column = loader.ChangeRequests, sc.CR.ID, comment.FieldChangeRequestID
		parentOf = func(c *ent.Comment) string { return *c.ChangeRequestID }
	}
	return pageUnder(ctx, of, kind, parent, args, func(ctx context.Context, parents []string) (map[string]paging.Page[*ent.Comment], error) {
		q := r.Client.Comment.Query()
		if sc.CR == nil {
			q.Where(comment.ChangeRequestIDIsNil())
		}
		if err := filterComments(q, f); err != nil {
			return nil, err
		}
		pages, err := listPages(ctx, q, column, parents, args, comment.FieldCreatedAt, commentKey, parentOf)
		if err != nil {
			return nil, err
		}
		return pages, loader.For(ctx).ShowComments(ctx, itemsOf(pages))
	})
}

func filterComments(q *ent.CommentQuery, f CommentFilter) error {
	if f.Status != nil {
		switch *f.Status {
		case model.CommentsAll:
		case model.CommentsOpen:
			q.Where(comment.StatusEQ(comment.StatusOpen))
		case model.CommentsResolved:
			q.Where(comment.StatusEQ(comment.StatusResolved))
		default:
			return apperr.InvalidField("status", "must be open, resolved or all")
		}
	}
	if f.TargetPage != nil {
		q.Where(comment.PageID(*f.TargetPage))
	}
	if len(f.Authors) > 0 {
		q.Where(comment.PostedByIn(f.Authors...))
	}
	return nil
}

// ScopeComment is one comment of a space or of one of its change requests.
func (r *Resolver) ScopeComment(ctx context.Context, spaceID string, crID *string, id string) (*ent.Comment, error) {
	sc, err := r.visibleCommentScope(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	return r.visibleComment(ctx, sc, id)
}

// SpaceComment is one of a space's own comments, for GraphQL's
// Space.comment: the comment asked of every space a list shows is looked
// for once for all of them.
func (r *Resolver) SpaceComment(ctx context.Context, s *ent.Space, id string) (*ent.Comment, error) {
	s, role, err := discussedSpace(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	return r.commentOfScope(ctx, commentScope{Space: s, Role: role}, id)
}

// ChangeRequestComment is SpaceComment for a change request already read.
func (r *Resolver) ChangeRequestComment(ctx context.Context, cr *ent.ChangeRequest, id string) (*ent.Comment, error) {
	s, role, err := discussedSpace(ctx, cr.SpaceID)
	if err != nil {
		return nil, err
	}
	return r.commentOfScope(ctx, commentScope{Space: s, Role: role, CR: cr}, id)
}

func (r *Resolver) commentOfScope(ctx context.Context, sc commentScope, id string) (*ent.Comment, error) {
	of, parent := loader.Spaces, sc.Space.ID
	if sc.CR != nil {
		of, parent = loader.ChangeRequests, sc.CR.ID
	}
	c, err := loader.PerParent(ctx, of, "comment "+id, parent, func(ctx context.Context, scopes []string) (map[string]*ent.Comment, error) {
		rows, err := r.Client.Comment.Query().Where(comment.ID(id)).All(ctx)
		if err != nil {
			return nil, err
		}
		out := map[string]*ent.Comment{}
		for _, c := range rows {
			switch {
			case sc.CR == nil && c.ChangeRequestID == nil:
				out[c.SpaceID] = c
			case sc.CR != nil && c.ChangeRequestID != nil:
				out[*c.ChangeRequestID] = c
			}
		}
		// Shown together, their users read on the first ask: a comment
		// found by id costs one statement.
		l := loader.For(ctx)
		ids := make([]string, len(rows))
		users := make(map[string][]string, len(rows))
		for i, c := range rows {
			ids[i] = c.ID
			users[c.ID] = append([]string{c.PostedBy}, deref(c.ResolvedBy))
		}
		l.ShowCommentsTogether(ids)
		l.NameUsers(loader.Comments, users)
		return out, nil
	})
	if err == nil && c == nil {
		return nil, apperr.NotFoundf("comment %s not found", id)
	}
	return c, err
}

// PageComments pages through the comments on a page of a space, posted in
// the space or in any of its change requests, newest first unless asked
// otherwise. The comments of every page a query shows load together.
func (r *Resolver) PageComments(ctx context.Context, p *model.Page, status *string, args paging.Args) (paging.Page[*ent.Comment], error) {
	var none paging.Page[*ent.Comment]
	if _, _, err := discussedSpace(ctx, p.SpaceID); err != nil {
		return none, err
	}
	// The comments on the pages of every space a list shows are read
	// together, and each page takes its own (pages of a tree are many, and
	// resolved concurrently).
	byPage, err := loader.PerParent(ctx, loader.Spaces, "page comments", p.SpaceID, func(ctx context.Context, spaces []string) (map[string]map[string][]*ent.Comment, error) {
		rows, err := r.Client.Comment.Query().Where(comment.SpaceIDIn(spaces...), comment.PageIDNotNil()).
			Order(ent.Asc(comment.FieldCreatedAt), ent.Asc(comment.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]map[string][]*ent.Comment, len(spaces))
		for _, c := range rows {
			if out[c.SpaceID] == nil {
				out[c.SpaceID] = map[string][]*ent.Comment{}
			}
			out[c.SpaceID][*c.PageID] = append(out[c.SpaceID][*c.PageID], c)
		}
		return out, loader.For(ctx).ShowComments(ctx, rows)
	})
	if err != nil {
		return none, err
	}
	all := byPage[p.PageID]
	want := func(*ent.Comment) bool { return true }
	if status != nil {
		switch *status {
		case model.CommentsAll:
		case model.CommentsOpen, model.CommentsResolved:
			want = func(c *ent.Comment) bool { return string(c.Status) == *status }
		default:
			return none, apperr.InvalidField("status", "must be open, resolved or all")
		}
	}
	var rows []*ent.Comment
	for _, c := range all {
		if want(c) {
			rows = append(rows, c)
		}
	}
	return paging.Slice(args, rows, commentKey), nil
}

// checkCommentBody holds a body to page markdown's bounds; it may not be
// empty.
func checkCommentBody(md string) error {
	if strings.TrimSpace(md) == "" {
		return apperr.InvalidField("body", "is required: the comment's markdown, not empty")
	}
	if err := markdown.Check(md); err != nil {
		return apperr.InvalidField("body", "%s", err.Error())
	}
	return nil
}

// PostComment posts a comment on a space, or in one of its open change
// requests, optionally on a page and a block of it, read in the scope's
// primary content.
func (r *Resolver) PostComment(ctx context.Context, spaceID string, crID *string, in CommentPost) (*ent.Comment, error) {
	sc, err := r.commentableScope(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	if err := checkCommentBody(in.Markdown); err != nil {
		return nil, err
	}
	revID := primaryRevision(sc.Space, sc.CR)
	// The page and block are read before the write; set adds them to the
	// comment the write creates.
	set := func(c *ent.CommentCreate) {}
	if in.Node != nil && in.Page == nil {
		return nil, apperr.InvalidField("node", "needs page: the page whose block it is")
	}
	if in.Page != nil {
		p, tree, err := revisionPage(ctx, revID, *in.Page)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, apperr.InvalidField("page", "%s is not a page of the %s's content", *in.Page, scopeNoun(sc))
		}
		var node, preview string
		if in.Node != nil {
			var ok bool
			if preview, ok, err = blockPreview(ctx, p, *in.Node); err != nil {
				return nil, err
			}
			if !ok {
				return nil, apperr.InvalidField("node", "%s is not a block of page %s", *in.Node, p.PageID)
			}
			node = *in.Node
		}
		path := tree.Path(p)
		set = func(c *ent.CommentCreate) {
			c.SetPageID(p.PageID).SetPageTitle(p.Title).SetPagePath(path)
			if node != "" {
				c.SetNodeID(node).SetNodePreview(preview)
			}
		}
	}
	var c *ent.Comment
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		create := tx.Comment.Create().SetSpaceID(spaceID).SetNillableChangeRequestID(sc.crID()).
			SetBody(in.Markdown).SetPostedBy(auth.ViewerID(ctx)).SetRevisionID(revID)
		set(create)
		if c, err = create.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, commentEvent(events.CommentPosted, sc, c.ID, deref(c.PageID)))
		return nil
	})
	return c, err
}

// commentEvent is an event whose target is comment id in scope sc.
func commentEvent(action string, sc commentScope, id, pageID string) events.Event {
	payload := map[string]any{"commentId": id}
	if pageID != "" {
		payload["pageId"] = pageID
	}
	return events.Event{
		Action: action, OrganizationID: sc.Space.OrganizationID,
		Target:  events.Target{Type: "comment", ID: id},
		SpaceID: sc.Space.ID, ChangeRequestID: sc.crIDOrEmpty(), Payload: payload,
	}
}

// replyEvent is an event whose target is reply id of comment commentID in
// scope sc.
func replyEvent(action string, sc commentScope, commentID, id string) events.Event {
	return events.Event{
		Action: action, OrganizationID: sc.Space.OrganizationID,
		Target:  events.Target{Type: "comment-reply", ID: id},
		SpaceID: sc.Space.ID, ChangeRequestID: sc.crIDOrEmpty(),
		Payload: map[string]any{"commentId": commentID, "replyId": id},
	}
}

// emojiList is a list of emoji for a payload, never nil.
func emojiList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func scopeNoun(sc commentScope) string {
	if sc.CR != nil {
		return "change request"
	}
	return "space"
}

// revisionPage is page pageID of a revision with the revision's tree; nil
// when the revision has no such page.
func revisionPage(ctx context.Context, revID, pageID string) (*ent.Page, *loader.Tree, error) {
	if revID == "" {
		return nil, nil, nil
	}
	tree, err := loader.For(ctx).RevisionTree.Load(ctx, revID)()
	if err != nil {
		return nil, nil, err
	}
	return tree.ByID[pageID], tree, nil
}

// blockPreview finds block key in a page's document and gives the start of
// its text.
func blockPreview(ctx context.Context, p *ent.Page, key string) (string, bool, error) {
	if p.ContentHash == "" {
		return "", false, nil
	}
	d, err := loader.For(ctx).PageDerived.Load(ctx, p.ContentHash)()
	if err != nil {
		return "", false, err
	}
	var found *markdown.Node
	var walk func(ns []markdown.Node)
	walk = func(ns []markdown.Node) {
		for i := range ns {
			if found != nil {
				return
			}
			if ns[i].Object == "block" && ns[i].Key == key {
				found = &ns[i]
				return
			}
			walk(ns[i].Nodes)
		}
	}
	walk(d.Document.Nodes)
	if found == nil {
		return "", false, nil
	}
	var b strings.Builder
	var text func(n markdown.Node)
	text = func(n markdown.Node) {
		for _, l := range n.Leaves {
			b.WriteString(l.Text)
		}
		for _, c := range n.Nodes {
			if b.Len() > 0 && c.Object == "block" {
				b.WriteByte(' ')
			}
			text(c)
		}
	}
	text(*found)
	return truncateRunes(strings.TrimSpace(b.String()), previewRunes), true, nil
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// reactionChange is a CommentChange's reactions, normalized.
type reactionChange struct{ added, removed []string }

// normalizeReactions checks every emoji against the Unicode emoji data and
// gives their stored forms.
func normalizeReactions(ch CommentChange) (reactionChange, error) {
	var out reactionChange
	for _, list := range []struct {
		field string
		in    []string
		out   *[]string
	}{{"addedReactions", ch.Added, &out.added}, {"removedReactions", ch.Removed, &out.removed}} {
		if len(list.in) > MaxReactionEmoji {
			return out, apperr.InvalidField(list.field, "holds at most %d emoji", MaxReactionEmoji)
		}
		for i, e := range list.in {
			n, err := emoji.Normalize(e)
			if err != nil {
				return out, apperr.InvalidField(fmt.Sprintf("%s[%d]", list.field, i), "%s", err.Error())
			}
			*list.out = append(*list.out, n)
		}
	}
	return out, nil
}

// applyReactions adds and removes the caller's reactions on a comment or
// reply; adding twice keeps one, removing one never added changes nothing.
func applyReactions(ctx context.Context, tx *ent.Client, spaceID, subjectID string, rc reactionChange) error {
	viewer := auth.ViewerID(ctx)
	if len(rc.removed) > 0 {
		if _, err := tx.CommentReaction.Delete().Where(commentreaction.SubjectID(subjectID),
			commentreaction.UserID(viewer), commentreaction.EmojiIn(rc.removed...)).Exec(ctx); err != nil {
			return err
		}
	}
	if len(rc.added) == 0 {
		return nil
	}
	now := clock.Now()
	for _, e := range rc.added {
		err := tx.CommentReaction.Create().SetSubjectID(subjectID).SetSpaceID(spaceID).SetEmoji(e).
			SetUserID(viewer).SetCreatedAt(now).
			OnConflictColumns(commentreaction.FieldSubjectID, commentreaction.FieldEmoji, commentreaction.FieldUserID).
			DoNothing().Exec(ctx)
		if err != nil && !errors.Is(err, sql.ErrNoRows) { // ent's DoNothing: no row when it was there
			return err
		}
	}
	var kinds []string
	if err := tx.CommentReaction.Query().Where(commentreaction.SubjectID(subjectID)).Unique(true).
		Select(commentreaction.FieldEmoji).Scan(ctx, &kinds); err != nil {
		return err
	}
	if len(kinds) > MaxReactionEmoji {
		return apperr.InvalidField("addedReactions", "a comment or reply holds at most %d different emoji", MaxReactionEmoji)
	}
	return nil
}

// checkCommentChange checks a change to a comment or reply posted by
// postedBy whose body is body, before anything is written: a new body needs
// its author (403) and the bounds of a body; reactions must be emoji. It
// reports whether the body changes, and the normalized reactions.
func checkCommentChange(ctx context.Context, ch CommentChange, postedBy, body string) (bool, reactionChange, error) {
	newBody := ch.Markdown != nil && *ch.Markdown != body
	if newBody {
		if err := authoredBody(ctx, postedBy); err != nil {
			return false, reactionChange{}, err
		}
		if err := checkCommentBody(*ch.Markdown); err != nil {
			return false, reactionChange{}, err
		}
	}
	rc, err := normalizeReactions(ch)
	return newBody, rc, err
}

// UpdateComment edits a comment's body (its author only: 403 otherwise,
// and nothing changes), resolves or reopens it, and adds or removes the
// caller's reactions, in one transaction.
func (r *Resolver) UpdateComment(ctx context.Context, spaceID string, crID *string, id string, ch CommentChange) (*ent.Comment, error) {
	sc, err := r.commentableScope(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	c, err := r.visibleComment(ctx, sc, id)
	if err != nil {
		return nil, err
	}
	newBody, rc, err := checkCommentChange(ctx, ch, c.PostedBy, c.Body)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.Comment.UpdateOneID(c.ID)
		pageID := deref(c.PageID)
		var evs []events.Event
		if newBody {
			upd.SetBody(*ch.Markdown).SetEditedAt(clock.Now())
			ev := commentEvent(events.CommentUpdated, sc, c.ID, pageID)
			ev.Payload["fields"] = []string{"body"}
			evs = append(evs, ev)
		}
		if ch.Resolved != nil {
			switch {
			case *ch.Resolved && c.Status == comment.StatusOpen:
				upd.SetStatus(comment.StatusResolved).SetResolvedAt(clock.Now()).SetResolvedBy(auth.ViewerID(ctx))
				evs = append(evs, commentEvent(events.CommentResolved, sc, c.ID, pageID))
			case !*ch.Resolved && c.Status == comment.StatusResolved:
				upd.SetStatus(comment.StatusOpen).ClearResolvedAt().ClearResolvedBy()
				evs = append(evs, commentEvent(events.CommentReopened, sc, c.ID, pageID))
			}
		}
		if len(rc.added)+len(rc.removed) > 0 {
			ev := commentEvent(events.CommentReactionsChanged, sc, c.ID, pageID)
			ev.Payload["added"], ev.Payload["removed"] = emojiList(rc.added), emojiList(rc.removed)
			evs = append(evs, ev)
		}
		if len(evs) == 0 {
			// Nothing asked changes anything, but the row is still
			// written (its update time): an update naming no field.
			ev := commentEvent(events.CommentUpdated, sc, c.ID, pageID)
			ev.Payload["fields"] = []string{}
			evs = append(evs, ev)
		}
		if c, err = upd.Save(ctx); err != nil {
			return err
		}
		if err := applyReactions(ctx, tx, spaceID, c.ID, rc); err != nil {
			return err
		}
		for _, ev := range evs {
			record(ctx, ev)
		}
		return nil
	})
	return c, entError(err)
}

// DeleteComment deletes a comment with its replies and their reactions
// (its author, or an admin of the space).
func (r *Resolver) DeleteComment(ctx context.Context, spaceID string, crID *string, id string) error {
	sc, err := r.visibleCommentScope(ctx, spaceID, crID)
	if err != nil {
		return err
	}
	c, err := r.visibleComment(ctx, sc, id)
	if err != nil {
		return err
	}
	if err := removableBy(ctx, sc, c.PostedBy); err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		replies, err := tx.CommentReply.Query().Where(commentreply.CommentID(c.ID)).IDs(ctx)
		if err != nil {
			return err
		}
		subjects := append(replies, c.ID)
		if _, err := tx.CommentReaction.Delete().Where(commentreaction.SubjectIDIn(subjects...)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.CommentReply.Delete().Where(commentreply.CommentID(c.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.Comment.DeleteOneID(c.ID).Exec(ctx); err != nil {
			return err
		}
		ev := commentEvent(events.CommentDeleted, sc, c.ID, deref(c.PageID))
		ev.Payload["replies"] = len(replies)
		record(ctx, ev)
		return nil
	})
}

// CommentReplies pages through a comment's replies, oldest first unless
// asked otherwise.
func (r *Resolver) CommentReplies(ctx context.Context, spaceID string, crID *string, commentID string, args paging.Args) (paging.Page[*ent.CommentReply], error) {
	c, err := r.ScopeComment(ctx, spaceID, crID, commentID)
	if err != nil {
		return paging.Page[*ent.CommentReply]{}, err
	}
	return r.RepliesOf(ctx, c, args)
}

// RepliesOf pages through the replies of a comment already read (GraphQL's
// Comment.replies): the replies of every comment a list shows are read
// together (pageUnder), and their authors primed (ShowReplies).
func (r *Resolver) RepliesOf(ctx context.Context, c *ent.Comment, args paging.Args) (paging.Page[*ent.CommentReply], error) {
	return pageUnder(ctx, loader.Comments, "replies", c.ID, args, func(ctx context.Context, comments []string) (map[string]paging.Page[*ent.CommentReply], error) {
		pages, err := listPages(ctx, r.Client.CommentReply.Query(), commentreply.FieldCommentID, comments, args,
			commentreply.FieldCreatedAt, replyKey, func(rp *ent.CommentReply) string { return rp.CommentID })
		if err != nil {
			return nil, err
		}
		return pages, loader.For(ctx).ShowReplies(ctx, itemsOf(pages))
	})
}

// ScopeCommentReply is one reply of a comment.
func (r *Resolver) ScopeCommentReply(ctx context.Context, spaceID string, crID *string, commentID, replyID string) (*ent.CommentReply, error) {
	c, err := r.ScopeComment(ctx, spaceID, crID, commentID)
	if err != nil {
		return nil, err
	}
	return r.visibleReply(ctx, c, replyID)
}

// PostCommentReply replies to a comment.
func (r *Resolver) PostCommentReply(ctx context.Context, spaceID string, crID *string, commentID, md string) (*ent.CommentReply, error) {
	sc, err := r.commentableScope(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	c, err := r.visibleComment(ctx, sc, commentID)
	if err != nil {
		return nil, err
	}
	if err := checkCommentBody(md); err != nil {
		return nil, err
	}
	var rp *ent.CommentReply
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if rp, err = tx.CommentReply.Create().SetCommentID(c.ID).SetSpaceID(spaceID).
			SetNillableChangeRequestID(c.ChangeRequestID).SetBody(md).SetPostedBy(auth.ViewerID(ctx)).Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, replyEvent(events.CommentReplyPosted, sc, c.ID, rp.ID))
		return nil
	})
	return rp, err
}

// UpdateCommentReply edits a reply's body (its author only) and adds or
// removes the caller's reactions, in one transaction.
func (r *Resolver) UpdateCommentReply(ctx context.Context, spaceID string, crID *string, commentID, replyID string, ch CommentChange) (*ent.CommentReply, error) {
	sc, err := r.commentableScope(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	c, err := r.visibleComment(ctx, sc, commentID)
	if err != nil {
		return nil, err
	}
	rp, err := r.visibleReply(ctx, c, replyID)
	if err != nil {
		return nil, err
	}
	newBody, rc, err := checkCommentChange(ctx, ch, rp.PostedBy, rp.Body)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if newBody {
			if rp, err = tx.CommentReply.UpdateOneID(rp.ID).SetBody(*ch.Markdown).SetEditedAt(clock.Now()).Save(ctx); err != nil {
				return err
			}
			ev := replyEvent(events.CommentReplyUpdated, sc, c.ID, rp.ID)
			ev.Payload["fields"] = []string{"body"}
			record(ctx, ev)
		}
		if err := applyReactions(ctx, tx, spaceID, rp.ID, rc); err != nil {
			return err
		}
		if len(rc.added)+len(rc.removed) > 0 {
			ev := replyEvent(events.CommentReplyReactionsChanged, sc, c.ID, rp.ID)
			ev.Payload["added"], ev.Payload["removed"] = emojiList(rc.added), emojiList(rc.removed)
			record(ctx, ev)
		}
		return nil
	})
	return rp, entError(err)
}

// DeleteCommentReply deletes a reply and its reactions (its author, or an
// admin of the space).
func (r *Resolver) DeleteCommentReply(ctx context.Context, spaceID string, crID *string, commentID, replyID string) error {
	sc, err := r.visibleCommentScope(ctx, spaceID, crID)
	if err != nil {
		return err
	}
	c, err := r.visibleComment(ctx, sc, commentID)
	if err != nil {
		return err
	}
	rp, err := r.visibleReply(ctx, c, replyID)
	if err != nil {
		return err
	}
	if err := removableBy(ctx, sc, rp.PostedBy); err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.CommentReaction.Delete().Where(commentreaction.SubjectID(rp.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.CommentReply.DeleteOneID(rp.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, replyEvent(events.CommentReplyDeleted, sc, c.ID, rp.ID))
		return nil
	})
}

// Commenters pages through the users who posted comments or replies in a
// scope, first poster first unless asked otherwise, as members of the
// space's organization; a user who left appears as a member without a role,
// joined when they first posted.
func (r *Resolver) Commenters(ctx context.Context, spaceID string, crID *string, args paging.Args) (paging.Page[*ent.Member], error) {
	sc, err := r.visibleCommentScope(ctx, spaceID, crID)
	if err != nil {
		return paging.Page[*ent.Member]{}, err
	}
	return r.scopeCommenters(ctx, sc, args)
}

// ChangeRequestCommenters is Commenters for a change request already read
// (GraphQL's ChangeRequest.commenters).
func (r *Resolver) ChangeRequestCommenters(ctx context.Context, cr *ent.ChangeRequest, args paging.Args) (paging.Page[*ent.Member], error) {
	s, role, err := discussedSpace(ctx, cr.SpaceID)
	if err != nil {
		return paging.Page[*ent.Member]{}, err
	}
	return r.scopeCommenters(ctx, commentScope{Space: s, Role: role, CR: cr}, args)
}

// commenterKey orders commenters by their first post.
type commenterKey = func(*ent.Member) paging.Cursor

// scopeCommenters are a visible scope's commenters. Those of every space
// (or change request) a list shows are read together: three statements in
// all (comments, replies, memberships).
func (r *Resolver) scopeCommenters(ctx context.Context, sc commentScope, args paging.Args) (paging.Page[*ent.Member], error) {
	type commenters struct {
		members []*ent.Member
		key     commenterKey
	}
	of, parent := loader.Spaces, sc.Space.ID
	if sc.CR != nil {
		of, parent = loader.ChangeRequests, sc.CR.ID
	}
	// A level's scopes are spaces, or change requests, of the organizations
	// its spaces are in: the scope's own and, for a list of several
	// organizations' spaces, the level's others (orgOf).
	l := loader.For(ctx)
	orgOf := func(spaceID string) string {
		if spaceID == sc.Space.ID {
			return sc.Space.OrganizationID
		}
		if s := l.ShownSpace(spaceID); s != nil {
			return s.OrganizationID
		}
		return sc.Space.OrganizationID // a list of one organization's change requests
	}
	got, err := loader.PerParent(ctx, of, "commenters", parent, func(ctx context.Context, scopes []string) (map[string]commenters, error) {
		cq := r.Client.Comment.Query()
		rq := r.Client.CommentReply.Query()
		scopeOfComment := func(c *ent.Comment) string { return c.SpaceID }
		scopeOfReply := func(rp *ent.CommentReply) string { return rp.SpaceID }
		if sc.CR == nil {
			cq.Where(comment.SpaceIDIn(scopes...), comment.ChangeRequestIDIsNil())
			rq.Where(commentreply.SpaceIDIn(scopes...), commentreply.ChangeRequestIDIsNil())
		} else {
			cq.Where(comment.ChangeRequestIDIn(scopes...))
			rq.Where(commentreply.ChangeRequestIDIn(scopes...))
			scopeOfComment = func(c *ent.Comment) string { return *c.ChangeRequestID }
			scopeOfReply = func(rp *ent.CommentReply) string { return *rp.ChangeRequestID }
		}
		comments, err := cq.Select(comment.FieldSpaceID, comment.FieldChangeRequestID, comment.FieldPostedBy, comment.FieldCreatedAt).All(ctx)
		if err != nil {
			return nil, err
		}
		replies, err := rq.Select(commentreply.FieldSpaceID, commentreply.FieldChangeRequestID, commentreply.FieldPostedBy, commentreply.FieldCreatedAt).All(ctx)
		if err != nil {
			return nil, err
		}
		// Each scope's users, at their first post; and the organization of
		// each scope (the space's).
		first := map[string]map[string]paging.Cursor{}
		orgs := map[string]string{}
		seen := func(scope, spaceID, user string, at paging.Cursor) {
			if user == "" {
				return
			}
			if first[scope] == nil {
				first[scope] = map[string]paging.Cursor{}
			}
			if f, ok := first[scope][user]; !ok || at.Time.Before(f.Time) {
				first[scope][user] = paging.Cursor{Time: at.Time, ID: user}
			}
			orgs[scope] = orgOf(spaceID)
		}
		for _, c := range comments {
			seen(scopeOfComment(c), c.SpaceID, c.PostedBy, paging.Cursor{Time: c.CreatedAt})
		}
		for _, rp := range replies {
			seen(scopeOfReply(rp), rp.SpaceID, rp.PostedBy, paging.Cursor{Time: rp.CreatedAt})
		}
		var userIDs, orgIDs []string
		for scope, users := range first {
			orgIDs = append(orgIDs, orgs[scope])
			for u := range users {
				userIDs = append(userIDs, u)
			}
		}
		byKey := map[string]*ent.Member{}
		if len(userIDs) > 0 {
			members, err := r.Client.Member.Query().Where(member.OrganizationIDIn(orgIDs...), member.UserIDIn(userIDs...)).All(ctx)
			if err != nil {
				return nil, err
			}
			var shown []*ent.Member
			for _, m := range members {
				k := loader.MemberKey(m.OrganizationID, m.UserID)
				if byKey[k] == nil {
					byKey[k] = m
					shown = append(shown, m)
				}
			}
			// What a commenter shows (its user, even one who left; its
			// teams) is read for the whole level.
			if err := l.PrimeUsers(ctx, userIDs); err != nil {
				return nil, err
			}
			if err := r.primeMembers(ctx, shown); err != nil {
				return nil, err
			}
		}
		out := make(map[string]commenters, len(scopes))
		for scope, users := range first {
			org := orgs[scope]
			list := make([]*ent.Member, 0, len(users))
			for u, at := range users {
				m := byKey[loader.MemberKey(org, u)]
				if m == nil {
					m = &ent.Member{OrganizationID: org, UserID: u, JoinedAt: at.Time}
				}
				list = append(list, m)
			}
			key := func(m *ent.Member) paging.Cursor { return users[m.UserID] }
			sort.Slice(list, func(i, j int) bool { return key(list[i]).Less(key(list[j])) })
			out[scope] = commenters{members: list, key: key}
		}
		return out, nil
	})
	if err != nil {
		return paging.Page[*ent.Member]{}, err
	}
	if got.key == nil {
		got.key = func(m *ent.Member) paging.Cursor { return paging.Cursor{ID: m.UserID} }
	}
	return paging.Slice(args, got.members, got.key), nil
}

// CommentUser is a user a comment or reply (subjectID) names: its author
// or resolver; nil when the user no longer exists.
func (r *Resolver) CommentUser(ctx context.Context, subjectID string, userID *string) (*ent.User, error) {
	if userID == nil || *userID == "" {
		return nil, nil
	}
	u, err := loader.UserNamedBy(ctx, loader.Comments, subjectID, *userID)
	if _, ok := apperr.As(err); ok {
		return nil, nil
	}
	return u, err
}

// CommentAuthor is a user who posted, resolved or reacted; nil when the
// user no longer exists.
func (r *Resolver) CommentAuthor(ctx context.Context, userID *string) (*ent.User, error) {
	if userID == nil || *userID == "" {
		return nil, nil
	}
	u, err := loader.For(ctx).UserByID.Load(ctx, *userID)()
	if _, ok := apperr.As(err); ok {
		return nil, nil
	}
	return u, err
}

// CommentReplyCount is the number of a comment's replies.
func (r *Resolver) CommentReplyCount(ctx context.Context, c *ent.Comment) (int, error) {
	return loader.For(ctx).ReplyCount.Load(ctx, c.ID)()
}

// Reactions are the reactions on a comment or reply, by emoji in the order
// each was first added, each emoji's users in the order they reacted.
func (r *Resolver) Reactions(ctx context.Context, subjectID string) ([]*model.EmojiReaction, error) {
	rows, err := loader.For(ctx).Reactions.Load(ctx, subjectID)()
	if err != nil {
		return nil, err
	}
	out := []*model.EmojiReaction{}
	byEmoji := map[string]*model.EmojiReaction{}
	for _, rc := range rows {
		e := byEmoji[rc.Emoji]
		if e == nil {
			e = &model.EmojiReaction{Emoji: rc.Emoji, Users: []*model.EmojiReactionUser{}}
			byEmoji[rc.Emoji] = e
			out = append(out, e)
		}
		u, err := r.CommentAuthor(ctx, &rc.UserID)
		if err != nil {
			return nil, err
		}
		e.Count++
		e.Users = append(e.Users, &model.EmojiReactionUser{User: u, ReactedAt: rc.CreatedAt})
	}
	return out, nil
}

// commentContext is a comment's space, change request (nil: the space's
// own) and the caller's role on the space, through the loaders.
func commentContext(ctx context.Context, spaceID string, crID *string) (*ent.Space, *ent.ChangeRequest, *access.Role, error) {
	l := loader.For(ctx)
	var crThunk func() (*ent.ChangeRequest, error)
	if crID != nil {
		crThunk = l.ChangeRequestByID.Load(ctx, *crID)
	}
	s, err := l.SpaceByID.Load(ctx, spaceID)()
	if err != nil {
		return nil, nil, nil, err
	}
	var cr *ent.ChangeRequest
	if crThunk != nil {
		if cr, err = crThunk(); err != nil {
			return nil, nil, nil, err
		}
	}
	role, err := spaceRole(ctx, s)
	return s, cr, role, err
}

// CommentTarget is what a comment is about. The page is looked up in the
// primary content (the space's current revision; an open change request's
// own): there it gives its current title and path, and once it is gone the
// ones it had when the comment was posted, with outdated true.
func (r *Resolver) CommentTarget(ctx context.Context, c *ent.Comment) (*model.CommentTarget, error) {
	t := &model.CommentTarget{Space: c.SpaceID, Revision: c.RevisionID, ChangeRequest: c.ChangeRequestID, Review: c.ReviewID}
	if c.NodeID != nil {
		t.Node = &model.CommentNodeTarget{SpaceID: c.SpaceID, CommentID: c.ID, Key: *c.NodeID, Preview: c.NodePreview}
	}
	if c.PageID == nil {
		return t, nil
	}
	s, cr, _, err := commentContext(ctx, c.SpaceID, c.ChangeRequestID)
	if err != nil {
		return nil, err
	}
	p, tree, err := revisionPage(ctx, primaryRevision(s, cr), *c.PageID)
	if err != nil {
		return nil, err
	}
	t.Page = &model.CommentPageTarget{SpaceID: c.SpaceID, CommentID: c.ID, PageID: *c.PageID,
		Title: c.PageTitle, Path: c.PagePath, Outdated: p == nil}
	if p != nil {
		t.Page.Title, t.Page.Path = p.Title, tree.Path(p)
	}
	return t, nil
}

// CommentPermissions is what the caller may do with a comment.
func (r *Resolver) CommentPermissions(ctx context.Context, c *ent.Comment) (*access.CommentPermissions, error) {
	return subjectPermissions(ctx, c.SpaceID, c.ChangeRequestID, c.PostedBy)
}

// ReplyPermissions is what the caller may do with a reply.
func (r *Resolver) ReplyPermissions(ctx context.Context, rp *ent.CommentReply) (*access.CommentPermissions, error) {
	return subjectPermissions(ctx, rp.SpaceID, rp.ChangeRequestID, rp.PostedBy)
}

func subjectPermissions(ctx context.Context, spaceID string, crID *string, postedBy string) (*access.CommentPermissions, error) {
	_, cr, role, err := commentContext(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	p := access.CommentPermissionsFor(role, postedBy == auth.ViewerID(ctx), cr == nil || commentsWritable(cr))
	return &p, nil
}

// BodyDocument is a comment or reply body as GitBook's structured document.
func (r *Resolver) BodyDocument(md string) markdown.Document { return markdown.ToDocument(md) }

// CommentURL is where a comment lives in the REST API.
func (r *Resolver) CommentURL(c *ent.Comment) string {
	base := r.BaseURL + "/v1/spaces/" + c.SpaceID
	if c.ChangeRequestID != nil {
		base += "/change-requests/" + *c.ChangeRequestID
	}
	return base + "/comments/" + c.ID
}

// ReplyURL is where a reply lives in the REST API.
func (r *Resolver) ReplyURL(rp *ent.CommentReply) string {
	base := r.BaseURL + "/v1/spaces/" + rp.SpaceID
	if rp.ChangeRequestID != nil {
		base += "/change-requests/" + *rp.ChangeRequestID
	}
	return base + "/comments/" + rp.CommentID + "/replies/" + rp.ID
}

// commentNode is node(id:) of a comment: readable by whoever can read its
// space; 404 otherwise.
func (r *Resolver) commentNode(ctx context.Context, spaceID, id string) (*ent.Comment, error) {
	if _, _, err := discussedSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	return r.Client.Comment.Get(ctx, id)
}

// replyNode is node(id:) of a reply, read as its comment is.
func (r *Resolver) replyNode(ctx context.Context, spaceID, id string) (*ent.CommentReply, error) {
	if _, _, err := discussedSpace(ctx, spaceID); err != nil {
		return nil, err
	}
	return r.Client.CommentReply.Get(ctx, id)
}
