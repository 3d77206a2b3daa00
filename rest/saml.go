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
// in graph/saml.go.
func (a *API) samlRoutes(r chi.Router) {
	r.Get("/orgs/{organizationId}/saml", a.listSAMLProviders)
	r.Post("/orgs/{organizationId}/saml", a.createSAMLProvider)
	r.Get("/orgs/{organizationId}/saml/{samlProviderId}", a.getSAMLProvider)
	r.Patch("/orgs/{organizationId}/saml/{samlProviderId}", a.updateSAMLProvider)
	r.Delete("/orgs/{organizationId}/saml/{samlProviderId}", a.deleteSAMLProvider)
	r.Get("/orgs/{organizationId}/sso", a.listSSOProviderLogins)
}

func (a *API) listSAMLProviders(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.SAMLProviders(r.Context(), chi.URLParam(r, "organizationId"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentSAMLProvider)
}

func (a *API) createSAMLProvider(w http.ResponseWriter, r *http.Request) {
	var in model.CreateSAMLProviderInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	p, err := a.res.Mutation().CreateSAMLProvider(r.Context(), chi.URLParam(r, "organizationId"), in)
	a.writeSAMLProvider(w, r, http.StatusCreated, p, err)
}

func (a *API) getSAMLProvider(w http.ResponseWriter, r *http.Request) {
	p, err := a.query().SamlProvider(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "samlProviderId"))
	a.writeSAMLProvider(w, r, http.StatusOK, p, err)
}

func (a *API) updateSAMLProvider(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateSAMLProviderInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	p, err := a.res.Mutation().UpdateSAMLProvider(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "samlProviderId"), in)
	a.writeSAMLProvider(w, r, http.StatusOK, p, err)
}

func (a *API) deleteSAMLProvider(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().DeleteSAMLProvider(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "samlProviderId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}

func (a *API) listSSOProviderLogins(w http.ResponseWriter, r *http.Request) {
	logins, err := a.res.SSOProviders(r.Context(), chi.URLParam(r, "organizationId"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": logins})
}

func (a *API) writeSAMLProvider(w http.ResponseWriter, r *http.Request, status int, p *ent.SAMLProvider, err error) {
	writeOne(w, r, status, p, err, a.presentSAMLProvider, func(p *ent.SAMLProvider) string { return a.res.SAMLProviderURLs(p).Location })
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
	pr := a.res.SAMLProvider()
	status, err := pr.Status(ctx, p)
	if err != nil {
		return nil, err
	}
	service, err := pr.Service(ctx, p)
	if err != nil {
		return nil, err
	}
	urls, err := pr.Urls(ctx, p)
	if err != nil {
		return nil, err
	}
	out := samlProviderJSON{
		Object:      "saml-provider",
		ID:          p.ID,
		Label:       p.Label,
		SSOURL:      orEmpty(p.SSOURL),
		EntityID:    orEmpty(p.EntityID),
		Certificate: orEmpty(p.Certificate),
		DefaultRole: p.DefaultRole,
		CreatedAt:   timestamp(p.CreatedAt),
		Status:      status,
		Service:     service,
		URLs:        urls,
	}
	team, err := pr.DefaultTeam(ctx, p)
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
