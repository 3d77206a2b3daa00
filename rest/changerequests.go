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
	r.Method("GET", "/spaces/{spaceId}/change-requests", handler(a.listChangeRequests))
	r.Method("POST", "/spaces/{spaceId}/change-requests", handler(a.createChangeRequest))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}", handler(a.getChangeRequest))
	r.Method("PATCH", "/spaces/{spaceId}/change-requests/{changeRequestId}", handler(a.updateChangeRequest))
	r.Method("POST", "/spaces/{spaceId}/change-requests/{changeRequestId}/merge", handler(a.mergeChangeRequest))
	r.Method("POST", "/spaces/{spaceId}/change-requests/{changeRequestId}/update", handler(a.updateChangeRequestFromMain))
	r.Method("POST", "/spaces/{spaceId}/change-requests/{changeRequestId}/content", handler(a.updateChangeRequestContent))
}

func (a *API) listChangeRequests(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.SpaceChangeRequests(r.Context(), chi.URLParam(r, "spaceId"), queryString(r, "status"), queryString(r, "contributor"), args)
	return writeList(w, r, page, err, a.res.PrimeChangeRequests, a.presentChangeRequest)
}

// createChangeRequest's body is optional: the reference marks it required,
// but every field in it is optional, so Folio takes no body as {}.
func (a *API) createChangeRequest(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Subject *string `json:"subject"`
	}
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	cr, err := a.res.CreateChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), in.Subject)
	return a.writeChangeRequest(w, r, http.StatusCreated, cr, err)
}

func (a *API) getChangeRequest(w http.ResponseWriter, r *http.Request) error {
	cr, err := a.res.FindChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	return a.writeChangeRequest(w, r, http.StatusOK, cr, err)
}

// updateChangeRequest's description is GitBook's JSONDocument (or
// {"markdown": …}); GraphQL takes it as markdown.
func (a *API) updateChangeRequest(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		model.UpdateChangeRequestInput
		Description json.RawMessage `json:"description"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if len(in.Description) > 0 {
		md, err := documentMarkdown(in.Description, "description")
		if err != nil {
			return err
		}
		in.UpdateChangeRequestInput.Description = graphql.OmittableOf(md)
	}
	cr, err := a.res.UpdateChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), in.UpdateChangeRequestInput)
	return a.writeChangeRequest(w, r, http.StatusOK, cr, err)
}

func (a *API) mergeChangeRequest(w http.ResponseWriter, r *http.Request) error {
	res, err := a.res.MergeChangeRequest(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

func (a *API) updateChangeRequestFromMain(w http.ResponseWriter, r *http.Request) error {
	res, err := a.res.UpdateChangeRequestFromMain(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

func (a *API) updateChangeRequestContent(w http.ResponseWriter, r *http.Request) error {
	changes, err := decodeChanges(r)
	if err != nil {
		return err
	}
	cr, err := a.res.UpdateChangeRequestContent(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), changes)
	return a.writeChangeRequest(w, r, http.StatusOK, cr, err)
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

func (a *API) writeChangeRequest(w http.ResponseWriter, r *http.Request, status int, cr *ent.ChangeRequest, err error) error {
	return writeOne(w, r, status, cr, err, a.presentChangeRequest, func(cr *ent.ChangeRequest) string {
		return a.res.ChangeRequestURLs(cr).Location
	})
}

// presentChangeRequest is GitBook's ChangeRequest.
func (a *API) presentChangeRequest(ctx context.Context, cr *ent.ChangeRequest) (any, error) {
	comments, err := a.res.ChangeRequestOpenComments(ctx, cr)
	if err != nil {
		return nil, err
	}
	outdated, err := a.res.Outdated(ctx, cr)
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
	if cr.Description != "" {
		out["description"] = a.res.BodyDocument(cr.Description)
	}
	if cr.MergedBy != nil {
		by, err := a.res.OptionalUser(ctx, cr.MergedBy)
		if err != nil {
			return nil, err
		}
		out["mergedBy"] = a.userOrPlaceholder(by, *cr.MergedBy)
	}
	if cr.MergedAt != nil {
		out["mergedAt"] = timestamp(*cr.MergedAt)
	}
	// Folio's extension: how the merge rules stand for the caller now.
	mergeability, err := a.res.Mergeability(ctx, cr)
	if err != nil {
		return nil, err
	}
	out["mergeability"] = mergeabilityJSON(mergeability)
	// GitBook requires createdBy; a change request whose author is gone
	// shows a placeholder user.
	author, err := a.res.ChangeRequestAuthor(ctx, cr)
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
