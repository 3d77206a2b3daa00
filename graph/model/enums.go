package model

// Values of the closed sets that have no ent type. gqlgen.yml binds the
// GraphQL enums to these constants; the Go values are the REST spellings, so
// REST and the application keep using plain strings.
const (
	// ContentChangeInput.operation
	OperationInsertPage  = "insert_page"
	OperationUpdatePage  = "update_page"
	OperationDeletePage  = "delete_page"
	OperationInsertFiles = "insert_files"

	// importContent(source:)
	ImportMarkdown = "markdown"
	ImportZip      = "zip"
	ImportHTML     = "html"
	ImportWebsite  = "website"

	// PositionTargetInput.type
	PositionSpace      = "space"
	PositionCollection = "collection"

	// LinkTarget.status
	LinkOK     = "ok"
	LinkBroken = "broken"
	LinkInApp  = "in-app"

	// LinkTarget.kind
	LinkURL    = "url"
	LinkPage   = "page"
	LinkFile   = "file"
	LinkAnchor = "anchor"

	// MergeResult.result
	MergeResultMerge  = "merge"
	MergeResultUpdate = "update"
)
