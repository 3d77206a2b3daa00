package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Area `import`: content imported into a space or a change request.
func (a *API) importRoutes(r chi.Router) {
	r.Method("POST", "/spaces/{spaceId}/content/import", handler(a.importContent))
	r.Method("POST", "/spaces/{spaceId}/change-requests/{changeRequestId}/content/import", handler(a.importContent))
}

func (a *API) importContent(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		URL    string `json:"url"`
		Source string `json:"source"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	res, err := a.res.ImportContent(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), in.URL, in.Source)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.res.BaseURL+"/v1/spaces/"+chi.URLParam(r, "spaceId")+"/content")
	return writeJSON(w, http.StatusCreated, res)
}
