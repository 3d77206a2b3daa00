package adaptive_test

import (
	"encoding/json"
	"fmt"

	"github.com/folio/folio/internal/adaptive"
)

// A site's schema, a condition written against it, and its evaluation for
// two visitors; then a schema update that would break the condition.
func Example() {
	schema, err := adaptive.ParseSchema([]byte(`{
		"type": "object",
		"properties": {
			"plan": {"type": "string", "description": "Plan", "enum": ["free", "pro"]},
			"internal": {"type": "boolean", "description": "Staff"},
			"unsigned": {"type": "object", "description": "Unsigned claims of the site visitor.",
				"properties": {"isBeta": {"type": "boolean", "description": "Beta tester"}},
				"additionalProperties": false}
		},
		"additionalProperties": false
	}`))
	if err != nil {
		panic(err)
	}
	cond, err := adaptive.Compile(`visitor.claims.plan == "pro" && !visitor.claims.internal || visitor.claims.unsigned.isBeta`, schema)
	if err != nil {
		panic(err)
	}
	fmt.Println(cond.Claims())
	fmt.Println(cond.Eval(map[string]any{"plan": "pro"}))
	fmt.Println(cond.Eval(map[string]any{"unsigned": map[string]any{"isBeta": "true"}}))
	fmt.Println(cond.Eval(nil))

	_, err = adaptive.Compile(`visitor.claims.isBeta`, schema)
	fmt.Println(err)

	next, _ := adaptive.ParseSchema([]byte(`{"type":"object","properties":{"plan":{"type":"string","description":"Plan"}},"additionalProperties":false}`))
	fmt.Println(adaptive.RemovedClaims(schema, next))

	_, err = adaptive.ParseSchema([]byte(`{"type":"object","properties":{"plan":{"type":"text","description":"Plan"}},"additionalProperties":false}`))
	fmt.Println(err)

	answer, _ := json.Marshal(map[string]any{"object": "site-adaptive-schema", "jsonSchema": adaptive.EmptySchema()})
	fmt.Println(string(answer))
	// Output:
	// [internal plan unsigned.isBeta]
	// true
	// true
	// false
	// condition: line 1, column 16: unknown claim visitor.claims.isBeta; did you mean visitor.claims.unsigned.isBeta?
	// [internal unsigned.isBeta]
	// properties.plan.type: must be one of "boolean", "string", "number", "array", "object"
	// {"jsonSchema":{"type":"object","properties":{},"additionalProperties":false},"object":"site-adaptive-schema"}
}
