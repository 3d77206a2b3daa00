package db

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"entgo.io/ent/dialect"
)

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

// Exclusive runs fn while holding the lock named name across every
// instance that shares the database, so that steps of a start that check
// then write (the schema migration, the first-start bootstrap) run one
// instance at a time: on PostgreSQL a session advisory lock held on a
// connection of its own; on SQLite, whose file one process serves, a lock
// of this process per file and name.
func (d *DB) Exclusive(ctx context.Context, name string, fn func() error) error {
	if d.Dialect != dialect.Postgres {
		mu := localLock(d.path + "\x00" + name)
		mu.Lock()
		defer mu.Unlock()
		return fn()
	}
	return advisoryLocked(ctx, d.SQL, name, fn)
}

// advisoryLocked runs fn holding PostgreSQL's advisory lock on name. The
// lock belongs to the session, so it is taken and released on one
// connection kept aside for it; should the process die, PostgreSQL releases
// it with the connection. Its key includes the schema, so databases kept in
// schemas of one PostgreSQL database (as the tests do) do not wait on each
// other.
func advisoryLocked(ctx context.Context, raw *sql.DB, name string, fn func() error) error {
	conn, err := raw.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	key := "folio:" + name
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtext($1 || coalesce(current_schema(), '')))", key); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	defer func() {
		// A fresh context: the unlock must run even when ctx has ended.
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(hashtext($1 || coalesce(current_schema(), '')))", key)
	}()
	return fn()
}

var localLocks sync.Map // name -> *sync.Mutex

func localLock(name string) *sync.Mutex {
	mu, _ := localLocks.LoadOrStore(name, &sync.Mutex{})
	return mu.(*sync.Mutex)
}
