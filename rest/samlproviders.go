package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `access`: SAML providers of an organization and the SSO login list.
// The rules (admins manage providers, every member sees the login list) live
// in graph/samlproviders.go.
func (a *API) samlProviderRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/saml", handler(a.listSAMLProviders))
	r.Method("POST", "/orgs/{organizationId}/saml", handler(a.createSAMLProvider))
	r.Method("GET", "/orgs/{organizationId}/saml/{samlProviderId}", handler(a.getSAMLProvider))
	r.Method("PATCH", "/orgs/{organizationId}/saml/{samlProviderId}", handler(a.updateSAMLProvider))
	r.Method("DELETE", "/orgs/{organizationId}/saml/{samlProviderId}", handler(a.deleteSAMLProvider))
	r.Method("GET", "/orgs/{organizationId}/sso", handler(a.listSSOProviderLogins))
}

func (a *API) listSAMLProviders(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.SAMLProviders(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, a.res.PrimeSAMLProviders, a.presentSAMLProvider)
}

func (a *API) createSAMLProvider(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateSAMLProviderInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, err := a.res.CreateSAMLProvider(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeSAMLProvider(w, r, http.StatusCreated, p, err)
}

func (a *API) getSAMLProvider(w http.ResponseWriter, r *http.Request) error {
	p, err := a.res.SAMLProviderByID(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "samlProviderId"))
	return a.writeSAMLProvider(w, r, http.StatusOK, p, err)
}

func (a *API) updateSAMLProvider(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateSAMLProviderInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, err := a.res.UpdateSAMLProvider(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "samlProviderId"), in)
	return a.writeSAMLProvider(w, r, http.StatusOK, p, err)
}

func (a *API) deleteSAMLProvider(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteSAMLProvider(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "samlProviderId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) listSSOProviderLogins(w http.ResponseWriter, r *http.Request) error {
	logins, err := a.res.SSOProviders(r.Context(), chi.URLParam(r, "organizationId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"items": logins})
}

func (a *API) writeSAMLProvider(w http.ResponseWriter, r *http.Request, status int, p *ent.SAMLProvider, err error) error {
	return writeOne(w, r, status, p, err, a.presentSAMLProvider, func(p *ent.SAMLProvider) string { return a.res.SAMLProviderURLs(p).Location })
}

// samlProviderJSON is GitBook's OrganizationSAMLProvider. GitBook requires
// ssoURL, entityID and certificate as strings: unset ones are "" (and ""
// sent back clears, so echoing a provider round-trips). defaultRole is
// always present, null for guest; defaultTeam is left out when none.
type samlProviderJSON struct {
	Object      string                     `json:"object"`
	ID          string                     `json:"id"`
	Label       string                     `json:"label"`
	SSOURL      string                     `json:"ssoURL"`
	EntityID    string                     `json:"entityID"`
	Certificate string                     `json:"certificate"`
	DefaultTeam any                        `json:"defaultTeam,omitempty"`
	DefaultRole *access.Role               `json:"defaultRole"`
	CreatedAt   string                     `json:"createdAt"`
	Status      model.SAMLProviderStatus   `json:"status"`
	Service     *model.SAMLServiceProvider `json:"service"`
	URLs        *model.SAMLProviderURLs    `json:"urls"`
}

func (a *API) presentSAMLProvider(ctx context.Context, p *ent.SAMLProvider) (any, error) {
	out := samlProviderJSON{
		Object:      "saml-provider",
		ID:          p.ID,
		Label:       p.Label,
		SSOURL:      orEmpty(p.SSOURL),
		EntityID:    orEmpty(p.EntityID),
		Certificate: orEmpty(p.Certificate),
		DefaultRole: p.DefaultRole,
		CreatedAt:   timestamp(p.CreatedAt),
		Status:      a.res.SAMLProviderStatus(p),
		Service:     a.res.SAMLService(p),
		URLs:        a.res.SAMLProviderURLs(p),
	}
	team, err := a.res.SAMLProviderDefaultTeam(ctx, p)
	if err != nil {
		return nil, err
	}
	if team != nil {
		if out.DefaultTeam, err = a.presentTeam(ctx, team); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// orEmpty writes an unset optional string as "".
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
