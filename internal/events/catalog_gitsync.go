package events

// Git import and export of a space. A request queues an operation (queued,
// with the repository's URL without credentials); the job that runs it
// records how it ended. An import that moves the space's content is a
// content action; one into a change request moves only the change
// request's content (and merges it when asked and allowed: the merge
// records its own event).
var (
	GitImportQueued                  = define("git.import_queued", "Git import queued", "operationId", "url", "ref", "force", "standalone", "autoMerge")
	GitExportQueued                  = define("git.export_queued", "Git export queued", "operationId", "url", "ref", "force", "standalone", "autoMerge")
	GitImportFinished                = defineContent("git.import_finished", "Content imported from Git into a space", "operationId", "commit", "ref", "forced")
	GitImportFinishedInChangeRequest = define("git.import_finished_in_change_request", "Content imported from Git into a change request", "operationId", "commit", "ref", "number", "revisionId", "conflicts")
	GitImportFailed                  = define("git.import_failed", "Git import failed", "operationId", "ref", "error", "conflicts")
	GitExportFinished                = define("git.export_finished", "Content exported to Git", "operationId", "commit", "ref", "revisionId")
	GitExportFailed                  = define("git.export_failed", "Git export failed", "operationId", "ref", "error")
)
