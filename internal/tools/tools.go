//go:build tools

// Package tools pins the code generators `make generate` runs, so that
// go.sum holds them and the generated code is reproducible.
package tools

import (
	_ "entgo.io/ent/cmd/ent"
	_ "github.com/99designs/gqlgen"
)
