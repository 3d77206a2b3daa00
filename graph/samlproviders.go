package graph

import (
	"context"
	"strings"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// SAML providers of an organization.
//
// Who may do what:
//   - listing, reading, creating, changing and deleting providers is for
//     organization admins only: a provider's configuration (certificate,
//     default role and team) decides who gets into the organization. Other
//     members and guests get 403 (FORBIDDEN), strangers 404, as for the
//     organization itself. The admin check comes before any lookup of the
//     provider, so a non-admin cannot probe provider ids.
//   - the login list (ssoProviders, GET /sso) is for every member and guest:
//     it holds only what a login page shows (id, label, start URL) of the
//     providers that are active (fully configured).
//
// The sign-in flow itself is saml_signin.go's. The service-provider URLs
// (service.acsURL, startURL, entityID) are derived from the public base URL
// as <base>/sso/saml/<id>/acs, <base>/sso/saml/<id>/start and
// <base>/sso/saml/<id>.

// SAMLProviders pages through an organization's providers, newest first
// unless asked otherwise. Admins only.
func (r *Resolver) SAMLProviders(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.SAMLProvider], error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return paging.Page[*ent.SAMLProvider]{}, err
	}
	return pageUnder(ctx, loader.Organizations, "saml providers", orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.SAMLProvider], error) {
		return listPages(ctx, r.Client.SAMLProvider.Query(), samlprovider.FieldOrganizationID, orgs, args, samlprovider.FieldCreatedAt,
			func(p *ent.SAMLProvider) paging.Cursor { return paging.Cursor{Time: p.CreatedAt, ID: p.ID} },
			func(p *ent.SAMLProvider) string { return p.OrganizationID })
	})
}

// SAMLProviderByID reads provider id of organization orgID (admins only).
func (r *Resolver) SAMLProviderByID(ctx context.Context, orgID, id string) (*ent.SAMLProvider, error) {
	return r.adminSAMLProvider(ctx, orgID, id)
}

