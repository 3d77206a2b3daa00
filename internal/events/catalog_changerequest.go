package events

// Change requests: their life and their content.
var (
	ChangeRequestCreated = define("change_request.created", "Change request created", "number", "subject")
	ChangeRequestUpdated = define("change_request.updated", "Change request updated", "number", "fields", "status")
	ChangeRequestMerged  = defineContent("change_request.merged", "Change request merged", "number", "bypassed", "bypassedRules")
	// The change request's own content moves to a new revision (the
	// space's does not: plain define, with revisionId).
	ChangeRequestContentUpdated  = define("change_request.content_updated", "Change request content updated", "number", "revisionId", "changes")
	ChangeRequestUpdatedFromMain = define("change_request.updated_from_main", "Change request updated from the space", "number", "revisionId", "baseRevisionId")
)
