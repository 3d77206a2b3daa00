package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/mergerules"
)

// Area `reviews`: the users asked to review a change request, and the
// reviews submitted.
func (a *API) reviewRoutes(r chi.Router) {
	const cr = "/spaces/{spaceId}/change-requests/{changeRequestId}"
	r.Method("GET", cr+"/reviews", handler(a.listReviews))
	r.Method("POST", cr+"/reviews", handler(a.submitReview))
	r.Method("GET", cr+"/reviews/{reviewId}", handler(a.getReview))
	r.Method("GET", cr+"/requested-reviewers", handler(a.listRequestedReviewers))
	r.Method("POST", cr+"/requested-reviewers", handler(a.requestReviewers))
	r.Method("DELETE", cr+"/requested-reviewers/{userId}", handler(a.removeRequestedReviewer))
}

// changeRequestOf is the change request a review route names.
func (a *API) changeRequestOf(r *http.Request) (*ent.ChangeRequest, error) {
	return a.res.FindChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
}

func (a *API) listReviews(w http.ResponseWriter, r *http.Request) error {
	cr, err := a.changeRequestOf(r)
	if err != nil {
		return err
	}
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	outdated, err := queryBool(r, "outdated")
	if err != nil {
		return err
	}
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.ChangeRequestReviews(r.Context(), cr, outdated, args)
	return writeList(w, r, page, err, nil, a.presentReview(cr, format))
}

func (a *API) getReview(w http.ResponseWriter, r *http.Request) error {
	cr, err := a.changeRequestOf(r)
	if err != nil {
		return err
	}
	format, err := bodyFormat(r, formatMarkdown)
	if err != nil {
		return err
	}
	rv, err := a.res.FindReview(r.Context(), cr, chi.URLParam(r, "reviewId"))
	return writeOne(w, r, http.StatusOK, rv, err, a.presentReview(cr, format), a.reviewLocation)
}

// submitReviewBody is submitChangeRequestReview's body: the comment is
// GitBook's Document ({"markdown": …} or {"document": …}).
type submitReviewBody struct {
	Status  *string      `json:"status"`
	Comment *commentBody `json:"comment"`
}

func (a *API) submitReview(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.CheckReviewer(r.Context(), chi.URLParam(r, "spaceId")); err != nil {
		return err
	}
	var in submitReviewBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Status == nil {
		return apperr.InvalidField("status", "is required: approved or changes-requested")
	}
	var comment *string
	if in.Comment != nil {
		if comment = in.Comment.Markdown; comment == nil && len(in.Comment.Document) > 0 && string(in.Comment.Document) != "null" {
			md, err := markdown.FromDocument(in.Comment.Document)
			if err != nil {
				return apperr.InvalidField("comment.document", "%s", err.Error())
			}
			comment = &md
		}
	}
	rv, err := a.res.SubmitReview(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), *in.Status, comment)
	if err != nil {
		return err
	}
	cr, err := a.changeRequestOf(r)
	return writeOne(w, r, http.StatusCreated, rv, err, a.presentReview(cr, formatMarkdown), a.reviewLocation)
}

func (a *API) reviewLocation(rv *ent.ChangeRequestReview) string {
	return a.res.BaseURL + "/v1/spaces/" + rv.SpaceID + "/change-requests/" + rv.ChangeRequestID + "/reviews/" + rv.ID
}

// presentReview is GitBook's ChangeRequestReview, its comment's body in
// format.
func (a *API) presentReview(cr *ent.ChangeRequest, format string) func(context.Context, *ent.ChangeRequestReview) (any, error) {
	return func(ctx context.Context, rv *ent.ChangeRequestReview) (any, error) {
		out := map[string]any{
			"object":    "change-request-review",
			"id":        rv.ID,
			"revision":  rv.RevisionID,
			"status":    string(rv.Status),
			"outdated":  graph.ReviewOutdated(rv, cr),
			"createdAt": timestamp(rv.CreatedAt),
			"updatedAt": timestamp(rv.UpdatedAt),
			"urls":      urlsLocation{Location: a.reviewLocation(rv)},
		}
		reviewer, err := a.res.OptionalUser(ctx, &rv.ReviewerID)
		if err != nil {
			return nil, err
		}
		out["reviewer"] = a.userOrPlaceholder(reviewer, rv.ReviewerID)
		if rv.RequestedBy != nil {
			by, err := a.res.OptionalUser(ctx, rv.RequestedBy)
			if err != nil {
				return nil, err
			}
			out["requestedBy"] = a.userOrPlaceholder(by, *rv.RequestedBy)
		}
		c, err := a.res.ReviewComment(ctx, rv)
		if err != nil {
			return nil, err
		}
		if c != nil {
			pc, err := a.presentComment(format)(ctx, c)
			if err != nil {
				return nil, err
			}
			// GitBook 0.202.0's Comment, which a review carries, also
			// lists its repliers.
			reps, err := a.res.ReviewCommentRepliers(ctx, rv)
			if err != nil {
				return nil, err
			}
			repliers := make([]map[string]any, len(reps))
			for i, rp := range reps {
				repliers[i] = map[string]any{"user": a.presentUser(rp.User), "count": rp.Count, "updatedAt": timestamp(rp.UpdatedAt)}
			}
			pc.(map[string]any)["repliers"] = repliers
			out["comment"] = pc
		}
		return out, nil
	}
}

