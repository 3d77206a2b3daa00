package events

// Sign-in through OpenID Connect providers (no organization:
// OrganizationID ""). Payloads never hold a client secret or a token.
var (
	OIDCProviderAdded   = define("oidc_provider.added", "OpenID Connect provider added", "name", "issuer", "clientId", "allowedDomains", "organizationId")
	OIDCProviderRemoved = define("oidc_provider.removed", "OpenID Connect provider removed", "name", "unlinked")
	UserIdentityLinked  = define("user_identity.linked", "Sign-in identity linked", "kind", "provider", "userId")
)
