// Package ent holds the entity graph. Only schema/ is hand-written; everything
// else is produced by `make generate` and committed.
package ent

//go:generate go run entgo.io/ent/cmd/ent generate --feature sql/upsert,sql/execquery,sql/modifier ./schema
