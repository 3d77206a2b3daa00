package events

// Sharing: grants of a role on a space, collection or site to a user or a
// team. One event per grant changed; its target is the object shared.
var (
	GrantCreated = define("grant.created", "Access shared", "objectKind", "objectId", "principalKind", "principalId", "role")
	GrantUpdated = define("grant.updated", "Shared access changed", "objectKind", "objectId", "principalKind", "principalId", "role")
	GrantRemoved = define("grant.removed", "Shared access removed", "objectKind", "objectId", "principalKind", "principalId", "role")
)
