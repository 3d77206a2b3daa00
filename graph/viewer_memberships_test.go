package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// Authentication brings the caller's memberships (up to 50) with the user,
// so reads decide roles without asking again. A caller in more
// organizations than that, one who joins an organization in the request,
// and one in none must still get the right role everywhere.
func TestViewerMembershipsFromAuthentication(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := testkit.Fixture(context.Background())
		owner, _ := s.NewUser(t, "owner@acme.com", "")
		bot, _ := s.NewUser(t, "bot@acme.com", "")
		loner, _ := s.NewUser(t, "loner@acme.com", "")
		// 52 organizations: the bot is an admin of the even ones and a
		// reader of the odd ones, more than authentication brings.
		var orgs []string
		for i := range 52 {
			org := s.Client().Organization.Create().SetTitle(fmt.Sprintf("Org %02d", i)).SaveX(ctx)
			s.AddMember(t, org.ID, owner, testkit.RoleOf(access.Admin))
			role := access.Read
			if i%2 == 0 {
				role = access.Admin
			}
			s.AddMember(t, org.ID, bot, testkit.RoleOf(role))
			orgs = append(orgs, org.ID)
		}
		stranger := s.Client().Organization.Create().SetTitle("Elsewhere").SaveX(ctx)
		s.AddMember(t, stranger.ID, owner, testkit.RoleOf(access.Admin))

		for i, org := range orgs {
			got := s.MustGraphQL(t, bot.Token, `query($id: ID!) { node(id: $id) { ... on Organization { permissions { view admin } } } }`,
				map[string]any{"id": org})
			perms := got["node"].(map[string]any)["permissions"].(map[string]any)
			if perms["view"] != true || perms["admin"] != (i%2 == 0) {
				t.Fatalf("org %d: permissions %v, want view and admin=%v", i, perms, i%2 == 0)
			}
		}
		if s.Request(t, bot.Token, "GET", "/v1/orgs/"+stranger.ID, nil).Status != 404 {
			t.Fatal("an organization the bot is not in should be a 404")
		}
		if s.Request(t, loner.Token, "GET", "/v1/orgs/"+orgs[0], nil).Status != 404 {
			t.Fatal("a caller in no organization should get a 404")
		}
		// Joining in the request: the new organization's permissions come
		// from the membership just made, not from what authentication read.
		created := s.MustGraphQL(t, loner.Token, `mutation { createOrganization(input: {title: "Mine"}) { permissions { view admin } } }`, nil)
		perms := created["createOrganization"].(map[string]any)["permissions"].(map[string]any)
		if perms["view"] != true || perms["admin"] != true {
			t.Fatalf("a new organization's creator: permissions %v, want view and admin", perms)
		}
	})
}
