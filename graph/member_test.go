package graph_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestMembersAndTeamsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		gina, _ := s.NewUser(t, "gina@guest.org", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))
		s.AddMember(t, acme, gina, nil)
		vars := func(kv ...any) map[string]any {
			m := map[string]any{"org": acme}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		code := func(errs []testkit.GraphQLError) string {
			if len(errs) != 1 {
				t.Fatalf("want one error, got %+v", errs)
			}
			return fmt.Sprint(errs[0].Extensions["code"])
		}

		// Teams: create with members, rename, bulk membership changes.
		data := s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $m: [String!]) { createTeam(organizationId: $org, title: "Writers", members: $m) { id title members permissions { admin view } } }`,
			vars("m", []string{carol.Email, gina.ID}))
		team := data["createTeam"].(map[string]any)
		teamID := team["id"].(string)
		if team["title"] != "Writers" || team["members"] != 2.0 || team["permissions"].(map[string]any)["admin"] != true {
			t.Fatalf("created: %v", team)
		}
		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $team: ID!) { updateTeam(organizationId: $org, teamId: $team, title: "Authors") { title } }`, vars("team", teamID))
		if data["updateTeam"].(map[string]any)["title"] != "Authors" {
			t.Fatalf("renamed: %v", data)
		}
		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $team: ID!, $ms: [TeamMembershipInput!]) {
			updateTeamMembers(organizationId: $org, teamId: $team, add: ["alice@acme.com"], remove: ["not-a-user", "gina@guest.org"], memberships: $ms) { members } }`,
			vars("team", teamID, "ms", []map[string]any{{"user": carol.ID, "role": "owner"}, {"user": gina.ID, "role": "owner"}}))
		if data["updateTeamMembers"].(map[string]any)["members"] != 2.0 {
			t.Fatalf("after update: %v", data)
		}
		if roles := s.TeamRoles(t, teamID); len(roles) != 2 || roles[carol.ID] != "owner" || roles[alice.ID] != "member" {
			t.Fatalf("stored: %v", roles)
		}
		data = s.MustGraphQL(t, carol.Token, `mutation($org: ID!, $team: ID!, $u: ID!) { addTeamMember(organizationId: $org, teamId: $team, userId: $u, role: owner) { role user { id } member { id role } team { id } permissions { view } } }`,
			vars("team", teamID, "u", gina.ID))
		tm := data["addTeamMember"].(map[string]any)
		if tm["role"] != "owner" || tm["user"].(map[string]any)["id"] != gina.ID || tm["member"].(map[string]any)["role"] != nil || tm["permissions"].(map[string]any)["view"] != true {
			t.Fatalf("added: %v", tm)
		}

		// Reading: members with filters and their teams; the team's members.
		data = s.MustGraphQL(t, carol.Token, `query($org: ID!) { organization(id: $org) {
			all: members(first: 2, order: asc) { totalCount pageInfo { hasNextPage } edges { cursor node { id user { id } role joinedAt } } }
			guests: members(role: guest) { totalCount edges { node { user { id } role } } }
			found: members(search: "CAROL") { edges { node { id user { id } sso spaces joinedAt lastSeenAt teams { totalCount edges { role node { title } } } } } }
			teams(title: "auth") { totalCount edges { node { id teamMembers(first: 10) { totalCount edges { node { role user { email } } } } } } }
		} }`, vars())
		org := data["organization"].(map[string]any)
		all := org["all"].(map[string]any)
		if all["totalCount"] != 3.0 || all["pageInfo"].(map[string]any)["hasNextPage"] != true {
			t.Fatalf("members: %v", all)
		}
		// The three joined within a few milliseconds, often within one: the
		// order is (joinedAt, member row id), not the order of the calls
		// above, and the second page follows the first without a gap or a
		// repeat.
		edges := all["edges"].([]any)
		cursor := edges[len(edges)-1].(map[string]any)["cursor"]
		data = s.MustGraphQL(t, carol.Token, `query($org: ID!, $after: String) { organization(id: $org) {
			members(first: 2, order: asc, after: $after) { pageInfo { hasNextPage } edges { node { id user { id } role joinedAt } } } } }`, vars("after", cursor))
		rest := data["organization"].(map[string]any)["members"].(map[string]any)
		if rest["pageInfo"].(map[string]any)["hasNextPage"] != false {
			t.Fatalf("second page: %v", rest)
		}
		edges = append(edges, rest["edges"].([]any)...)
		roles := map[string]any{}
		var prev time.Time
		for i, e := range edges {
			node := e.(map[string]any)["node"].(map[string]any)
			at, err := time.Parse(time.RFC3339Nano, node["joinedAt"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if at.Before(prev) {
				t.Fatalf("members out of joinedAt order at %d: %v", i, edges)
			}
			prev = at
			roles[node["user"].(map[string]any)["id"].(string)] = node["role"]
			if node["id"] == node["user"].(map[string]any)["id"] {
				t.Fatalf("a member's id is its user's: %v", node)
			}
		}
		if want := map[string]any{alice.ID: "admin", carol.ID: "read", gina.ID: nil}; len(edges) != 3 || fmt.Sprint(roles) != fmt.Sprint(want) {
			t.Fatalf("members: %v, want %v", edges, want)
		}
		guests := org["guests"].(map[string]any)
		if guests["totalCount"] != 1.0 || guests["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["user"].(map[string]any)["id"] != gina.ID {
			t.Fatalf("guests: %v", guests)
		}
		found := org["found"].(map[string]any)["edges"].([]any)
		if len(found) != 1 {
			t.Fatalf("search: %v", found)
		}
		c := found[0].(map[string]any)["node"].(map[string]any)
		ct := c["teams"].(map[string]any)
		if dig(c, "user", "id") != carol.ID || c["id"] != model.NodeID(model.MemberNode, acme, carol.ID) || c["spaces"] != 0.0 || c["lastSeenAt"] != nil || ct["totalCount"] != 1.0 {
			t.Fatalf("carol: %v", c)
		}
		if e := ct["edges"].([]any)[0].(map[string]any); e["role"] != "owner" || e["node"].(map[string]any)["title"] != "Authors" {
			t.Fatalf("carol's teams: %v", ct)
		}
		teams := org["teams"].(map[string]any)
		if teams["totalCount"] != 1.0 {
			t.Fatalf("teams: %v", teams)
		}
		tms := teams["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["teamMembers"].(map[string]any)
		if tms["totalCount"] != 3.0 || len(tms["edges"].([]any)) != 3 {
			t.Fatalf("team members: %v", tms)
		}

		// Members: role changes, SSO, the last admin.
		update := `mutation($org: ID!, $u: ID!, $in: UpdateMemberInput!) { updateMember(organizationId: $org, userId: $u, input: $in) { id role } }`
		data = s.MustGraphQL(t, alice.Token, update, vars("u", carol.ID, "in", map[string]any{"role": nil}))
		if m := data["updateMember"].(map[string]any); m["id"] != model.NodeID(model.MemberNode, acme, carol.ID) || m["role"] != nil {
			t.Fatalf("guest: %v", m)
		}
		data = s.MustGraphQL(t, alice.Token, update, vars("u", carol.ID, "in", map[string]any{}))
		if m := data["updateMember"].(map[string]any); m["role"] != nil {
			t.Fatalf("absent role changed it: %v", m)
		}
		s.MustGraphQL(t, alice.Token, update, vars("u", carol.ID, "in", map[string]any{"role": "read"}))
		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $u: ID!) { setMemberSSO(organizationId: $org, userId: $u) { sso } }`, vars("u", carol.ID))
		if data["setMemberSSO"].(map[string]any)["sso"] != true {
			t.Fatalf("sso: %v", data)
		}

		before := s.Snapshot(t)
		_, errs := s.GraphQL(t, alice.Token, update, vars("u", alice.ID, "in", map[string]any{"role": "read"}))
		if code(errs) != "CONFLICT" {
			t.Fatalf("demoting the last admin: %+v", errs)
		}
		_, errs = s.GraphQL(t, alice.Token, `mutation($org: ID!, $u: ID!) { removeMember(organizationId: $org, userId: $u) }`, vars("u", alice.ID))
		if code(errs) != "CONFLICT" {
			t.Fatalf("removing the last admin: %+v", errs)
		}
		for _, c := range []struct {
			token, query string
			vars         map[string]any
			code, field  string
		}{
			{carol.Token, update, vars("u", carol.ID, "in", map[string]any{"role": "admin"}), "FORBIDDEN", ""},
			{gina.Token, update, vars("u", carol.ID, "in", map[string]any{"role": "admin"}), "NOT_FOUND", ""},
			{bob.Token, update, vars("u", carol.ID, "in", map[string]any{"role": "admin"}), "NOT_FOUND", ""},
			{alice.Token, `mutation($org: ID!) { createTeam(organizationId: $org, title: "") { id } }`, vars(), "BAD_USER_INPUT", "title"},
			{alice.Token, fmt.Sprintf(`mutation($org: ID!) { createTeam(organizationId: $org, title: %q) { id } }`, strings.Repeat("a", 65)), vars(), "BAD_USER_INPUT", "title"},
			{alice.Token, `mutation($org: ID!) { createTeam(organizationId: $org, title: "T", members: ["bob@bobs.io"]) { id } }`, vars(), "BAD_USER_INPUT", "members"},
			{carol.Token, `mutation($org: ID!) { createTeam(organizationId: $org, title: "T") { id } }`, vars(), "FORBIDDEN", ""},
			{bob.Token, `mutation($org: ID!) { createTeam(organizationId: $org, title: "T") { id } }`, vars(), "NOT_FOUND", ""},
			{alice.Token, `mutation($org: ID!, $team: ID!) { updateTeam(organizationId: $org, teamId: $team, title: "") { id } }`, vars("team", teamID), "BAD_USER_INPUT", "title"},
			{gina.Token, `mutation($org: ID!, $team: ID!) { deleteTeam(organizationId: $org, teamId: $team) }`, vars("team", teamID), "NOT_FOUND", ""},
			{alice.Token, `mutation($team: ID!, $org: ID!) { deleteTeam(organizationId: $org, teamId: $team) }`, vars("org", bobs, "team", teamID), "NOT_FOUND", ""},
			{alice.Token, `mutation($org: ID!, $team: ID!) { updateTeamMembers(organizationId: $org, teamId: $team, add: ["bob@bobs.io"]) { id } }`, vars("team", teamID), "BAD_USER_INPUT", "add"},
			{gina.Token, `query($org: ID!) { organization(id: $org) { members { totalCount } } }`, vars(), "FORBIDDEN", ""},
			{gina.Token, `query($org: ID!) { organization(id: $org) { teams { totalCount } } }`, vars(), "FORBIDDEN", ""},
			{alice.Token, `query($org: ID!) { organization(id: $org) { members(first: 0) { totalCount } } }`, vars(), "BAD_USER_INPUT", "first"},
		} {
			_, errs := s.GraphQL(t, c.token, c.query, c.vars)
			if code(errs) != c.code || (c.field != "" && errs[0].Extensions["field"] != c.field) {
				t.Fatalf("%s: %+v", c.query, errs)
			}
		}
		s.Unchanged(t, before)

		// Leaving a team, deleting it, removing a member.
		data = s.MustGraphQL(t, gina.Token, `mutation($org: ID!) { removeMember(organizationId: $org, userId: "`+gina.ID+`") }`, vars())
		if data["removeMember"] != true || s.MemberOf(t, acme, gina.ID) != nil || s.TeamRoles(t, teamID)[gina.ID] != "" {
			t.Fatalf("gina left: %v %v", data, s.TeamRoles(t, teamID))
		}
		s.MustGraphQL(t, carol.Token, `mutation($org: ID!, $team: ID!, $u: ID!) { removeTeamMember(organizationId: $org, teamId: $team, userId: $u) }`, vars("team", teamID, "u", alice.ID))
		s.MustGraphQL(t, carol.Token, `mutation($org: ID!, $team: ID!) { deleteTeam(organizationId: $org, teamId: $team) }`, vars("team", teamID))
		if len(s.TeamRoles(t, teamID)) != 0 {
			t.Fatal("team members left behind")
		}
	})
}