// userOrPlaceholder is a user, or for one that is gone a placeholder with
// their id: GitBook requires the user objects.
func (a *API) userOrPlaceholder(u *ent.User, id string) userJSON {
	if u != nil {
		return a.presentUser(u)
	}
	return userJSON{Object: "user", ID: id, DisplayName: "Deleted user", URLs: urlsLocation{Location: a.res.BaseURL + "/v1/users/" + id}}
}

func (a *API) listRequestedReviewers(w http.ResponseWriter, r *http.Request) error {
	cr, err := a.changeRequestOf(r)
	if err != nil {
		return err
	}
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.PageRequestedReviewers(r.Context(), cr, args)
	return writeList(w, r, page, err, nil, a.presentRequestedReviewer)
}

// requestReviewersBody is requestReviewersForChangeRequest's body; the
// description is GitBook's JSONDocument (or {"markdown": …}).
type requestReviewersBody struct {
	Users       []string        `json:"users"`
	Subject     *string         `json:"subject"`
	Description json.RawMessage `json:"description"`
}

func (a *API) requestReviewers(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.CheckReviewRequester(r.Context(), chi.URLParam(r, "spaceId")); err != nil {
		return err
	}
	var in requestReviewersBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Users == nil {
		return apperr.InvalidField("users", "is required: a list of user ids")
	}
	description, err := documentMarkdown(in.Description, "description")
	if err != nil {
		return err
	}
	reqs, err := a.res.RequestReviewers(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"),
		graph.ReviewersRequest{Users: in.Users, Subject: in.Subject, Description: description})
	if err != nil {
		return err
	}
	users := make([]any, len(reqs))
	for i, rq := range reqs {
		if users[i], err = a.presentRequestedReviewer(r.Context(), rq); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"users": users})
}

// presentRequestedReviewer is GitBook's ChangeRequestRequestedReviewer
// (kind user: Folio asks users, not teams).
func (a *API) presentRequestedReviewer(ctx context.Context, rq *ent.ReviewRequest) (any, error) {
	u, err := a.res.OptionalUser(ctx, &rq.UserID)
	if err != nil {
		return nil, err
	}
	by, err := a.res.OptionalUser(ctx, &rq.RequestedBy)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"object":      "change-request-requested-reviewer",
		"kind":        "user",
		"user":        a.userOrPlaceholder(u, rq.UserID),
		"requestedBy": a.userOrPlaceholder(by, rq.RequestedBy),
		"revision":    rq.RevisionID,
		"createdAt":   timestamp(rq.CreatedAt),
	}, nil
}

func (a *API) removeRequestedReviewer(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.RemoveRequestedReviewer(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), chi.URLParam(r, "userId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

// documentMarkdown reads a description given as GitBook's JSONDocument
// ({"object": "document", "nodes": […]}) or as {"markdown": "…"}: its
// markdown, nil when absent.
func documentMarkdown(raw json.RawMessage, field string) (*string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var md struct {
		Markdown *string `json:"markdown"`
	}
	if err := json.Unmarshal(raw, &md); err != nil {
		return nil, apperr.InvalidField(field, "must be a document object")
	}
	if md.Markdown != nil {
		return md.Markdown, nil
	}
	text, err := markdown.FromDocument(raw)
	if err != nil {
		return nil, apperr.InvalidField(field, "%s", err.Error())
	}
	return &text, nil
}

// mergeRulesJSON is a MergeRules*Configuration: rules only (and always)
// with type rules.
func mergeRulesJSON(c *mergerules.Config) mergeRulesBody {
	out := mergeRulesBody{Type: c.Type}
	if c.Type == mergerules.TypeRules {
		out.Rules = &c.Rules
	}
	return out
}

// mergeRulesBody is mergeRulesJSON's object; rules is absent (not null)
// unless the type is rules.
type mergeRulesBody struct {
	Rules *[]mergerules.Rule `json:"rules,omitempty"`
	Type  mergerules.Type    `json:"type"`
}

// mergeabilityJSON is the `mergeability` extension of a change request.
func mergeabilityJSON(v *mergerules.Verdict) map[string]any {
	rules := v.Rules
	if rules == nil {
		rules = []mergerules.Result{}
	}
	return map[string]any{"mergeable": v.Mergeable, "bypassed": v.Bypassed, "rules": rules}
}
