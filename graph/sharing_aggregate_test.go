package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

const spacesAccessQuery = `query($org: ID!) { organization(id: $org) {
	spaces(first: 100) { edges { node { id viewerRole viewerRoleOrigin { type }
		access(first: 5) { totalCount edges { node { role user { email } member { role }
			origin { type team { id title } collection { id } organization { id } } } } } } } }
	teams(first: 10) { edges { node { spaces sharedSpaces(first: 5) { totalCount edges { role node { id } } }
		sharedCollections(first: 5) { totalCount edges { role node { id } } } sharedSites(first: 5) { totalCount } } } } } }`

// TestSpacesAccessStatements: a GraphQL query of N spaces with the users
// who have access to each (access(first: 5), with every origin's team,
// collection and organization) and of the teams with what they are given
// costs the same statements for N=6 and N=20, and says what the rule says.
func TestSpacesAccessStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) int64 {
			ctx := testkit.Fixture(context.Background())
			c := s.Client()
			admin, org := s.NewUser(t, fmt.Sprintf("admin%d@example.com", n), "Org")
			reader, _ := s.NewUser(t, fmt.Sprintf("reader%d@example.com", n), "")
			s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
			guest, _ := s.NewUser(t, fmt.Sprintf("guest%d@example.com", n), "")
			s.AddMember(t, org, guest, nil)
			teamGuest, _ := s.NewUser(t, fmt.Sprintf("teamguest%d@example.com", n), "")
			s.AddMember(t, org, teamGuest, nil)
			team := c.Team.Create().SetOrganizationID(org).SetTitle("Writers").SaveX(ctx)
			c.TeamMember.Create().SetTeamID(team.ID).SetUserID(teamGuest.ID).ExecX(ctx)
			coll := c.Collection.Create().SetOrganizationID(org).SetPosition(0).SetDefaultLevel(collection.DefaultLevelEdit).SaveX(ctx)
			seedSpaces(t, s, org, nil, n/2)
			seedSpaces(t, s, org, &coll.ID, n-n/2)
			give := func(kind grant.ObjectKind, obj string, pk grant.PrincipalKind, p string, r access.Role) {
				c.Grant.Create().SetOrganizationID(org).SetObjectKind(kind).SetObjectID(obj).SetPrincipalKind(pk).SetPrincipalID(p).SetRole(r).ExecX(ctx)
			}
			give(grant.ObjectKindCollection, coll.ID, grant.PrincipalKindTeam, team.ID, access.Comment)
			for _, sp := range c.Space.Query().Where(space.OrganizationID(org)).AllX(ctx) {
				give(grant.ObjectKindSpace, sp.ID, grant.PrincipalKindUser, guest.ID, access.Review)
				give(grant.ObjectKindSpace, sp.ID, grant.PrincipalKindTeam, team.ID, access.Read)
			}

			before := s.Statements()
			data := s.MustGraphQL(t, reader.Token, spacesAccessQuery, map[string]any{"org": org})
			statements := s.Statements() - before

			edges := data["organization"].(map[string]any)["spaces"].(map[string]any)["edges"].([]any)
			if len(edges) != n {
				t.Fatalf("%d spaces, want %d", len(edges), n)
			}
			inColl := 0
			for _, e := range edges {
				sp := e.(map[string]any)["node"].(map[string]any)
				got := map[string]string{}
				for _, a := range sp["access"].(map[string]any)["edges"].([]any) {
					node := a.(map[string]any)["node"].(map[string]any)
					o := node["origin"].(map[string]any)
					desc := fmt.Sprintf("%v %v", node["role"], o["type"])
					if tm, ok := o["team"].(map[string]any); ok {
						desc += " " + tm["title"].(string)
					}
					if cl, ok := o["collection"].(map[string]any); ok && cl["id"] == coll.ID {
						desc += " coll"
					}
					got[node["user"].(map[string]any)["email"].(string)] = desc
				}
				want := map[string]string{
					admin.Email:  "admin organization",
					reader.Email: "read organization",
					guest.Email:  "review direct",
					// On a space at the root, the team's read on it; in the
					// collection, the team's comment on the collection wins.
					teamGuest.Email: "read team Writers",
				}
				if got[reader.Email] == "edit organization" {
					inColl++
					want[reader.Email] = "edit organization"
					want[teamGuest.Email] = "comment collection Writers coll"
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("space %v access:\n got  %v\n want %v", sp["id"], got, want)
				}
				if sp["viewerRole"] != want[reader.Email][:4] || sp["viewerRoleOrigin"].(map[string]any)["type"] != "organization" {
					t.Fatalf("viewer role %v %v", sp["viewerRole"], sp["viewerRoleOrigin"])
				}
			}
			if inColl != n-n/2 {
				t.Fatalf("%d spaces in the collection, want %d", inColl, n-n/2)
			}
			teams := data["organization"].(map[string]any)["teams"].(map[string]any)["edges"].([]any)
			tm := teams[0].(map[string]any)["node"].(map[string]any)
			if tm["spaces"] != float64(n) || tm["sharedSpaces"].(map[string]any)["totalCount"] != float64(n) ||
				tm["sharedCollections"].(map[string]any)["totalCount"] != float64(1) {
				t.Fatalf("team: %v", tm)
			}
			for _, e := range tm["sharedSpaces"].(map[string]any)["edges"].([]any) {
				if e.(map[string]any)["role"] != "read" || e.(map[string]any)["node"] == nil {
					t.Fatalf("team space edge %v", e)
				}
			}
			return statements
		}
		// Six spaces fill the team's first page of shared spaces, as twenty
		// do: a list whose first page is not full needs no count
		// statement (listPagesBy), so fewer would cost one less.
		six, twenty := count(6), count(20)
		if six != twenty {
			t.Fatalf("statements: %d for 6 spaces, %d for 20", six, twenty)
		}
		t.Logf("%d statements for 6 and for 20 spaces", six)
	})
}