// TestMembersStatementCount holds the members page with each member's user
// and team count to a fixed number of SQL statements.
func TestMembersStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) int64 {
			owner, org := s.NewUser(t, fmt.Sprintf("owner%d@example.com", n), fmt.Sprintf("Org %d", n))
			users := s.AddUsers(t, org, fmt.Sprintf("Member%d-", n), n-1, testkit.RoleOf(access.Read))
			ids := make([]string, len(users))
			for i, u := range users {
				ids[i] = u.ID
			}
			for _, title := range []string{"One", "Two"} {
				s.MustGraphQL(t, owner.Token, `mutation($org: ID!, $t: String!, $m: [String!]) { createTeam(organizationId: $org, title: $t, members: $m) { id } }`,
					map[string]any{"org": org, "t": title, "m": ids})
			}
			before := s.Statements()
			data := s.MustGraphQL(t, owner.Token, `query($id: ID!) { organization(id: $id) { members(first: 100) { edges { node { user { displayName } teams { totalCount } } } } } }`,
				map[string]any{"id": org})
			after := s.Statements()
			edges := data["organization"].(map[string]any)["members"].(map[string]any)["edges"].([]any)
			if len(edges) != n {
				t.Fatalf("%d members, want %d", len(edges), n)
			}
			for _, e := range edges {
				node := e.(map[string]any)["node"].(map[string]any)
				want := 2.0
				if strings.HasPrefix(node["user"].(map[string]any)["displayName"].(string), "owner") {
					want = 0
				}
				if node["teams"].(map[string]any)["totalCount"] != want {
					t.Fatalf("member: %v", node)
				}
			}
			return after - before
		}
		ten, hundred := count(10), count(100)
		if ten != hundred {
			t.Fatalf("statements: %d for 10 members, %d for 100", ten, hundred)
		}
		t.Logf("%d statements for 10 and for 100 members", ten)
	})
}

