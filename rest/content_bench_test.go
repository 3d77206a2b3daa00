package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkMergeChangeRequest merges a change request that touches 10 pages
// of a 5,000-page space (the edit itself is not timed).
func BenchmarkMergeChangeRequest(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "bench@example.com", "Bench")
			sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201).JSON(b)["id"].(string)
			rev := s.SeedPages(b, sp, 5000)
			pages := s.Client().Page.Query().Where().AllX(b.Context())
			var ids []string
			for _, p := range pages {
				if p.ChunkID == rev.ID && len(ids) < 10 { // SeedPages: one chunk of id rev.ID
					ids = append(ids, p.PageID)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				cr := s.Call(b, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(b)["id"].(string)
				var changes []any
				for _, id := range ids {
					changes = append(changes, map[string]any{"operation": "update_page", "page": id,
						"document": map[string]any{"markdown": fmt.Sprintf("# Edited %d\n\nNew text %d.\n", i, i)}})
				}
				s.Call(b, "updateChangeRequestContent", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/content", map[string]any{"changes": changes}, 200)
				b.StartTimer()
				if r := s.Request(b, u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/merge", nil); r.Status != 200 {
					b.Fatalf("merge: %d %s", r.Status, r.Body)
				}
			}
		})
	}
}

// BenchmarkReadPagesTree reads the pages tree of a 5,000-page space.
func BenchmarkReadPagesTree(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "bench@example.com", "Bench")
			sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201).JSON(b)["id"].(string)
			s.SeedPages(b, sp, 5000)
			req, _ := http.NewRequest("GET", s.URL+"/v1/spaces/"+sp+"/content/pages", nil)
			req.Header.Set("Authorization", "Bearer "+u.Token)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("GET: %v %v", err, resp)
				}
				resp.Body.Close()
			}
		})
	}
}
