package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/testkit"
)

// BenchmarkViewerQuery measures the GraphQL viewer query with 20
// organizations and their permissions, end to end over HTTP.
func BenchmarkViewerQuery(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, _ := s.NewUser(b, "alice@acme.com", "")
			for i := 0; i < 20; i++ {
				if _, err := s.App.Resolver.CreateOrganization(context.Background(), u.ID, model.CreateOrganizationInput{Title: fmt.Sprintf("Org %d", i)}); err != nil {
					b.Fatal(err)
				}
			}
			body := []byte(`{"query":"{ viewer { organizations { id title permissions { admin } } } }"}`)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				postGraphQL(b, s, u.Token, body)
			}
		})
	}
}

// postGraphQL posts a GraphQL request and reads the answer, returning its
// size; the answer is not kept, so it weighs nothing on the heap.
func postGraphQL(b *testing.B, s *testkit.Server, token string, body []byte) int64 {
	req, _ := http.NewRequest("POST", s.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("POST: %v %v", err, resp)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func treeRequest(b *testing.B, query, org string) []byte {
	body, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"org": org}})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkOrgTree measures the tree of the comparison with PostGraphile
// (org → spaces → revision → pages, four levels of pages) over 1,000 and
// 4,000 pages in 4 spaces, end to end over HTTP, with the goroutines each
// answer starts.
func BenchmarkOrgTree(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		for _, pages := range []int{1000, 4000} {
			b.Run(fmt.Sprintf("%s/%dpages", kind, pages), func(b *testing.B) {
				s := testkit.Start(b, kind)
				u, org := treeOrg(b, s, "bench@example.com", 4, pages/40, func(int) string { return "" })
				body := treeRequest(b, folioOrgTree, org)
				postGraphQL(b, s, u.Token, body)
				b.ReportAllocs()
				b.ResetTimer()
				before := goroutinesCreated()
				for i := 0; i < b.N; i++ {
					postGraphQL(b, s, u.Token, body)
				}
				b.ReportMetric(float64(goroutinesCreated()-before)/float64(b.N), "goroutines/op")
			})
		}
	}
}

// heapObjects is the bytes of live and unswept heap objects.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// largeBody is a page body of about 6.6 KB, different for every page.
func largeBody(i int) string {
	var sb strings.Builder
	for sb.Len() < 6600 {
		fmt.Fprintf(&sb, "Paragraph %d of page %d: some text with <b>markup</b> & a \"quote\".\n\n", sb.Len(), i)
	}
	return sb.String()
}

// BenchmarkTreeLargeAnswer serves one answer of about 38 MB (4,000 pages of
// 6.6 KB bodies) and reports the peak of the heap above idle while serving
// it, sampled through runtime/metrics, against the answer's size.
func BenchmarkTreeLargeAnswer(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := treeOrg(b, s, "large@example.com", 4, 100, largeBody)
			query := `query($org: ID!) { organization(id: $org) { spaces(first: 100) { edges { node { id revision { pages {
				id title path markdown pages { id title path markdown pages { id title path markdown pages { id title path markdown } } } } } } } } } }`
			body := treeRequest(b, query, org)
			var peak, size float64
			for i := 0; i < b.N; i++ {
				runtime.GC()
				idle := heapObjects()
				var top uint64
				done := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					tick := time.NewTicker(200 * time.Microsecond)
					defer tick.Stop()
					for {
						top = max(top, heapObjects())
						select {
						case <-done:
							return
						case <-tick.C:
						}
					}
				}()
				n := postGraphQL(b, s, u.Token, body)
				close(done)
				wg.Wait()
				peak += float64(top-min(top, idle)) / 1e6
				size += float64(n) / 1e6
			}
			b.ReportMetric(size/float64(b.N), "answer-MB")
			b.ReportMetric(peak/float64(b.N), "peak-heap-MB")
			b.ReportMetric(peak/size, "peak/answer")
		})
	}
}

// BenchmarkFanOutAnswer serves organization → spaces(first: 10) → … three
// levels deep (1,110 spaces, about 4,500 fields, 130 KB) over 10 spaces:
// every read is a loader's cached value, so the time is gqlgen's per-field
// work, and the answer accounting's share of it (graph/cost_response.go).
func BenchmarkFanOutAnswer(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "fan@example.com", "Fan")
			for i := range 10 {
				s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("Space ", i)}, 201)
			}
			node := "id title"
			for range 2 {
				node = "id title organization { spaces(first: 10) { edges { node { " + node + " } } } }"
			}
			query := `query($org: ID!) { organization(id: $org) { spaces(first: 10) { edges { node { ` + node + ` } } } } }`
			body := treeRequest(b, query, org)
			postGraphQL(b, s, u.Token, body)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				postGraphQL(b, s, u.Token, body)
			}
		})
	}
}
