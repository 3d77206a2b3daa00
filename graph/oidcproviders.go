package graph

import (
	"context"
	"slices"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/oidcprovider"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/useridentity"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/secrets"
)

// OpenID Connect providers of the instance (oidcproviders_signin.go runs the
// sign-in through them).
//
// Who may do what:
//   - adding, listing and removing providers is the operator's, on the
//     command line (`folio oidc add|list|remove`): a provider decides who
//     gets an account, for the whole instance, so no API exposes it and
//     these methods refuse any caller but the command line.
//   - the sign-in page's list (OIDCLogins) is public: a name, a label and
//     a start address, what a "Sign in with …" button shows.
//
// The client secret is sealed at rest (secrets.OIDCClientSecret) and never
// read back but to talk to the provider; events name the provider, never
// the secret.

// OIDCProviderInput is what `folio oidc add` sends.
type OIDCProviderInput struct {
	Name, Label, Issuer    string
	ClientID, ClientSecret string
	// AllowedDomains limit sign-in to these email domains; empty: any.
	AllowedDomains []string
	// OrganizationID, when set, is the organization everyone signing in
	// through the provider joins, with Role (default read).
	OrganizationID, Role string
}

// OIDCLogin is one "Sign in with <Label>" button of the sign-in page.
type OIDCLogin struct {
	Name, Label, StartURL string
}

// operatorOnly refuses every caller but the command line: the operator's
// methods have no API, and this keeps it so should one be wired by mistake.
func operatorOnly(ctx context.Context) error {
	o := events.OriginOf(ctx)
	if o.Source != events.SourceScript || o.Actor.Type != events.ActorSystem {
		return apperr.Forbiddenf("OpenID Connect providers are managed with `folio oidc` on the command line")
	}
	return nil
}

// AddOIDCProvider stores a new provider. The operator only.
func (r *Resolver) AddOIDCProvider(ctx context.Context, in OIDCProviderInput) (*ent.OIDCProvider, error) {
	if err := operatorOnly(ctx); err != nil {
		return nil, err
	}
	in.Name = strings.TrimSpace(in.Name)
	in.Label = strings.TrimSpace(in.Label)
	if in.Label == "" {
		in.Label = in.Name
	}
	// Kept as given, trailing slash included: discovery requires the
	// provider's issuer to be exactly this (Auth0's ends with a slash).
	in.Issuer = strings.TrimSpace(in.Issuer)
	in.ClientID = strings.TrimSpace(in.ClientID)
	if in.ClientSecret == "" {
		return nil, apperr.InvalidField("clientSecret", "is required")
	}
	if len(in.ClientSecret) > 2048 {
		return nil, apperr.InvalidField("clientSecret", "must be at most 2048 bytes")
	}
	domains := make([]string, 0, len(in.AllowedDomains))
	for _, d := range in.AllowedDomains {
		if d = strings.ToLower(strings.TrimSpace(d)); d != "" && !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	var role *access.Role
	if in.OrganizationID == "" && in.Role != "" {
		return nil, apperr.InvalidField("role", "needs an organization")
	}
	if in.OrganizationID != "" {
		rl := access.Read
		if in.Role != "" {
			rl = access.Role(in.Role)
		}
		if _, err := access.ParseRole(string(rl)); err != nil {
			return nil, apperr.InvalidField("role", "%v", err)
		}
		role = &rl
	}
	var p *ent.OIDCProvider
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if in.OrganizationID != "" {
			ok, err := tx.Organization.Query().Where(organization.ID(in.OrganizationID)).Exist(ctx)
			if err != nil {
				return err
			}
			if !ok {
				return apperr.InvalidField("organization", "no organization has the id %q", in.OrganizationID)
			}
		}
		var err error
		c := tx.OIDCProvider.Create().SetName(in.Name).SetLabel(in.Label).SetIssuer(in.Issuer).
			SetClientID(in.ClientID).SetClientSecretSealed(r.seal(secrets.OIDCClientSecret, in.ClientSecret)).
			SetAllowedDomains(domains)
		if role != nil {
			c.SetOrganizationID(in.OrganizationID).SetDefaultRole(*role)
		}
		p, err = c.Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.ConflictField("name", "a provider named %q exists: remove it first", in.Name)
		}
		if err != nil {
			return oidcError(err)
		}
		record(ctx, events.Event{Action: events.OIDCProviderAdded,
			Target: events.Target{Type: "oidc-provider", ID: p.ID, Label: p.Label},
			Payload: map[string]any{"name": p.Name, "issuer": p.Issuer, "clientId": p.ClientID, "allowedDomains": p.AllowedDomains,
				"organizationId": in.OrganizationID}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// OIDCProviders are every provider, by name. The operator only.
func (r *Resolver) OIDCProviders(ctx context.Context) ([]*ent.OIDCProvider, error) {
	if err := operatorOnly(ctx); err != nil {
		return nil, err
	}
	return r.Client.OIDCProvider.Query().Order(ent.Asc(oidcprovider.FieldName)).All(ctx)
}

// RemoveOIDCProvider removes the provider named name and its users' links
// to it (user_identities): a provider added again under the name may have
// another issuer, whose subjects are not the old one's. Users keep their
// accounts and sessions, and a sign-in through a provider added again
// links them anew by their verified email. The operator only.
func (r *Resolver) RemoveOIDCProvider(ctx context.Context, name string) error {
	if err := operatorOnly(ctx); err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		p, err := tx.OIDCProvider.Query().Where(oidcprovider.Name(name)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFoundf("no OpenID Connect provider named %q", name)
		}
		if err != nil {
			return err
		}
		unlinked, err := tx.UserIdentity.Delete().
			Where(useridentity.Kind(OIDCIdentityKind), useridentity.Provider(p.Name)).Exec(ctx)
		if err != nil {
			return err
		}
		if err := tx.OIDCProvider.DeleteOne(p).Exec(ctx); err != nil {
			return err
		}
		r.forgetOIDCProvider(p)
		record(ctx, events.Event{Action: events.OIDCProviderRemoved,
			Target:  events.Target{Type: "oidc-provider", ID: p.ID, Label: p.Label},
			Payload: map[string]any{"name": p.Name, "unlinked": unlinked}})
		return nil
	})
}

// OIDCRedirectURI is the address to register at the provider as the
// client's redirect (callback) URI.
func (r *Resolver) OIDCRedirectURI(name string) string {
	return r.BaseURL + "/sso/oidc/" + name + "/callback"
}

// OIDCLogins are the sign-in page's buttons, by name. Anyone may see them.
func (r *Resolver) OIDCLogins(ctx context.Context) ([]OIDCLogin, error) {
	rows, err := r.Client.OIDCProvider.Query().Order(ent.Asc(oidcprovider.FieldName)).
		Select(oidcprovider.FieldName, oidcprovider.FieldLabel).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]OIDCLogin, len(rows))
	for i, p := range rows {
		out[i] = OIDCLogin{Name: p.Name, Label: p.Label, StartURL: "/sso/oidc/" + p.Name + "/start"}
	}
	return out, nil
}

// oidcFieldNames spells the column names entError derives as the command
// line's flags.
var oidcFieldNames = map[string]string{
	"clientID":       "clientId",
	"allowedDomains": "allowedDomains",
}

// oidcError is entError with the provider's fields named as the flags.
func oidcError(err error) error {
	err = entError(err)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Invalid {
		if name, ok := oidcFieldNames[e.Field]; ok && name != e.Field {
			return apperr.InvalidField(name, "%s", strings.TrimPrefix(e.Message, e.Field+": "))
		}
	}
	return err
}
