package graph_test

import (
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestSpacesAndCollectionsInGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		reader, _ := s.NewUser(t, "reader@acme.com", "")
		s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
		stranger, _ := s.NewUser(t, "stranger@else.org", "Else")

		data := s.MustGraphQL(t, admin.Token, `mutation($org: ID!) {
			c: createCollection(organizationId: $org, input: {title: "Guides"}) { id title permissions { admin } }
		}`, map[string]any{"org": org})
		coll := data["c"].(map[string]any)["id"].(string)
		data = s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $coll: ID!) {
			a: createSpace(organizationId: $org, input: {title: "A", parent: $coll}) { id parent { title } }
			b: createSpace(organizationId: $org, input: {title: "B", parent: $coll, emoji: "📘"}) { id visibility defaultLevel }
		}`, map[string]any{"org": org, "coll": coll})
		a := data["a"].(map[string]any)["id"].(string)
		if data["a"].(map[string]any)["parent"].(map[string]any)["title"] != "Guides" || data["b"].(map[string]any)["defaultLevel"] != "inherit" {
			t.Fatalf("created: %v", data)
		}
		b := data["b"].(map[string]any)["id"].(string)
		s.MustGraphQL(t, admin.Token, `mutation($a: ID!, $b: ID!) {
			moveSpace(id: $a, input: {position: {after: {type: space, space: $b}}}) { id }
		}`, map[string]any{"a": a, "b": b})

		data = s.MustGraphQL(t, reader.Token, `query($org: ID!, $coll: ID!) {
			organization(id: $org) {
				spaces(first: 10) { totalCount edges { node { title permissions { view edit } } } }
				collections { edges { node { title spaces { edges { node { title } } } } } }
			}
			collection(id: $coll) { title permissions { view create } }
			node(id: $coll) { ... on Collection { title } }
		}`, map[string]any{"org": org, "coll": coll})
		o := data["organization"].(map[string]any)
		if o["spaces"].(map[string]any)["totalCount"] != 2.0 {
			t.Fatalf("spaces: %v", o["spaces"])
		}
		tree := o["collections"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
		if edges := tree["spaces"].(map[string]any)["edges"].([]any); len(edges) != 2 ||
			edges[0].(map[string]any)["node"].(map[string]any)["title"] != "B" {
			t.Fatalf("collection spaces, B moved before A: %v", tree)
		}
		if data["node"].(map[string]any)["title"] != "Guides" || data["collection"].(map[string]any)["permissions"].(map[string]any)["create"] != false {
			t.Fatalf("collection: %v / %v", data["collection"], data["node"])
		}

		// Custom fields on a space.
		s.MustGraphQL(t, admin.Token, `mutation($org: ID!) { createCustomField(organizationId: $org, input: {name: "status", type: select_single, options: ["draft", "final"]}) { name } }`, map[string]any{"org": org})
		data = s.MustGraphQL(t, admin.Token, `mutation($a: ID!) { updateSpaceCustomFields(spaceId: $a, values: [{name: "status", value: "final"}]) { customFields { customField { name } value } } }`, map[string]any{"a": a})
		cf := data["updateSpaceCustomFields"].(map[string]any)["customFields"].([]any)[0].(map[string]any)
		if cf["value"] != "final" {
			t.Fatalf("custom fields: %v", cf)
		}
		_, errs := s.GraphQL(t, admin.Token, `mutation($a: ID!) { updateSpaceCustomFields(spaceId: $a, values: [{name: "status", value: "lost"}]) { id } }`, map[string]any{"a": a})
		if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || errs[0].Extensions["field"] != "values.status" {
			t.Fatalf("bad value: %+v", errs)
		}

		// Errors carry codes: a reader cannot update, a stranger cannot see, a
		// collection cannot go into itself.
		_, errs = s.GraphQL(t, reader.Token, `mutation($a: ID!) { updateSpace(id: $a, input: {title: "Mine"}) { id } }`, map[string]any{"a": a})
		if len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("reader update: %+v", errs)
		}
		_, errs = s.GraphQL(t, stranger.Token, `query($a: ID!) { space(id: $a) { id } }`, map[string]any{"a": a})
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("stranger read: %+v", errs)
		}
		_, errs = s.GraphQL(t, admin.Token, `mutation($c: ID!) { moveCollection(id: $c, input: {parent: $c}) { id } }`, map[string]any{"c": coll})
		if len(errs) != 1 || errs[0].Extensions["field"] != "parent" {
			t.Fatalf("collection into itself: %+v", errs)
		}
		// Delete and restore.
		data = s.MustGraphQL(t, admin.Token, `mutation($a: ID!) { deleteSpace(id: $a) }`, map[string]any{"a": a})
		if data["deleteSpace"] != true {
			t.Fatalf("delete: %v", data)
		}
		data = s.MustGraphQL(t, admin.Token, `mutation($a: ID!) { restoreSpace(id: $a) { id deletedAt } }`, map[string]any{"a": a})
		if data["restoreSpace"].(map[string]any)["deletedAt"] != nil {
			t.Fatalf("restore: %v", data)
		}
	})
}
