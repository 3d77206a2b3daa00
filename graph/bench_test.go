package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

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
				req, _ := http.NewRequest("POST", s.URL+"/graphql", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+u.Token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("POST: %v %v", err, resp)
				}
				resp.Body.Close()
			}
		})
	}
}
