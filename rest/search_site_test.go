package rest_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// searchSite answers the spaces and page titles a site search found, as
// "Space: Page, Page; Space: Page".
func (w *insightsWorld) searchSite(t *testing.T, token string, body map[string]any, query string) (string, []map[string]any) {
	t.Helper()
	var list struct {
		Items []map[string]any
		Count int
		Next  *struct{ Page string }
	}
	w.s.Call(t, "searchSiteContent", token, "POST", w.base+"/search"+query, body, 200).Decode(t, &list)
	var parts []string
	for _, it := range list.Items {
		var titles []string
		for _, p := range it["pages"].([]any) {
			titles = append(titles, p.(map[string]any)["title"].(string))
		}
		parts = append(parts, it["title"].(string)+": "+strings.Join(titles, ", "))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; "), list.Items
}

// The reader's search over the API: every site space the caller sees
// without a scope or with {mode: all}, narrowed by scopes; hidden pages
// never found; the reference's shape with published addresses.
func TestSearchSiteContent(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newInsightsWorld(t, s)
		all, items := w.searchSite(t, w.alice.Token, map[string]any{"query": "zebra"}, "")
		if all != "API: Zebra API; Guide: Install" {
			t.Fatalf("no scope: %s", all)
		}
		for _, it := range items {
			if it["type"] != "space" {
				t.Fatalf("item: %v", it)
			}
			for _, p := range it["pages"].([]any) {
				pg := p.(map[string]any)
				u := pg["urls"].(map[string]any)["app"].(string)
				if !strings.HasPrefix(u, s.URL+"/s/insights-docs/") || pg["rank"].(float64) < 1 {
					t.Fatalf("page: %v", pg)
				}
				if pg["title"] == "Install" {
					if u != s.URL+"/s/insights-docs/install" || len(pg["sections"].([]any)) == 0 {
						t.Fatalf("install: %v", pg)
					}
				}
			}
		}
		// The same with the deprecated and the new "all".
		for _, body := range []map[string]any{{"query": "zebra", "mode": "all"}, {"query": "zebra", "scope": map[string]any{"mode": "all"}}} {
			if got, _ := w.searchSite(t, w.alice.Token, body, ""); got != all {
				t.Fatalf("%v: %s", body, got)
			}
		}
		// Scopes.
		for want, scope := range map[string]map[string]any{
			"API: Zebra API": {"mode": "specific", "siteSpaceIds": []string{w.apiSS}},
			"Guide: Install": {"mode": "default", "currentSiteSpace": w.guideSS, "restrictTo": "currentSiteSpace"},
			all:              {"mode": "default", "currentSiteSpace": w.guideSS},
		} {
			if got, _ := w.searchSite(t, w.alice.Token, map[string]any{"query": "zebra", "scope": scope}, ""); got != want {
				t.Errorf("%v: %s, want %s", scope, got, want)
			}
		}
		if got, _ := w.searchSite(t, w.alice.Token, map[string]any{"query": "zebra", "scope": map[string]any{"mode": "default", "currentSiteSpace": w.guideSS, "restrictTo": "otherSiteSpaces"}}, ""); got != "API: Zebra API" {
			t.Errorf("other site spaces: %s", got)
		}
		// Paging through spaces, one a page.
		var first struct {
			Items             []map[string]any
			Count             int
			CountIsLowerBound *bool
			Next              *struct{ Page string }
		}
		s.Call(t, "searchSiteContent", w.alice.Token, "POST", w.base+"/search?limit=1", map[string]any{"query": "zebra"}, 200).Decode(t, &first)
		if len(first.Items) != 1 || first.Count != 2 || first.CountIsLowerBound != nil || first.Next == nil {
			t.Fatalf("first page: %+v", first)
		}
		if _, rest := w.searchSite(t, w.alice.Token, map[string]any{"query": "zebra"}, "?limit=1&page="+first.Next.Page); len(rest) != 1 || rest[0]["id"] == first.Items[0]["id"] {
			t.Fatalf("second page: %v", rest)
		}
		// A member with the read role searches too.
		if got, _ := w.searchSite(t, w.carol.Token, map[string]any{"query": "zebra"}, ""); got != all {
			t.Fatalf("carol: %s", got)
		}
		// Bad input names the field.
		for field, body := range map[string]map[string]any{
			"query":                  {},
			"scope.siteSpaceIds[0]":  {"query": "zebra", "scope": map[string]any{"mode": "specific", "siteSpaceIds": []string{"nope"}}},
			"scope.mode":             {"query": "zebra", "scope": map[string]any{"mode": "everything"}},
			"scope.currentSiteSpace": {"query": "zebra", "scope": map[string]any{"mode": "default", "restrictTo": "currentSiteSpace"}},
		} {
			if msg := s.Fail(t, "searchSiteContent", w.alice.Token, "POST", w.base+"/search", body, 400); !strings.Contains(msg, field) {
				t.Errorf("%s: %s", field, msg)
			}
		}
		// Strangers, and a guest the site is not shared with: 404.
		for _, u := range []testkit.User{w.bob, w.gina} {
			s.Fail(t, "searchSiteContent", u.Token, "POST", w.base+"/search", map[string]any{"query": "zebra"}, 404)
		}
		s.Fail(t, "searchSiteContent", w.alice.Token, "POST", "/v1/orgs/"+w.bobs+"/sites/"+w.site+"/search", map[string]any{"query": "zebra"}, 404)
	})
}
