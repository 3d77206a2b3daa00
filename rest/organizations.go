package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/schema"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `orgs`: the authenticated user and organizations.
func (a *API) organizationRoutes(r chi.Router) {
	r.Method("GET", "/user", handler(a.getAuthenticatedUser))
	r.Method("GET", "/orgs", handler(a.listOrganizations))
	r.Method("POST", "/orgs", handler(a.createOrganization))
	r.Method("GET", "/orgs/{organizationId}", handler(a.getOrganization))
	r.Method("PATCH", "/orgs/{organizationId}", handler(a.updateOrganization))
	r.Method("POST", "/orgs/{organizationId}/ping", handler(a.pingOrganization))
	r.Method("GET", "/email-domains/{emailDomain}/orgs", handler(a.organizationsForEmailDomain))
}

func (a *API) getAuthenticatedUser(w http.ResponseWriter, r *http.Request) error {
	v, err := a.res.CurrentViewer(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a.presentUser(v.User))
}

func (a *API) listOrganizations(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.ViewerOrganizations(r.Context(), args)
	return writeList(w, r, page, err, nil, a.presentOrganization)
}

// createOrganization's body is optional in the reference; without one the
// title the application requires is missing.
func (a *API) createOrganization(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateOrganizationInput
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	org, err := a.res.CreateOwnOrganization(r.Context(), in)
	return a.writeOrganization(w, r, http.StatusCreated, org, err)
}

func (a *API) getOrganization(w http.ResponseWriter, r *http.Request) error {
	org, err := a.res.ReadOrganization(r.Context(), chi.URLParam(r, "organizationId"))
	return a.writeOrganization(w, r, http.StatusOK, org, err)
}

func (a *API) updateOrganization(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateOrganizationInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	org, err := a.res.UpdateOrganization(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeOrganization(w, r, http.StatusOK, org, err)
}

func (a *API) pingOrganization(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.PingOrganization(r.Context(), chi.URLParam(r, "organizationId")); err != nil {
		return err
	}
	// Folio issues no visitor claims: the optional token is left out.
	return writeJSON(w, http.StatusOK, struct{}{})
}

func (a *API) organizationsForEmailDomain(w http.ResponseWriter, r *http.Request) error {
	orgs, err := a.res.OrganizationsForEmailDomain(r.Context(), chi.URLParam(r, "emailDomain"))
	if err != nil {
		return err
	}
	items, err := presentEach(r.Context(), orgs, a.presentOrganization)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"organizations": items})
}

func (a *API) writeOrganization(w http.ResponseWriter, r *http.Request, status int, org *ent.Organization, err error) error {
	return writeOne(w, r, status, org, err, a.presentOrganization, func(o *ent.Organization) string { return a.res.OrganizationURLs(o).Location })
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
	MergeRules           mergeRulesBody                  `json:"mergeRules"`
	Trial                map[string]string               `json:"trial"`
	InternalIsOnNewTrial bool                            `json:"internal_isOnNewTrial"`
	URLs                 *model.OrganizationURLs         `json:"urls"`
	Permissions          *access.OrganizationPermissions `json:"permissions"`
}

func (a *API) presentOrganization(ctx context.Context, o *ent.Organization) (any, error) {
	perms, err := a.res.OrganizationPermissions(ctx, o)
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
		MergeRules:           mergeRulesJSON(graph.OrganizationMergeRules(o)),
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
