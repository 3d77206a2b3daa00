package events

// Sharing: grants of a role on a space, a collection or a site to a user
// or a team. The event's target is the object shared.
var (
	GrantCreated = define("grant.created", "Access granted", "objectKind", "objectId", "principalKind", "principalId", "role")
	GrantUpdated = define("grant.updated", "Access updated", "objectKind", "objectId", "principalKind", "principalId", "role")
	GrantRemoved = define("grant.removed", "Access removed", "objectKind", "objectId", "principalKind", "principalId", "role")
)
