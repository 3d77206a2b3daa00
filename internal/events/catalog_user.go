package events

// Users and their API tokens (no organization: OrganizationID "").
var (
	UserCreated     = define("user.created", "User created")
	UserUpdated     = define("user.updated", "User updated", "fields")
	APITokenCreated = define("api_token.created", "API token created", "name", "userId")
	APITokenRevoked = define("api_token.revoked", "API token revoked", "name", "userId")
)