// CreateSAMLProvider adds a provider to an organization. Admins only.
func (r *Resolver) CreateSAMLProvider(ctx context.Context, orgID string, in model.CreateSAMLProviderInput) (*ent.SAMLProvider, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	// Prepared here, saved on the write's tx (replay).
	create := r.Client.SAMLProvider.Create().SetOrganizationID(orgID).SetLabel(in.Label)
	if v, _ := clearable(in.SsoURL); v != nil {
		create.SetSSOURL(*v)
	}
	if v, _ := clearable(in.EntityID); v != nil {
		create.SetEntityID(*v)
	}
	if v, _ := clearable(in.Certificate); v != nil {
		create.SetCertificate(*v)
	}
	if v, _ := clearable(in.DefaultTeam); v != nil {
		if err := checkDefaultTeam(ctx, orgID, *v); err != nil {
			return nil, err
		}
		create.SetDefaultTeamID(*v)
	}
	if v := in.DefaultRole.Value(); v != nil {
		if !v.Valid() {
			return nil, invalidRole(*v)
		}
		create.SetDefaultRole(*v)
	}
	var p *ent.SAMLProvider
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		c := tx.SAMLProvider.Create()
		if err := replay(c.Mutation(), create.Mutation()); err != nil {
			return err
		}
		var err error
		if p, err = c.Save(ctx); err != nil {
			return samlError(err)
		}
		record(ctx, samlProviderEvent(events.SAMLProviderCreated, p, map[string]any{"label": p.Label}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateSAMLProvider applies the fields the caller sent: absent fields stay,
// null (or "") clears the optional ones. Admins only.
func (r *Resolver) UpdateSAMLProvider(ctx context.Context, orgID, id string, in model.UpdateSAMLProviderInput) (*ent.SAMLProvider, error) {
	p, err := r.SAMLProviderByID(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	// Prepared here, saved on the write's tx (replay).
	upd := r.Client.SAMLProvider.UpdateOne(p)
	if v, ok := in.Label.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("label", "cannot be null")
		}
		upd.SetLabel(*v)
	}
	for _, f := range []struct {
		in    graphql.Omittable[*string]
		set   func(string) *ent.SAMLProviderUpdateOne
		clear func() *ent.SAMLProviderUpdateOne
	}{
		{in.SsoURL, upd.SetSSOURL, upd.ClearSSOURL},
		{in.EntityID, upd.SetEntityID, upd.ClearEntityID},
		{in.Certificate, upd.SetCertificate, upd.ClearCertificate},
	} {
		if v, ok := clearable(f.in); ok {
			if v == nil {
				f.clear()
			} else {
				f.set(*v)
			}
		}
	}
	if v, ok := clearable(in.DefaultTeam); ok {
		if v == nil {
			upd.ClearDefaultTeamID()
		} else if err := checkDefaultTeam(ctx, orgID, *v); err != nil {
			return nil, err
		} else {
			upd.SetDefaultTeamID(*v)
		}
	}
	if v, ok := in.DefaultRole.ValueOK(); ok {
		if v == nil {
			upd.ClearDefaultRole()
		} else if !v.Valid() {
			return nil, invalidRole(*v)
		} else {
			upd.SetDefaultRole(*v)
		}
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.SAMLProvider.UpdateOne(p)
		if err := replay(u.Mutation(), upd.Mutation()); err != nil {
			return err
		}
		if p, err = u.Save(ctx); err != nil {
			return samlError(err)
		}
		record(ctx, samlProviderEvent(events.SAMLProviderUpdated, p, map[string]any{"fields": changedFields(upd.Mutation())}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DeleteSAMLProvider removes a provider. Admins only.
func (r *Resolver) DeleteSAMLProvider(ctx context.Context, orgID, id string) error {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.SAMLProvider.Delete().
			Where(samlprovider.ID(id), samlprovider.OrganizationID(orgID)).
			Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.NotFoundf("SAML provider %s not found", id)
		}
		record(ctx, events.Event{
			Action: events.SAMLProviderDeleted, OrganizationID: orgID,
			Target: events.Target{Type: "saml-provider", ID: id},
		})
		return nil
	})
}

// samlProviderEvent is an event whose target is p.
func samlProviderEvent(action string, p *ent.SAMLProvider, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: p.OrganizationID,
		Target:  events.Target{Type: "saml-provider", ID: p.ID, Label: p.Label},
		Payload: payload,
	}
}

// SSOProviders lists what a login page offers: the organization's active
// providers, oldest first. Every member and guest may see it; strangers get
// 404. No paging: an organization has a handful of providers.
func (r *Resolver) SSOProviders(ctx context.Context, orgID string) ([]*model.SSOProviderLogin, error) {
	if _, _, err := visibleOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	// The providers of every organization a list shows are read together.
	rows, err := loader.PerParent(ctx, loader.Organizations, "sso providers", orgID, func(ctx context.Context, orgs []string) (map[string][]*ent.SAMLProvider, error) {
		rows, err := r.Client.SAMLProvider.Query().
			Where(samlprovider.OrganizationIDIn(orgs...),
				samlprovider.SSOURLNotNil(), samlprovider.EntityIDNotNil(), samlprovider.CertificateNotNil()).
			Order(func(s *sql.Selector) {
				s.OrderBy(sql.Asc(s.C(samlprovider.FieldCreatedAt)), sql.Asc(s.C(samlprovider.FieldID)))
			}).
			All(ctx)
		byOrg := make(map[string][]*ent.SAMLProvider, len(orgs))
		for _, p := range rows {
			byOrg[p.OrganizationID] = append(byOrg[p.OrganizationID], p)
		}
		return byOrg, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]*model.SSOProviderLogin, 0, len(rows))
	for _, p := range rows {
		if r.SAMLProviderStatus(p) != model.SAMLProviderStatusActive {
			continue
		}
		out = append(out, &model.SSOProviderLogin{OrganizationID: p.OrganizationID, ProviderID: p.ID, Label: p.Label, StartURL: r.SAMLService(p).StartURL})
	}
	return out, nil
}

// SAMLProviderDefaultTeam is a provider's default team through the TeamByID
// loader; nil when none (or when the team is gone).
func (r *Resolver) SAMLProviderDefaultTeam(ctx context.Context, p *ent.SAMLProvider) (*ent.Team, error) {
	if p.DefaultTeamID == nil {
		return nil, nil
	}
	t, err := loader.For(ctx).TeamByID.Load(ctx, *p.DefaultTeamID)()
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if t.OrganizationID != p.OrganizationID {
		return nil, nil
	}
	return t, nil
}

// SAMLProviderStatus: active when the identity provider is fully described.
func (r *Resolver) SAMLProviderStatus(p *ent.SAMLProvider) model.SAMLProviderStatus {
	set := func(s *string) bool { return s != nil && *s != "" }
	if set(p.SSOURL) && set(p.EntityID) && set(p.Certificate) {
		return model.SAMLProviderStatusActive
	}
	return model.SAMLProviderStatusPending
}

// SAMLService is the service-provider side of a provider (see the scheme at
// the top of this file).
func (r *Resolver) SAMLService(p *ent.SAMLProvider) *model.SAMLServiceProvider {
	entity := r.BaseURL + "/sso/saml/" + p.ID
	return &model.SAMLServiceProvider{AcsURL: entity + "/acs", StartURL: entity + "/start", EntityID: entity}
}

// SAMLProviderURLs are the `urls` of a provider.
func (r *Resolver) SAMLProviderURLs(p *ent.SAMLProvider) *model.SAMLProviderURLs {
	return &model.SAMLProviderURLs{Location: r.BaseURL + "/v1/orgs/" + p.OrganizationID + "/saml/" + p.ID}
}

// checkDefaultTeam accepts only a team of the provider's organization; any
// other id is bad input naming defaultTeam (not 404: the URL was found).
func checkDefaultTeam(ctx context.Context, orgID, teamID string) error {
	t, err := loader.For(ctx).TeamByID.Load(ctx, teamID)()
	if _, ok := apperr.As(err); err != nil && !ok {
		return err
	}
	if err != nil || t.OrganizationID != orgID {
		return apperr.InvalidField("defaultTeam", "no team %s in this organization", teamID)
	}
	return nil
}

// clearable reads an optional string input: ok is false when absent, v is
// nil when sent as null or "" (what a client that echoes a provider back
// sends for an unset field).
func clearable(o graphql.Omittable[*string]) (v *string, ok bool) {
	v, ok = o.ValueOK()
	if v != nil && *v == "" {
		v = nil
	}
	return v, ok
}

func invalidRole(r access.Role) error {
	return apperr.InvalidField("defaultRole", "%q is not a role (admin, create, review, edit, comment, read)", string(r))
}

// samlFieldNames maps the names entError derives from ent's column names to
// the API's spelling where they differ.
var samlFieldNames = map[string]string{
	"defaultTeamID": "defaultTeam",
}

// samlError is entError with the provider's field names spelled as in the
// API; a foreign-key failure means the default team vanished meanwhile.
func samlError(err error) error {
	if ent.IsConstraintError(err) {
		return apperr.InvalidField("defaultTeam", "is not a team of this organization")
	}
	err = entError(err)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Invalid {
		if name, ok := samlFieldNames[e.Field]; ok {
			return apperr.InvalidField(name, "%s", strings.TrimPrefix(e.Message, e.Field+": "))
		}
	}
	return err
}
