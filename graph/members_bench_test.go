package graph_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkMembersPageSize asks, over REST, for the first page of 50 members
// (with its count) of an organization of 10,000 members and of one of
// 100,000, in turns; it reports each one's time and their ratio (100k/10k),
// which a count that does not scan the members keeps near 1.
func BenchmarkMembersPageSize(b *testing.B) {
	sizes := []struct {
		name, prefix string
		n            int
	}{{"10k", "small", 10000}, {"100k", "large", 100000}}
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			paths := make([]string, len(sizes))
			tokens := make([]string, len(sizes))
			for i, sz := range sizes {
				owner, org := s.NewUser(b, "owner@"+sz.prefix+".test", sz.name)
				tokens[i] = owner.Token
				seedMembersAs(b, s, org, sz.prefix, sz.n, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
				paths[i] = "/v1/orgs/" + org + "/members?limit=50"
				// The page and its count are right before anything is timed.
				var page struct {
					Count int   `json:"count"`
					Items []any `json:"items"`
				}
				res := s.Request(b, tokens[i], "GET", paths[i], nil)
				if res.Status != 200 || json.Unmarshal(res.Body, &page) != nil || page.Count != sz.n+1 || len(page.Items) != 50 {
					b.Fatalf("GET %s: %d, count %d, %d items (want %d, 50)\n%.300s", paths[i], res.Status, page.Count, len(page.Items), sz.n+1, res.Body)
				}
			}
			took := make([]time.Duration, len(sizes))
			b.ResetTimer()
			for b.Loop() {
				for i, path := range paths {
					start := time.Now()
					if res := s.Request(b, tokens[i], "GET", path, nil); res.Status != 200 {
						b.Fatalf("GET %s: %d", path, res.Status)
					}
					took[i] += time.Since(start)
				}
			}
			for i, sz := range sizes {
				b.ReportMetric(float64(took[i].Nanoseconds())/float64(b.N), sz.name+"-ns/op")
			}
			b.ReportMetric(float64(took[1])/float64(took[0]), "100k/10k")
		})
	}
}
