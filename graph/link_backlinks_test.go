package graph_test

import (
	"fmt"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestPageBacklinksGraphQL: Space.pageBacklinks and
// ChangeRequest.pageBacklinks list the pages linking to a page.
func TestPageBacklinksGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "u@example.com", "Org")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		crPath := func(cr string) string { return "/v1/spaces/" + sp + "/change-requests/" + cr }
		newCR := func() string {
			return s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
		}
		insert := func(cr, md string) {
			s.Call(t, "updateChangeRequestContent", u.Token, "POST", crPath(cr)+"/content", map[string]any{"changes": []any{
				map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": md}},
			}}, 200)
		}
		base := newCR()
		insert(base, "# Target\n")
		insert(base, "# A\n\n[t](target)\n")
		s.Call(t, "mergeChangeRequest", u.Token, "POST", crPath(base)+"/merge", nil, 200)
		target := s.Call(t, "listPages", u.Token, "GET", "/v1/spaces/"+sp+"/content/pages", nil, 200).JSON(t)["pages"].([]any)[0].(map[string]any)["id"].(string)
		cr := newCR()
		insert(cr, "# B\n\n[t](/pages/"+target+")\n")
		data := s.MustGraphQL(t, u.Token, `query($sp: ID!, $p: ID!, $cr: String!) { space(id: $sp) {
			pageBacklinks(pageId: $p) { title } changeRequest(id: $cr) { pageBacklinks(pageId: $p) { title } } } }`,
			map[string]any{"sp": sp, "p": target, "cr": cr})
		space := data["space"].(map[string]any)
		if got := fmt.Sprint(space["pageBacklinks"]); got != "[map[title:A]]" {
			t.Fatalf("space backlinks: %s", got)
		}
		if got := fmt.Sprint(space["changeRequest"].(map[string]any)["pageBacklinks"]); got != "[map[title:A] map[title:B]]" {
			t.Fatalf("change request backlinks: %s", got)
		}
		if _, errs := s.GraphQL(t, u.Token, `query($sp: ID!) { space(id: $sp) { pageBacklinks(pageId: "nope") { title } } }`, map[string]any{"sp": sp}); len(errs) == 0 {
			t.Fatalf("an unknown page answered")
		}
	})
}
