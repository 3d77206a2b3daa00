package reader_test

import (
	"net/http"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkReaderPage renders a page of a published 5,000-page site, beside
// the same page read through the REST API (by path, as markdown): the
// reader's navigation is built once per revision, so a page costs a few
// statements (the site, its structure, the body) and the templates, not a
// walk of the space.
func BenchmarkReaderPage(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "bench@example.com", "Bench")
			sp := api(b, s, u.Token, "POST", "/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201)["id"].(string)
			s.SeedPages(b, sp, 5000)
			site := api(b, s, u.Token, "POST", "/orgs/"+org+"/sites", map[string]any{"title": "Big docs", "spaces": []string{sp}}, 201)["id"].(string)
			api(b, s, u.Token, "PATCH", "/orgs/"+org+"/sites/"+site, map[string]any{"basename": "big"}, 200)
			api(b, s, u.Token, "POST", "/orgs/"+org+"/sites/"+site+"/publish", nil, 200)
			const path = "page-4990/page-4995"
			get(b, s.URL, "", "/s/big/"+path).must(b, 200, "warm")
			b.Run("reader", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if p := get(b, s.URL, "", "/s/big/"+path); p.status != http.StatusOK {
						b.Fatalf("status %d", p.status)
					}
				}
			})
			b.Run("rest", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if r := s.Request(b, u.Token, "GET", "/v1/spaces/"+sp+"/content/path/"+path+"?format=markdown", nil); r.Status != http.StatusOK {
						b.Fatalf("status %d %s", r.Status, r.Body)
					}
				}
			})
			b.Run("reader-304", func(b *testing.B) {
				tag := get(b, s.URL, "", "/s/big/"+path).header.Get("ETag")
				b.ReportAllocs()
				for b.Loop() {
					if p := get(b, s.URL, "", "/s/big/"+path, "If-None-Match", tag); p.status != http.StatusNotModified {
						b.Fatalf("status %d", p.status)
					}
				}
			})
		})
	}
}
