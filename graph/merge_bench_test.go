package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/internal/testkit"
)

// BenchmarkMergeSpaceSize merges, over HTTP, a change request that edits 10
// pages of a 500-page space and one that edits 10 pages of a 5,000-page
// space, in turns (the edits are not timed); it reports each one's time and
// their ratio (5k/500), which stays near 1 when a merge costs what the
// change costs, not what the space holds.
func BenchmarkMergeSpaceSize(b *testing.B) {
	sizes := []int{500, 5000}
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "bench@merge.test", "Merge")
			spaces := map[int]string{}
			edited := map[int][]string{}
			for _, n := range sizes {
				sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint(n)}, 201).JSON(b)["id"].(string)
				rev := s.SeedPages(b, sp, n)
				rows := s.Client().Page.Query().Where(page.ChunkID(rev.ID)).Limit(10).AllX(b.Context()) // SeedPages: one chunk of id rev.ID
				for _, p := range rows {
					edited[n] = append(edited[n], p.PageID)
				}
				spaces[n] = sp
			}
			took := map[int]time.Duration{}
			i := 0
			mergeEdits := func(n int) {
				i++
				b.StopTimer()
				sp := spaces[n]
				cr := s.Call(b, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(b)["id"].(string)
				var changes []any
				for _, id := range edited[n] {
					changes = append(changes, map[string]any{"operation": "update_page", "page": id,
						"document": map[string]any{"markdown": fmt.Sprintf("# Edited %d\n\nNew text %d.\n", i, i)}})
				}
				s.Call(b, "updateChangeRequestContent", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/content", map[string]any{"changes": changes}, 200)
				b.StartTimer()
				start := time.Now()
				if r := s.Request(b, u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/merge", nil); r.Status != 200 {
					b.Fatalf("merge: %d %s", r.Status, r.Body)
				}
				took[n] += time.Since(start)
			}
			// The seeded trees are not in canonical form (their root pages
			// share position 0): the first merge reads them whole and writes
			// them canonical, as any revision the application writes is.
			for _, n := range sizes {
				mergeEdits(n)
			}
			took = map[int]time.Duration{}
			b.ResetTimer()
			for b.Loop() {
				for _, n := range sizes {
					mergeEdits(n)
				}
			}
			b.ReportMetric(float64(took[500].Nanoseconds())/float64(b.N), "500-ns/op")
			b.ReportMetric(float64(took[5000].Nanoseconds())/float64(b.N), "5k-ns/op")
			b.ReportMetric(float64(took[5000])/float64(took[500]), "5k/500")
		})
	}
}
