package rest

import (
	"context"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Area `spaces` (collections): create, list, read, update, delete, list
// spaces, move, transfer.
func (a *API) collectionRoutes(r chi.Router) {
	r.Get("/orgs/{organizationId}/collections", a.listCollections)
	r.Post("/orgs/{organizationId}/collections", a.createCollection)
	r.Get("/collections/{collectionId}", a.getCollection)
	r.Patch("/collections/{collectionId}", a.updateCollection)
	r.Delete("/collections/{collectionId}", a.deleteCollection)
	r.Get("/collections/{collectionId}/spaces", a.listCollectionSpaces)
	r.Post("/collections/{collectionId}/move", a.moveCollection)
	r.Post("/collections/{collectionId}/transfer", a.transferCollection)
}

func (a *API) listCollections(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	nested := true
	if v := queryString(r, "nested"); v != nil {
		if nested, err = strconv.ParseBool(*v); err != nil {
			writeError(w, r, apperr.InvalidField("nested", "must be true or false"))
			return
		}
	}
	page, err := a.res.OrganizationCollections(r.Context(), chi.URLParam(r, "organizationId"), nested, args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentCollection)
}

func (a *API) createCollection(w http.ResponseWriter, r *http.Request) {
	var in model.CreateCollectionInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	c, err := a.res.Mutation().CreateCollection(r.Context(), chi.URLParam(r, "organizationId"), in)
	a.writeCollection(w, r, http.StatusCreated, c, err)
}

func (a *API) getCollection(w http.ResponseWriter, r *http.Request) {
	c, err := a.query().Collection(r.Context(), chi.URLParam(r, "collectionId"))
	a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) updateCollection(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateCollectionInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	c, err := a.res.Mutation().UpdateCollection(r.Context(), chi.URLParam(r, "collectionId"), in)
	a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) deleteCollection(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().DeleteCollection(r.Context(), chi.URLParam(r, "collectionId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusResetContent)
}

func (a *API) listCollectionSpaces(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	// A collection's contents are listed in their position order.
	args.Order = paging.Asc
	c, err := a.query().Collection(r.Context(), chi.URLParam(r, "collectionId"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.CollectionSpaces(r.Context(), c, args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentSpace)
}

func (a *API) moveCollection(w http.ResponseWriter, r *http.Request) {
	in, err := decodeMove(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	c, err := a.res.Mutation().MoveCollection(r.Context(), chi.URLParam(r, "collectionId"), in)
	a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) transferCollection(w http.ResponseWriter, r *http.Request) {
	org, err := decodeTransfer(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	c, err := a.res.Mutation().TransferCollection(r.Context(), chi.URLParam(r, "collectionId"), org)
	a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) writeCollection(w http.ResponseWriter, r *http.Request, status int, c *ent.Collection, err error) {
	var body any
	if err == nil {
		body, err = a.presentCollection(r.Context(), c)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", a.res.CollectionURLs(c).Location)
	}
	writeJSON(w, status, body)
}

// collectionJSON is GitBook's Collection object.
type collectionJSON struct {
	Object       string                        `json:"object"`
	ID           string                        `json:"id"`
	Title        string                        `json:"title"`
	Description  *string                       `json:"description,omitempty"`
	Organization string                        `json:"organization"`
	Parent       *string                       `json:"parent,omitempty"`
	DefaultLevel *collection.DefaultLevel      `json:"defaultLevel"`
	URLs         *model.CollectionURLs         `json:"urls"`
	Permissions  *access.CollectionPermissions `json:"permissions"`
}

func (a *API) presentCollection(ctx context.Context, c *ent.Collection) (any, error) {
	perms, err := a.res.Collection().Permissions(ctx, c)
	if err != nil {
		return nil, err
	}
	return collectionJSON{
		Object: "collection", ID: c.ID, Title: c.Title, Description: c.Description,
		Organization: c.OrganizationID, Parent: c.ParentID, DefaultLevel: c.DefaultLevel,
		URLs: a.res.CollectionURLs(c), Permissions: perms,
	}, nil
}
