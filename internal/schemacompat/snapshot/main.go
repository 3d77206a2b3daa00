// Command snapshot writes the schema of schema/*.graphql to
// schema/compat/snapshot.graphql, the API as last released, which CI
// compares the schema with (graph/schema_compat_test.go). Run it (make
// schema-snapshot) when a release is cut, and empty
// schema/compat/acknowledged.txt then.
package main

import (
	"fmt"
	"os"

	"github.com/folio/folio/internal/schemacompat"
)

func main() {
	s, err := schemacompat.LoadFiles("schema/*.graphql")
	if err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("schema/compat/snapshot.graphql", schemacompat.Print(s), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
}
