package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/paging"
)

// Area `comments`: comments, replies, reactions and commenters of a space
// and of its change requests. Every route exists under both prefixes; the
// change request (by id or number) is nil under the space's.
func (a *API) commentRoutes(r chi.Router) {
	for _, prefix := range []string{"/spaces/{spaceId}", "/spaces/{spaceId}/change-requests/{changeRequestId}"} {
		r.Method("GET", prefix+"/comments", handler(a.listComments))
		r.Method("POST", prefix+"/comments", handler(a.postComment))
		r.Method("GET", prefix+"/comments/{commentId}", handler(a.getComment))
		r.Method("PUT", prefix+"/comments/{commentId}", handler(a.updateComment))
		r.Method("DELETE", prefix+"/comments/{commentId}", handler(a.deleteComment))
		r.Method("GET", prefix+"/comments/{commentId}/replies", handler(a.listCommentReplies))
		r.Method("POST", prefix+"/comments/{commentId}/replies", handler(a.postCommentReply))
		r.Method("GET", prefix+"/comments/{commentId}/replies/{commentReplyId}", handler(a.getCommentReply))
		r.Method("PUT", prefix+"/comments/{commentId}/replies/{commentReplyId}", handler(a.updateCommentReply))
		r.Method("DELETE", prefix+"/comments/{commentId}/replies/{commentReplyId}", handler(a.deleteCommentReply))
		r.Method("GET", prefix+"/commenters", handler(a.listCommenters))
	}
}

// changeRequestParam is the path's change request, nil under a space.
func changeRequestParam(r *http.Request) *string {
	if v := chi.URLParam(r, "changeRequestId"); v != "" {
		return &v
	}
	return nil
}

// commentBody is GitBook's Document in a request: {"markdown": "..."},
// {"document": {...}} (a structured document, taken as the markdown it
// reads as), or {} (no body).
type commentBody struct {
	Markdown *string         `json:"markdown"`
	Document json.RawMessage `json:"document"`
}

// text is the body's markdown; nil for {}.
func (b *commentBody) text() (*string, error) {
	if b == nil {
		return nil, nil
	}
	if b.Markdown != nil {
		return b.Markdown, nil
	}
	if len(b.Document) > 0 && string(b.Document) != "null" {
		md, err := markdown.FromDocument(b.Document)
		if err != nil {
			return nil, apperr.InvalidField("body.document", "%s", err.Error())
		}
		return &md, nil
	}
	return nil, nil
}

// requiredText is a body that must be there (posts).
func requiredText(b *commentBody) (string, error) {
	md, err := b.text()
	if err != nil {
		return "", err
	}
	if md == nil {
		return "", apperr.InvalidField("body", "is required: {\"markdown\": \"...\"} or a document")
	}
	return *md, nil
}

func (a *API) listComments(w http.ResponseWriter, r *http.Request) error {
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	f := graph.CommentFilter{Status: queryString(r, "status"), TargetPage: queryString(r, "targetPage"), Authors: queryList(r, "authors")}
	page, err := a.res.ScopeComments(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), f, args)
	return writeList(w, r, page, err, a.res.PrimeComments, a.presentComment(format))
}

