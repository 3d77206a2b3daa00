package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `translations`: an organization's translation settings. The shape is
// the seed's (object "translation-settings"), not the reference's
// translation runs; see internal/testkit/exceptions.go.
func (a *API) translationRoutes(r chi.Router) {
	r.Get("/orgs/{organizationId}/translations", a.listTranslations)
	r.Post("/orgs/{organizationId}/translations", a.createTranslation)
	r.Get("/orgs/{organizationId}/translations/{translationId}", a.getTranslation)
	r.Put("/orgs/{organizationId}/translations/{translationId}", a.updateTranslation)
	r.Delete("/orgs/{organizationId}/translations/{translationId}", a.deleteTranslation)
}

func (a *API) listTranslations(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.OrganizationTranslations(r.Context(), chi.URLParam(r, "organizationId"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentTranslation)
}

func (a *API) createTranslation(w http.ResponseWriter, r *http.Request) {
	var in model.CreateTranslationInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	ts, err := a.res.Mutation().CreateTranslation(r.Context(), chi.URLParam(r, "organizationId"), in)
	a.writeTranslation(w, r, http.StatusCreated, ts, err)
}

func (a *API) getTranslation(w http.ResponseWriter, r *http.Request) {
	ts, err := a.query().Translation(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "translationId"))
	a.writeTranslation(w, r, http.StatusOK, ts, err)
}

func (a *API) updateTranslation(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateTranslationInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	ts, err := a.res.Mutation().UpdateTranslation(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "translationId"), in)
	a.writeTranslation(w, r, http.StatusOK, ts, err)
}

func (a *API) deleteTranslation(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().DeleteTranslation(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "translationId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusResetContent)
}

func (a *API) writeTranslation(w http.ResponseWriter, r *http.Request, status int, ts *ent.TranslationSettings, err error) {
	writeOne(w, r, status, ts, err, a.presentTranslation, func(ts *ent.TranslationSettings) string { return a.res.TranslationURLs(ts).Location })
}

// translationJSON is the seed's translation settings object.
type translationJSON struct {
	Object      string                      `json:"object"`
	ID          string                      `json:"id"`
	Title       string                      `json:"title"`
	Languages   []string                    `json:"languages"`
	CreatedAt   string                      `json:"createdAt"`
	UpdatedAt   string                      `json:"updatedAt"`
	Permissions *access.SettingsPermissions `json:"permissions"`
	URLs        urlsLocation                `json:"urls"`
}

func (a *API) presentTranslation(ctx context.Context, ts *ent.TranslationSettings) (any, error) {
	perms, err := a.res.TranslationSettings().Permissions(ctx, ts)
	if err != nil {
		return nil, err
	}
	langs := ts.Languages
	if langs == nil {
		langs = []string{}
	}
	return translationJSON{
		Object:      "translation-settings",
		ID:          ts.ID,
		Title:       ts.Title,
		Languages:   langs,
		CreatedAt:   timestamp(ts.CreatedAt),
		UpdatedAt:   timestamp(ts.UpdatedAt),
		Permissions: perms,
		URLs:        urlsLocation{Location: a.res.TranslationURLs(ts).Location},
	}, nil
}
