package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// Area `content` (change requests): list, create, read, update, merge,
// update from main, and edit their content.
func (a *API) changeRequestRoutes(r chi.Router) {
	r.Get("/spaces/{spaceId}/change-requests", a.listChangeRequests)
	r.Post("/spaces/{spaceId}/change-requests", a.createChangeRequest)
	r.Get("/spaces/{spaceId}/change-requests/{changeRequestId}", a.getChangeRequest)
	r.Patch("/spaces/{spaceId}/change-requests/{changeRequestId}", a.updateChangeRequest)
	r.Post("/spaces/{spaceId}/change-requests/{changeRequestId}/merge", a.mergeChangeRequest)
	r.Post("/spaces/{spaceId}/change-requests/{changeRequestId}/update", a.updateChangeRequestFromMain)
	r.Post("/spaces/{spaceId}/change-requests/{changeRequestId}/content", a.updateChangeRequestContent)
}

func (a *API) listChangeRequests(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.SpaceChangeRequests(r.Context(), chi.URLParam(r, "spaceId"), queryString(r, "status"), queryString(r, "contributor"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentChangeRequest)
}

func (a *API) createChangeRequest(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Subject *string `json:"subject"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &in); err != nil {
			writeError(w, r, err)
			return
		}
	}
	cr, err := a.res.Mutation().CreateChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), in.Subject)
	a.writeChangeRequest(w, r, http.StatusCreated, cr, err)
}

func (a *API) getChangeRequest(w http.ResponseWriter, r *http.Request) {
	cr, err := a.res.FindChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	a.writeChangeRequest(w, r, http.StatusOK, cr, err)
}

func (a *API) updateChangeRequest(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateChangeRequestInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	cr, err := a.res.Mutation().UpdateChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), in)
	a.writeChangeRequest(w, r, http.StatusOK, cr, err)
}

func (a *API) mergeChangeRequest(w http.ResponseWriter, r *http.Request) {
	res, err := a.res.Mutation().MergeChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) updateChangeRequestFromMain(w http.ResponseWriter, r *http.Request) {
	res, err := a.res.Mutation().UpdateChangeRequestFromMain(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (a *API) updateChangeRequestContent(w http.ResponseWriter, r *http.Request) {
	changes, err := decodeChanges(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	cr, err := a.res.Mutation().UpdateChangeRequestContent(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), changes)
	a.writeChangeRequest(w, r, http.StatusOK, cr, err)
}

// contentChange is one change of GitBook's updateChangeRequestContent body;
// the document comes as {"markdown": "..."}.
type contentChange struct {
	model.ContentChangeInput
	Document *struct {
		Markdown *string `json:"markdown"`
	} `json:"document"`
}

// decodeChanges reads {"changes": [...]} into the resolvers' input.
func decodeChanges(r *http.Request) ([]*model.ContentChangeInput, error) {
	var body struct {
		Changes []json.RawMessage `json:"changes"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return nil, err
	}
	if len(body.Changes) == 0 {
		return nil, apperr.InvalidField("changes", "is required: a list of 1 to 50 changes")
	}
	out := make([]*model.ContentChangeInput, len(body.Changes))
	for i, raw := range body.Changes {
		var c contentChange
		field := fmt.Sprintf("changes[%d]", i)
		if err := json.Unmarshal(raw, &c); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && typeErr.Field != "" {
				return nil, apperr.InvalidField(field+"."+typeErr.Field, "must be %s, not %s", jsonKind(typeErr.Type), typeErr.Value)
			}
			return nil, apperr.InvalidField(field, "must be an object")
		}
		if c.Document != nil {
			if c.Document.Markdown == nil {
				return nil, apperr.InvalidField(field+".document.markdown", "is required: Folio takes documents as markdown")
			}
			c.Markdown = graphql.OmittableOf(c.Document.Markdown)
		}
		out[i] = &c.ContentChangeInput
	}
	return out, nil
}

func (a *API) writeChangeRequest(w http.ResponseWriter, r *http.Request, status int, cr *ent.ChangeRequest, err error) {
	writeOne(w, r, status, cr, err, a.presentChangeRequest, func(cr *ent.ChangeRequest) string {
		return a.res.ChangeRequestURLs(cr).Location
	})
}

// presentChangeRequest is GitBook's ChangeRequest.
func (a *API) presentChangeRequest(ctx context.Context, cr *ent.ChangeRequest) (any, error) {
	cres := a.res.ChangeRequest()
	comments, err := cres.Comments(ctx, cr)
	if err != nil {
		return nil, err
	}
	outdated, err := cres.Outdated(ctx, cr)
	if err != nil {
		return nil, err
	}
	out := map[string]any{
		"object":                 "change-request",
		"id":                     cr.ID,
		"number":                 cr.Number,
		"status":                 cr.Status.String(),
		"subject":                cr.Subject,
		"createdAt":              timestamp(cr.CreatedAt),
		"updatedAt":              timestamp(cr.UpdatedAt),
		"space":                  cr.SpaceID,
		"revision":               cr.RevisionID,
		"revisionInitial":        cr.RevisionInitial,
		"revisionMergedAncestor": cr.RevisionMergedAncestor,
		"comments":               comments,
		"outdated":               outdated,
		"urls":                   a.res.ChangeRequestURLs(cr),
	}
	if cr.RevisionMerged != nil {
		out["revisionMerged"] = *cr.RevisionMerged
	}
	// GitBook requires createdBy; a change request whose author is gone
	// shows a placeholder user.
	author, err := cres.CreatedBy(ctx, cr)
	if err != nil {
		return nil, err
	}
	if author != nil {
		out["createdBy"] = a.presentUser(author)
	} else {
		out["createdBy"] = userJSON{Object: "user", ID: cr.CreatedBy, DisplayName: "Deleted user", URLs: urlsLocation{Location: a.res.BaseURL + "/v1/users/" + cr.CreatedBy}}
	}
	return out, nil
}