func (a *API) postComment(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Body *commentBody `json:"body"`
		Page *string      `json:"page"`
		Node *string      `json:"node"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	md, err := requiredText(in.Body)
	if err != nil {
		return err
	}
	c, err := a.res.PostComment(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), graph.CommentPost{Markdown: md, Page: in.Page, Node: in.Node})
	return writeOne(w, r, http.StatusOK, c, err, a.presentComment(formatMarkdown), nil)
}

func (a *API) getComment(w http.ResponseWriter, r *http.Request) error {
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	c, err := a.res.ScopeComment(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"))
	return writeOne(w, r, http.StatusOK, c, err, a.presentComment(format), nil)
}

// commentUpdate is UpdateCommentSchema (resolved is left out for replies).
type commentUpdate struct {
	Resolved         *bool        `json:"resolved"`
	Body             *commentBody `json:"body"`
	AddedReactions   []string     `json:"addedReactions"`
	RemovedReactions []string     `json:"removedReactions"`
}

func (u commentUpdate) change() (graph.CommentChange, error) {
	md, err := u.Body.text()
	return graph.CommentChange{Markdown: md, Resolved: u.Resolved, Added: u.AddedReactions, Removed: u.RemovedReactions}, err
}

func (a *API) updateComment(w http.ResponseWriter, r *http.Request) error {
	var in commentUpdate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	ch, err := in.change()
	if err != nil {
		return err
	}
	c, err := a.res.UpdateComment(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"), ch)
	return writeOne(w, r, http.StatusOK, c, err, a.presentComment(formatMarkdown), nil)
}

func (a *API) deleteComment(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteComment(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) listCommentReplies(w http.ResponseWriter, r *http.Request) error {
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	args, err := paging.New(limit, queryString(r, "page"), graph.AscendingUnlessAsked(queryString(r, "order")), paging.RESTNames)
	if err != nil {
		return err
	}
	page, err := a.res.CommentReplies(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"), args)
	return writeList(w, r, page, err, a.res.PrimeReplies, a.presentReply(format))
}

func (a *API) postCommentReply(w http.ResponseWriter, r *http.Request) error {
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	var in struct {
		Body *commentBody `json:"body"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	md, err := requiredText(in.Body)
	if err != nil {
		return err
	}
	rp, err := a.res.PostCommentReply(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"), md)
	return writeOne(w, r, http.StatusOK, rp, err, a.presentReply(format), nil)
}

func (a *API) getCommentReply(w http.ResponseWriter, r *http.Request) error {
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	rp, err := a.res.ScopeCommentReply(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"), chi.URLParam(r, "commentReplyId"))
	return writeOne(w, r, http.StatusOK, rp, err, a.presentReply(format), nil)
}

func (a *API) updateCommentReply(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Body             *commentBody `json:"body"`
		AddedReactions   []string     `json:"addedReactions"`
		RemovedReactions []string     `json:"removedReactions"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	md, err := in.Body.text()
	if err != nil {
		return err
	}
	rp, err := a.res.UpdateCommentReply(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"), chi.URLParam(r, "commentReplyId"),
		graph.CommentChange{Markdown: md, Added: in.AddedReactions, Removed: in.RemovedReactions})
	return writeOne(w, r, http.StatusOK, rp, err, a.presentReply(formatMarkdown), nil)
}

func (a *API) deleteCommentReply(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteCommentReply(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), chi.URLParam(r, "commentId"), chi.URLParam(r, "commentReplyId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) listCommenters(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	args, err := paging.New(limit, queryString(r, "page"), graph.AscendingUnlessAsked(queryString(r, "order")), paging.RESTNames)
	if err != nil {
		return err
	}
	page, err := a.res.Commenters(r.Context(), chi.URLParam(r, "spaceId"), changeRequestParam(r), args)
	return writeList(w, r, page, err, a.res.PrimeMembers, a.presentMember)
}

// queryList reads a list parameter given repeated (authors=a&authors=b) or
// comma-separated (authors=a,b).
func queryList(r *http.Request, name string) []string {
	var out []string
	for _, v := range params(r)[name] {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// presentBody is a body as GitBook's Document: markdown, or the structured
// document with format=document.
func (a *API) presentBody(md, format string) any {
	if format == formatDocument {
		return map[string]any{"document": a.res.BodyDocument(md)}
	}
	return map[string]any{"markdown": md}
}

// presentPoster is the user behind a comment, reply or reaction; a user who
// no longer exists shows as a placeholder, as GitBook requires a user.
func (a *API) presentPoster(ctx context.Context, id *string) (userJSON, error) {
	u, err := a.res.CommentAuthor(ctx, id)
	if err != nil {
		return userJSON{}, err
	}
	if u == nil {
		return userJSON{Object: "user", ID: *id, DisplayName: "Deleted user", URLs: urlsLocation{Location: a.res.BaseURL + "/v1/users/" + *id}}, nil
	}
	return a.presentUser(u), nil
}

// presentReactions is GitBook's EmojiReactions.
func (a *API) presentReactions(ctx context.Context, subjectID string) ([]map[string]any, error) {
	rs, err := a.res.Reactions(ctx, subjectID)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(rs))
	for i, e := range rs {
		users := make([]map[string]any, len(e.Users))
		for j, u := range e.Users {
			user := userJSON{Object: "user", DisplayName: "Deleted user"}
			if u.User != nil {
				user = a.presentUser(u.User)
			}
			users[j] = map[string]any{"user": user, "reactedAt": timestamp(u.ReactedAt)}
		}
		out[i] = map[string]any{"emoji": e.Emoji, "count": e.Count, "users": users}
	}
	return out, nil
}

// presentComment is GitBook's Comment, its body in format.
func (a *API) presentComment(format string) func(context.Context, *ent.Comment) (any, error) {
	return func(ctx context.Context, c *ent.Comment) (any, error) {
		replies, err := a.res.CommentReplyCount(ctx, c)
		if err != nil {
			return nil, err
		}
		reactions, err := a.presentReactions(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		target, err := a.res.CommentTarget(ctx, c)
		if err != nil {
			return nil, err
		}
		perms, err := a.res.CommentPermissions(ctx, c)
		if err != nil {
			return nil, err
		}
		postedBy, err := a.presentPoster(ctx, &c.PostedBy)
		if err != nil {
			return nil, err
		}
		out := map[string]any{
			"object":      "comment",
			"id":          c.ID,
			"status":      c.Status.String(),
			"postedBy":    postedBy,
			"postedAt":    timestamp(c.CreatedAt),
			"reactions":   reactions,
			"replies":     replies,
			"body":        a.presentBody(c.Body, format),
			"target":      target,
			"urls":        urlsLocation{Location: a.res.CommentURL(c)},
			"permissions": perms,
		}
		if c.EditedAt != nil {
			out["editedAt"] = timestamp(*c.EditedAt)
		}
		// Resolving sets both and reopening clears them (graph.UpdateComment).
		if c.ResolvedAt != nil && c.ResolvedBy != nil {
			by, err := a.presentPoster(ctx, c.ResolvedBy)
			if err != nil {
				return nil, err
			}
			out["resolvedAt"], out["resolvedBy"] = timestamp(*c.ResolvedAt), by
		}
		return out, nil
	}
}

// presentReply is GitBook's CommentReply, its body in format.
func (a *API) presentReply(format string) func(context.Context, *ent.CommentReply) (any, error) {
	return func(ctx context.Context, rp *ent.CommentReply) (any, error) {
		reactions, err := a.presentReactions(ctx, rp.ID)
		if err != nil {
			return nil, err
		}
		perms, err := a.res.ReplyPermissions(ctx, rp)
		if err != nil {
			return nil, err
		}
		postedBy, err := a.presentPoster(ctx, &rp.PostedBy)
		if err != nil {
			return nil, err
		}
		out := map[string]any{
			"object":      "comment-reply",
			"id":          rp.ID,
			"postedBy":    postedBy,
			"postedAt":    timestamp(rp.CreatedAt),
			"reactions":   reactions,
			"body":        a.presentBody(rp.Body, format),
			"urls":        urlsLocation{Location: a.res.ReplyURL(rp)},
			"permissions": perms,
		}
		if rp.EditedAt != nil {
			out["editedAt"] = timestamp(*rp.EditedAt)
		}
		return out, nil
	}
}
