package events

// OAuth for tools (graph/oauth*.go): clients registered, consents given,
// tokens issued, refreshed and revoked. No organization (OrganizationID
// ""); payloads never hold a code, a token or a hash.
var (
	OAuthClientRegistered = define("oauth.client_registered", "OAuth client registered", "clientId", "clientName")
	OAuthGrantAuthorized  = define("oauth.grant_authorized", "OAuth access authorized", "clientId", "clientName", "grantId", "userId", "scope")
	OAuthTokenIssued      = define("oauth.token_issued", "OAuth token issued", "clientId", "grantId", "userId", "grantType")
	OAuthGrantRevoked     = define("oauth.grant_revoked", "OAuth access revoked", "clientId", "grantId", "userId", "reason")
)
