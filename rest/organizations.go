package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/schema"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `orgs`: the authenticated user and organizations.
func (a *API) orgRoutes(r chi.Router) {
	r.Get("/user", a.getAuthenticatedUser)
	r.Get("/orgs", a.listOrganizations)
	r.Post("/orgs", a.createOrganization)
	r.Get("/orgs/{organizationId}", a.getOrganization)
	r.Patch("/orgs/{organizationId}", a.updateOrganization)
	r.Post("/orgs/{organizationId}/ping", a.pingOrganization)
	r.Get("/email-domains/{emailDomain}/orgs", a.organizationsForEmailDomain)
}

func (a *API) getAuthenticatedUser(w http.ResponseWriter, r *http.Request) {
	v, err := a.query().Viewer(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a.presentUser(v.User))
}

func (a *API) listOrganizations(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.ViewerOrganizations(r.Context(), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentOrganization)
}

func (a *API) createOrganization(w http.ResponseWriter, r *http.Request) {
	var in model.CreateOrganizationInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	org, err := a.res.Mutation().CreateOrganization(r.Context(), in)
	a.writeOrganization(w, r, http.StatusCreated, org, err)
}

func (a *API) getOrganization(w http.ResponseWriter, r *http.Request) {
	org, err := a.query().Organization(r.Context(), chi.URLParam(r, "organizationId"))
	a.writeOrganization(w, r, http.StatusOK, org, err)
}

func (a *API) updateOrganization(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateOrganizationInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	org, err := a.res.Mutation().UpdateOrganization(r.Context(), chi.URLParam(r, "organizationId"), in)
	a.writeOrganization(w, r, http.StatusOK, org, err)
}

func (a *API) pingOrganization(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().PingOrganization(r.Context(), chi.URLParam(r, "organizationId")); err != nil {
		writeError(w, r, err)
		return
	}
	// Folio issues no visitor claims: the optional token is left out.
	writeJSON(w, http.StatusOK, struct{}{})
}

func (a *API) organizationsForEmailDomain(w http.ResponseWriter, r *http.Request) {
	orgs, err := a.res.OrganizationsForEmailDomain(r.Context(), chi.URLParam(r, "emailDomain"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	items, err := presentAll(r.Context(), orgs, a.presentOrganization)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"organizations": items})
}

func (a *API) writeOrganization(w http.ResponseWriter, r *http.Request, status int, org *ent.Organization, err error) {
	writeOne(w, r, status, org, err, a.presentOrganization, func(o *ent.Organization) string { return a.res.OrganizationURLs(o).Location })
}

// organizationJSON is GitBook's Organization object. Billing, trial and plan
// mean nothing on a self-hosted server: plan is reported as the top plan,
// trial as not applicable, billing is left out.
type organizationJSON struct {
	Object               string                          `json:"object"`
	ID                   string                          `json:"id"`
	Title                string                          `json:"title"`
	CreatedAt            string                          `json:"createdAt"`
	EmailDomains         []string                        `json:"emailDomains"`
	Hostname             *string                         `json:"hostname,omitempty"`
	Type                 string                          `json:"type"`
	UseCase              *string                         `json:"useCase,omitempty"`
	CommunityType        *string                         `json:"communityType,omitempty"`
	DefaultRole          *access.Role                    `json:"defaultRole,omitempty"`
	DefaultContent       *schema.DefaultContent          `json:"defaultContent,omitempty"`
	SSO                  bool                            `json:"sso"`
	AI                   bool                            `json:"ai"`
	InviteLinks          bool                            `json:"inviteLinks"`
	Plan                 string                          `json:"plan"`
	CustomHostname       *string                         `json:"customHostname,omitempty"`
	MergeRules           map[string]string               `json:"mergeRules"`
	Trial                map[string]string               `json:"trial"`
	InternalIsOnNewTrial bool                            `json:"internal_isOnNewTrial"`
	URLs                 *model.OrganizationURLs         `json:"urls"`
	Permissions          *access.OrganizationPermissions `json:"permissions"`
}

func (a *API) presentOrganization(ctx context.Context, o *ent.Organization) (any, error) {
	perms, err := a.res.Organization().Permissions(ctx, o)
	if err != nil {
		return nil, err
	}
	domains := o.EmailDomains
	if domains == nil {
		domains = []string{}
	}
	out := organizationJSON{
		Object:               "organization",
		ID:                   o.ID,
		Title:                o.Title,
		CreatedAt:            timestamp(o.CreatedAt),
		EmailDomains:         domains,
		Hostname:             o.Hostname,
		Type:                 string(o.Type),
		DefaultRole:          o.DefaultRole,
		DefaultContent:       o.DefaultContent,
		SSO:                  o.SSO,
		AI:                   o.Ai,
		InviteLinks:          o.InviteLinks,
		Plan:                 "enterprise_2024",
		CustomHostname:       o.CustomHostname,
		MergeRules:           map[string]string{"type": "none"},
		Trial:                map[string]string{"status": "notapplicable"},
		InternalIsOnNewTrial: true,
		URLs:                 a.res.OrganizationURLs(o),
		Permissions:          perms,
	}
	if o.UseCase != nil {
		s := string(*o.UseCase)
		out.UseCase = &s
	}
	if o.CommunityType != nil {
		s := string(*o.CommunityType)
		out.CommunityType = &s
	}
	return out, nil
}
