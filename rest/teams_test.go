package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

type teamList struct {
	Items []struct {
		ID, Title   string
		Members     int
		Permissions map[string]bool
	}
	Count int
	Next  *struct{ Page string }
}

func TestTeams(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newMemberWorld(t, s)
		teams := "/v1/orgs/" + w.acme + "/teams"

		// Create (admins), with members by id or email.
		resp := s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", teams,
			map[string]any{"title": "Writers", "members": []string{w.carol.ID, "GINA@guest.org", w.carol.Email}, "extra": true}, 201)
		tm := resp.JSON(t)
		writers := tm["id"].(string)
		if tm["object"] != "team" || tm["title"] != "Writers" || tm["members"] != 2.0 || tm["spaces"] != 0.0 {
			t.Fatalf("created: %v", tm)
		}
		if p := tm["permissions"].(map[string]any); p["admin"] != true || p["view"] != true {
			t.Fatalf("permissions: %v", p)
		}
		if resp.Header.Get("Location") != s.URL+teams+"/"+writers {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		if roles := s.TeamRoles(t, writers); len(roles) != 2 || roles[w.carol.ID] != "member" || roles[w.gina.ID] != "member" {
			t.Fatalf("stored members: %v", roles)
		}
		// Title bounds: 1 and 64 characters.
		one := s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", teams, map[string]any{"title": "x"}, 201).JSON(t)["id"].(string)
		long := strings.Repeat("é", 64)
		if got := s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", teams, map[string]any{"title": long}, 201).JSON(t)["title"]; got != long {
			t.Fatalf("64-character title: %v", got)
		}
		bobsTeam := s.Call(t, "createOrganizationTeam", w.bob.Token, "PUT", "/v1/orgs/"+w.bobs+"/teams", map[string]any{"title": "Bobs"}, 201).JSON(t)["id"].(string)

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"title": "x"`, "malformed"},
			{`"Writers"`, "object"},
			{``, "required"},
			{map[string]any{}, "title"},
			{map[string]any{"title": nil}, "title"},
			{map[string]any{"title": ""}, "title"},
			{map[string]any{"title": strings.Repeat("a", 65)}, "title"},
			{map[string]any{"title": 12}, "title"},
			{map[string]any{"title": "Fine", "members": "carol"}, "members"},
			{map[string]any{"title": "Fine", "members": []any{1}}, "members"},
			{map[string]any{"title": "Fine", "members": []string{w.carol.ID, w.dan.ID}}, w.dan.ID},
			{map[string]any{"title": "Fine", "members": []string{"nobody@nowhere.org"}}, "nobody@nowhere.org"},
			{map[string]any{"title": "Fine", "members": []string{""}}, "members"},
		} {
			msg := s.Fail(t, "createOrganizationTeam", w.alice.Token, "PUT", teams, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		fine := map[string]any{"title": "Fine"}
		s.Fail(t, "createOrganizationTeam", w.carol.Token, "PUT", teams, fine, 403)
		s.Fail(t, "createOrganizationTeam", w.gina.Token, "PUT", teams, fine, 403)
		s.Fail(t, "createOrganizationTeam", w.bob.Token, "PUT", teams, fine, 404)
		s.Fail(t, "createOrganizationTeam", w.alice.Token, "PUT", "/v1/orgs/nosuchorg00000000000/teams", fine, 404)
		s.Fail(t, "createOrganizationTeam", "", "PUT", teams, fine, 401)
		s.Unchanged(t, before)
		if n := s.Client().Team.Query().Where(team.Title("Fine")).CountX(ctx); n != 0 {
			t.Fatalf("%d teams made by failing requests", n)
		}

		// Read: members with a role see teams; guests and strangers do not.
		got := s.Call(t, "getTeamInOrganizationById", w.carol.Token, "GET", teams+"/"+writers, nil, 200).JSON(t)
		if got["title"] != "Writers" || got["members"] != 2.0 || got["permissions"].(map[string]any)["admin"] != false {
			t.Fatalf("carol's view: %v", got)
		}
		s.Fail(t, "getTeamInOrganizationById", w.gina.Token, "GET", teams+"/"+writers, nil, 404)
		s.Fail(t, "getTeamInOrganizationById", w.bob.Token, "GET", teams+"/"+writers, nil, 404)
		s.Fail(t, "getTeamInOrganizationById", w.alice.Token, "GET", teams+"/nosuchteam0000000000", nil, 404)
		s.Fail(t, "getTeamInOrganizationById", w.alice.Token, "GET", teams+"/"+bobsTeam, nil, 404)
		s.Fail(t, "getTeamInOrganizationById", w.bob.Token, "GET", teams+"/"+bobsTeam, nil, 404)
		s.Fail(t, "getTeamInOrganizationById", "", "GET", teams+"/"+writers, nil, 401)

		// List, with the title and owner filters.
		var env teamList
		s.Call(t, "listTeamsInOrganizationById", w.carol.Token, "GET", teams, nil, 200).Decode(t, &env)
		if env.Count != 3 || len(env.Items) != 3 || env.Next != nil || env.Items[2].ID != writers {
			t.Fatalf("teams: %+v", env)
		}
		s.Call(t, "listTeamsInOrganizationById", w.carol.Token, "GET", teams+"?title=wRiT", nil, 200).Decode(t, &env)
		if env.Count != 1 || env.Items[0].ID != writers {
			t.Fatalf("title filter: %+v", env)
		}
		s.Call(t, "listTeamsInOrganizationById", w.carol.Token, "GET", teams+"?limit=2&order=asc", nil, 200).Decode(t, &env)
		if len(env.Items) != 2 || env.Next == nil || env.Items[0].ID != writers || env.Items[1].ID != one {
			t.Fatalf("first page: %+v", env)
		}
		next := env.Next.Page
		env.Next = nil
		s.Call(t, "listTeamsInOrganizationById", w.carol.Token, "GET", teams+"?limit=2&order=asc&page="+next, nil, 200).Decode(t, &env)
		if len(env.Items) != 1 || env.Next != nil {
			t.Fatalf("last page: %+v", env)
		}
		// owner: an admin manages every team; carol none until she owns one.
		for who, want := range map[string]int{w.alice.ID: 3, w.carol.ID: 0} {
			s.Call(t, "listTeamsInOrganizationById", w.carol.Token, "GET", teams+"?owner="+who, nil, 200).Decode(t, &env)
			if env.Count != want {
				t.Fatalf("owner=%s: %d teams, want %d", who, env.Count, want)
			}
		}
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", teams+"/"+writers+"/members/"+w.carol.ID, map[string]any{"role": "owner"}, 204)
		s.Call(t, "listTeamsInOrganizationById", w.alice.Token, "GET", teams+"?owner="+w.carol.ID, nil, 200).Decode(t, &env)
		if env.Count != 1 || env.Items[0].ID != writers {
			t.Fatalf("owner=carol: %+v", env)
		}
		if msg := s.Fail(t, "listTeamsInOrganizationById", w.alice.Token, "GET", teams+"?owner="+w.dan.ID, nil, 400); !strings.Contains(msg, "owner") {
			t.Fatalf("owner=dan: %q", msg)
		}
		s.Fail(t, "listTeamsInOrganizationById", w.alice.Token, "GET", teams+"?limit=5000", nil, 400)
		s.Fail(t, "listTeamsInOrganizationById", w.gina.Token, "GET", teams, nil, 403)
		s.Fail(t, "listTeamsInOrganizationById", w.bob.Token, "GET", teams, nil, 404)
		s.Fail(t, "listTeamsInOrganizationById", "", "GET", teams, nil, 401)

		// Update: the team's owners (carol, a reader) and admins.
		got = s.Call(t, "updateTeamInOrganizationById", w.carol.Token, "PATCH", teams+"/"+writers, map[string]any{"title": "Authors"}, 200).JSON(t)
		if got["title"] != "Authors" || got["permissions"].(map[string]any)["admin"] != true || s.Client().Team.GetX(ctx, writers).Title != "Authors" {
			t.Fatalf("renamed: %v", got)
		}
		s.Call(t, "updateTeamInOrganizationById", w.alice.Token, "PATCH", teams+"/"+one, map[string]any{"title": strings.Repeat("z", 64)}, 200)
		before = s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"title": `, "malformed"},
			{``, "required"},
			{map[string]any{}, "title"},
			{map[string]any{"title": ""}, "title"},
			{map[string]any{"title": strings.Repeat("a", 65)}, "title"},
			{map[string]any{"title": false}, "title"},
		} {
			msg := s.Fail(t, "updateTeamInOrganizationById", w.alice.Token, "PATCH", teams+"/"+writers, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		rename := map[string]any{"title": "Mine"}
		s.Fail(t, "updateTeamInOrganizationById", w.carol.Token, "PATCH", teams+"/"+one, rename, 403)
		s.Fail(t, "updateTeamInOrganizationById", w.gina.Token, "PATCH", teams+"/"+writers, rename, 404)
		s.Fail(t, "updateTeamInOrganizationById", w.bob.Token, "PATCH", teams+"/"+writers, rename, 404)
		s.Fail(t, "updateTeamInOrganizationById", w.alice.Token, "PATCH", teams+"/"+bobsTeam, rename, 404)
		s.Fail(t, "updateTeamInOrganizationById", w.alice.Token, "PATCH", teams+"/nosuchteam0000000000", rename, 404)
		s.Fail(t, "updateTeamInOrganizationById", "", "PATCH", teams+"/"+writers, rename, 401)

		// Delete: the same people; memberships go with the team.
		s.Fail(t, "removeTeamFromOrganizationById", w.carol.Token, "DELETE", teams+"/"+one, nil, 403)
		s.Fail(t, "removeTeamFromOrganizationById", w.gina.Token, "DELETE", teams+"/"+writers, nil, 404)
		s.Fail(t, "removeTeamFromOrganizationById", w.bob.Token, "DELETE", teams+"/"+writers, nil, 404)
		s.Fail(t, "removeTeamFromOrganizationById", w.alice.Token, "DELETE", teams+"/"+bobsTeam, nil, 404)
		s.Fail(t, "removeTeamFromOrganizationById", w.alice.Token, "DELETE", teams+"/nosuchteam0000000000", nil, 404)
		s.Fail(t, "removeTeamFromOrganizationById", "", "DELETE", teams+"/"+writers, nil, 401)
		s.Unchanged(t, before)
		s.Call(t, "removeTeamFromOrganizationById", w.carol.Token, "DELETE", teams+"/"+writers, nil, 204)
		if s.Client().Team.Query().Where(team.ID(writers)).ExistX(ctx) || len(s.TeamRoles(t, writers)) != 0 {
			t.Fatal("team or its members left behind")
		}
		s.Fail(t, "getTeamInOrganizationById", w.alice.Token, "GET", teams+"/"+writers, nil, 404)
		s.Call(t, "removeTeamFromOrganizationById", w.alice.Token, "DELETE", teams+"/"+one, nil, 204)
		if !s.Client().Team.Query().Where(team.ID(bobsTeam)).ExistX(ctx) {
			t.Fatal("another organization's team was deleted")
		}
	})
}

