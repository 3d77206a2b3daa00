package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// sharedKind is one kind of object that can be shared, as the sharing
// tests drive it: its operations' ids, how to make one, where it lives and
// how to read it.
type sharedKind struct {
	name string
	ops  map[string]string // invite, listUsers, updateUser, removeUser, listTeams, updateTeam, removeTeam
	// nullable: PATCH takes MemberRoleOrGuest (null removes the grant).
	nullable bool
	create   func(t *testing.T, s *testkit.Server, w sharingWorld) string
	base     func(w sharingWorld, id string) string
	readOp   string
}

func sharedKinds() []sharedKind {
	ops := func(suffix string) map[string]string {
		return map[string]string{
			"invite": "inviteTo" + suffix, "listUsers": "listUserPermissionsIn" + suffix,
			"updateUser": "updateUserPermissionIn" + suffix, "removeUser": "removeUserFrom" + suffix,
			"listTeams": "listTeamPermissionsIn" + suffix, "updateTeam": "updateTeamPermissionIn" + suffix,
			"removeTeam": "removeTeamFrom" + suffix,
		}
	}
	return []sharedKind{
		{
			name: "space", ops: ops("Space"), nullable: true, readOp: "getSpaceById",
			create: func(t *testing.T, s *testkit.Server, w sharingWorld) string {
				return s.Call(t, "createSpace", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/spaces", map[string]any{"title": "Handbook"}, 201).JSON(t)["id"].(string)
			},
			base: func(_ sharingWorld, id string) string { return "/v1/spaces/" + id },
		},
		{
			name: "collection", ops: ops("Collection"), nullable: true, readOp: "getCollectionById",
			create: func(t *testing.T, s *testkit.Server, w sharingWorld) string {
				return s.Call(t, "createCollection", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/collections", map[string]any{"title": "Guides"}, 201).JSON(t)["id"].(string)
			},
			base: func(_ sharingWorld, id string) string { return "/v1/collections/" + id },
		},
		{
			name: "site", ops: ops("Site"), nullable: false, readOp: "getSiteById",
			create: func(t *testing.T, s *testkit.Server, w sharingWorld) string {
				return s.Call(t, "createSite", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/sites", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
			},
			base: func(w sharingWorld, id string) string { return "/v1/orgs/" + w.acme + "/sites/" + id },
		},
	}
}

// sharingWorld is memberWorld (Acme: alice admin, carol read, gina guest;
// Bobs: bob admin, dan read) with hank, a user of no organization, Acme's
// team Contractors (gina) and Bobs' team Outsiders (dan).
type sharingWorld struct {
	memberWorld
	hank                   testkit.User
	contractors, outsiders string
}

func newSharingWorld(t *testing.T, s *testkit.Server) sharingWorld {
	t.Helper()
	w := sharingWorld{memberWorld: newMemberWorld(t, s)}
	w.hank, _ = s.NewUser(t, "hank@free.dev", "")
	w.contractors = s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", "/v1/orgs/"+w.acme+"/teams",
		map[string]any{"title": "Contractors", "members": []string{w.gina.ID}}, 201).JSON(t)["id"].(string)
	w.outsiders = s.Call(t, "createOrganizationTeam", w.bob.Token, "PUT", "/v1/orgs/"+w.bobs+"/teams",
		map[string]any{"title": "Outsiders", "members": []string{w.dan.ID}}, 201).JSON(t)["id"].(string)
	return w
}

// grantEvents counts the events of action whose target is object.
func grantEvents(t *testing.T, s *testkit.Server, action, object string) int {
	t.Helper()
	n, err := s.Client().Event.Query().Where(event.Action(action), event.TargetID(object)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// grantsOn is the stored grants on object, "kind:id" → role.
func grantsOn(t *testing.T, s *testkit.Server, object string) map[string]string {
	t.Helper()
	rows, err := s.Client().Grant.Query().Where(grant.ObjectID(object)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, g := range rows {
		out[string(g.PrincipalKind)+":"+g.PrincipalID] = string(g.Role)
	}
	return out
}

type permissionList struct {
	Items []struct {
		Permission *string
		User       *struct{ ID string }
		Team       *struct {
			ID, Title string
			Members   int
		}
	}
	Count int
	Next  *struct{ Page string }
}

func TestSharing(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSharingWorld(t, s)
		for _, k := range sharedKinds() {
			t.Run(k.name, func(t *testing.T) { testSharingKind(t, s, w, k) })
		}
	})
}

func testSharingKind(t *testing.T, s *testkit.Server, w sharingWorld, k sharedKind) {
	id := k.create(t, s, w)
	base := k.base(w, id)
	perms := base + "/permissions"
	users, teams := perms+"/users", perms+"/teams"
	read := func(u testkit.User, want int) {
		t.Helper()
		s.Call(t, k.readOp, u.Token, "GET", base, nil, want)
	}
	// every operation with a valid body, for the refusals.
	type call struct {
		op, method, path string
		body             any
	}
	all := []call{
		{k.ops["invite"], "POST", perms, map[string]any{"role": "read", "users": []string{w.hank.ID}}},
		{k.ops["listUsers"], "GET", users, nil},
		{k.ops["updateUser"], "PATCH", users + "/" + w.carol.ID, map[string]any{"role": "read"}},
		{k.ops["removeUser"], "DELETE", users + "/" + w.carol.ID, nil},
		{k.ops["listTeams"], "GET", teams, nil},
		{k.ops["updateTeam"], "PATCH", teams + "/" + w.contractors, map[string]any{"role": "read"}},
		{k.ops["removeTeam"], "DELETE", teams + "/" + w.contractors, nil},
	}

	t.Run("strangers and guests without a grant see nothing", func(t *testing.T) {
		before := s.Snapshot(t)
		for _, c := range all {
			s.Fail(t, c.op, w.bob.Token, c.method, c.path, c.body, 404)
			s.Fail(t, c.op, w.gina.Token, c.method, c.path, c.body, 404)
			if c.body != nil { // authorization before validation
				s.Fail(t, c.op, w.bob.Token, c.method, c.path, `{"role": `, 404)
				s.Fail(t, c.op, w.gina.Token, c.method, c.path, map[string]any{"role": "owner"}, 404)
			}
		}
		s.Fail(t, k.ops["listUsers"], w.alice.Token, "GET", strings.Replace(users, id, "nosuchobject00000000", 1), nil, 404)
		s.Unchanged(t, before)
	})

	t.Run("members with the read role list but do not share", func(t *testing.T) {
		before := s.Snapshot(t)
		for _, c := range all {
			if c.method == "GET" {
				s.Call(t, c.op, w.carol.Token, c.method, c.path, nil, 200)
				continue
			}
			s.Fail(t, c.op, w.carol.Token, c.method, c.path, c.body, 403)
			if c.body != nil {
				s.Fail(t, c.op, w.carol.Token, c.method, c.path, map[string]any{"role": "owner"}, 403)
			}
		}
		s.Unchanged(t, before)
	})

	t.Run("bad input is refused naming the field and changes nothing", func(t *testing.T) {
		before := s.Snapshot(t)
		tooMany := make([]string, 101)
		for i := range tooMany {
			tooMany[i] = w.hank.ID
		}
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"role": "read"`, "malformed"},
			{``, "required"},
			{map[string]any{"users": []string{w.hank.ID}}, "role"},
			{map[string]any{"role": "owner", "users": []string{w.hank.ID}}, "role"},
			{map[string]any{"role": 3, "users": []string{w.hank.ID}}, "role"},
			{map[string]any{"role": "read"}, "users"},
			{map[string]any{"role": "read", "users": []string{}}, "users"},
			{map[string]any{"role": "read", "teams": []string{}}, "teams"},
			{map[string]any{"role": "read", "users": "hank"}, "users"},
			{map[string]any{"role": "read", "users": []string{""}}, "users"},
			{map[string]any{"role": "read", "users": tooMany}, "users"},
			{map[string]any{"role": "read", "users": []string{w.hank.ID, "nosuchuser0000000000"}}, "users"},
		} {
			msg := s.Fail(t, k.ops["invite"], w.alice.Token, "POST", perms, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("invite %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		for _, op := range []string{"updateUser", "updateTeam"} {
			path := users + "/" + w.carol.ID
			if op == "updateTeam" {
				path = teams + "/" + w.contractors
			}
			for _, body := range []any{map[string]any{}, map[string]any{"role": "owner"}, map[string]any{"role": []string{"read"}}} {
				if msg := s.Fail(t, k.ops[op], w.alice.Token, "PATCH", path, body, 400); !strings.Contains(msg, "role") {
					t.Errorf("%s %v: message %q does not name role", op, body, msg)
				}
			}
			if !k.nullable {
				if msg := s.Fail(t, k.ops[op], w.alice.Token, "PATCH", path, map[string]any{"role": nil}, 400); !strings.Contains(msg, "role") {
					t.Errorf("%s null role: message %q does not name role", op, msg)
				}
			}
		}
		s.Unchanged(t, before)
	})

	t.Run("teams and users of another organization are not found", func(t *testing.T) {
		before := s.Snapshot(t)
		s.Fail(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "read", "teams": []string{w.outsiders}}, 404)
		s.Fail(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "read", "users": []string{w.hank.ID}, "teams": []string{w.contractors, "nosuchteam0000000000"}}, 404)
		s.Fail(t, k.ops["updateTeam"], w.alice.Token, "PATCH", teams+"/"+w.outsiders, map[string]any{"role": "read"}, 404)
		s.Fail(t, k.ops["removeTeam"], w.alice.Token, "DELETE", teams+"/"+w.outsiders, nil, 404)
		s.Fail(t, k.ops["updateUser"], w.alice.Token, "PATCH", users+"/"+w.dan.ID, map[string]any{"role": "read"}, 404)
		s.Fail(t, k.ops["removeUser"], w.alice.Token, "DELETE", users+"/"+w.dan.ID, nil, 404)
		// A member or team the object is not shared with: PATCH is 404.
		s.Fail(t, k.ops["updateUser"], w.alice.Token, "PATCH", users+"/"+w.carol.ID, map[string]any{"role": "read"}, 404)
		s.Fail(t, k.ops["updateTeam"], w.alice.Token, "PATCH", teams+"/"+w.contractors, map[string]any{"role": "read"}, 404)
		s.Unchanged(t, before)
	})

	t.Run("an invited user becomes a guest and reads it until removed", func(t *testing.T) {
		read(w.hank, 404)
		s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "read", "users": []string{w.hank.ID}}, 204)
		if m := s.MemberOf(t, w.acme, w.hank.ID); m == nil || m.Role != nil {
			t.Fatalf("hank's membership: %+v", m)
		}
		read(w.hank, 200)
		var l permissionList
		s.Call(t, k.ops["listUsers"], w.alice.Token, "GET", users, nil, 200).Decode(t, &l)
		if l.Count != 1 || len(l.Items) != 1 || l.Items[0].User.ID != w.hank.ID || *l.Items[0].Permission != "read" {
			t.Fatalf("users: %+v", l)
		}
		if grantEvents(t, s, "grant.created", id) != 1 {
			t.Fatal("no grant.created event")
		}

		// Inviting again changes the role; so does PATCH.
		s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "admin", "users": []string{w.hank.ID, w.hank.ID}}, 204)
		s.Call(t, k.ops["updateUser"], w.alice.Token, "PATCH", users+"/"+w.hank.ID, map[string]any{"role": "comment"}, 204)
		if g := grantsOn(t, s, id); len(g) != 1 || g["user:"+w.hank.ID] != "comment" {
			t.Fatalf("grants: %v", g)
		}
		if n := grantEvents(t, s, "grant.updated", id); n != 2 {
			t.Fatalf("grant.updated events: %d", n)
		}
		// While it was admin, hank could share it: here, back to comment, he cannot.
		s.Fail(t, k.ops["invite"], w.hank.Token, "POST", perms, map[string]any{"role": "read", "users": []string{w.carol.ID}}, 403)

		s.Call(t, k.ops["removeUser"], w.alice.Token, "DELETE", users+"/"+w.hank.ID, nil, 204)
		read(w.hank, 404)
		s.Call(t, k.ops["removeUser"], w.alice.Token, "DELETE", users+"/"+w.hank.ID, nil, 204) // not shared: nothing to do
		if n := grantEvents(t, s, "grant.removed", id); n != 1 {
			t.Fatalf("grant.removed events: %d", n)
		}
		if m := s.MemberOf(t, w.acme, w.hank.ID); m == nil {
			t.Fatal("hank stopped being a guest")
		}
	})

	t.Run("a null role shares nothing and removes what was shared", func(t *testing.T) {
		s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "edit", "users": []string{w.hank.ID}, "teams": []string{w.contractors}}, 204)
		read(w.hank, 200)
		s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": nil, "users": []string{w.hank.ID}, "teams": []string{w.contractors}}, 204)
		read(w.hank, 404)
		read(w.gina, 404)
		if g := grantsOn(t, s, id); len(g) != 0 {
			t.Fatalf("grants after a null role: %v", g)
		}
		if k.nullable { // PATCH with null removes the grant too
			s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "read", "users": []string{w.hank.ID}}, 204)
			s.Call(t, k.ops["updateUser"], w.alice.Token, "PATCH", users+"/"+w.hank.ID, map[string]any{"role": nil}, 204)
			read(w.hank, 404)
		}
	})

	t.Run("a team's grant reaches its members while they are in it", func(t *testing.T) {
		read(w.gina, 404)
		s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "read", "teams": []string{w.contractors}}, 204)
		read(w.gina, 200)
		var l permissionList
		s.Call(t, k.ops["listTeams"], w.alice.Token, "GET", teams, nil, 200).Decode(t, &l)
		if l.Count != 1 || l.Items[0].Team.ID != w.contractors || l.Items[0].Team.Members != 1 || *l.Items[0].Permission != "read" {
			t.Fatalf("teams: %+v", l)
		}
		s.Call(t, k.ops["updateTeam"], w.alice.Token, "PATCH", teams+"/"+w.contractors, map[string]any{"role": "admin"}, 204)
		// As admin of the object through her team, gina may share it.
		s.Call(t, k.ops["listUsers"], w.gina.Token, "GET", users, nil, 200)
		member := "/v1/orgs/" + w.acme + "/teams/" + w.contractors + "/members/" + w.gina.ID
		s.Call(t, "deleteMemberFromOrganizationTeamById", w.alice.Token, "DELETE", member, nil, 204)
		read(w.gina, 404)
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT", member, nil, 204)
		read(w.gina, 200)
		s.Call(t, k.ops["removeTeam"], w.alice.Token, "DELETE", teams+"/"+w.contractors, nil, 204)
		read(w.gina, 404)
		s.Call(t, k.ops["removeTeam"], w.alice.Token, "DELETE", teams+"/"+w.contractors, nil, 204)
		if c, u, r := grantEvents(t, s, "grant.created", id), grantEvents(t, s, "grant.updated", id), grantEvents(t, s, "grant.removed", id); c < 2 || u < 1 || r < 2 {
			t.Fatalf("events: %d created, %d updated, %d removed", c, u, r)
		}
	})

	t.Run("lists page by keyset", func(t *testing.T) {
		extra := s.AddUsers(t, w.acme, k.name+"-reader", 5, testkit.RoleOf(access.Read))
		ids := make([]string, len(extra))
		for i, u := range extra {
			ids[i] = u.ID
		}
		s.Call(t, k.ops["invite"], w.alice.Token, "POST", perms, map[string]any{"role": "edit", "users": ids}, 204)
		seen := map[string]bool{}
		path := users + "?limit=2"
		for pages := 0; ; pages++ {
			var l permissionList
			s.Call(t, k.ops["listUsers"], w.alice.Token, "GET", path, nil, 200).Decode(t, &l)
			if l.Count != 5 || len(l.Items) > 2 {
				t.Fatalf("page: %+v", l)
			}
			for _, it := range l.Items {
				if seen[it.User.ID] {
					t.Fatalf("%s twice", it.User.ID)
				}
				seen[it.User.ID] = true
			}
			if l.Next == nil {
				break
			}
			path = users + "?limit=2&page=" + l.Next.Page
		}
		if len(seen) != 5 {
			t.Fatalf("listed %d of 5", len(seen))
		}
	})
}

// TestSharingListStatements holds the grant lists to a fixed number of
// statements whatever their length: users and teams are read per page.
func TestSharingListStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSharingWorld(t, s)
		space := sharedKinds()[0].create(t, s, w)
		perms := "/v1/spaces/" + space + "/permissions"
		count := func(path, op string) int64 {
			s.Call(t, op, w.alice.Token, "GET", path, nil, 200) // warm
			before := s.Statements()
			s.Call(t, op, w.alice.Token, "GET", path, nil, 200)
			return s.Statements() - before
		}
		share := func(n int, name string) {
			us := s.AddUsers(t, w.acme, name, n, nil)
			ids := make([]string, n)
			for i, u := range us {
				ids[i] = u.ID
			}
			var tms []string
			for i := range n {
				tms = append(tms, s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", "/v1/orgs/"+w.acme+"/teams",
					map[string]any{"title": fmt.Sprintf("%s %d", name, i), "members": []string{ids[i]}}, 201).JSON(t)["id"].(string))
			}
			s.Call(t, "inviteToSpace", w.alice.Token, "POST", perms, map[string]any{"role": "read", "users": ids, "teams": tms}, 204)
		}
		share(1, "one")
		u1, t1 := count(perms+"/users", "listUserPermissionsInSpace"), count(perms+"/teams", "listTeamPermissionsInSpace")
		share(8, "more")
		u9, t9 := count(perms+"/users", "listUserPermissionsInSpace"), count(perms+"/teams", "listTeamPermissionsInSpace")
		if u1 != u9 || t1 != t9 {
			t.Fatalf("statements grow with the list: users %d → %d, teams %d → %d", u1, u9, t1, t9)
		}
	})
}

// TestSharingCleanup: removing a team, a membership or a shared object (or
// moving it to another organization) removes the grants it held or gave,
// each with its grant.removed event.
func TestSharingCleanup(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newSharingWorld(t, s)
		kinds := sharedKinds()
		share := func(k sharedKind, id string, body map[string]any) {
			t.Helper()
			s.Call(t, k.ops["invite"], w.alice.Token, "POST", k.base(w, id)+"/permissions", body, 204)
		}
		removed := func() int {
			n, err := s.Client().Event.Query().Where(event.Action("grant.removed")).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}

		t.Run("deleting a team deletes its grants", func(t *testing.T) {
			team := s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", "/v1/orgs/"+w.acme+"/teams",
				map[string]any{"title": "Temporary", "members": []string{w.gina.ID}}, 201).JSON(t)["id"].(string)
			objs := make([]string, len(kinds))
			for i, k := range kinds {
				objs[i] = k.create(t, s, w)
				share(k, objs[i], map[string]any{"role": "read", "teams": []string{team}})
			}
			s.Call(t, kinds[0].readOp, w.gina.Token, "GET", kinds[0].base(w, objs[0]), nil, 200)
			before := removed()
			s.Call(t, "removeTeamFromOrganizationById", w.alice.Token, "DELETE", "/v1/orgs/"+w.acme+"/teams/"+team, nil, 204)
			for i, k := range kinds {
				if g := grantsOn(t, s, objs[i]); len(g) != 0 {
					t.Fatalf("%s grants after the team went: %v", k.name, g)
				}
				s.Call(t, k.readOp, w.gina.Token, "GET", k.base(w, objs[i]), nil, 404)
			}
			if n := removed() - before; n != 3 {
				t.Fatalf("grant.removed events: %d", n)
			}
		})

		t.Run("removing a member deletes their grants", func(t *testing.T) {
			space := kinds[0].create(t, s, w)
			share(kinds[0], space, map[string]any{"role": "edit", "users": []string{w.hank.ID, w.carol.ID}})
			before := removed()
			s.Call(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", "/v1/orgs/"+w.acme+"/members/"+w.hank.ID, nil, 204)
			if g := grantsOn(t, s, space); len(g) != 1 || g["user:"+w.carol.ID] != "edit" {
				t.Fatalf("grants after hank left: %v", g)
			}
			if n := removed() - before; n != 1 {
				t.Fatalf("grant.removed events: %d", n)
			}
			s.Call(t, "getSpaceById", w.hank.Token, "GET", "/v1/spaces/"+space, nil, 404)
		})

		t.Run("deleting a collection or a site deletes the grants on it", func(t *testing.T) {
			for _, k := range kinds[1:] {
				id := k.create(t, s, w)
				share(k, id, map[string]any{"role": "read", "users": []string{w.carol.ID}, "teams": []string{w.contractors}})
				before := removed()
				del := map[string]string{"collection": "deleteCollectionById", "site": "deleteSiteById"}[k.name]
				s.Call(t, del, w.alice.Token, "DELETE", k.base(w, id), nil, 205)
				if g := grantsOn(t, s, id); len(g) != 0 {
					t.Fatalf("%s grants after delete: %v", k.name, g)
				}
				if n := removed() - before; n != 2 {
					t.Fatalf("%s: grant.removed events: %d", k.name, n)
				}
			}
		})

		t.Run("a deleted space keeps its grants until it is purged", func(t *testing.T) {
			t.Cleanup(clock.Reset)
			space := kinds[0].create(t, s, w)
			share(kinds[0], space, map[string]any{"role": "read", "users": []string{w.carol.ID}})
			s.Call(t, "deleteSpaceById", w.alice.Token, "DELETE", "/v1/spaces/"+space, nil, 205)
			if g := grantsOn(t, s, space); len(g) != 1 {
				t.Fatalf("grants of a restorable space: %v", g)
			}
			clock.Advance(8 * 24 * time.Hour)
			if _, err := s.App.Resolver.PurgeDeletedSpaces(ctx); err != nil {
				t.Fatal(err)
			}
			if g := grantsOn(t, s, space); len(g) != 0 {
				t.Fatalf("grants of a purged space: %v", g)
			}
		})

		t.Run("moving content to another organization deletes its grants", func(t *testing.T) {
			s.AddMember(t, w.bobs, w.alice, testkit.RoleOf(access.Admin))
			space := kinds[0].create(t, s, w)
			share(kinds[0], space, map[string]any{"role": "read", "users": []string{w.carol.ID}})
			s.Call(t, "transferSpace", w.alice.Token, "POST", "/v1/spaces/"+space+"/transfer", map[string]any{"organization": w.bobs}, 200)
			if g := grantsOn(t, s, space); len(g) != 0 {
				t.Fatalf("space grants after transfer: %v", g)
			}

			coll := kinds[1].create(t, s, w)
			inner := s.Call(t, "createSpace", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/spaces", map[string]any{"title": "Inner", "parent": coll}, 201).JSON(t)["id"].(string)
			share(kinds[1], coll, map[string]any{"role": "read", "teams": []string{w.contractors}})
			share(kinds[0], inner, map[string]any{"role": "edit", "users": []string{w.carol.ID}})
			before := removed()
			s.Call(t, "transferCollection", w.alice.Token, "POST", "/v1/collections/"+coll+"/transfer", map[string]any{"organization": w.bobs}, 200)
			if g1, g2 := grantsOn(t, s, coll), grantsOn(t, s, inner); len(g1)+len(g2) != 0 {
				t.Fatalf("grants after the collection's transfer: %v %v", g1, g2)
			}
			if n := removed() - before; n != 2 {
				t.Fatalf("grant.removed events: %d", n)
			}
		})
	})
}

// TestSharingGraphQL: the same operations as mutations, and the grant
// lists as connections.
func TestSharingGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSharingWorld(t, s)
		kinds := sharedKinds()
		space, site := kinds[0].create(t, s, w), kinds[2].create(t, s, w)

		data := s.MustGraphQL(t, w.alice.Token, `mutation($s: ID!, $in: InviteUsersAndTeamsInput!) {
			inviteToSpace(spaceId: $s, input: $in) {
				id
				userGrants { totalCount edges { cursor node { role user { id } } } }
				teamGrants { totalCount edges { node { role team { id title members } } } }
			}
		}`, map[string]any{"s": space, "in": map[string]any{"role": "edit", "users": []string{w.hank.ID}, "teams": []string{w.contractors}}})
		sp := data["inviteToSpace"].(map[string]any)
		ug, tg := sp["userGrants"].(map[string]any), sp["teamGrants"].(map[string]any)
		if ug["totalCount"] != 1.0 || tg["totalCount"] != 1.0 {
			t.Fatalf("grants: %v %v", ug, tg)
		}
		if n := ug["edges"].([]any)[0].(map[string]any)["node"].(map[string]any); n["role"] != "edit" || n["user"].(map[string]any)["id"] != w.hank.ID {
			t.Fatalf("user grant: %v", n)
		}
		if n := tg["edges"].([]any)[0].(map[string]any)["node"].(map[string]any); n["role"] != "edit" || n["team"].(map[string]any)["id"] != w.contractors {
			t.Fatalf("team grant: %v", n)
		}
		s.Call(t, "getSpaceById", w.hank.Token, "GET", "/v1/spaces/"+space, nil, 200)

		data = s.MustGraphQL(t, w.alice.Token, `mutation($s: ID!, $u: ID!) {
			updateUserPermissionInSpace(spaceId: $s, userId: $u, role: read) { userGrants { edges { node { role } } } }
		}`, map[string]any{"s": space, "u": w.hank.ID})
		if r := data["updateUserPermissionInSpace"].(map[string]any)["userGrants"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["role"]; r != "read" {
			t.Fatalf("role after update: %v", r)
		}
		s.MustGraphQL(t, w.alice.Token, `mutation($s: ID!, $u: ID!, $t: ID!) {
			a: removeUserFromSpace(spaceId: $s, userId: $u) { id }
			b: removeTeamFromSpace(spaceId: $s, teamId: $t) { id }
		}`, map[string]any{"s": space, "u": w.hank.ID, "t": w.contractors})
		if g := grantsOn(t, s, space); len(g) != 0 {
			t.Fatalf("grants after removal: %v", g)
		}
		s.Call(t, "getSpaceById", w.hank.Token, "GET", "/v1/spaces/"+space, nil, 404)

		// Sites, by team.
		s.MustGraphQL(t, w.alice.Token, `mutation($o: ID!, $s: ID!, $t: ID!) {
			inviteToSite(organizationId: $o, siteId: $s, input: {role: read, teams: [$t]}) { id }
			updateTeamPermissionInSite(organizationId: $o, siteId: $s, teamId: $t, role: create) { id teamGrants { edges { node { role } } } }
		}`, map[string]any{"o": w.acme, "s": site, "t": w.contractors})
		if g := grantsOn(t, s, site); g["team:"+w.contractors] != "create" {
			t.Fatalf("site grants: %v", g)
		}

		// Refusals: a missing role, a reader, a stranger, a team of another organization.
		for _, c := range []struct {
			token, query, code string
		}{
			{w.alice.Token, `mutation($s: ID!, $u: ID!) { inviteToSpace(spaceId: $s, input: {users: [$u]}) { id } }`, "BAD_USER_INPUT"},
			{w.carol.Token, `mutation($s: ID!, $u: ID!) { inviteToSpace(spaceId: $s, input: {role: read, users: [$u]}) { id } }`, "FORBIDDEN"},
			{w.bob.Token, `mutation($s: ID!, $u: ID!) { inviteToSpace(spaceId: $s, input: {role: read, users: [$u]}) { id } }`, "NOT_FOUND"},
			{w.alice.Token, `mutation($s: ID!, $u: ID!) { a: inviteToSpace(spaceId: $s, input: {role: read, users: [$u], teams: ["` + w.outsiders + `"]}) { id } }`, "NOT_FOUND"},
			{w.bob.Token, `mutation($s: ID!, $u: ID!) { a: removeUserFromSpace(spaceId: $s, userId: $u) { id } }`, "NOT_FOUND"},
		} {
			data, errs := s.GraphQL(t, c.token, c.query, map[string]any{"s": space, "u": w.hank.ID})
			if len(errs) != 1 || errs[0].Extensions["code"] != c.code {
				t.Fatalf("%s: data %v errors %+v, want %s", c.query, data, errs, c.code)
			}
		}
		// A reader sees the lists; a guest without a grant gets null.
		s.MustGraphQL(t, w.carol.Token, `query($s: ID!) { node(id: $s) { ... on Space { userGrants { totalCount } } } }`, map[string]any{"s": space})
		if g := grantsOn(t, s, space); len(g) != 0 {
			t.Fatalf("refused mutations changed grants: %v", g)
		}
	})
}

// TestSharingGraphQLStatements: the grants of every space a list shows,
// with their users and teams, cost the same statements for 2 spaces as for
// 6.
func TestSharingGraphQLStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSharingWorld(t, s)
		query := `query($o: ID!) { organization(id: $o) { spaces { edges { node { id
			userGrants { totalCount edges { node { role user { id displayName } } } }
			teamGrants { totalCount edges { node { role team { id title members } } } }
		} } } } }`
		add := func(n int) {
			for range n {
				id := sharedKinds()[0].create(t, s, w)
				s.Call(t, "inviteToSpace", w.alice.Token, "POST", "/v1/spaces/"+id+"/permissions",
					map[string]any{"role": "read", "users": []string{w.hank.ID, w.carol.ID}, "teams": []string{w.contractors}}, 204)
			}
		}
		count := func() int64 {
			s.MustGraphQL(t, w.alice.Token, query, map[string]any{"o": w.acme})
			before := s.Statements()
			s.MustGraphQL(t, w.alice.Token, query, map[string]any{"o": w.acme})
			return s.Statements() - before
		}
		add(2)
		few := count()
		add(4)
		if many := count(); many != few {
			t.Fatalf("statements: %d for 2 spaces, %d for 6", few, many)
		}
	})
}

// A guest who administers a site through a grant manages its team grants
// like any admin of it: a malformed body is a 400 naming the field (not a
// 404 for a team they may not list), and a team of another organization
// is still a 404.
func TestSharingSiteTeamsForAGuestAdmin(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSharingWorld(t, s)
		site := s.Call(t, "createSite", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/sites", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		perms := "/v1/orgs/" + w.acme + "/sites/" + site + "/permissions"
		s.Call(t, "inviteToSite", w.alice.Token, "POST", perms, map[string]any{"role": "admin", "users": []string{w.gina.ID}}, 204)
		s.Call(t, "inviteToSite", w.gina.Token, "POST", perms, map[string]any{"role": "read", "teams": []string{w.contractors}}, 204)
		resp := s.Call(t, "updateTeamPermissionInSite", w.gina.Token, "PATCH", perms+"/teams/"+w.contractors, map[string]any{"role": "boss"}, 400)
		if msg := resp.JSON(t)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "role") {
			t.Fatalf("a bad role names another field: %s", msg)
		}
		s.Call(t, "updateTeamPermissionInSite", w.gina.Token, "PATCH", perms+"/teams/"+w.contractors, map[string]any{"role": "edit"}, 204)
		s.Call(t, "updateTeamPermissionInSite", w.gina.Token, "PATCH", perms+"/teams/"+w.outsiders, map[string]any{"role": "boss"}, 404)
		s.Call(t, "removeTeamFromSite", w.gina.Token, "DELETE", perms+"/teams/"+w.outsiders, nil, 404)
		s.Call(t, "removeTeamFromSite", w.gina.Token, "DELETE", perms+"/teams/"+w.contractors, nil, 204)
	})
}
