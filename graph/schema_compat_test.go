package graph_test

import (
	"strings"
	"testing"

	"github.com/folio/folio/internal/schemacompat"
)

// TestSchemaCompatible holds the GraphQL schema to what clients built
// against the last released one (schema/compat/snapshot.graphql) may rely
// on: a change that would break them (a field removed, an output made
// nullable, an input made required…) fails here unless
// schema/compat/acknowledged.txt names it. Deprecate with
// @deprecated(reason:) first; remove in a later release, acknowledged.
func TestSchemaCompatible(t *testing.T) {
	released, err := schemacompat.LoadFiles("../schema/compat/snapshot.graphql")
	if err != nil {
		t.Fatalf("the released schema: %v", err)
	}
	current, err := schemacompat.LoadFiles("../schema/*.graphql")
	if err != nil {
		t.Fatal(err)
	}
	acked, err := schemacompat.Acknowledged("../schema/compat/acknowledged.txt")
	if err != nil {
		t.Fatal(err)
	}
	var unacked []string
	for _, c := range schemacompat.Breaking(released, current) {
		if !acked[c.Key] {
			unacked = append(unacked, c.String())
		}
	}
	if len(unacked) > 0 {
		t.Errorf("%d changes to the GraphQL schema break clients of the released one (schema/compat/snapshot.graphql):\n  %s\n"+
			"Keep the old field or argument (deprecate it with @deprecated(reason:)), or, if the break is intended, add its key to schema/compat/acknowledged.txt with the reason.",
			len(unacked), strings.Join(unacked, "\n  "))
	}
}
