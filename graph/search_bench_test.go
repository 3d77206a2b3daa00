package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/testkit"
)

// The searches of the search benchmarks, over GraphQL: first 10 results.
const benchSearchQuery = `query($id: ID!, $q: String!) { space(id: $id) { search(query: $q, first: 10) {
	totalCount countIsLowerBound edges { node { page { id title path } sections { path body } } } } } }`

// Search terms in the pages SeedPages writes: "777" is in one page of each
// space ("Page 777"); "line" in every page ("Line one of page i…"), so in
// the 9k space it matches more pages than the rank limit.
const (
	benchOneHit = "777"
	benchCommon = "line"
)

var benchSizes = []int{1000, 9000}

// searchBenchServer is a server with a space of 1,000 pages and one of
// 9,000 (revisions hold at most 10,000), indexed, and their owner.
func searchBenchServer(b *testing.B, kind string) (*testkit.Server, testkit.User, map[int]string) {
	b.Helper()
	s := testkit.Start(b, kind)
	u, org := s.NewUser(b, "owner@search.test", "Search")
	spaces := map[int]string{}
	for _, n := range benchSizes {
		sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint(n)}, 201).JSON(b)["id"].(string)
		s.SeedPages(b, sp, n)
		if err := s.App.Resolver.ReindexSpace(context.Background(), sp); err != nil {
			b.Fatal(err)
		}
		spaces[n] = sp
	}
	if kind == "postgres" {
		// The seed goes straight to the tables; autovacuum would gather
		// their statistics soon after a load like this, and the planner
		// needs them (without, it reads a revision's pages whole to find a
		// hit's ancestors).
		if _, err := s.App.DB.SQL.ExecContext(context.Background(), "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
	return s, u, spaces
}

// timeSearch runs one search of term in spaceID of n pages and checks its
// count: 1 for the one hit; for the common term every page, or the rank
// limit said to be a lower bound.
func timeSearch(b *testing.B, s *testkit.Server, u testkit.User, spaceID string, n int, term string) time.Duration {
	start := time.Now()
	data := s.MustGraphQL(b, u.Token, benchSearchQuery, map[string]any{"id": spaceID, "q": term})
	took := time.Since(start)
	res := data["space"].(map[string]any)["search"].(map[string]any)
	want, capped := 1, false
	if term == benchCommon {
		want, capped = min(n, graph.DefaultSearchRankLimit), n > graph.DefaultSearchRankLimit
	}
	if res["totalCount"] != float64(want) || res["countIsLowerBound"] != capped || len(res["edges"].([]any)) != min(want, 10) {
		b.Fatalf("%d pages, %q: totalCount %v countIsLowerBound %v, %d edges", n, term, res["totalCount"], res["countIsLowerBound"], len(res["edges"].([]any)))
	}
	return took
}

// BenchmarkSpaceSearch searches, over HTTP, a space of 1,000 pages and one
// of 9,000, in turns, for a word one page of each holds and for a word
// every page holds (past the rank limit in the 9k space); it reports each
// one's time and the ratios 9k/1k, which stay near 1 when a search costs
// what its page of results costs, not what the space holds or the term
// matches.
func BenchmarkSpaceSearch(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s, u, spaces := searchBenchServer(b, kind)
			type key struct {
				n    int
				term string
			}
			took := map[key]time.Duration{}
			b.ResetTimer()
			for b.Loop() {
				for _, term := range []string{benchOneHit, benchCommon} {
					for _, n := range benchSizes {
						took[key{n, term}] += timeSearch(b, s, u, spaces[n], n, term)
					}
				}
			}
			for _, t := range []struct{ name, term string }{{"one", benchOneHit}, {"common", benchCommon}} {
				small, big := took[key{1000, t.term}], took[key{9000, t.term}]
				b.ReportMetric(float64(small.Nanoseconds())/float64(b.N), "1k-"+t.name+"-ns/op")
				b.ReportMetric(float64(big.Nanoseconds())/float64(b.N), "9k-"+t.name+"-ns/op")
				b.ReportMetric(float64(big)/float64(small), "9k/1k-"+t.name)
			}
		})
	}
}

// BenchmarkSearchEngines searches the 9k space of a SQLite server and of a
// PostgreSQL one for the common term, in turns, and reports each one's time
// and their ratio (sqlite/postgres).
func BenchmarkSearchEngines(b *testing.B) {
	kinds := testkit.Databases(b)
	if len(kinds) < 2 {
		b.Skip("PostgreSQL is unavailable")
	}
	type server struct {
		s     *testkit.Server
		u     testkit.User
		space string
	}
	servers := map[string]server{}
	for _, kind := range kinds {
		s, u, spaces := searchBenchServer(b, kind)
		servers[kind] = server{s, u, spaces[9000]}
	}
	took := map[string]time.Duration{}
	b.ResetTimer()
	for b.Loop() {
		for _, kind := range kinds {
			sv := servers[kind]
			took[kind] += timeSearch(b, sv.s, sv.u, sv.space, 9000, benchCommon)
		}
	}
	b.ReportMetric(float64(took["sqlite"].Nanoseconds())/float64(b.N), "sqlite-ns/op")
	b.ReportMetric(float64(took["postgres"].Nanoseconds())/float64(b.N), "postgres-ns/op")
	b.ReportMetric(float64(took["sqlite"])/float64(took["postgres"]), "sqlite/postgres")
}
