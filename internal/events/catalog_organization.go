package events

// Organizations: their creation and settings.
var (
	OrganizationCreated = define("organization.created", "Organization created", "title")
	OrganizationUpdated = define("organization.updated", "Organization updated", "fields")
)
