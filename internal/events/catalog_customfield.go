package events

// Custom fields of an organization and their values on spaces.
var (
	CustomFieldCreated = define("custom_field.created", "Custom field created", "name", "type")
	CustomFieldUpdated = define("custom_field.updated", "Custom field updated", "name", "fields")
	CustomFieldDeleted = define("custom_field.deleted", "Custom field deleted", "name")
	SpaceFieldUpdated  = define("space_field.updated", "Space custom fields updated", "fields")
)
