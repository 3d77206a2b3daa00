package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/testkit"
)

func TestLinksAndPDFInGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "links@example.com", "Org")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		cr := s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
		s.Call(t, "updateChangeRequestContent", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/content", map[string]any{"changes": []any{
			map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": "# A\n\n[to b](b.md) [gone](nope.md)\n"}},
			map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": "# B\n\nText.\n"}},
		}}, 200)
		data := s.MustGraphQL(t, u.Token, `query($sp: ID!, $cr: String!) { space(id: $sp) { changeRequest(id: $cr) {
			links { total broken brokenInChangeRequest items { target { status kind url pageId } pages { title } } } } } }`, map[string]any{"sp": sp, "cr": cr})
		links := data["space"].(map[string]any)["changeRequest"].(map[string]any)["links"].(map[string]any)
		if links["total"] != 2.0 || links["broken"] != 1.0 || links["brokenInChangeRequest"] != 1.0 {
			t.Fatalf("links: %v", links)
		}
		data = s.MustGraphQL(t, u.Token, `mutation($sp: ID!, $cr: String!) { changeRequestPDF(spaceId: $sp, id: $cr) }`, map[string]any{"sp": sp, "cr": cr})
		if url, _ := data["changeRequestPDF"].(string); url == "" {
			t.Fatalf("pdf: %v", data)
		}
		// status is an enum: gqlgen refuses other values before the resolver runs.
		_, errs := s.GraphQL(t, u.Token, `query($sp: ID!) { space(id: $sp) { links(status: weird) { total } } }`, map[string]any{"sp": sp})
		if len(errs) != 1 || errs[0].Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" || !strings.Contains(errs[0].Message, "LinkStatus") {
			t.Fatalf("bad status: %+v", errs)
		}
	})
}

// TestLinksAnswerIsBounded: GraphQL's links hold at most graph.MaxLinkItems
// targets and graph.MaxLinkPagesPerItem pages a target, and say how many
// they leave out; REST still pages through every target.
func TestLinksAnswerIsBounded(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "bounded@example.com", "Org")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		// Page 0 links to MaxLinkItems+4 distinct URLs; every page links to
		// a shared one, from MaxLinkPagesPerItem+3 pages.
		pages := graph.MaxLinkPagesPerItem + 3
		s.SeedPagesWith(t, sp, pages, func(i int) string {
			var b strings.Builder
			fmt.Fprintf(&b, "# Page %d\n\n[shared](https://example.com/shared)\n", i)
			if i == 0 {
				for j := range graph.MaxLinkItems + 4 {
					fmt.Fprintf(&b, "[l%d](https://example.com/%05d)\n", j, j)
				}
			}
			return b.String()
		})
		targets := graph.MaxLinkItems + 5
		data := s.MustGraphQL(t, u.Token, `query($sp: ID!) { space(id: $sp) { links { total more items { target { url } pages { id } morePages } } } }`, map[string]any{"sp": sp})
		links := dig(data, "space", "links")
		items := dig(links, "items").([]any)
		if len(items) != graph.MaxLinkItems || dig(links, "more") != float64(targets-graph.MaxLinkItems) || dig(links, "total") != float64(targets-1+pages) {
			t.Fatalf("%d items, more %v, total %v", len(items), dig(links, "more"), dig(links, "total"))
		}
		shared := 0
		for _, it := range items {
			n := len(dig(it, "pages").([]any))
			switch dig(it, "target", "url") {
			case "https://example.com/shared":
				shared++
				if n != graph.MaxLinkPagesPerItem || dig(it, "morePages") != float64(pages-graph.MaxLinkPagesPerItem) {
					t.Fatalf("shared target: %d pages, morePages %v", n, dig(it, "morePages"))
				}
			default:
				if n != 1 || dig(it, "morePages") != 0.0 {
					t.Fatalf("%v: %d pages, morePages %v", dig(it, "target", "url"), n, dig(it, "morePages"))
				}
			}
		}
		// Items come by URL: the shared one sorts after the numbered ones and
		// is past the cap here; narrowing to page 1 shows it.
		if shared != 0 {
			t.Fatalf("shared target within the first %d items", graph.MaxLinkItems)
		}
		// REST pages through every target.
		var list struct {
			Count int `json:"count"`
		}
		s.Call(t, "listSpaceLinks", u.Token, "GET", "/v1/spaces/"+sp+"/links?limit=10", nil, 200).Decode(t, &list)
		if list.Count != targets {
			t.Fatalf("REST count %d, want %d", list.Count, targets)
		}
	})
}
