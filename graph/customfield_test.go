package graph_test

import (
	"context"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestCustomFieldsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))

		create := `mutation($org: ID!, $in: CreateCustomFieldInput!) { createCustomField(organizationId: $org, input: $in) { id name type options title permissions { edit } urls { location } } }`
		data := s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "in": map[string]any{
			"name": "status", "type": "select_single", "options": []string{"draft", "done"}, "title": "Status"}})
		cf := data["createCustomField"].(map[string]any)
		if cf["name"] != "status" || cf["type"] != "select_single" || len(cf["options"].([]any)) != 2 ||
			cf["permissions"].(map[string]any)["edit"] != true || cf["urls"].(map[string]any)["location"] != s.URL+"/v1/orgs/"+acme+"/custom-fields/status" {
			t.Fatalf("created: %v", cf)
		}
		s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"name": "owner", "type": "text"}})

		// The connection on Organization, paged: newest first, the id
		// breaking a tie (the two may share a millisecond).
		newest, err := s.Client().CustomField.Query().Where(customfield.OrganizationID(acme)).
			Order(ent.Desc(customfield.FieldCreatedAt), ent.Desc(customfield.FieldID)).
			Select(customfield.FieldName).Strings(ctx)
		if err != nil || len(newest) != 2 {
			t.Fatalf("stored fields %v (%v)", newest, err)
		}
		q := `query($org: ID!, $after: String) { organization(id: $org) { customFields(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { name permissions { view edit } } } } } }`
		data = s.MustGraphQL(t, carol.Token, q, map[string]any{"org": acme})
		conn := data["organization"].(map[string]any)["customFields"].(map[string]any)
		info := conn["pageInfo"].(map[string]any)
		node := conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
		if conn["totalCount"].(float64) != 2 || info["hasNextPage"] != true || node["name"] != newest[0] ||
			node["permissions"].(map[string]any)["edit"] != false {
			t.Fatalf("first page: %v", conn)
		}
		data = s.MustGraphQL(t, carol.Token, q, map[string]any{"org": acme, "after": info["endCursor"]})
		conn = data["organization"].(map[string]any)["customFields"].(map[string]any)
		if conn["pageInfo"].(map[string]any)["hasNextPage"] != false || conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["name"] != newest[1] {
			t.Fatalf("second page: %v", conn)
		}

		// Update with PATCH semantics, then read it back by name.
		update := `mutation($org: ID!, $name: String!, $in: UpdateCustomFieldInput!) { updateCustomField(organizationId: $org, name: $name, input: $in) { title description options } }`
		data = s.MustGraphQL(t, alice.Token, update, map[string]any{"org": acme, "name": "status", "in": map[string]any{"title": nil, "options": []string{"a", "b", "c"}}})
		if u := data["updateCustomField"].(map[string]any); u["title"] != "" || len(u["options"].([]any)) != 3 {
			t.Fatalf("updated: %v", u)
		}
		data = s.MustGraphQL(t, carol.Token, `query($org: ID!) { customField(organizationId: $org, name: "status") { name options } }`, map[string]any{"org": acme})
		if len(data["customField"].(map[string]any)["options"].([]any)) != 3 {
			t.Fatalf("customField: %v", data)
		}

		// Errors carry extensions.code (and field for bad input).
		before := s.Snapshot(t)
		for _, c := range []struct {
			token, query string
			vars         map[string]any
			code, field  string
		}{
			{alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"name": "Bad Name", "type": "text"}}, "BAD_USER_INPUT", "name"},
			{alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"name": "x", "type": "select_multi"}}, "BAD_USER_INPUT", "options"},
			{alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"name": "owner", "type": "text"}}, "CONFLICT", "name"},
			{carol.Token, create, map[string]any{"org": acme, "in": map[string]any{"name": "x", "type": "text"}}, "FORBIDDEN", ""},
			{alice.Token, update, map[string]any{"org": acme, "name": "nothing", "in": map[string]any{"title": "x"}}, "NOT_FOUND", ""},
		} {
			_, errs := s.GraphQL(t, c.token, c.query, c.vars)
			if len(errs) != 1 || errs[0].Extensions["code"] != c.code || (c.field != "" && errs[0].Extensions["field"] != c.field) {
				t.Fatalf("%v: %+v", c.vars, errs)
			}
		}
		s.Unchanged(t, before)

		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { deleteCustomField(organizationId: $org, name: "owner") }`, map[string]any{"org": acme})
		if data["deleteCustomField"] != true || s.Client().CustomField.Query().Where(customfield.Name("owner")).CountX(ctx) != 0 {
			t.Fatalf("delete: %v", data)
		}
	})
}
