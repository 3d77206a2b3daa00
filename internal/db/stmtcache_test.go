package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// On PostgreSQL each connection prepares a statement with arguments once
// and reuses it; the cache is bounded, survives rolled-back transactions,
// and recovers when the server has dropped its statements.
func TestPreparedStatementCache(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		if kind != "postgres" {
			continue
		}
		s := testkit.Start(t, kind)
		ctx := context.Background()
		conn, err := s.App.DB.SQL.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		prepared := func(query string) (n int) {
			t.Helper()
			// No arguments: lib/pq's simple protocol, never cached itself.
			q := "SELECT count(*) FROM pg_prepared_statements"
			if query != "" {
				q += " WHERE statement = '" + query + "'"
			}
			if err := conn.QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		add := func(query string, x int) int {
			t.Helper()
			var y int
			if err := conn.QueryRowContext(ctx, query, x).Scan(&y); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			return y
		}
		const q = "SELECT $1::int + 1"
		for i := range 3 {
			if add(q, i) != i+1 {
				t.Fatal("wrong answer")
			}
		}
		if n := prepared(q); n != 1 {
			t.Fatalf("%q prepared %d times on one connection, want 1", q, n)
		}

		// A statement prepared inside a transaction that rolls back stays.
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var y int
		if err := tx.QueryRowContext(ctx, "SELECT $1::int * 2", 21).Scan(&y); err != nil || y != 42 {
			t.Fatalf("in a transaction: %d %v", y, err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "SELECT $1::int * 2", 4).Scan(&y); err != nil || y != 8 {
			t.Fatalf("after the rollback: %d %v", y, err)
		}

		// Bounded: the least recently used statements are closed.
		for i := range 300 {
			add(fmt.Sprintf("SELECT $1::int + %d", i+2), 1)
		}
		if n := prepared(""); n > 256 {
			t.Fatalf("%d statements prepared on one connection, want at most 256", n)
		}

		// The server forgot them all (a pooler's DISCARD ALL): the next use
		// prepares again instead of failing.
		if _, err := conn.ExecContext(ctx, "DEALLOCATE ALL"); err != nil {
			t.Fatal(err)
		}
		if got := add("SELECT $1::int + 301", 1); got != 302 {
			t.Fatalf("after DEALLOCATE ALL: %d", got)
		}
	}
}

// statement_cache in DATABASE_URL is on or off; anything else stops the
// start, naming it.
func TestStatementCacheSetting(t *testing.T) {
	_, err := db.Open(context.Background(), "postgres://127.0.0.1:1/x?statement_cache=maybe", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "statement_cache must be on or off") {
		t.Fatalf("statement_cache=maybe: %v", err)
	}
}
