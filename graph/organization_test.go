package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestViewerAndOrganization(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
		s.AddMember(t, acme, bob, testkit.RoleOf(access.Comment))

		data := s.MustGraphQL(t, bob.Token, `{ viewer { user { id email } organizations { id title permissions { admin view } } } }`, nil)
		v := data["viewer"].(map[string]any)
		if v["user"].(map[string]any)["id"] != bob.ID {
			t.Fatalf("viewer: %v", v)
		}
		orgs := v["organizations"].([]any)
		if len(orgs) != 2 {
			t.Fatalf("organizations: %v", orgs)
		}
		for _, o := range orgs {
			o := o.(map[string]any)
			admin := o["permissions"].(map[string]any)["admin"]
			if (o["id"] == bobs) != (admin == true) {
				t.Fatalf("permissions of %v", o)
			}
		}

		data = s.MustGraphQL(t, alice.Token, `query($id: ID!) { organization(id: $id) { id title urls { location } permissions { admin } } node(id: $id) { id ... on Organization { title } } }`, map[string]any{"id": acme})
		o := data["organization"].(map[string]any)
		if o["title"] != "Acme" || o["urls"].(map[string]any)["location"] != s.URL+"/v1/orgs/"+acme {
			t.Fatalf("organization: %v", o)
		}
		if data["node"].(map[string]any)["title"] != "Acme" {
			t.Fatalf("node: %v", data["node"])
		}

		// Not a member: NOT_FOUND, exactly as for an unknown id.
		for _, id := range []string{bobs, "unknownid"} {
			_, errs := s.GraphQL(t, alice.Token, `query($id: ID!) { organization(id: $id) { id } }`, map[string]any{"id": id})
			if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("organization %s: %+v", id, errs)
			}
		}

		// Paged connection shares the REST cursor format.
		data = s.MustGraphQL(t, bob.Token, `{ viewer { organizationsConnection(first: 1, order: asc) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } } }`, nil)
		conn := data["viewer"].(map[string]any)["organizationsConnection"].(map[string]any)
		info := conn["pageInfo"].(map[string]any)
		if conn["totalCount"].(float64) != 2 || info["hasNextPage"] != true || len(conn["edges"].([]any)) != 1 {
			t.Fatalf("connection: %v", conn)
		}
		data = s.MustGraphQL(t, bob.Token, `query($after: String) { viewer { organizationsConnection(first: 1, after: $after, order: asc) { pageInfo { hasNextPage } edges { node { id } } } } }`, map[string]any{"after": info["endCursor"]})
		conn = data["viewer"].(map[string]any)["organizationsConnection"].(map[string]any)
		if conn["pageInfo"].(map[string]any)["hasNextPage"] != false {
			t.Fatalf("second page: %v", conn)
		}
		_, errs := s.GraphQL(t, bob.Token, `{ viewer { organizationsConnection(first: 0) { totalCount } } }`, nil)
		if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || errs[0].Extensions["field"] != "first" {
			t.Fatalf("first: 0: %+v", errs)
		}

		// No token: an anonymous caller, whom the viewer refuses.
		if _, errs := s.GraphQL(t, "", "{ viewer { user { id } } }", nil); len(errs) != 1 || errs[0].Extensions["code"] != "UNAUTHENTICATED" {
			t.Fatalf("no token: %+v", errs)
		}
	})
}

func TestOrganizationMutations(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))

		data := s.MustGraphQL(t, carol.Token, `mutation { createOrganization(input: {title: "Carol's", emailDomains: ["Carol.dev"]}) { id title emailDomains permissions { admin } } }`, nil)
		created := data["createOrganization"].(map[string]any)
		if created["title"] != "Carol's" || created["permissions"].(map[string]any)["admin"] != true || created["emailDomains"].([]any)[0] != "carol.dev" {
			t.Fatalf("created: %v", created)
		}

		update := `mutation($id: ID!, $in: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $in) { title hostname defaultRole } }`
		data = s.MustGraphQL(t, alice.Token, update, map[string]any{"id": acme, "in": map[string]any{"title": "Acme Inc", "hostname": "acme", "defaultRole": "read"}})
		if u := data["updateOrganization"].(map[string]any); u["title"] != "Acme Inc" || u["hostname"] != "acme" || u["defaultRole"] != "read" {
			t.Fatalf("updated: %v", u)
		}
		// null clears; absent leaves alone.
		data = s.MustGraphQL(t, alice.Token, update, map[string]any{"id": acme, "in": map[string]any{"hostname": nil}})
		if u := data["updateOrganization"].(map[string]any); u["hostname"] != nil || u["title"] != "Acme Inc" {
			t.Fatalf("cleared: %v", u)
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			token string
			in    map[string]any
			code  string
			field string
		}{
			{alice.Token, map[string]any{"title": "A"}, "BAD_USER_INPUT", "title"},
			{alice.Token, map[string]any{"title": strings.Repeat("a", 256)}, "BAD_USER_INPUT", "title"},
			{alice.Token, map[string]any{"hostname": "x"}, "BAD_USER_INPUT", "hostname"},
			{carol.Token, map[string]any{"title": "Carol was here"}, "FORBIDDEN", ""},
		} {
			_, errs := s.GraphQL(t, c.token, update, map[string]any{"id": acme, "in": c.in})
			if len(errs) != 1 || errs[0].Extensions["code"] != c.code || (c.field != "" && errs[0].Extensions["field"] != c.field) {
				t.Fatalf("%v: %+v", c.in, errs)
			}
		}
		// A number where a string belongs is refused by GraphQL validation.
		_, errs := s.GraphQL(t, alice.Token, update, map[string]any{"id": acme, "in": map[string]any{"title": 5}})
		if len(errs) == 0 {
			t.Fatal("title: 5 accepted")
		}
		s.Unchanged(t, before)

		data = s.MustGraphQL(t, carol.Token, fmt.Sprintf(`mutation { pingOrganization(id: %q) }`, acme), nil)
		if data["pingOrganization"] != true {
			t.Fatalf("ping: %v", data)
		}
		_ = ctx
	})
}

// TestViewerOrganizationsStatementCount holds the nested read to a fixed
// number of SQL statements whatever the number of organizations.
func TestViewerOrganizationsStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		count := func(orgs int) int64 {
			u, _ := s.NewUser(t, fmt.Sprintf("user%d@example.com", orgs), "")
			for i := 0; i < orgs; i++ {
				if _, err := s.App.Resolver.CreateOrganization(ctx, u.ID, model.CreateOrganizationInput{Title: fmt.Sprintf("Org %d", i)}); err != nil {
					t.Fatal(err)
				}
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, `{ viewer { organizations { id title permissions { admin } } } }`, nil)
			if n := len(data["viewer"].(map[string]any)["organizations"].([]any)); n != orgs {
				t.Fatalf("%d organizations, want %d", n, orgs)
			}
			return s.Statements() - before
		}
		one, hundred := count(1), count(100)
		if one != hundred {
			t.Fatalf("statements: %d for 1 organization, %d for 100", one, hundred)
		}
		t.Logf("%d statements for 1 and for 100 organizations", one)
	})
}
