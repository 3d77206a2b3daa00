package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/testkit"
)

// seedMembers adds n members to orgID in one statement per table, joined
// one second apart counting back from base (member k joined base − k s), and
// analyzes the tables so that the planner knows their size. It returns the
// id and join time of member k: ids are "bulk" and k on eight digits.
func seedMembers(t testing.TB, s *testkit.Server, orgID string, n int, base time.Time) func(k int) paging.Cursor {
	t.Helper()
	return seedMembersAs(t, s, orgID, "bulk", n, base)
}

// seedMembersAs is seedMembers with the users' and members' ids (and
// emails) made of prefix rather than "bulk", so that several organizations
// can be seeded in one database.
func seedMembersAs(t testing.TB, s *testkit.Server, orgID, prefix string, n int, base time.Time) func(k int) paging.Cursor {
	t.Helper()
	ctx := context.Background()
	type stmt struct {
		q    string
		args []any
	}
	var stmts []stmt
	if s.Dialect == "postgres" {
		stmts = []stmt{
			{`INSERT INTO users(id, created_at, updated_at, email, display_name)
			 SELECT $2::text || lpad(g::text, 8, '0'), now(), now(), $2::text || g || '@seek.test', 'Bulk ' || g FROM generate_series(1, $1::int) g`, []any{n, prefix}},
			{`INSERT INTO members(id, role, joined_at, sso, disabled, organization_id, user_id)
			 SELECT $4::text || lpad(g::text, 8, '0'), 'read', $2::timestamptz - g * interval '1 second', false, false, $3, $4::text || lpad(g::text, 8, '0')
			 FROM generate_series(1, $1::int) g`, []any{n, base, orgID, prefix}},
			{`ANALYZE users`, nil}, {`ANALYZE members`, nil},
		}
	} else {
		// Times in the text form the driver writes (_time_format=sqlite), so
		// that they compare with the cursor's arguments.
		const series = `WITH RECURSIVE g(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM g WHERE k < ?1) `
		stmts = []stmt{
			{series + `INSERT INTO users(id, created_at, updated_at, email, display_name)
			 SELECT printf('%s%08d', ?2, k), '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00', ?2 || k || '@seek.test', 'Bulk ' || k FROM g`, []any{n, prefix}},
			{series + `INSERT INTO members(id, role, joined_at, sso, disabled, organization_id, user_id)
			 SELECT printf('%s%08d', ?4, k), 'read', strftime('%Y-%m-%d %H:%M:%S', ?2 - k, 'unixepoch') || '+00:00', false, false, ?3, printf('%s%08d', ?4, k) FROM g`,
				[]any{n, base.Unix(), orgID, prefix}},
			{`ANALYZE`, nil},
		}
	}
	for _, st := range stmts {
		if _, err := s.App.DB.SQL.ExecContext(ctx, st.q, st.args...); err != nil {
			t.Fatalf("seed members: %v\n%s", err, st.q)
		}
	}
	return func(k int) paging.Cursor {
		return paging.Cursor{Time: base.Add(-time.Duration(k) * time.Second), ID: fmt.Sprintf("%s%08d", prefix, k)}
	}
}

// memberPageSQL is the statement listPage sends for a page of an
// organization's members by join date: the same predicate and order
// functions, on the same table.
func memberPageSQL(dialect, orgID string, args paging.Args) (string, []any) {
	s := sql.Dialect(dialect).Select("*").From(sql.Table("members"))
	s.Where(sql.EQ(s.C("organization_id"), orgID))
	args.Keyset("joined_at")(s)
	args.OrderBy("joined_at")(s)
	s.Limit(args.Limit + 1)
	return s.Query()
}

// explain is the database's plan for query, one line per node.
func explain(t testing.TB, s *testkit.Server, query string, args []any) string {
	t.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if s.Dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	rows, err := s.App.DB.SQL.QueryContext(context.Background(), prefix+query, args...)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(vals[len(vals)-1]))
	}
	return strings.Join(lines, "\n")
}

// TestMemberPagesSeek: a page of members deep into a long list starts where
// the cursor points, in both orders, and the database gets there by seeking
// the (organization_id, joined_at, id) index — no sort, no filter over the
// rows before the cursor.
func TestMemberPagesSeek(t *testing.T) {
	const n = 20000
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		owner, org := s.NewUser(t, "owner@seek.test", "Seek")
		at := seedMembers(t, s, org, n, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		for _, order := range []paging.Order{paging.Desc, paging.Asc} {
			args := paging.Args{Limit: 50, Order: order, After: new(at(n / 2))}
			query, qargs := memberPageSQL(s.Dialect, org, args)
			plan := explain(t, s, query, qargs)
			t.Logf("%s:\n%s", order, plan)
			if !strings.Contains(plan, "member_organization_id_joined_at_id") {
				t.Errorf("%s: the page does not use the keyset index:\n%s", order, plan)
			}
			if s.Dialect == "postgres" && (strings.Contains(plan, "Sort") || strings.Contains(plan, "Filter")) ||
				s.Dialect == "sqlite" && (strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "(joined_at,id)")) {
				t.Errorf("%s: the page sorts or filters instead of seeking:\n%s", order, plan)
			}

			data := s.MustGraphQL(t, owner.Token, `query($id: ID!, $after: String, $order: Order) {
				organization(id: $id) { members(first: 3, after: $after, order: $order) { edges { node { user { id } } } } } }`,
				map[string]any{"id": org, "after": args.After.Encode(), "order": string(order)})
			var got []string
			for _, e := range data["organization"].(map[string]any)["members"].(map[string]any)["edges"].([]any) {
				got = append(got, e.(map[string]any)["node"].(map[string]any)["user"].(map[string]any)["id"].(string))
			}
			// Desc (newest first) goes on to older members: higher k.
			step := 1
			if order == paging.Asc {
				step = -1
			}
			want := []string{at(n/2 + step).ID, at(n/2 + 2*step).ID, at(n/2 + 3*step).ID}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: after member %d got %v, want %v", order, n/2, got, want)
			}
		}
	})
}

// BenchmarkMemberPageDepth asks, over HTTP, for the first page of 50 of an
// organization's 100,000 members and for the page after member 50,000, in
// turns; it reports each one's time and their ratio (deep/first), which a
// seek keeps near 1.
func BenchmarkMemberPageDepth(b *testing.B) {
	const n = 100000
	const query = `query($id: ID!, $after: String) { organization(id: $id) { members(first: 50, after: $after) {
		totalCount edges { cursor node { role joinedAt user { id displayName } } } } } }`
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			owner, org := s.NewUser(b, "owner@seek.test", "Seek")
			at := seedMembers(b, s, org, n, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			deep := at(n / 2).Encode()
			var first, deepest time.Duration
			b.ResetTimer()
			for b.Loop() {
				for _, after := range []*string{nil, &deep} {
					start := time.Now()
					s.MustGraphQL(b, owner.Token, query, map[string]any{"id": org, "after": after})
					if after == nil {
						first += time.Since(start)
					} else {
						deepest += time.Since(start)
					}
				}
			}
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "first-ns/op")
			b.ReportMetric(float64(deepest.Nanoseconds())/float64(b.N), "deep-ns/op")
			b.ReportMetric(float64(deepest)/float64(first), "deep/first")
		})
	}
}
