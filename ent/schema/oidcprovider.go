package schema

import (
	"regexp"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/fetch"
)

// OIDCProvider is an OpenID Connect identity provider anyone may sign in
// to the instance through (`folio oidc add`): not an organization's, the
// operator's. name is its address part (/sso/oidc/<name>/…), label the
// button's text. The client secret is sealed at rest (internal/secrets:
// OIDCClientSecret) and never shown again.
type OIDCProvider struct{ ent.Schema }

func (OIDCProvider) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// oidcNamePattern keeps names usable in a URL path as they are.
var oidcNamePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)

func (OIDCProvider) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Unique().Immutable().
			Validate(matches(oidcNamePattern, "1 to 40 lower-case letters, digits and inner hyphens")),
		field.String("label").Validate(length(1, 60)),
		field.String("issuer").Validate(all(length(1, 2048), fetch.CheckURL)),
		field.String("client_id").Validate(length(1, 512)),
		field.String("client_secret_sealed").StorageKey("client_secret").Sensitive(),
		// Email domains whose addresses may sign in; empty: any.
		field.Strings("allowed_domains").Default([]string{}).Validate(validateEmailDomains),
		// The organization whose member everyone signing in through the
		// provider becomes (just in time, with default_role), if any.
		field.String("organization_id").Optional().Nillable(),
		field.Enum("default_role").GoType(access.Role("")).Optional().Nillable(),
	}
}
