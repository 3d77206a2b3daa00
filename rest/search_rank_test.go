package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestSearchRankLimit: with FOLIO_SEARCH_RANK_LIMIT at 50, a term matching
// fewer pages is counted exactly, one matching more is counted 50 with
// countIsLowerBound (REST and GraphQL alike); the pages ranked come best
// first and page through to the limit.
func TestSearchRankLimit(t *testing.T) {
	t.Setenv("FOLIO_SEARCH_RANK_LIMIT", "50")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "ranker@search.test", "Ranks")
		newSpace := func(title string, n int) string {
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
			// Page i says "line" i%5+1 times among five words: the more
			// it says it, the better it ranks, on both engines.
			s.SeedPagesWith(t, sp, n, func(i int) string {
				k := i%5 + 1
				return fmt.Sprintf("# Page %d\n\n%s%s\n", i, strings.Repeat("line ", k), strings.Repeat("filler ", 5-k))
			})
			if err := s.App.Resolver.ReindexSpace(context.Background(), sp); err != nil {
				t.Fatal(err)
			}
			return sp
		}
		small, big := newSpace("Small", 30), newSpace("Big", 120)

		type list struct {
			Items []struct {
				ID, Title string
				Pages     []struct{ Title string }
			}
			Count             int
			CountIsLowerBound *bool
			Next              *struct{ Page string }
		}
		get := func(path string) list {
			t.Helper()
			var l list
			op := "searchSpaceContent"
			if strings.HasPrefix(path, "/v1/orgs/") {
				op = "searchOrganizationContent"
			}
			s.Call(t, op, u.Token, "GET", path, nil, 200).Decode(t, &l)
			return l
		}
		// Below the limit: exact, and no flag.
		if l := get("/v1/spaces/" + small + "/search?query=line&limit=5"); l.Count != 30 || l.CountIsLowerBound != nil {
			t.Fatalf("30 matches: count %d, countIsLowerBound %v", l.Count, l.CountIsLowerBound)
		}
		// Above it: the limit, said to be a lower bound; every ranked page
		// pages through, best first.
		var titles []string
		l := get("/v1/spaces/" + big + "/search?query=line&limit=20")
		for {
			if l.Count != 50 || l.CountIsLowerBound == nil || !*l.CountIsLowerBound {
				t.Fatalf("120 matches: count %d, countIsLowerBound %v", l.Count, l.CountIsLowerBound)
			}
			for _, it := range l.Items {
				titles = append(titles, it.Title)
			}
			if l.Next == nil {
				break
			}
			l = get("/v1/spaces/" + big + "/search?query=line&limit=20&page=" + l.Next.Page)
		}
		seen := map[string]bool{}
		last := 6
		for _, title := range titles {
			var i int
			if _, err := fmt.Sscanf(title, "Page %d", &i); err != nil || seen[title] {
				t.Fatalf("result %q (twice: %v)", title, seen[title])
			}
			seen[title] = true
			if k := i%5 + 1; k > last {
				t.Fatalf("not best first: %q (says line %d times) after one that says it %d times: %v", title, k, last, titles)
			} else {
				last = k
			}
		}
		if len(titles) != 50 {
			t.Fatalf("paged through %d results, want the 50 ranked", len(titles))
		}
		// Organization search counts spaces among the pages ranked.
		if l := get("/v1/orgs/" + org + "/search?query=line"); l.CountIsLowerBound == nil || !*l.CountIsLowerBound || l.Count < 1 || l.Count > 2 {
			t.Fatalf("organization: count %d, countIsLowerBound %v", l.Count, l.CountIsLowerBound)
		}
		if l := get("/v1/orgs/" + org + "/search?query=page+7"); l.CountIsLowerBound != nil || l.Count != 2 {
			t.Fatalf("organization, a hit in each space: count %d, countIsLowerBound %v", l.Count, l.CountIsLowerBound)
		}

		// GraphQL says the same.
		data := s.MustGraphQL(t, u.Token, `query($small: ID!, $big: ID!, $org: ID!) {
			small: space(id: $small) { search(query: "line", first: 1) { totalCount countIsLowerBound } }
			big: space(id: $big) { search(query: "line", first: 1) { totalCount countIsLowerBound } }
			organization(id: $org) { search(query: "line", first: 1) { totalCount countIsLowerBound } } }`,
			map[string]any{"small": small, "big": big, "org": org})
		for field, want := range map[string][2]any{"small": {30.0, false}, "big": {50.0, true}, "organization": {50.0, true}} {
			got := data[field].(map[string]any)["search"].(map[string]any)
			if got["totalCount"] != want[0] || got["countIsLowerBound"] != want[1] {
				t.Errorf("%s: %v, want totalCount %v countIsLowerBound %v", field, got, want[0], want[1])
			}
		}
	})
}
