package rest_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkGetOrganization measures GET /v1/orgs/{id} end to end over HTTP.
func BenchmarkGetOrganization(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			alice, org := s.NewUser(b, "alice@acme.com", "Acme")
			req, _ := http.NewRequest("GET", s.URL+"/v1/orgs/"+org, nil)
			req.Header.Set("Authorization", "Bearer "+alice.Token)
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

// BenchmarkSpaceReads measures the REST reads of issue 11 with 8 clients,
// as ../shared/perf/load does: GET /v1/spaces/{id} and
// GET /v1/orgs/{id}/spaces?limit=50 over 60 spaces. It reports the
// statements each request runs; profile it with -cpuprofile.
func BenchmarkSpaceReads(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		s := testkit.Start(b, kind)
		alice, org := s.NewUser(b, "alice@acme.com", "Acme")
		var space string
		for i := range 60 {
			sp := s.Call(b, "createSpace", alice.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("S%d", i)}, 201).JSON(b)
			space = sp["id"].(string)
		}
		for _, read := range []struct{ name, path string }{
			{"get", "/v1/spaces/" + space},
			{"list50", "/v1/orgs/" + org + "/spaces?limit=50"},
		} {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
			b.Run(kind+"/"+read.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
				before := s.Statements()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						req, _ := http.NewRequest("GET", s.URL+read.path, nil)
						req.Header.Set("Authorization", "Bearer "+alice.Token)
						resp, err := client.Do(req)
						if err != nil || resp.StatusCode != 200 {
							b.Errorf("GET %s: %v %v", read.path, err, resp)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				})
				b.ReportMetric(float64(s.Statements()-before)/float64(b.N), "statements/op")
			})
		}
	}
}
