package db

import "entgo.io/ent/dialect"

// LockOrganization is the statement that takes the row lock on an
// organization for the rest of a PostgreSQL transaction, or "" on SQLite,
// where a write transaction (BEGIN IMMEDIATE) already holds the database's
// single write lock from its start. Writes that reshape an organization's
// collection tree take it first, so they run one after the other and each
// checks the tree the previous one left. FOR NO KEY UPDATE rather than FOR
// UPDATE: it excludes the other tree writers just the same, but not the key
// share locks PostgreSQL takes for foreign keys, so inserting members,
// invites or other rows that refer to the organization does not wait.
func LockOrganization(dialectName string) string {
	if dialectName != dialect.Postgres {
		return ""
	}
	return "SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE"
}
