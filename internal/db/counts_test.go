package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// TestKeptCountsBackfill: a database whose rows were written before the
// counts were kept (the table emptied, its marker with it) is counted from
// its rows at the next start, and a start after that changes nothing.
func TestKeptCountsBackfill(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		admin, org := s.NewUser(t, "admin@backfill.test", "Backfill")
		for i := range 3 {
			u, _ := s.NewUser(t, fmt.Sprintf("u%d@backfill.test", i), "")
			s.AddMember(t, org, u, nil)
		}
		if res := s.Request(t, admin.Token, "PUT", "/v1/orgs/"+org+"/teams", map[string]any{"title": "T"}); res.Status != 201 {
			t.Fatalf("create team: %d %s", res.Status, res.Body)
		}
		counts := func() string {
			rows, err := s.App.DB.SQL.QueryContext(ctx, `SELECT list, parent, n FROM list_counts WHERE list <> 'folio:counted' AND n <> 0 ORDER BY list, parent`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			out := ""
			for rows.Next() {
				var list, parent string
				var n int
				if err := rows.Scan(&list, &parent, &n); err != nil {
					t.Fatal(err)
				}
				out += fmt.Sprintf("%s %s %d; ", list, parent, n)
			}
			return out
		}
		want := fmt.Sprintf("members %s 4; teams %s 1; ", org, org)
		if got := counts(); got != want {
			t.Fatalf("kept %q, want %q", got, want)
		}
		if _, err := s.App.DB.SQL.ExecContext(ctx, `DELETE FROM list_counts`); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := db.KeepCounts(ctx, s.App.DB.SQL, s.App.DB.Dialect); err != nil {
				t.Fatal(err)
			}
			if got := counts(); got != want {
				t.Fatalf("after a start, kept %q, want %q", got, want)
			}
		}
	})
}