// memberTeamsTree is the organization → members → user + teams (edges,
// with each team's fields) tree.
const memberTeamsTree = `query($id: ID!) { organization(id: $id) { members(first: 300) { totalCount edges { node {
	user { id displayName } teams { totalCount edges { role cursor node { id title members permissions { admin view } } } } } } } } }`

// membersInTeams makes an organization of n members (its owner included)
// and three teams, team k holding every k-th member, so edges differ from
// member to member; inTeams counts each member's teams.
func membersInTeams(t testing.TB, s *testkit.Server, n int) (owner testkit.User, org string, inTeams map[string]int) {
	owner, org = s.NewUser(t, fmt.Sprintf("owner%d@example.com", n), fmt.Sprintf("Org %d", n))
	users := s.AddUsers(t, org, fmt.Sprintf("Member%d-", n), n-1, testkit.RoleOf(access.Read))
	inTeams = map[string]int{}
	for k := 1; k <= 3; k++ {
		var ids []string
		for i, u := range users {
			if i%k == 0 {
				ids = append(ids, u.ID)
				inTeams[u.ID]++
			}
		}
		s.MustGraphQL(t, owner.Token, `mutation($org: ID!, $t: String!, $m: [String!]) { createTeam(organizationId: $org, title: $t, members: $m) { id } }`,
			map[string]any{"org": org, "t": fmt.Sprintf("Team %d", k), "m": ids})
	}
	return owner, org, inTeams
}

