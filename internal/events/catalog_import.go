package events

// Imports of content from a URL. An import is one synchronous write: its
// event is recorded with the revision it makes (a failed import changes
// nothing and records nothing, so there is no separate "started").
// Imported into a space's main content it moves the space to a new
// revision (defineContent); into a change request only the change
// request's content moves.
var (
	ImportFinished                = defineContent("import.finished", "Content imported into a space", "source", "importedResources", "totalResources")
	ImportFinishedInChangeRequest = define("import.finished_in_change_request", "Content imported into a change request", "number", "revisionId", "source", "importedResources", "totalResources")
)
