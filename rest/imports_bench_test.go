package rest_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// importBenchZip is a 1,000-page book laid out in folders (20 sections,
// each a README.md and 49 pages): an import reads it without a SUMMARY.md.
// The pages' text carries round: a round of its own stores new bodies, as
// an import of new content does.
func importBenchZip(round int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for s := range 20 {
		dir := fmt.Sprintf("docs/section-%02d", s)
		w, _ := zw.Create(dir + "/README.md")
		fmt.Fprintf(w, "# Section %d\n\nRound %d. See [the first page](page-001.md).\n", s, round)
		for p := 1; p < 50; p++ {
			w, _ := zw.Create(fmt.Sprintf("%s/page-%03d.md", dir, p))
			fmt.Fprintf(w, "# Page %d of section %d\n\n", p, s)
			for k := range 4 {
				fmt.Fprintf(w, "Paragraph %d of round %d explains how widget %d talks to the gadget; see [the next page](page-%03d.md) and [the section](README.md#section-%d).\n\n", k, round, k, p%49+1, s)
			}
			fmt.Fprintf(w, "## Example\n\n```sh\ncurl https://example.com/api/%d/%d\n```\n\n- one\n- two\n", s, p)
		}
	}
	zw.Close()
	return buf.Bytes()
}

// BenchmarkImportZip measures POST …/content/import of a 1,000-page zip
// into a new space, from the request to its answer (the import is done
// when it answers): new content each time (new), and the zip a first import
// already stored (again, as make bench imports it). Profile it with
// -cpuprofile; internal/perf/ratios compares imports with a binary built
// from ea6637c.
func BenchmarkImportZip(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		s := testkit.Start(b, kind)
		alice, org := s.NewUser(b, "alice@acme.com", "Acme")
		zips := map[string][]byte{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(zips[r.URL.Path]) }))
		b.Cleanup(srv.Close)
		n := 0
		// importZip imports the zip at name into a new space (made untimed)
		// and returns the statements the import ran.
		importZip := func(b *testing.B, name string) int64 {
			n++
			b.StopTimer()
			sp := s.Call(b, "createSpace", alice.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("S%d", n)}, 201).JSON(b)
			b.StartTimer()
			before := s.Statements()
			var res struct{ ImportedResources int }
			s.Call(b, "importContent", alice.Token, "POST", "/v1/spaces/"+sp["id"].(string)+"/content/import",
				map[string]any{"url": srv.URL + name, "source": "zip"}, 201).Decode(b, &res)
			if res.ImportedResources != 1000 {
				b.Fatalf("imported %d pages of 1000", res.ImportedResources)
			}
			return s.Statements() - before
		}
		zips["/again.zip"] = importBenchZip(0)
		for _, again := range []bool{false, true} {
			name := kind + "/new"
			if again {
				name = kind + "/again"
			}
			b.Run(name, func(b *testing.B) {
				if again {
					importZip(b, "/again.zip")
				}
				b.ResetTimer()
				statements := int64(0)
				for range b.N {
					zip := "/again.zip"
					if !again {
						b.StopTimer()
						zip = fmt.Sprintf("/%d.zip", n+1)
						zips[zip] = importBenchZip(n + 1)
						b.StartTimer()
					}
					statements += importZip(b, zip)
				}
				b.StopTimer()
				b.ReportMetric(float64(statements)/float64(b.N), "statements/op")
			})
		}
	}
}