func TestTeamMembers(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newMemberWorld(t, s)
		erin, _ := s.NewUser(t, "erin@acme.com", "")
		frank, _ := s.NewUser(t, "frank@acme.com", "")
		s.AddMember(t, w.acme, erin, testkit.RoleOf(access.Edit))
		s.AddMember(t, w.acme, frank, testkit.RoleOf(access.Read))
		teams := "/v1/orgs/" + w.acme + "/teams"
		id := s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", teams, map[string]any{"title": "Writers", "members": []string{w.carol.ID}}, 201).JSON(t)["id"].(string)
		bobsTeam := s.Call(t, "createOrganizationTeam", w.bob.Token, "PUT", "/v1/orgs/"+w.bobs+"/teams", map[string]any{"title": "Bobs", "members": []string{w.dan.ID}}, 201).JSON(t)["id"].(string)
		members := teams + "/" + id + "/members"

		// Bulk: by id or email; memberships set roles; remove wins.
		s.Call(t, "updateMembersInOrganizationTeam", w.alice.Token, "PUT", members, map[string]any{
			"add":         []string{"ERIN@acme.com", frank.ID, w.gina.ID},
			"remove":      []string{w.gina.Email, "nobody@nowhere.org"},
			"memberships": map[string]any{erin.ID: map[string]any{"role": "owner"}, w.gina.ID: map[string]any{"role": "owner"}},
		}, 204)
		roles := s.TeamRoles(t, id)
		if len(roles) != 3 || roles[w.carol.ID] != "member" || roles[erin.ID] != "owner" || roles[frank.ID] != "member" {
			t.Fatalf("after add/remove: %v", roles)
		}
		// Removing and adding a current member in one request removes them.
		s.Call(t, "updateMembersInOrganizationTeam", w.alice.Token, "PUT", members, map[string]any{
			"add": []string{w.carol.ID}, "remove": []string{w.carol.ID},
		}, 204)
		if roles := s.TeamRoles(t, id); len(roles) != 2 || roles[w.carol.ID] != "" {
			t.Fatalf("carol in add and remove: %v", roles)
		}
		// memberships alone changes a role and adds a newcomer.
		s.Call(t, "updateMembersInOrganizationTeam", w.alice.Token, "PUT", members, map[string]any{
			"memberships": map[string]any{"frank@acme.com": map[string]any{"role": "owner"}, w.carol.ID: map[string]any{"role": "member"}},
		}, 204)
		if roles := s.TeamRoles(t, id); len(roles) != 3 || roles[frank.ID] != "owner" || roles[w.carol.ID] != "member" {
			t.Fatalf("after memberships: %v", roles)
		}

		// Bad input: nothing changes, not even the valid part.
		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"add": [`, "malformed"},
			{`[]`, "object"},
			{``, "required"},
			{map[string]any{"add": "erin"}, "add"},
			{map[string]any{"remove": []any{true}}, "remove"},
			{map[string]any{"memberships": []string{"x"}}, "memberships"},
			{map[string]any{"add": []string{w.gina.ID, w.dan.ID}, "remove": []string{w.carol.ID}}, w.dan.ID},
			{map[string]any{"add": []string{"stranger@nowhere.org"}}, "stranger@nowhere.org"},
			{map[string]any{"add": []string{" "}}, "add"},
			{map[string]any{"memberships": map[string]any{w.dan.ID: map[string]any{"role": "owner"}}}, w.dan.ID},
			{map[string]any{"memberships": map[string]any{w.gina.ID: map[string]any{"role": "boss"}}}, "role"},
			{map[string]any{"memberships": map[string]any{w.gina.ID: map[string]any{}}}, "role"},
			{map[string]any{"memberships": map[string]any{w.gina.ID: map[string]any{"role": 1}}}, "role"},
		} {
			msg := s.Fail(t, "updateMembersInOrganizationTeam", w.alice.Token, "PUT", members, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		add := map[string]any{"add": []string{w.gina.ID}}
		s.Fail(t, "updateMembersInOrganizationTeam", w.carol.Token, "PUT", members, add, 403)
		s.Fail(t, "updateMembersInOrganizationTeam", w.gina.Token, "PUT", members, add, 404)
		s.Fail(t, "updateMembersInOrganizationTeam", w.bob.Token, "PUT", members, add, 404)
		s.Fail(t, "updateMembersInOrganizationTeam", w.alice.Token, "PUT", teams+"/"+bobsTeam+"/members", add, 404)
		s.Fail(t, "updateMembersInOrganizationTeam", w.alice.Token, "PUT", teams+"/nosuchteam0000000000/members", add, 404)
		s.Fail(t, "updateMembersInOrganizationTeam", "", "PUT", members, add, 401)
		s.Unchanged(t, before)

		// A team owner (frank, a reader) manages the members.
		s.Call(t, "updateMembersInOrganizationTeam", frank.Token, "PUT", members, add, 204)
		if s.TeamRoles(t, id)[w.gina.ID] != "member" {
			t.Fatal("frank could not add gina")
		}

		// List: the organization member, the team role, permissions.
		var env struct {
			Items []struct {
				Organization struct {
					ID    string
					Role  *string
					Teams int
					User  struct{ Email string }
				}
				Team        struct{ Role string }
				Permissions map[string]bool
			}
			Count int
			Next  *struct{ Page string }
		}
		s.Call(t, "listTeamMembersInOrganizationById", w.carol.Token, "GET", members, nil, 200).Decode(t, &env)
		if env.Count != 4 || len(env.Items) != 4 || env.Next != nil {
			t.Fatalf("team members: %+v", env)
		}
		got := map[string]string{}
		for _, it := range env.Items {
			got[it.Organization.User.Email] = it.Team.Role
			if !it.Permissions["view"] || it.Organization.Teams != 1 {
				t.Fatalf("item: %+v", it)
			}
			if it.Organization.ID == w.gina.ID && it.Organization.Role != nil {
				t.Fatalf("gina's role: %v", *it.Organization.Role)
			}
		}
		if got["erin@acme.com"] != "owner" || got["frank@acme.com"] != "owner" || got["carol@acme.com"] != "member" || got["gina@guest.org"] != "member" {
			t.Fatalf("roles: %v", got)
		}
		s.Call(t, "listTeamMembersInOrganizationById", w.carol.Token, "GET", members+"?limit=3", nil, 200).Decode(t, &env)
		if len(env.Items) != 3 || env.Next == nil {
			t.Fatalf("limit=3: %+v", env)
		}
		next := env.Next.Page
		env.Next = nil
		s.Call(t, "listTeamMembersInOrganizationById", w.carol.Token, "GET", members+"?limit=3&page="+next, nil, 200).Decode(t, &env)
		if len(env.Items) != 1 || env.Next != nil {
			t.Fatalf("second page: %+v", env)
		}
		s.Fail(t, "listTeamMembersInOrganizationById", w.gina.Token, "GET", members, nil, 404)
		s.Fail(t, "listTeamMembersInOrganizationById", w.bob.Token, "GET", members, nil, 404)
		s.Fail(t, "listTeamMembersInOrganizationById", w.alice.Token, "GET", teams+"/"+bobsTeam+"/members", nil, 404)
		s.Fail(t, "listTeamMembersInOrganizationById", w.alice.Token, "GET", members+"?limit=-1", nil, 400)
		s.Fail(t, "listTeamMembersInOrganizationById", "", "GET", members, nil, 401)

		// One member: PUT adds or updates; no body keeps the role.
		one := members + "/" + w.carol.ID
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", one, map[string]any{"role": "owner"}, 204)
		if s.TeamRoles(t, id)[w.carol.ID] != "owner" {
			t.Fatal("carol not owner")
		}
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", one, nil, 204)
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", one, map[string]any{}, 204)
		if s.TeamRoles(t, id)[w.carol.ID] != "owner" {
			t.Fatal("a PUT without a role changed carol's role")
		}
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", one, map[string]any{"role": "member"}, 204)
		s.Call(t, "deleteMemberFromOrganizationTeamById", w.alice.Token, "DELETE", one, nil, 204)
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", one, nil, 204)
		if s.TeamRoles(t, id)[w.carol.ID] != "member" {
			t.Fatal("a newcomer without a role is not a member")
		}

		before = s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"role": `, "malformed"},
			{map[string]any{"role": 1}, "role"},
			{map[string]any{"role": "boss"}, "role"},
		} {
			msg := s.Fail(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", one, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		owner := map[string]any{"role": "owner"}
		s.Fail(t, "addMemberToOrganizationTeamById", w.carol.Token, "PUT", one, owner, 403)
		s.Fail(t, "addMemberToOrganizationTeamById", w.gina.Token, "PUT", members+"/"+w.gina.ID, owner, 404)
		s.Fail(t, "addMemberToOrganizationTeamById", w.bob.Token, "PUT", one, owner, 404)
		s.Fail(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", members+"/"+w.dan.ID, owner, 404)
		s.Fail(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", members+"/nosuchuser0000000000", owner, 404)
		s.Fail(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", teams+"/"+bobsTeam+"/members/"+w.dan.ID, owner, 404)
		s.Fail(t, "addMemberToOrganizationTeamById", "", "PUT", one, owner, 401)

		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.carol.Token, "DELETE", members+"/"+erin.ID, nil, 403)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.gina.Token, "DELETE", one, nil, 404)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.gina.Token, "DELETE", members+"/"+w.gina.ID, nil, 404)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.bob.Token, "DELETE", one, nil, 404)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.alice.Token, "DELETE", members+"/"+w.alice.ID, nil, 404)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.alice.Token, "DELETE", members+"/nosuchuser0000000000", nil, 404)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", w.alice.Token, "DELETE", teams+"/"+bobsTeam+"/members/"+w.dan.ID, nil, 404)
		s.Fail(t, "deleteMemberFromOrganizationTeamById", "", "DELETE", one, nil, 401)
		s.Unchanged(t, before)

		// A member may leave; owners and admins remove others.
		s.Call(t, "deleteMemberFromOrganizationTeamById", w.carol.Token, "DELETE", one, nil, 204)
		s.Call(t, "deleteMemberFromOrganizationTeamById", frank.Token, "DELETE", members+"/"+erin.ID, nil, 204)
		if roles := s.TeamRoles(t, id); len(roles) != 2 || roles[frank.ID] != "owner" || roles[w.gina.ID] != "member" {
			t.Fatalf("after removals: %v", roles)
		}
		if s.TeamRoles(t, bobsTeam)[w.dan.ID] != "member" {
			t.Fatal("another organization's team changed")
		}
	})
}
