package graph_test

import (
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

const resolveQuery = `query($u: String!, $v: SiteVisitorInput) {
  publishedContentByUrl(url: $u, visitor: $v) {
    content { organizationId siteId siteSectionId spaceId pathname basePath siteBasePath canonicalUrl apiToken apiTokenExpiresAt complete preview }
    redirect { target redirect }
  }
}`

// TestPublishedContentByURLGraphQL: GraphQL resolves published URLs as
// REST does, anonymously; the token it hands out reads the site's
// published content through GraphQL and nothing else.
func TestPublishedContentByURLGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newPublishedDocs(t, s)
		root := s.URL + "/s/docs/"

		data := s.MustGraphQL(t, "", resolveQuery, map[string]any{"u": root})
		c := dig(data, "publishedContentByUrl", "content").(map[string]any)
		if c["siteId"] != d.site || c["spaceId"] != d.guide || c["organizationId"] != d.org || c["siteBasePath"] != "/s/docs/" ||
			c["canonicalUrl"] != root || !strings.HasPrefix(c["apiToken"].(string), "folio_site_") || c["preview"] != false {
			t.Fatalf("root: %v", c)
		}
		// A section hidden by its condition: NOT_FOUND, unless the claims show it.
		beta := root + "beta/"
		data, errs := s.GraphQL(t, "", resolveQuery, map[string]any{"u": beta})
		if dig(data, "publishedContentByUrl") != nil || len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("hidden section: %v %v", data, errs)
		}
		data = s.MustGraphQL(t, "", resolveQuery, map[string]any{"u": beta, "v": map[string]any{"unsignedClaims": map[string]any{"isBeta": true}}})
		if dig(data, "publishedContentByUrl", "content", "siteSectionId") != d.betaSection {
			t.Fatalf("beta section: %v", data)
		}
		// Not an address: BAD_USER_INPUT naming url; the slashless root redirects.
		if _, errs := s.GraphQL(t, "", resolveQuery, map[string]any{"u": "docs"}); len(errs) != 1 || !strings.Contains(errs[0].Message, "url") {
			t.Fatalf("bad url: %v", errs)
		}
		data = s.MustGraphQL(t, "", resolveQuery, map[string]any{"u": s.URL + "/s/docs"})
		if dig(data, "publishedContentByUrl", "redirect", "redirect") != root {
			t.Fatalf("redirect: %v", data)
		}
		info := s.MustGraphQL(t, "", `{ apiInformation { version build } }`, nil)
		if dig(info, "apiInformation", "version") == "" {
			t.Fatalf("info: %v", info)
		}

		// The token through GraphQL: its site's space, not the organization,
		// no mutation.
		tok := c["apiToken"].(string)
		got := s.MustGraphQL(t, tok, `query($id: ID!) { space(id: $id) { id title } }`, map[string]any{"id": d.guide})
		if dig(got, "space", "id") != d.guide {
			t.Fatalf("space: %v", got)
		}
		if data, errs := s.GraphQL(t, tok, `query($id: ID!) { organization(id: $id) { id } }`, map[string]any{"id": d.org}); dig(data, "organization") != nil || len(errs) == 0 {
			t.Fatalf("organization: %v %v", data, errs)
		}
		_, errs = s.GraphQL(t, tok, `mutation($o: ID!) { createSpace(organizationId: $o, input: {title: "X"}) { id } }`, map[string]any{"o": d.org})
		if len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("mutation: %v", errs)
		}
		// Tampered: 401.
		if resp := s.Request(t, tok+"x", "POST", "/graphql", map[string]any{"query": `{ apiInformation { version } }`}); resp.Status != 401 {
			t.Fatalf("tampered: %d", resp.Status)
		}
	})
}
