// Package adaptive holds the adaptive content of docs sites: the JSON schema
// of the claims a site's visitors carry (ParseSchema) and the conditions on
// sections and site spaces that read those claims (Compile, Eval).
//
// A schema is validated with a real JSON Schema library against the
// reference's SiteAdaptiveJSONSchema (cut into reference_schema.json), so the
// documents Folio accepts are exactly the ones the reference describes (plus
// `$id`, which the seed lists). A condition is an expr-lang expression in the
// JavaScript-like spelling of GitBook's examples
// (`visitor.claims.plan == "pro" && !visitor.claims.internal`), checked at
// write time against the schema — every claim it reads must exist, with the
// type the schema gives it — and kept compiled, so a read only runs it.
//
// The package has no database and no HTTP: the sites area stores a schema's
// JSON and a condition's source, and calls this package to check and run them.
package adaptive

import "strings"

// Limits. A schema or a condition over them is refused with an *Error naming
// the limit; they keep a write's checking and a read's evaluation cheap
// (a condition runs once per section or site space per visitor).
const (
	// MaxSchemaBytes bounds a schema document.
	MaxSchemaBytes = 64 << 10
	// MaxSchemaDepth bounds the nesting of a schema document's JSON values:
	// a claim object nested in another takes two levels ("properties", name).
	MaxSchemaDepth = 16
	// MaxClaims bounds the claims of a schema (leaves and claim objects).
	MaxClaims = 200
	// MaxClaimNameLength bounds a claim's name, in bytes.
	MaxClaimNameLength = 64
	// MaxConditionLength bounds a condition's source, in bytes.
	MaxConditionLength = 1000
	// MaxConditionNodes bounds a condition's syntax tree: every literal,
	// name, member access and operator is a node.
	MaxConditionNodes = 200
)

// Error is a schema or condition that is refused. Field names the place:
// for a schema, the JSON path of the offending value inside the schema
// document (`properties.plan.type`, `properties.roles.items.enum[1]`; empty
// for the document itself), for a condition "condition". Message says what
// is wrong; a condition's names the line and column. Callers that present
// the error under another name (`jsonSchema`, `siteSpace.condition`) prefix
// or replace Field.
type Error struct{ Field, Message string }

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// joinPath spells a path of JSON keys and array indexes the way the rest of
// Folio names fields: keys joined by dots, indexes in brackets.
func joinPath(parts []pathPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.index {
			b.WriteString("[" + p.name + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p.name)
	}
	return b.String()
}

type pathPart struct {
	name  string
	index bool
}
