package rest_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkWritePath times whole writes over HTTP, each one request or a
// short sequence of them, so that what every write pays (its transaction,
// since issue 25 its audit event and, on PostgreSQL, the trigger's NOTIFY)
// shows against the work itself. Issue 25's "within 10 % of today" was
// measured with this benchmark against the commit before events, 619e191
// (README, Performance: the times need that commit, so they are measured
// by hand). What make bench checks without it is the statements: stmts/op
// (background pollers aside, after one untimed write) must be today's
// (todayStatements) plus the one INSERT of each write's events, reported
// as the ratio vs-today+events, which internal/perf/ratios holds to 1.
//
//   - space-title: PATCH /v1/spaces/{id} with a new title, the smallest
//     write there is: one write.
//   - change-request: create a change request, edit one page of a 50-page
//     space in it, merge it: three writes.
func BenchmarkWritePath(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "bench@example.com", "Bench")
			sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Writes"}, 201).JSON(b)["id"].(string)
			rev := s.SeedPages(b, sp, 50)
			var page string
			for _, p := range s.Client().Page.Query().AllX(b.Context()) {
				if p.ChunkID == rev.ID { // SeedPages: one chunk of id rev.ID
					page = p.PageID
					break
				}
			}
			if page == "" {
				b.Fatal("no seeded page")
			}

			b.Run("space-title", func(b *testing.B) {
				statementsPerWrite(b, s, kind+"/space-title", func(i int) {
					if r := s.Request(b, u.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"title": fmt.Sprintf("Writes %d", i)}); r.Status != 200 {
						b.Fatalf("patch space: %d %s", r.Status, r.Body)
					}
				})
			})

			b.Run("change-request", func(b *testing.B) {
				statementsPerWrite(b, s, kind+"/change-request", func(i int) {
					r := s.Request(b, u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{})
					if r.Status != 201 {
						b.Fatalf("create change request: %d %s", r.Status, r.Body)
					}
					cr := r.JSON(b)["id"].(string)
					changes := []any{map[string]any{"operation": "update_page", "page": page,
						"document": map[string]any{"markdown": fmt.Sprintf("# Edited %d\n\nNew text %d.\n", i, i)}}}
					if r := s.Request(b, u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/content", map[string]any{"changes": changes}); r.Status != 200 {
						b.Fatalf("edit change request: %d %s", r.Status, r.Body)
					}
					if r := s.Request(b, u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/merge", nil); r.Status != 200 {
						b.Fatalf("merge: %d %s", r.Status, r.Body)
					}
				})
			})
		})
	}
}

// todayStatements is what each benchmark's writes ran at 619e191, the
// commit before events, with this benchmark (stmts/op), and writes how many
// writes (Resolver.write) one run makes. A change that adds or saves a
// statement on these paths moves vs-today+events off 1: update the figure
// here, saying why, when the change is meant.
var todayStatements = map[string]struct{ stmts, writes float64 }{
	"sqlite/space-title":      {5, 1},
	"postgres/space-title":    {5, 1},
	"sqlite/change-request":   {44, 3},
	"postgres/change-request": {42, 3},
}

// statementsPerWrite runs write b.N times after one untimed run (the first
// merge of a space, for one, stores what later ones reuse), reporting its
// statements per run, their ratio to today's plus one per write, and the
// median run (p50-ms): on a shared machine the mean follows the load, the
// median less so.
func statementsPerWrite(b *testing.B, s *testkit.Server, name string, write func(i int)) {
	write(-1)
	took := make([]time.Duration, b.N)
	b.ReportAllocs()
	before := s.Statements()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		write(i)
		took[i] = time.Since(start)
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/float64(time.Millisecond), "p50-ms")
	stmts := float64(s.Statements()-before) / float64(b.N)
	b.ReportMetric(stmts, "stmts/op")
	if today, ok := todayStatements[name]; ok {
		b.ReportMetric(today.stmts, "today-stmts/op")
		b.ReportMetric(stmts/(today.stmts+today.writes), "vs-today+events")
	}
}
