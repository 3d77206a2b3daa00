package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkSpaceSearch searches, over HTTP, a space of 1,000 pages and one
// of 10,000 for a word that one page of each holds, in turns; it reports
// each one's time and their ratio (10k/1k), which stays near 1 when a
// search costs what its hits cost, not what the space holds.
func BenchmarkSpaceSearch(b *testing.B) {
	const query = `query($id: ID!) { space(id: $id) { search(query: "777", first: 10) { totalCount edges { node {
		page { id title path } sections { path body } } } } } }`
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "owner@search.test", "Search")
			spaces := map[int]string{}
			for _, n := range []int{1000, 10000} {
				sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint(n)}, 201).JSON(b)["id"].(string)
				s.SeedPages(b, sp, n)
				if err := s.App.Resolver.ReindexSpace(context.Background(), sp); err != nil {
					b.Fatal(err)
				}
				spaces[n] = sp
			}
			took := map[int]time.Duration{}
			b.ResetTimer()
			for b.Loop() {
				for _, n := range []int{1000, 10000} {
					start := time.Now()
					data := s.MustGraphQL(b, u.Token, query, map[string]any{"id": spaces[n]})
					took[n] += time.Since(start)
					if got := data["space"].(map[string]any)["search"].(map[string]any)["totalCount"]; got != 1.0 {
						b.Fatalf("%d pages: %v hits", n, got)
					}
				}
			}
			b.ReportMetric(float64(took[1000].Nanoseconds())/float64(b.N), "1k-ns/op")
			b.ReportMetric(float64(took[10000].Nanoseconds())/float64(b.N), "10k-ns/op")
			b.ReportMetric(float64(took[10000])/float64(took[1000]), "10k/1k")
		})
	}
}
