package events

// Spaces: their life, their place in the organization's tree, and direct
// edits of their main content.
var (
	SpaceCreated        = define("space.created", "Space created", "title", "parentId")
	SpaceUpdated        = define("space.updated", "Space updated", "fields")
	SpaceDeleted        = define("space.deleted", "Space deleted")
	SpaceRestored       = define("space.restored", "Space restored")
	SpaceDuplicated     = defineContent("space.duplicated", "Space duplicated", "sourceSpaceId", "title")
	SpaceMoved          = define("space.moved", "Space moved", "parentId", "position")
	SpaceTransferred    = define("space.transferred", "Space transferred to another organization", "fromOrganizationId", "toOrganizationId")
	SpaceContentUpdated = defineContent("space.content_updated", "Space content updated", "changes")
)
