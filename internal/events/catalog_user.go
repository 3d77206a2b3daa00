package events

// Users and their API tokens (no organization: OrganizationID "").
var (
	UserCreated     = define("user.created", "User created")
	APITokenCreated = define("api_token.created", "API token created", "name", "userId")
)
