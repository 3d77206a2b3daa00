package graph_test

import (
	"fmt"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestChangesGraphQL: ChangeRequest.changes and Revision.changes report
// the engine's changes, and a list of change requests and of revisions
// reads its diffs in as many statements for 2 items as for 5.
func TestChangesGraphQL(t *testing.T) {
	const query = `query($id: ID!) { space(id: $id) {
		changeRequests(first: 10) { edges { node { number changes(limit: 5) { more changes { type attributes
			page { title path } before { title } parentAfter { title } file { name } } } } } }
		revisions(first: 10) { edges { node { type changes { more mergedFrom { number } changes { type page { title } } } } } }
	} }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("u%d@example.com", n), "Org")
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
			crPath := func(cr string) string { return "/v1/spaces/" + sp + "/change-requests/" + cr }
			newCR := func() string {
				return s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
			}
			edit := func(cr string, changes ...map[string]any) {
				s.Call(t, "updateChangeRequestContent", u.Token, "POST", crPath(cr)+"/content", map[string]any{"changes": changes}, 200)
			}
			base := newCR()
			edit(base, map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": "# Guide\n\nOne.\n"}})
			s.Call(t, "mergeChangeRequest", u.Token, "POST", crPath(base)+"/merge", nil, 200)
			guide := s.Call(t, "listPages", u.Token, "GET", "/v1/spaces/"+sp+"/content/pages", nil, 200).JSON(t)["pages"].([]any)[0].(map[string]any)["id"].(string)
			for i := 0; i < n; i++ {
				cr := newCR()
				edit(cr,
					map[string]any{"operation": "update_page", "page": guide, "title": fmt.Sprint("Guide ", i), "document": map[string]any{"markdown": fmt.Sprintf("Two %d.\n", i)}},
					map[string]any{"operation": "insert_page", "into": guide, "document": map[string]any{"markdown": fmt.Sprintf("# Sub %d\n", i)}},
				)
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"id": sp})
			used := s.Statements() - before
			space := data["space"].(map[string]any)
			crs := space["changeRequests"].(map[string]any)["edges"].([]any)
			if len(crs) != n {
				t.Fatalf("%d change requests, want %d", len(crs), n)
			}
			for _, e := range crs {
				ch := e.(map[string]any)["node"].(map[string]any)["changes"].(map[string]any)
				list := ch["changes"].([]any)
				if len(list) != 2 || ch["more"].(float64) != 0 {
					t.Fatalf("changes: %v", ch)
				}
				edited, created := list[0].(map[string]any), list[1].(map[string]any)
				if edited["type"] != "page_edited" || fmt.Sprint(edited["attributes"]) != "[title document]" ||
					edited["before"].(map[string]any)["title"] != "Guide" {
					t.Fatalf("edit: %v", edited)
				}
				if created["type"] != "page_created" || created["parentAfter"] != nil || created["page"].(map[string]any)["path"] == "" {
					t.Fatalf("creation: %v", created)
				}
			}
			// The body before an edit (outside the count: bodies load by hash).
			one := s.MustGraphQL(t, u.Token, `query($id: ID!) { space(id: $id) { changeRequest(id: "2") { changes { changes { before { markdown } } } } } }`, map[string]any{"id": sp})
			first := one["space"].(map[string]any)["changeRequest"].(map[string]any)["changes"].(map[string]any)["changes"].([]any)[0].(map[string]any)
			if md := first["before"].(map[string]any)["markdown"]; md != "# Guide\n\nOne.\n" {
				t.Fatalf("body before the edit: %q", md)
			}
			revs := space["revisions"].(map[string]any)["edges"].([]any)
			merge := revs[0].(map[string]any)["node"].(map[string]any)
			mc := merge["changes"].(map[string]any)
			if merge["type"] != "merge" || mc["mergedFrom"].(map[string]any)["number"].(float64) != 1 ||
				fmt.Sprint(mc["changes"]) != "[map[page:map[title:Guide] type:page_created]]" {
				t.Fatalf("merge revision: %v", merge)
			}
			return used
		}
		small, large := count(2), count(5)
		if small != large {
			t.Fatalf("statements: %d for 2 change requests, %d for 5", small, large)
		}
		t.Logf("%d statements", small)
	})
}
