package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// The contributors of a change request (area `content`).
func (a *API) contributorRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/contributors", handler(a.listContributors))
}

// listContributors answers GitBook's list of UserContributor, whole (the
// reference gives it no paging).
func (a *API) listContributors(w http.ResponseWriter, r *http.Request) error {
	cs, err := a.res.ChangeRequestContributors(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	if err != nil {
		return err
	}
	items := make([]any, len(cs))
	for i, c := range cs {
		items[i] = map[string]any{
			"user": a.presentUser(c.User), "count": c.Count, "actionType": c.ActionType, "updatedAt": timestamp(c.UpdatedAt),
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"items": items, "count": len(items)})
}
