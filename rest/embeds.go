package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/internal/apperr"
)

// Area `embeds`: a URL a page embeds, resolved to GitBook's Embed.
func (a *API) embedRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/embed", handler(a.getEmbed))
}

func (a *API) getEmbed(w http.ResponseWriter, r *http.Request) error {
	u := queryString(r, "url")
	if u == nil {
		// writeError answers a stranger's 400 as the space's 404.
		return apperr.InvalidField("url", "is required")
	}
	e, err := a.res.SpaceEmbed(r.Context(), chi.URLParam(r, "spaceId"), *u)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, e)
}
