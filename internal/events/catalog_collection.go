package events

// Collections: their life and their place in the organization's tree.
var (
	CollectionCreated     = define("collection.created", "Collection created", "title", "parentId")
	CollectionUpdated     = define("collection.updated", "Collection updated", "fields")
	CollectionDeleted     = define("collection.deleted", "Collection deleted", "parentId")
	CollectionMoved       = define("collection.moved", "Collection moved", "parentId", "position")
	CollectionTransferred = define("collection.transferred", "Collection transferred to another organization", "fromOrganizationId", "toOrganizationId", "spaceIds", "collectionIds")
)
