package rest

import (
	"context"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Area `spaces` (collections): create, list, read, update, delete, list
// spaces, move, transfer.
func (a *API) collectionRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/collections", handler(a.listCollections))
	r.Method("POST", "/orgs/{organizationId}/collections", handler(a.createCollection))
	r.Method("GET", "/collections/{collectionId}", handler(a.getCollection))
	r.Method("PATCH", "/collections/{collectionId}", handler(a.updateCollection))
	r.Method("DELETE", "/collections/{collectionId}", handler(a.deleteCollection))
	r.Method("GET", "/collections/{collectionId}/spaces", handler(a.listCollectionSpaces))
	r.Method("POST", "/collections/{collectionId}/move", handler(a.moveCollection))
	r.Method("POST", "/collections/{collectionId}/transfer", handler(a.transferCollection))
}

func (a *API) listCollections(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	nested := true
	if v := queryString(r, "nested"); v != nil {
		if nested, err = strconv.ParseBool(*v); err != nil {
			return apperr.InvalidField("nested", "must be true or false")
		}
	}
	page, err := a.res.OrganizationCollections(r.Context(), chi.URLParam(r, "organizationId"), nested, args)
	return writeList(w, r, page, err, nil, a.presentCollection)
}

// createCollection's body is optional: without one the collection is
// untitled, at the root of the organization.
func (a *API) createCollection(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateCollectionInput
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	c, err := a.res.CreateCollection(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeCollection(w, r, http.StatusCreated, c, err)
}

func (a *API) getCollection(w http.ResponseWriter, r *http.Request) error {
	c, err := a.res.ReadCollection(r.Context(), chi.URLParam(r, "collectionId"))
	return a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) updateCollection(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateCollectionInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := a.res.UpdateCollection(r.Context(), chi.URLParam(r, "collectionId"), in)
	return a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) deleteCollection(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteCollection(r.Context(), chi.URLParam(r, "collectionId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) listCollectionSpaces(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	// A collection's contents are listed in their position order.
	args.Order = paging.Asc
	c, err := a.res.ReadCollection(r.Context(), chi.URLParam(r, "collectionId"))
	if err != nil {
		return err
	}
	page, err := a.res.CollectionSpaces(r.Context(), c, args)
	return writeList(w, r, page, err, a.res.PrimeSpaceCounts, a.presentSpace)
}

func (a *API) moveCollection(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeMove(r)
	if err != nil {
		return err
	}
	c, err := a.res.MoveCollection(r.Context(), chi.URLParam(r, "collectionId"), in)
	return a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) transferCollection(w http.ResponseWriter, r *http.Request) error {
	org, err := decodeTransfer(r)
	if err != nil {
		return err
	}
	c, err := a.res.TransferCollection(r.Context(), chi.URLParam(r, "collectionId"), org)
	return a.writeCollection(w, r, http.StatusOK, c, err)
}

func (a *API) writeCollection(w http.ResponseWriter, r *http.Request, status int, c *ent.Collection, err error) error {
	return writeOne(w, r, status, c, err, a.presentCollection, func(c *ent.Collection) string { return a.res.CollectionURLs(c).Location })
}

// collectionJSON is GitBook's Collection object.
type collectionJSON struct {
	Object       string                        `json:"object"`
	ID           string                        `json:"id"`
	Title        string                        `json:"title"`
	Description  *string                       `json:"description,omitempty"`
	Organization string                        `json:"organization"`
	Parent       *string                       `json:"parent,omitempty"`
	DefaultLevel *string                       `json:"defaultLevel"`
	URLs         *model.CollectionURLs         `json:"urls"`
	Permissions  *access.CollectionPermissions `json:"permissions"`
}

func (a *API) presentCollection(ctx context.Context, c *ent.Collection) (any, error) {
	perms, err := a.res.CollectionPermissions(ctx, c)
	if err != nil {
		return nil, err
	}
	return collectionJSON{
		Object: "collection", ID: c.ID, Title: c.Title, Description: c.Description,
		Organization: c.OrganizationID, Parent: c.ParentID, DefaultLevel: optionalString(c.DefaultLevel),
		URLs: a.res.CollectionURLs(c), Permissions: perms,
	}, nil
}
