package db

import "entgo.io/ent/dialect"

// LockOrganization is the statement that takes the row lock on an
// organization for the rest of a PostgreSQL transaction, or "" on SQLite,
// where a write transaction (BEGIN IMMEDIATE) already holds the database's
// single write lock from its start. Writes that reshape an organization's
// collection tree take it first, so they run one after the other and each
// checks the tree the previous one left.
func LockOrganization(dialectName string) string {
	if dialectName != dialect.Postgres {
		return ""
	}
	return "SELECT id FROM organizations WHERE id = $1 FOR UPDATE"
}
