package graph_test

import (
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// BenchmarkRatioSiteTreeRESTvsGraphQL: a site of 20 sections × 5 site spaces,
// each a space with a 50-page tree, read whole by a front end: /a is the one
// GraphQL request of TestSiteTreeStatementCount, /b the REST calls it
// replaces, made one after another — the site, its sections (with their site
// spaces and spaces), then each space's page tree (GET …/content/pages), 102
// requests. make bench prints b ÷ a of ns/op after issue 11's table.
func BenchmarkRatioSiteTreeRESTvsGraphQL(b *testing.B) {
	for _, kind := range testkit.Databases(b) {
		b.Run(kind, func(b *testing.B) {
			s := testkit.Start(b, kind)
			u, org := seedSite(b, s, "bench@example.com", 20, 5, 50)
			vars := map[string]any{"org": org}
			var env struct{ Items []struct{ ID string } }
			s.Call(b, "listSites", u.Token, "GET", "/v1/orgs/"+org+"/sites", nil, 200).Decode(b, &env)
			site := "/v1/orgs/" + org + "/sites/" + env.Items[0].ID
			b.Run("a", func(b *testing.B) {
				for range b.N {
					s.MustGraphQL(b, u.Token, siteTree, vars)
				}
			})
			b.Run("b", func(b *testing.B) {
				for range b.N {
					restSiteTree(b, s, u.Token, site)
				}
			})
		})
	}
}

// restSiteTree reads a site's tree through REST as a front end would.
func restSiteTree(b *testing.B, s *testkit.Server, token, site string) {
	get := func(path string) *testkit.Response {
		r := s.Request(b, token, "GET", path, nil)
		if r.Status != 200 {
			b.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		return r
	}
	get(site)
	var sections struct {
		Items []struct {
			SiteSpaces []struct {
				Space struct{ ID string }
			}
		}
	}
	get(site+"/sections?limit=1000").Decode(b, &sections)
	for _, sec := range sections.Items {
		for _, ss := range sec.SiteSpaces {
			get("/v1/spaces/" + ss.Space.ID + "/content/pages")
		}
	}
}
