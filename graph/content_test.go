package graph_test

import (
	"fmt"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestPagesTreeStatementCount: reading the pages tree of a 500-page
// revision takes as many statements as a 5-page one, over REST and GraphQL.
func TestPagesTreeStatementCount(t *testing.T) {
	const query = `query($id: ID!) { space(id: $id) { revision { id pages { title path pages { title markdown pages { title } } } }
		changeRequests(first: 10) { totalCount edges { node { number subject outdated createdBy { displayName } } } } } }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) (rest, gql int64) {
			u, org := s.NewUser(t, fmt.Sprintf("u%d@example.com", n), "Org")
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201).JSON(t)["id"].(string)
			s.SeedPages(t, sp, n)
			for i := 0; i < 3; i++ {
				s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201)
			}
			before := s.Statements()
			var out struct{ Pages []struct{ Pages []any } }
			s.Call(t, "listPages", u.Token, "GET", "/v1/spaces/"+sp+"/content/pages", nil, 200).Decode(t, &out)
			if len(out.Pages) != (n+9)/10 {
				t.Fatalf("%d root pages for %d pages", len(out.Pages), n)
			}
			rest = s.Statements() - before
			before = s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"id": sp})
			roots := data["space"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)
			if len(roots) != (n+9)/10 {
				t.Fatalf("GraphQL: %d root pages", len(roots))
			}
			return rest, s.Statements() - before
		}
		r5, g5 := count(5)
		r500, g500 := count(500)
		if r5 != r500 || g5 != g500 {
			t.Fatalf("statements: REST %d vs %d, GraphQL %d vs %d (5 vs 500 pages)", r5, r500, g5, g500)
		}
		t.Logf("REST %d, GraphQL %d statements for 5 and for 500 pages", r5, g5)
	})
}
