package graph_test

import (
	"context"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/translationsettings"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestTranslationsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Edit))

		create := `mutation($org: ID!, $in: CreateTranslationInput!) { createTranslation(organizationId: $org, input: $in) { id title languages permissions { view edit } urls { location } } }`
		data := s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"title": "Europe", "languages": []string{"fr", "de"}}})
		ts := data["createTranslation"].(map[string]any)
		id := ts["id"].(string)
		if ts["title"] != "Europe" || len(ts["languages"].([]any)) != 2 || ts["urls"].(map[string]any)["location"] != s.URL+"/v1/orgs/"+acme+"/translations/"+id {
			t.Fatalf("created: %v", ts)
		}
		s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"title": "Asia"}})

		// Newest first, the id breaking a tie: the two may share a millisecond.
		newest, err := s.Client().TranslationSettings.Query().Where(translationsettings.OrganizationID(acme)).
			Order(ent.Desc(translationsettings.FieldCreatedAt), ent.Desc(translationsettings.FieldID)).
			Select(translationsettings.FieldTitle).Strings(ctx)
		if err != nil || len(newest) != 2 {
			t.Fatalf("stored translations %v (%v)", newest, err)
		}
		q := `query($org: ID!, $after: String) { organization(id: $org) { translations(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { title permissions { edit } } } } } }`
		data = s.MustGraphQL(t, carol.Token, q, map[string]any{"org": acme})
		conn := data["organization"].(map[string]any)["translations"].(map[string]any)
		info := conn["pageInfo"].(map[string]any)
		node := conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
		if conn["totalCount"].(float64) != 2 || info["hasNextPage"] != true || node["title"] != newest[0] || node["permissions"].(map[string]any)["edit"] != false {
			t.Fatalf("first page: %v", conn)
		}
		data = s.MustGraphQL(t, carol.Token, q, map[string]any{"org": acme, "after": info["endCursor"]})
		conn = data["organization"].(map[string]any)["translations"].(map[string]any)
		if conn["pageInfo"].(map[string]any)["hasNextPage"] != false || conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["title"] != newest[1] {
			t.Fatalf("second page: %v", conn)
		}

		update := `mutation($org: ID!, $id: ID!, $in: UpdateTranslationInput!) { updateTranslation(organizationId: $org, id: $id, input: $in) { title languages } }`
		data = s.MustGraphQL(t, alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"title": "EU"}})
		if u := data["updateTranslation"].(map[string]any); u["title"] != "EU" || len(u["languages"].([]any)) != 2 {
			t.Fatalf("updated: %v", u)
		}
		data = s.MustGraphQL(t, carol.Token, `query($org: ID!, $id: ID!) { translation(organizationId: $org, id: $id) { title } }`, map[string]any{"org": acme, "id": id})
		if data["translation"].(map[string]any)["title"] != "EU" {
			t.Fatalf("translation: %v", data)
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			token, query string
			vars         map[string]any
			code, field  string
		}{
			{alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"title": ""}}, "BAD_USER_INPUT", "title"},
			{alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"title": "x", "languages": []string{"fr", "fr"}}}, "BAD_USER_INPUT", "languages"},
			{alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"title": "x", "languages": []string{"xx"}}}, "GRAPHQL_VALIDATION_FAILED", ""},
			{carol.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"title": "Mine"}}, "FORBIDDEN", ""},
			{alice.Token, update, map[string]any{"org": acme, "id": "nope", "in": map[string]any{"title": "x"}}, "NOT_FOUND", ""},
		} {
			_, errs := s.GraphQL(t, c.token, c.query, c.vars)
			if len(errs) != 1 || errs[0].Extensions["code"] != c.code || (c.field != "" && errs[0].Extensions["field"] != c.field) {
				t.Fatalf("%v: %+v", c.vars, errs)
			}
		}
		s.Unchanged(t, before)

		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $id: ID!) { deleteTranslation(organizationId: $org, id: $id) }`, map[string]any{"org": acme, "id": id})
		if data["deleteTranslation"] != true || s.Client().TranslationSettings.Query().CountX(ctx) != 1 {
			t.Fatalf("delete: %v", data)
		}
	})
}
