package model

import "github.com/folio/folio/ent"

// OpenAPISpec and OpenAPISpecVersion are the ent entities, named here for
// rest/ and for callers that read specs (API reference blocks).
type (
	OpenAPISpec        = ent.OpenAPISpec
	OpenAPISpecVersion = ent.OpenAPISpecVersion
)
