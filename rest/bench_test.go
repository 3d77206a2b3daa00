package rest_test

import (
	"net/http"
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
