package graph_test

import (
	"fmt"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// TestPartialData: a refusal nulls one field, with an error carrying its
// path and code, and the rest of the answer arrives: root fields, the
// manager-only fields of a site read by a reader, and mutations side by
// side.
func TestPartialData(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		reader, _ := s.NewUser(t, "reader@acme.com", "")
		s.AddMember(t, acme, reader, testkit.RoleOf(access.Read))
		space := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook"}) { id } }`,
			map[string]any{"org": acme}), "createSpace", "id").(string)
		site := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { createSite(organization: $org, input: {title: "Docs"}) { id } }`,
			map[string]any{"org": acme}), "createSite", "id").(string)
		s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { id } }`, map[string]any{"site": site})

		codes := func(errs []testkit.GraphQLError) string {
			out := ""
			for _, e := range errs {
				out += fmt.Sprintf("%v=%v ", e.Path, e.Extensions["code"])
			}
			return out
		}

		t.Run("one missing space beside a visible one", func(t *testing.T) {
			data, errs := s.GraphQL(t, reader.Token, `query($a: ID!, $b: ID!) { visible: space(id: $a) { id title } missing: space(id: $b) { id title } }`,
				map[string]any{"a": space, "b": "nosuchspace000000000"})
			if dig(data, "visible", "title") != "Handbook" || data["missing"] != nil {
				t.Fatalf("data: %v", data)
			}
			if got := codes(errs); got != "[missing]=NOT_FOUND " {
				t.Fatalf("errors: %s", got)
			}
		})

		t.Run("a reader's site query", func(t *testing.T) {
			data, errs := s.GraphQL(t, reader.Token, `query($id: ID!) { site(id: $id) { id title shareLinks { id } publishingAuth { privateKey } } }`,
				map[string]any{"id": site})
			got := data["site"].(map[string]any)
			if got["title"] != "Docs" || got["shareLinks"] != nil || got["publishingAuth"] != nil {
				t.Fatalf("site: %v", got)
			}
			if c := codes(errs); c != "[site shareLinks]=FORBIDDEN [site publishingAuth]=FORBIDDEN " && c != "[site publishingAuth]=FORBIDDEN [site shareLinks]=FORBIDDEN " {
				t.Fatalf("errors: %s", c)
			}
			manager := s.MustGraphQL(t, alice.Token, `query($id: ID!) { site(id: $id) { shareLinks { name } publishingAuth { privateKey } } }`, map[string]any{"id": site})
			if dig(manager, "site", "shareLinks", 0, "name") != "Partners" || dig(manager, "site", "publishingAuth", "privateKey") == "" {
				t.Fatalf("manager: %v", manager)
			}
		})

		t.Run("a refused mutation beside one that succeeds", func(t *testing.T) {
			data, errs := s.GraphQL(t, reader.Token, `mutation($s: ID!) { ok: pingOrganization(id: "`+acme+`") refused: deleteSpace(id: $s) }`,
				map[string]any{"s": space})
			if data["ok"] != true || data["refused"] != nil {
				t.Fatalf("data: %v", data)
			}
			if got := codes(errs); got != "[refused]=FORBIDDEN " {
				t.Fatalf("errors: %s", got)
			}
		})
	})
}
