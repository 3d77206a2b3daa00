package secrets

// Areas name the sealed columns; each is the associated data of its
// ciphertexts, so a value moved to another column does not open.
const (
	// SiteAuthKey is the key that signs a site's visitor tokens.
	SiteAuthKey = "sites.auth_private_key"
	// SpaceShareKey is the secret of a share-link space.
	SpaceShareKey = "spaces.share_key"
	// ShareLinkKey is the key of a site's share link, looked up by equality
	// through site_share_links.key_hash.
	ShareLinkKey = "site_share_links.key"
	// WebhookSecret is the signing secret of a webhook (whsec_…).
	WebhookSecret = "webhooks.secret"
	// OIDCClientSecret is the client secret Folio presents to an OpenID
	// Connect provider (`folio oidc add`).
	OIDCClientSecret = "oidc_providers.client_secret"
	// GitCredential is the "user:password" a space's Git connection
	// presents to its remote (HTTPS basic auth).
	GitCredential = "git_syncs.credential"
	// OIDCFlow seals the cookie that carries a sign-in through an OpenID
	// Connect provider (state, nonce, PKCE verifier): a cookie, not a
	// column, so it has no entry in Columns; a key rotation only ends
	// sign-ins in flight.
	OIDCFlow = "cookie.folio_oidc"
)

// Column is a column of sealed values (Seal with Area), with the column of
// their lookup hashes (Lookup with Area) when they are looked up by
// equality. Every row of Table has an id column.
type Column struct {
	Table, Column, Lookup, Area string
}

// Columns is every sealed column. A new area that stores a secret adds its
// column here: the start then seals values stored in clear (rows written
// before the column was sealed) and `folio secrets rotate` re-seals them.
var Columns = []Column{
	{Table: "sites", Column: "auth_private_key", Area: SiteAuthKey},
	{Table: "spaces", Column: "share_key", Area: SpaceShareKey},
	{Table: "site_share_links", Column: "key", Lookup: "key_hash", Area: ShareLinkKey},
	{Table: "webhooks", Column: "secret", Area: WebhookSecret},
	{Table: "oidc_providers", Column: "client_secret", Area: OIDCClientSecret},
	{Table: "git_syncs", Column: "credential", Area: GitCredential},
}
