package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Area `import`: content imported into a space or a change request.
func (a *API) importRoutes(r chi.Router) {
	r.Post("/spaces/{spaceId}/content/import", a.importContent)
	r.Post("/spaces/{spaceId}/change-requests/{changeRequestId}/content/import", a.importContent)
}

func (a *API) importContent(w http.ResponseWriter, r *http.Request) {
	var in struct {
		URL    string `json:"url"`
		Source string `json:"source"`
	}
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	res, err := a.res.ImportContent(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), in.URL, in.Source)
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Location", a.res.BaseURL+"/v1/spaces/"+chi.URLParam(r, "spaceId")+"/content")
	writeJSON(w, http.StatusCreated, res)
}
