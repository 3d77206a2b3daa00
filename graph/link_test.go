package graph_test

import (
	"strings"
	"testing"

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
