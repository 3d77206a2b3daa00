package graph_test

import (
	"context"
	"slices"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestInvitesGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))
		dave, _ := s.NewUser(t, "dave@else.org", "")

		create := `mutation($org: ID!, $role: Role!) { createOrganizationInvite(organizationId: $org, input: {role: $role}) { id role redundant organization { id } } }`
		var ids []string
		for _, role := range []string{"read", "edit"} {
			inv := s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "role": role})["createOrganizationInvite"].(map[string]any)
			if inv["role"] != role || inv["redundant"] != true || inv["organization"].(map[string]any)["id"] != acme {
				t.Fatalf("created: %v", inv)
			}
			ids = append(ids, inv["id"].(string))
		}

		// Newest first, the id breaking a tie: the two may share a millisecond.
		newest, err := s.Client().Invite.Query().Where(invite.OrganizationID(acme)).
			Order(ent.Desc(invite.FieldCreatedAt), ent.Desc(invite.FieldID)).IDs(ctx)
		if err != nil || len(newest) != 2 || !slices.Contains(newest, ids[0]) || !slices.Contains(newest, ids[1]) {
			t.Fatalf("stored invites %v (%v), created %v", newest, err, ids)
		}
		q := `query($org: ID!, $after: String) { organization(id: $org) { inviteLinks inviteLinksConnection(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { id role } } } } }`
		data := s.MustGraphQL(t, alice.Token, q, map[string]any{"org": acme})
		org := data["organization"].(map[string]any)
		conn := org["inviteLinksConnection"].(map[string]any)
		info := conn["pageInfo"].(map[string]any)
		if org["inviteLinks"] != true || conn["totalCount"].(float64) != 2 || info["hasNextPage"] != true ||
			conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"] != newest[0] {
			t.Fatalf("first page: %v", org)
		}
		data = s.MustGraphQL(t, alice.Token, q, map[string]any{"org": acme, "after": info["endCursor"]})
		conn = data["organization"].(map[string]any)["inviteLinksConnection"].(map[string]any)
		if conn["pageInfo"].(map[string]any)["hasNextPage"] != false || conn["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"] != newest[1] {
			t.Fatalf("second page: %v", conn)
		}

		// Joining: the result says whether anything changed, and the
		// organization is visible to the new member in the same request.
		join := `mutation($org: ID!, $id: ID!) { joinOrganizationWithInvite(organizationId: $org, id: $id) { redundant invite { role redundant } organization { id permissions { view admin } } } }`
		res := s.MustGraphQL(t, dave.Token, join, map[string]any{"org": acme, "id": ids[1]})["joinOrganizationWithInvite"].(map[string]any)
		if res["redundant"] != false || res["invite"].(map[string]any)["role"] != "edit" || res["invite"].(map[string]any)["redundant"] != true ||
			res["organization"].(map[string]any)["permissions"].(map[string]any)["view"] != true {
			t.Fatalf("join: %v", res)
		}
		if m := s.Client().Member.Query().Where(member.OrganizationID(acme), member.UserID(dave.ID)).OnlyX(ctx); *m.Role != access.Edit {
			t.Fatalf("member: %+v", m)
		}

		update := `mutation($org: ID!, $id: ID!) { updateOrganizationInvite(organizationId: $org, id: $id, input: {role: admin}) { role } }`
		if r := s.MustGraphQL(t, alice.Token, update, map[string]any{"org": acme, "id": ids[0]}); r["updateOrganizationInvite"].(map[string]any)["role"] != "admin" {
			t.Fatalf("update: %v", r)
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			token, query string
			vars         map[string]any
			code         string
		}{
			{carol.Token, update, map[string]any{"org": acme, "id": ids[0]}, "FORBIDDEN"},
			{carol.Token, `query($org: ID!, $id: ID!) { organizationInviteLink(organizationId: $org, id: $id) { id } }`, map[string]any{"org": acme, "id": ids[0]}, "FORBIDDEN"},
			{alice.Token, update, map[string]any{"org": acme, "id": "unknown"}, "NOT_FOUND"},
			{dave.Token, join, map[string]any{"org": acme, "id": "unknown"}, "NOT_FOUND"},
		} {
			_, errs := s.GraphQL(t, c.token, c.query, c.vars)
			if len(errs) != 1 || errs[0].Extensions["code"] != c.code {
				t.Fatalf("%v: %+v", c.vars, errs)
			}
		}
		// A role that is not one is refused by GraphQL validation.
		if _, errs := s.GraphQL(t, alice.Token, create, map[string]any{"org": acme, "role": "boss"}); len(errs) == 0 {
			t.Fatal("role boss accepted")
		}
		s.Unchanged(t, before)

		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $id: ID!) { deleteOrganizationInvite(organizationId: $org, id: $id) }`, map[string]any{"org": acme, "id": ids[0]})
		if data["deleteOrganizationInvite"] != true || s.Client().Invite.Query().CountX(ctx) != 1 {
			t.Fatalf("delete: %v", data)
		}
	})
}
