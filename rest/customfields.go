package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `custom-fields`: definitions of an organization's custom fields,
// addressed by name. (Values of spaces' fields are another area.)
func (a *API) customFieldRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/custom-fields", handler(a.listCustomFields))
	r.Method("POST", "/orgs/{organizationId}/custom-fields", handler(a.createCustomField))
	r.Method("GET", "/orgs/{organizationId}/custom-fields/{fieldName}", handler(a.getCustomField))
	r.Method("PATCH", "/orgs/{organizationId}/custom-fields/{fieldName}", handler(a.updateCustomField))
	r.Method("DELETE", "/orgs/{organizationId}/custom-fields/{fieldName}", handler(a.deleteCustomField))
}

func (a *API) listCustomFields(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OrganizationCustomFields(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, nil, a.presentCustomField)
}

func (a *API) createCustomField(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateCustomFieldInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	cf, err := a.res.CreateCustomField(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeCustomField(w, r, http.StatusCreated, cf, err)
}

func (a *API) getCustomField(w http.ResponseWriter, r *http.Request) error {
	cf, err := a.res.CustomFieldByName(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "fieldName"))
	return a.writeCustomField(w, r, http.StatusOK, cf, err)
}

func (a *API) updateCustomField(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateCustomFieldInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	cf, err := a.res.UpdateCustomField(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "fieldName"), in)
	return a.writeCustomField(w, r, http.StatusOK, cf, err)
}

func (a *API) deleteCustomField(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteCustomField(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "fieldName")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) writeCustomField(w http.ResponseWriter, r *http.Request, status int, cf *ent.CustomField, err error) error {
	return writeOne(w, r, status, cf, err, a.presentCustomField, func(cf *ent.CustomField) string { return a.res.CustomFieldURLs(cf).Location })
}

// customFieldJSON is GitBook's CustomField object. title, description and
// placeholder are always strings ("" when unset); options only on select
// fields.
type customFieldJSON struct {
	ID          string                      `json:"id"`
	Name        string                      `json:"name"`
	Title       string                      `json:"title"`
	Description string                      `json:"description"`
	Type        string                      `json:"type"`
	Placeholder string                      `json:"placeholder"`
	Options     []string                    `json:"options,omitempty"`
	CreatedAt   string                      `json:"createdAt"`
	UpdatedAt   string                      `json:"updatedAt"`
	URLs        urlsLocation                `json:"urls"`
	Permissions *access.SettingsPermissions `json:"permissions"`
}

func (a *API) presentCustomField(ctx context.Context, cf *ent.CustomField) (any, error) {
	perms, err := a.res.SettingsPermissions(ctx, cf.OrganizationID)
	if err != nil {
		return nil, err
	}
	return customFieldJSON{
		ID:          cf.ID,
		Name:        cf.Name,
		Title:       cf.Title,
		Description: cf.Description,
		Type:        string(cf.Type),
		Placeholder: cf.Placeholder,
		Options:     cf.Options,
		CreatedAt:   timestamp(cf.CreatedAt),
		UpdatedAt:   timestamp(cf.UpdatedAt),
		URLs:        urlsLocation{Location: a.res.CustomFieldURLs(cf).Location},
		Permissions: perms,
	}, nil
}
