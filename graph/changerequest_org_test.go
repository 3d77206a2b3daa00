package graph_test

import (
	"fmt"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestOrganizationChangeRequestsGraphQL: Organization.changeRequests with
// its status filter and paging, in as many statements for 2 change requests
// in 2 spaces as for 6 in 3 (with each item's space, creator and revision).
func TestOrganizationChangeRequestsGraphQL(t *testing.T) {
	const query = `query($id: ID!) { organization(id: $id) {
		changeRequests(first: 50) { totalCount edges { node { number subject createdBy { email } revision { id pages { id } } } } }
		archived: changeRequests(first: 1, status: archived) { totalCount }
	} }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(spaces, perSpace int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("u%d@example.com", spaces), "Org")
			for i := 0; i < spaces; i++ {
				sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("S", i)}, 201).JSON(t)["id"].(string)
				for j := 0; j < perSpace; j++ {
					s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201)
				}
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"id": org})
			used := s.Statements() - before
			o := data["organization"].(map[string]any)
			crs := o["changeRequests"].(map[string]any)
			if int(crs["totalCount"].(float64)) != spaces*perSpace || len(crs["edges"].([]any)) != spaces*perSpace {
				t.Fatalf("change requests: %v", crs)
			}
			if o["archived"].(map[string]any)["totalCount"].(float64) != 0 {
				t.Fatalf("archived: %v", o["archived"])
			}
			return used
		}
		small, large := count(2, 1), count(3, 2)
		if small != large {
			t.Fatalf("statements: %d for 2 change requests, %d for 6", small, large)
		}
		t.Logf("%d statements", small)
	})
}
