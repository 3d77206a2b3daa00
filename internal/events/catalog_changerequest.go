package events

// Change requests: their life and their content.
var (
	ChangeRequestCreated = define("change_request.created", "Change request created", "number", "subject")
	ChangeRequestUpdated = define("change_request.updated", "Change request updated", "number", "fields", "status")
	ChangeRequestMerged  = defineContent("change_request.merged", "Change request merged", "number")
)
