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
	r.Method("GET", "/orgs/{organizationId}/translations", handler(a.listTranslations))
	r.Method("POST", "/orgs/{organizationId}/translations", handler(a.createTranslation))
	r.Method("GET", "/orgs/{organizationId}/translations/{translationId}", handler(a.getTranslation))
	r.Method("PUT", "/orgs/{organizationId}/translations/{translationId}", handler(a.updateTranslation))
	r.Method("DELETE", "/orgs/{organizationId}/translations/{translationId}", handler(a.deleteTranslation))
}

func (a *API) listTranslations(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OrganizationTranslations(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, nil, a.presentTranslation)
}

func (a *API) createTranslation(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateTranslationInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	ts, err := a.res.CreateTranslation(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeTranslation(w, r, http.StatusCreated, ts, err)
}

func (a *API) getTranslation(w http.ResponseWriter, r *http.Request) error {
	ts, err := a.res.TranslationByID(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "translationId"))
	return a.writeTranslation(w, r, http.StatusOK, ts, err)
}

func (a *API) updateTranslation(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateTranslationInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	ts, err := a.res.UpdateTranslation(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "translationId"), in)
	return a.writeTranslation(w, r, http.StatusOK, ts, err)
}

func (a *API) deleteTranslation(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteTranslation(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "translationId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) writeTranslation(w http.ResponseWriter, r *http.Request, status int, ts *ent.TranslationSettings, err error) error {
	return writeOne(w, r, status, ts, err, a.presentTranslation, func(ts *ent.TranslationSettings) string { return a.res.TranslationURLs(ts).Location })
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
	perms, err := a.res.SettingsPermissions(ctx, ts.OrganizationID)
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
