package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestContributorsGraphQL: ChangeRequest.contributors, read for a list of
// change requests in as many statements for 2 as for 5.
func TestContributorsGraphQL(t *testing.T) {
	const query = `query($id: ID!) { space(id: $id) { changeRequests(first: 10) { edges { node {
		contributors { user { email } count actionType updatedAt } } } } } }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("u%d@example.com", n), "Org")
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
			for i := 0; i < n; i++ {
				cr := s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
				for j := 0; j < 2; j++ {
					s.Call(t, "updateChangeRequestContent", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/content", map[string]any{"changes": []any{
						map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": fmt.Sprintf("# P%d\n", j)}},
					}}, 200)
				}
				s.Client().Comment.Create().SetSpaceID(sp).SetChangeRequestID(cr).SetPostedBy(u.ID).SetBody("ok").ExecX(testkit.Fixture(context.Background()))
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"id": sp})
			used := s.Statements() - before
			edges := data["space"].(map[string]any)["changeRequests"].(map[string]any)["edges"].([]any)
			if len(edges) != n {
				t.Fatalf("%d change requests", len(edges))
			}
			for _, e := range edges {
				cs := e.(map[string]any)["node"].(map[string]any)["contributors"].([]any)
				got := map[string]float64{}
				for _, c := range cs {
					c := c.(map[string]any)
					if c["user"].(map[string]any)["email"] != u.Email {
						t.Fatalf("contributor %v", c)
					}
					got[c["actionType"].(string)] = c["count"].(float64)
				}
				if len(cs) != 2 || got["edit"] != 2 || got["comment"] != 1 {
					t.Fatalf("contributors %v", cs)
				}
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
