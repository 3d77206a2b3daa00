package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

func TestSearchInGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "searcher@example.com", "Org")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 30)
		if err := s.App.Resolver.ReindexSpace(context.Background(), sp); err != nil {
			t.Fatal(err)
		}
		data := s.MustGraphQL(t, u.Token, `query($org: ID!, $sp: ID!) {
			space(id: $sp) { search(query: "page 17", first: 3) { totalCount edges { node { page { title path } sections { id path body } } } } }
			organization(id: $org) { search(query: "line", first: 5) { totalCount countIsLowerBound edges { node { space { title } } } } }
		}`, map[string]any{"org": org, "sp": sp})
		hits := data["space"].(map[string]any)["search"].(map[string]any)["edges"].([]any)
		if len(hits) == 0 || hits[0].(map[string]any)["node"].(map[string]any)["page"].(map[string]any)["title"] != "Page 17" {
			t.Fatalf("space search: %v", hits)
		}
		if res := data["organization"].(map[string]any)["search"].(map[string]any); res["totalCount"] != 30.0 || res["countIsLowerBound"] != false {
			t.Fatalf("organization search: totalCount %v, countIsLowerBound %v", res["totalCount"], res["countIsLowerBound"])
		}
		_, errs := s.GraphQL(t, u.Token, `query($sp: ID!) { space(id: $sp) { search(query: "") { totalCount } } }`, map[string]any{"sp": sp})
		if len(errs) != 1 || errs[0].Extensions["field"] != "query" {
			t.Fatalf("empty query: %+v", errs)
		}
	})
}

// BenchmarkSearch searches a space of 10,000 pages.
func BenchmarkSearch(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := s.NewUser(b, "bench@example.com", "Bench")
			sp := s.Call(b, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201).JSON(b)["id"].(string)
			s.SeedPages(b, sp, 10000)
			if err := s.App.Resolver.ReindexSpace(context.Background(), sp); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req, _ := http.NewRequest("GET", s.URL+"/v1/spaces/"+sp+"/search?limit=10&query="+url.QueryEscape(fmt.Sprintf("page %d", i%10000)), nil)
				req.Header.Set("Authorization", "Bearer "+u.Token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("search: %v %v", err, resp)
				}
				resp.Body.Close()
			}
		})
	}
}

// TestSearchPagesKeepTheirPlace: search results carry only the hits and
// their ancestors unless subpages are asked for; either way a hit has its
// full path (sections included) and, when asked, all its subpages.
func TestSearchPagesKeepTheirPlace(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "searcher@example.com", "Org")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 30) // page 10k is a root, pages 10k+1…10k+9 its children
		if err := s.App.Resolver.ReindexSpace(context.Background(), sp); err != nil {
			t.Fatal(err)
		}
		node := func(data map[string]any, field string) map[string]any {
			edges := data[field].(map[string]any)["search"].(map[string]any)["edges"].([]any)
			if len(edges) != 1 {
				t.Fatalf("%s: %d hits", field, len(edges))
			}
			return edges[0].(map[string]any)["node"].(map[string]any)
		}
		data := s.MustGraphQL(t, u.Token, `query($org: ID!, $sp: ID!) {
			space(id: $sp) { search(query: "17", first: 3) { edges { node { page { title path } sections { path } } } } }
			organization(id: $org) { search(query: "23") { edges { node { page { path } } } } } }`, map[string]any{"org": org, "sp": sp})
		hit := node(data, "space")
		if p := hit["page"].(map[string]any); p["title"] != "Page 17" || p["path"] != "page-10/page-17" {
			t.Fatalf("nested hit: %v", p)
		}
		if sec := hit["sections"].([]any); len(sec) == 0 || sec[0].(map[string]any)["path"] != "page-10/page-17#page-17" {
			t.Fatalf("sections: %v", sec)
		}
		if p := node(data, "organization")["page"].(map[string]any); p["path"] != "page-20/page-23" {
			t.Fatalf("organization hit: %v", p)
		}
		data = s.MustGraphQL(t, u.Token, `query($sp: ID!) { space(id: $sp) { search(query: "20", first: 3) {
			edges { node { page { path pages { path } } } } } } }`, map[string]any{"sp": sp})
		p := node(data, "space")["page"].(map[string]any)
		if subs := p["pages"].([]any); p["path"] != "page-20" || len(subs) != 9 || subs[0].(map[string]any)["path"] != "page-20/page-21" {
			t.Fatalf("root hit with subpages: %v", p)
		}
	})
}
