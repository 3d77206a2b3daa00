package model

import (
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent/site"
)

// Ent enums that REST names when it builds an input by hand (createSite's
// body, whose `spaces` is a list or "new"): rest/ does not import ent's
// packages.
type (
	SiteType       = site.Type
	SiteVisibility = site.Visibility
)

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
	// An API reference block ({% openapi-operation %}, {% openapi-schemas %}):
	// broken when its spec, path, method or schema is unknown.
	LinkOpenAPI = "openapi"

	// MergeResult.result
	MergeResultMerge  = "merge"
	MergeResultUpdate = "update"

	// OrganizationDefaultContent.type
	DefaultContentSite = "site"

	// comments(status:): a comment's status (ent/comment), or all
	CommentsOpen     = "open"
	CommentsResolved = "resolved"
	CommentsAll      = "all"
)

// EnumName is the GraphQL name of a closed set's REST value: names cannot
// hold '-' (or ':'), so they become '_' (share-link is share_link).
func EnumName(value string) string { return enumName.Replace(value) }

var enumName = strings.NewReplacer("-", "_", ":", "_")

// MarshalTranslationLanguage writes a language code (ent/schema's
// TranslationLanguages) as a GraphQL enum value: names cannot hold '-', so
// pt-br is pt_br. The codes stay plain strings in Go and REST, and ent
// validates them; gqlgen has refused names outside the enum before
// UnmarshalTranslationLanguage runs.
func MarshalTranslationLanguage(code string) graphql.Marshaler {
	return graphql.MarshalString(EnumName(code))
}

// UnmarshalTranslationLanguage reads a GraphQL enum value back into a
// language code (no code holds '_').
func UnmarshalTranslationLanguage(v any) (string, error) {
	s, err := graphql.UnmarshalString(v)
	return strings.ReplaceAll(s, "_", "-"), err
}