// TestMemberTeamsEdgesStatementCount holds the organization → members →
// user + teams (edges, with each team's fields) tree to a fixed number of
// SQL statements: 100 members cost what 200 do. Teams hold different
// members, so edges differ from member to member.
func TestMemberTeamsEdgesStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) int64 {
			owner, org, inTeams := membersInTeams(t, s, n)
			before := s.Statements()
			data := s.MustGraphQL(t, owner.Token, memberTeamsTree, map[string]any{"id": org})
			after := s.Statements()
			edges := data["organization"].(map[string]any)["members"].(map[string]any)["edges"].([]any)
			if len(edges) != n {
				t.Fatalf("%d members, want %d", len(edges), n)
			}
			for _, e := range edges {
				node := e.(map[string]any)["node"].(map[string]any)
				teams := node["teams"].(map[string]any)
				tedges := teams["edges"].([]any)
				if teams["totalCount"] != float64(len(tedges)) {
					t.Fatalf("totalCount %v with %d edges", teams["totalCount"], len(tedges))
				}
				name := node["user"].(map[string]any)["displayName"].(string)
				want := inTeams[node["user"].(map[string]any)["id"].(string)]
				if len(tedges) != want {
					t.Fatalf("%s: %d teams, want %d", name, len(tedges), want)
				}
				for _, te := range tedges {
					tn := te.(map[string]any)["node"].(map[string]any)
					if te.(map[string]any)["role"] != "member" || tn["permissions"].(map[string]any)["admin"] != true || tn["members"].(float64) < 1 {
						t.Fatalf("team edge: %v", te)
					}
				}
			}
			return after - before
		}
		hundred, twoHundred := count(100), count(200)
		if hundred != twoHundred {
			t.Fatalf("statements: %d for 100 members, %d for 200", hundred, twoHundred)
		}
		t.Logf("%d statements for 100 and for 200 members", hundred)
	})
}
