package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// An organization's change requests, and a user by id.
func (a *API) organizationReadRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/change-requests", handler(a.listOrganizationChangeRequests))
	r.Method("GET", "/users/{userId}", handler(a.getUser))
}

func (a *API) listOrganizationChangeRequests(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OrganizationChangeRequests(r.Context(), chi.URLParam(r, "organizationId"),
		queryString(r, "status"), queryString(r, "creator"), queryString(r, "contributor"), args)
	return writeList(w, r, page, err, a.res.PrimeChangeRequests, a.presentChangeRequest)
}

func (a *API) getUser(w http.ResponseWriter, r *http.Request) error {
	u, err := a.res.UserByID(r.Context(), chi.URLParam(r, "userId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a.presentUser(u))
}
