package graph

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/introspection"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// BenchmarkCostCheck times the document bounds and the cost walk of large
// legitimate queries (parsed and validated once, as the query cache does).
func BenchmarkCostCheck(b *testing.B) {
	caps := newListCaps(testSchema)
	for _, q := range []struct{ name, query string }{
		{"introspection", introspection.Query},
		{"site-tree", `query { organization(id: "o") { spaces(first: 100) { edges { node { id title revision { ` + pageTree(8) + ` } } } } } }`},
	} {
		doc, err := parser.ParseQuery(&ast.Source{Input: q.query})
		if err != nil {
			b.Fatal(err)
		}
		if errs := validator.Validate(testSchema, doc); len(errs) > 0 {
			b.Fatal(errs)
		}
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := checkDocument(doc); err != nil {
					b.Fatal(err)
				}
				if cost, _ := newCostWalker(caps, doc, nil).operation(doc.Operations[0]); cost > MaxComplexity {
					b.Fatal(cost)
				}
			}
		})
	}
}

// BenchmarkFragmentBombRefusal times the refusal of the 30-fragment bomb by
// the GraphQL handler: from the query cache, and parsed and validated anew
// each time (a comment makes each query text new).
func BenchmarkFragmentBombRefusal(b *testing.B) {
	h := NewHandler(&Resolver{}, 0)
	bomb := fragmentBomb(30)
	post := func(b *testing.B, query string) {
		body := fmt.Sprintf(`{"query":%q}`, query)
		req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !strings.Contains(rec.Body.String(), "QUERY_TOO_COMPLEX") {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			post(b, bomb)
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			post(b, fmt.Sprintf("%s# %d\n", bomb, i))
		}
	})
}

// BenchmarkRepeatedFieldsRefusal times the refusal of 14,000 repeated
// fields, before validation (which took 7.6 s of CPU).
func BenchmarkRepeatedFieldsRefusal(b *testing.B) {
	h := NewHandler(&Resolver{}, 0)
	body := fmt.Sprintf(`{"query":%q}`, "{ viewer { user { "+strings.Repeat("id ", 14000)+"} } }")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !strings.Contains(rec.Body.String(), "DOCUMENT_TOO_LARGE") {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
