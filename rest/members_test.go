package rest_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// memberWorld is the cast of the member and team tests: Acme with alice
// (admin), carol (read) and gina (guest); Bobs with bob (admin) and dan
// (read), strangers to Acme.
type memberWorld struct {
	alice, carol, gina, bob, dan testkit.User
	acme, bobs                   string
}

func newMemberWorld(t *testing.T, s *testkit.Server) memberWorld {
	t.Helper()
	var w memberWorld
	w.alice, w.acme = s.NewUser(t, "alice@acme.com", "Acme")
	w.bob, w.bobs = s.NewUser(t, "bob@bobs.io", "Bobs")
	w.carol, _ = s.NewUser(t, "carol@acme.com", "")
	w.gina, _ = s.NewUser(t, "gina@guest.org", "")
	w.dan, _ = s.NewUser(t, "dan@bobs.io", "")
	s.AddMember(t, w.acme, w.carol, testkit.RoleOf(access.Read))
	s.AddMember(t, w.acme, w.gina, nil)
	s.AddMember(t, w.bobs, w.dan, testkit.RoleOf(access.Read))
	return w
}

func TestMemberGetUpdateSSO(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newMemberWorld(t, s)
		base := "/v1/orgs/" + w.acme + "/members/"

		// Read: the member object, addressed and identified by user id.
		resp := s.Call(t, "getMemberInOrganizationById", w.alice.Token, "GET", base+w.carol.ID, nil, 200)
		m := resp.JSON(t)
		if m["object"] != "member" || m["id"] != w.carol.ID || m["role"] != "read" || m["sso"] != false ||
			m["disabled"] != false || m["spaces"] != 0.0 || m["teams"] != 0.0 || m["joinedAt"] == nil {
			t.Fatalf("member: %v", m)
		}
		if u := m["user"].(map[string]any); u["id"] != w.carol.ID || u["email"] != "carol@acme.com" || u["object"] != "user" {
			t.Fatalf("member user: %v", u)
		}
		if _, ok := m["lastSeenAt"]; ok {
			t.Fatalf("lastSeenAt present for a member never seen: %v", m)
		}
		// A guest's role is null, not absent; a guest sees their own membership.
		g := s.Call(t, "getMemberInOrganizationById", w.gina.Token, "GET", base+w.gina.ID, nil, 200).JSON(t)
		if role, ok := g["role"]; !ok || role != nil {
			t.Fatalf("guest role: %v", g)
		}
		// Seen members carry lastSeenAt.
		s.Call(t, "updateOrganizationMemberLastSeenAt", w.carol.Token, "POST", "/v1/orgs/"+w.acme+"/ping", nil, 200)
		if m := s.Call(t, "getMemberInOrganizationById", w.carol.Token, "GET", base+w.carol.ID, nil, 200).JSON(t); m["lastSeenAt"] == nil {
			t.Fatalf("lastSeenAt missing after ping: %v", m)
		}
		// Nobody else learns anything.
		s.Fail(t, "getMemberInOrganizationById", w.gina.Token, "GET", base+w.carol.ID, nil, 404)
		s.Fail(t, "getMemberInOrganizationById", w.bob.Token, "GET", base+w.carol.ID, nil, 404)
		s.Fail(t, "getMemberInOrganizationById", w.alice.Token, "GET", base+"nosuchuser0000000000", nil, 404)
		s.Fail(t, "getMemberInOrganizationById", w.alice.Token, "GET", base+w.dan.ID, nil, 404)
		s.Fail(t, "getMemberInOrganizationById", w.bob.Token, "GET", "/v1/orgs/"+w.acme+"/members/"+w.dan.ID, nil, 404)
		s.Fail(t, "getMemberInOrganizationById", "", "GET", base+w.carol.ID, nil, 401)

		// Update: admins change roles; null makes a guest; absent changes nothing.
		m = s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.carol.ID, map[string]any{"role": "edit"}, 200).JSON(t)
		if m["role"] != "edit" || m["id"] != w.carol.ID {
			t.Fatalf("updated: %v", m)
		}
		if r := s.MemberOf(t, w.acme, w.carol.ID).Role; r == nil || *r != access.Edit {
			t.Fatalf("stored role %v", r)
		}
		m = s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.carol.ID, map[string]any{"other": 1}, 200).JSON(t)
		if m["role"] != "edit" {
			t.Fatalf("absent role changed the role: %v", m)
		}
		m = s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.gina.ID, map[string]any{"role": "comment"}, 200).JSON(t)
		if m["role"] != "comment" {
			t.Fatalf("guest promoted: %v", m)
		}
		m = s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.gina.ID, map[string]any{"role": nil}, 200).JSON(t)
		if role, ok := m["role"]; !ok || role != nil || s.MemberOf(t, w.acme, w.gina.ID).Role != nil {
			t.Fatalf("role null did not make a guest: %v", m)
		}
		s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.carol.ID, map[string]any{"role": "read"}, 200)

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"role": "edit"`, "malformed"},
			{`["edit"]`, "object"},
			{``, "required"},
			{map[string]any{"role": 5}, "role"},
			{map[string]any{"role": "boss"}, "role"},
			{map[string]any{"role": "guest"}, "role"},
		} {
			msg := s.Fail(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.carol.ID, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		edit := map[string]any{"role": "admin"}
		s.Fail(t, "updateMemberInOrganizationById", w.carol.Token, "PATCH", base+w.carol.ID, edit, 403)
		s.Fail(t, "updateMemberInOrganizationById", w.carol.Token, "PATCH", base+w.alice.ID, map[string]any{"role": "read"}, 403)
		s.Fail(t, "updateMemberInOrganizationById", w.gina.Token, "PATCH", base+w.gina.ID, edit, 403)
		s.Fail(t, "updateMemberInOrganizationById", w.gina.Token, "PATCH", base+w.carol.ID, edit, 404)
		s.Fail(t, "updateMemberInOrganizationById", w.bob.Token, "PATCH", base+w.carol.ID, edit, 404)
		s.Fail(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+"nosuchuser0000000000", edit, 404)
		s.Fail(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.dan.ID, edit, 404)
		s.Fail(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", "/v1/orgs/"+w.bobs+"/members/"+w.dan.ID, edit, 404)
		s.Fail(t, "updateMemberInOrganizationById", "", "PATCH", base+w.carol.ID, edit, 401)
		s.Unchanged(t, before)

		// SSO: admins only.
		for _, c := range []struct {
			token, user string
			status      int
		}{
			{w.carol.Token, w.carol.ID, 403},
			{w.gina.Token, w.gina.ID, 403},
			{w.gina.Token, w.carol.ID, 404},
			{w.bob.Token, w.carol.ID, 404},
			{w.alice.Token, "nosuchuser0000000000", 404},
			{w.alice.Token, w.dan.ID, 404},
			{"", w.carol.ID, 401},
		} {
			s.Fail(t, "setUserAsSSOMemberForOrganization", c.token, "POST", base+c.user+"/sso", nil, c.status)
		}
		s.Unchanged(t, before)
		m = s.Call(t, "setUserAsSSOMemberForOrganization", w.alice.Token, "POST", base+w.carol.ID+"/sso", nil, 200).JSON(t)
		if m["sso"] != true || m["id"] != w.carol.ID || !s.MemberOf(t, w.acme, w.carol.ID).SSO {
			t.Fatalf("sso: %v", m)
		}
	})
}

// TestLastAdmin: an organization keeps at least one admin.
func TestLastAdmin(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newMemberWorld(t, s)
		base := "/v1/orgs/" + w.acme + "/members/"

		before := s.Snapshot(t)
		for _, role := range []any{"read", "create", nil} {
			msg := s.Fail(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.alice.ID, map[string]any{"role": role}, 409)
			if !strings.Contains(msg, "last admin") {
				t.Fatalf("message %q", msg)
			}
		}
		s.Fail(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", base+w.alice.ID, nil, 409)
		s.Unchanged(t, before)
		// Staying admin is no demotion.
		s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.alice.ID, map[string]any{"role": "admin"}, 200)

		// With two admins, either may step down; then the other is the last.
		s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.carol.ID, map[string]any{"role": "admin"}, 200)
		m := s.Call(t, "updateMemberInOrganizationById", w.alice.Token, "PATCH", base+w.alice.ID, map[string]any{"role": "read"}, 200).JSON(t)
		if m["role"] != "read" {
			t.Fatalf("demoted: %v", m)
		}
		before = s.Snapshot(t)
		s.Fail(t, "updateMemberInOrganizationById", w.carol.Token, "PATCH", base+w.carol.ID, map[string]any{"role": "edit"}, 409)
		s.Fail(t, "removeMemberFromOrganizationById", w.carol.Token, "DELETE", base+w.carol.ID, nil, 409)
		s.Unchanged(t, before)
		s.Call(t, "updateMemberInOrganizationById", w.carol.Token, "PATCH", base+w.alice.ID, map[string]any{"role": "admin"}, 200)
		s.Call(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", base+w.carol.ID, nil, 204)
		if s.MemberOf(t, w.acme, w.carol.ID) != nil {
			t.Fatal("carol is still a member")
		}
		if n := s.Client().Member.Query().Where(member.OrganizationID(w.acme), member.RoleEQ(access.Admin)).CountX(context.Background()); n != 1 {
			t.Fatalf("%d admins", n)
		}

		// Two admins demoting each other at the same moment: one wins, the
		// other is refused, and the organization keeps an admin.
		erin, _ := s.NewUser(t, "erin@acme.com", "")
		s.AddMember(t, w.acme, erin, testkit.RoleOf(access.Admin))
		for round := 0; round < 5; round++ {
			statuses := make(chan int, 2)
			for _, c := range []struct{ by, target testkit.User }{{w.alice, erin}, {erin, w.alice}} {
				go func() {
					statuses <- s.Request(t, c.by.Token, "PATCH", base+c.target.ID, map[string]any{"role": "read"}).Status
				}()
			}
			// The loser is refused either by the last-admin rule (409) or,
			// when the winner committed before its check, as a non-admin (403).
			a, b := <-statuses, <-statuses
			if a > b {
				a, b = b, a
			}
			if a != 200 || (b != 409 && b != 403) {
				t.Fatalf("round %d: statuses %d and %d, want 200 and 409 or 403", round, a, b)
			}
			admins := s.Client().Member.Query().Where(member.OrganizationID(w.acme), member.RoleEQ(access.Admin)).AllX(context.Background())
			if len(admins) != 1 {
				t.Fatalf("round %d: %d admins", round, len(admins))
			}
			// The one left makes the other admin again for the next round.
			left, other := w.alice, erin
			if admins[0].UserID == erin.ID {
				left, other = erin, w.alice
			}
			s.Call(t, "updateMemberInOrganizationById", left.Token, "PATCH", base+other.ID, map[string]any{"role": "admin"}, 200)
		}
	})
}

func TestRemoveMember(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newMemberWorld(t, s)
		base := "/v1/orgs/" + w.acme + "/members/"
		erin, _ := s.NewUser(t, "erin@acme.com", "")
		s.AddMember(t, w.acme, erin, testkit.RoleOf(access.Edit))
		s.AddMember(t, w.bobs, erin, testkit.RoleOf(access.Edit))

		// erin is in two teams of Acme and one of Bobs.
		teams := map[string]string{}
		for _, c := range []struct{ org, token, title string }{
			{w.acme, w.alice.Token, "Writers"}, {w.acme, w.alice.Token, "Editors"}, {w.bobs, w.bob.Token, "Bobs team"},
		} {
			teams[c.title] = s.Call(t, "createOrganizationTeam", c.token, "PUT", "/v1/orgs/"+c.org+"/teams",
				map[string]any{"title": c.title, "members": []string{erin.ID}}, 201).JSON(t)["id"].(string)
		}
		if m := s.Call(t, "getMemberInOrganizationById", w.alice.Token, "GET", base+erin.ID, nil, 200).JSON(t); m["teams"] != 2.0 {
			t.Fatalf("teams count: %v", m["teams"])
		}

		before := s.Snapshot(t)
		s.Fail(t, "removeMemberFromOrganizationById", w.carol.Token, "DELETE", base+erin.ID, nil, 403)
		s.Fail(t, "removeMemberFromOrganizationById", w.gina.Token, "DELETE", base+erin.ID, nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", w.bob.Token, "DELETE", base+erin.ID, nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", w.bob.Token, "DELETE", base+w.carol.ID, nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", base+"nosuchuser0000000000", nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", base+w.dan.ID, nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", "/v1/orgs/"+w.bobs+"/members/"+erin.ID, nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", "", "DELETE", base+erin.ID, nil, 401)
		s.Unchanged(t, before)

		resp := s.Call(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", base+erin.ID, nil, 204)
		if len(resp.Body) != 0 {
			t.Fatalf("204 with a body: %s", resp.Body)
		}
		if s.MemberOf(t, w.acme, erin.ID) != nil {
			t.Fatal("erin is still a member of Acme")
		}
		if len(s.TeamRoles(t, teams["Writers"])) != 0 || len(s.TeamRoles(t, teams["Editors"])) != 0 {
			t.Fatal("erin is still in Acme's teams")
		}
		// Other organizations are untouched.
		if s.MemberOf(t, w.bobs, erin.ID) == nil || s.TeamRoles(t, teams["Bobs team"])[erin.ID] != "member" {
			t.Fatal("erin's Bobs membership was touched")
		}
		if s.Client().Team.Query().CountX(ctx) != 3 {
			t.Fatal("teams were deleted")
		}
		s.Fail(t, "getMemberInOrganizationById", w.alice.Token, "GET", base+erin.ID, nil, 404)
		s.Fail(t, "removeMemberFromOrganizationById", w.alice.Token, "DELETE", base+erin.ID, nil, 404)

		// Any member may leave; a guest too.
		s.Call(t, "removeMemberFromOrganizationById", w.carol.Token, "DELETE", base+w.carol.ID, nil, 204)
		s.Call(t, "removeMemberFromOrganizationById", w.gina.Token, "DELETE", base+w.gina.ID, nil, 204)
		if s.MemberOf(t, w.acme, w.carol.ID) != nil || s.MemberOf(t, w.acme, w.gina.ID) != nil {
			t.Fatal("leaving did not remove the membership")
		}
		// Once out, the organization is a stranger's.
		s.Fail(t, "getOrganizationById", w.carol.Token, "GET", "/v1/orgs/"+w.acme, nil, 404)
	})
}

type memberList struct {
	Items []struct {
		ID         string
		Role       *string
		JoinedAt   string
		LastSeenAt string
		Teams      int
		User       struct{ DisplayName, Email string }
	}
	Count int
	Next  *struct{ Page string }
}

func TestListMembers(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newMemberWorld(t, s)
		list := "/v1/orgs/" + w.acme + "/members"
		// 3 from the world + 150 readers + 50 guests = 203 members.
		readers := s.AddUsers(t, w.acme, "Reader", 150, testkit.RoleOf(access.Read))
		s.AddUsers(t, w.acme, "Visitor", 50, nil)
		// Every third reader was seen, at distinct times.
		seen := map[string]bool{}
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < len(readers); i += 3 {
			s.Client().Member.Update().Where(member.OrganizationID(w.acme), member.UserID(readers[i].ID)).
				SetLastSeenAt(start.Add(time.Duration(i) * time.Minute)).ExecX(testkit.Fixture(ctx))
			seen[readers[i].ID] = true
		}
		// A display name and an email to search for.
		s.Client().User.UpdateOneID(readers[7].ID).SetDisplayName("Quentin Quartz").ExecX(testkit.Fixture(ctx))

		walk := func(query url.Values, limit int) (items []string, times []string, count int) {
			page := ""
			for pages := 0; ; pages++ {
				q := url.Values{}
				for k, v := range query {
					q[k] = v
				}
				q.Set("limit", fmt.Sprint(limit))
				if page != "" {
					q.Set("page", page)
				}
				var env memberList
				s.Call(t, "listMembersInOrganizationById", w.carol.Token, "GET", list+"?"+q.Encode(), nil, 200).Decode(t, &env)
				count = env.Count
				for _, it := range env.Items {
					items = append(items, it.ID)
					if query.Get("sort") == "lastSeenAt" {
						times = append(times, it.LastSeenAt)
					} else {
						times = append(times, it.JoinedAt)
					}
				}
				if env.Next == nil {
					if len(env.Items) > limit || pages > 1000 {
						t.Fatalf("page of %d items", len(env.Items))
					}
					return
				}
				if len(env.Items) != limit {
					t.Fatalf("a page before the last has %d items, want %d", len(env.Items), limit)
				}
				page = env.Next.Page
			}
		}
		checkOrder := func(what string, items, times []string, asc bool) {
			t.Helper()
			once := map[string]bool{}
			for i, id := range items {
				if once[id] {
					t.Fatalf("%s: %s listed twice", what, id)
				}
				once[id] = true
				if i > 0 && times[i-1] != times[i] && (times[i-1] < times[i]) != asc {
					t.Fatalf("%s: item %d (%s) out of order after %s", what, i, times[i], times[i-1])
				}
			}
		}

		// All 203, in pages of 50, both orders, each once.
		for _, order := range []string{"asc", "desc"} {
			items, times, count := walk(url.Values{"order": {order}}, 50)
			if count != 203 || len(items) != 203 {
				t.Fatalf("%s: count %d, %d items", order, count, len(items))
			}
			checkOrder(order, items, times, order == "asc")
		}
		// Sort by last seen: only the 50 seen members, newest first by default.
		items, times, count := walk(url.Values{"sort": {"lastSeenAt"}}, 7)
		if count != 50 || len(items) != 50 {
			t.Fatalf("lastSeenAt: count %d, %d items", count, len(items))
		}
		checkOrder("lastSeenAt", items, times, false)
		for i, id := range items {
			if !seen[id] {
				t.Fatalf("never-seen member %s listed by lastSeenAt", id)
			}
			if want := start.Add(time.Duration(147-3*i) * time.Minute).Format("2006-01-02T15:04:05.000Z"); times[i] != want {
				t.Fatalf("lastSeenAt item %d: %s, want %s", i, times[i], want)
			}
		}
		items, _, _ = walk(url.Values{"sort": {"lastSeenAt"}, "order": {"asc"}}, 1000)
		if len(items) != 50 || items[0] != readers[0].ID {
			t.Fatalf("lastSeenAt asc starts with %v", items[:1])
		}

		// Role filters, guest included.
		for role, want := range map[string]int{"read": 151, "admin": 1, "guest": 51, "edit": 0} {
			if _, _, count := walk(url.Values{"role": {role}}, 1000); count != want {
				t.Fatalf("role=%s: %d members, want %d", role, count, want)
			}
		}
		var env memberList
		s.Call(t, "listMembersInOrganizationById", w.alice.Token, "GET", list+"?role=guest&limit=100", nil, 200).Decode(t, &env)
		for _, it := range env.Items {
			if it.Role != nil {
				t.Fatalf("role=guest listed a %s", *it.Role)
			}
		}
		// Search: display name and email, case-insensitively.
		for q, want := range map[string][]string{
			"QUARTZ":        {readers[7].ID},
			"quentin q":     {readers[7].ID},
			"READER149@":    {readers[149].ID},
			"alice@ACME":    {w.alice.ID},
			"visitor 04":    nil, // 10 visitors: 040..049
			"no such thing": {},
		} {
			s.Call(t, "listMembersInOrganizationById", w.alice.Token, "GET", list+"?"+url.Values{"search": {q}}.Encode(), nil, 200).Decode(t, &env)
			if want == nil {
				if env.Count != 10 {
					t.Fatalf("search %q: %d", q, env.Count)
				}
				continue
			}
			if env.Count != len(want) || len(env.Items) != len(want) || (len(want) == 1 && env.Items[0].ID != want[0]) {
				t.Fatalf("search %q: %+v", q, env)
			}
		}
		// Filters combine.
		s.Call(t, "listMembersInOrganizationById", w.alice.Token, "GET", list+"?role=guest&search=GINA", nil, 200).Decode(t, &env)
		if env.Count != 1 || env.Items[0].ID != w.gina.ID {
			t.Fatalf("guest gina: %+v", env)
		}

		// Bad queries name the parameter; guests may not list; strangers get 404.
		for _, q := range []string{"role=boss", "role=", "sort=name", "limit=0", "limit=1001", "order=up", "page=nonsense!!"} {
			field := strings.SplitN(q, "=", 2)[0]
			if field == "page" {
				field = "page"
			}
			msg := s.Fail(t, "listMembersInOrganizationById", w.alice.Token, "GET", list+"?"+q, nil, 400)
			if !strings.Contains(msg, field) {
				t.Fatalf("%s: message %q does not name %s", q, msg, field)
			}
		}
		s.Fail(t, "listMembersInOrganizationById", w.gina.Token, "GET", list, nil, 403)
		s.Fail(t, "listMembersInOrganizationById", w.bob.Token, "GET", list, nil, 404)
		s.Fail(t, "listMembersInOrganizationById", w.alice.Token, "GET", "/v1/orgs/nosuchorg00000000000/members", nil, 404)
		s.Fail(t, "listMembersInOrganizationById", "", "GET", list, nil, 401)
	})
}

func TestListMemberTeams(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newMemberWorld(t, s)
		path := "/v1/orgs/" + w.acme + "/members/" + w.carol.ID + "/teams"
		ids := map[string]string{}
		for _, title := range []string{"Docs Writers", "API writers", "Support"} {
			ids[title] = s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", "/v1/orgs/"+w.acme+"/teams",
				map[string]any{"title": title, "members": []string{w.carol.Email}}, 201).JSON(t)["id"].(string)
		}
		s.Call(t, "addMemberToOrganizationTeamById", w.alice.Token, "PUT",
			"/v1/orgs/"+w.acme+"/teams/"+ids["Support"]+"/members/"+w.carol.ID, map[string]any{"role": "owner"}, 204)
		// A team carol is not in, and one of another organization.
		s.Call(t, "createOrganizationTeam", w.alice.Token, "PUT", "/v1/orgs/"+w.acme+"/teams", map[string]any{"title": "Writers without carol"}, 201)
		s.Call(t, "createOrganizationTeam", w.bob.Token, "PUT", "/v1/orgs/"+w.bobs+"/teams", map[string]any{"title": "Bob writers"}, 201)

		var env struct {
			Items []struct {
				Team struct {
					ID, Title   string
					Members     int
					Permissions map[string]bool
				}
				Member struct{ Role string }
			}
			Count int
			Next  *struct{ Page string }
		}
		s.Call(t, "listTeamsForOrganizationMember", w.carol.Token, "GET", path, nil, 200).Decode(t, &env)
		if env.Count != 3 || len(env.Items) != 3 || env.Next != nil {
			t.Fatalf("teams: %+v", env)
		}
		roles := map[string]string{}
		for _, it := range env.Items {
			roles[it.Team.Title] = it.Member.Role
			if it.Team.Members != 1 || !it.Team.Permissions["view"] {
				t.Fatalf("team: %+v", it.Team)
			}
			if it.Team.Permissions["admin"] != (it.Team.Title == "Support") {
				t.Fatalf("carol's admin permission on %s: %v", it.Team.Title, it.Team.Permissions)
			}
		}
		if roles["Support"] != "owner" || roles["Docs Writers"] != "member" || roles["API writers"] != "member" {
			t.Fatalf("roles: %v", roles)
		}
		s.Call(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", path+"?title=WRITERS", nil, 200).Decode(t, &env)
		if env.Count != 2 || len(env.Items) != 2 {
			t.Fatalf("title=WRITERS: %+v", env)
		}
		s.Call(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", path+"?limit=2", nil, 200).Decode(t, &env)
		if len(env.Items) != 2 || env.Next == nil || env.Count != 3 {
			t.Fatalf("limit=2: %+v", env)
		}
		first := env.Items[0].Team.ID + env.Items[1].Team.ID
		next := env.Next.Page
		env.Next = nil
		s.Call(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", path+"?limit=2&page="+next, nil, 200).Decode(t, &env)
		if len(env.Items) != 1 || env.Next != nil || strings.Contains(first, env.Items[0].Team.ID) {
			t.Fatalf("second page: %+v", env)
		}
		s.Call(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", "/v1/orgs/"+w.acme+"/members/"+w.alice.ID+"/teams", nil, 200).Decode(t, &env)
		if env.Count != 0 || len(env.Items) != 0 {
			t.Fatalf("alice's teams: %+v", env)
		}

		s.Fail(t, "listTeamsForOrganizationMember", w.gina.Token, "GET", "/v1/orgs/"+w.acme+"/members/"+w.gina.ID+"/teams", nil, 403)
		s.Fail(t, "listTeamsForOrganizationMember", w.gina.Token, "GET", path, nil, 404)
		s.Fail(t, "listTeamsForOrganizationMember", w.bob.Token, "GET", path, nil, 404)
		s.Fail(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", "/v1/orgs/"+w.acme+"/members/"+w.dan.ID+"/teams", nil, 404)
		s.Fail(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", "/v1/orgs/"+w.acme+"/members/nosuchuser0000000000/teams", nil, 404)
		s.Fail(t, "listTeamsForOrganizationMember", w.alice.Token, "GET", path+"?limit=0", nil, 400)
		s.Fail(t, "listTeamsForOrganizationMember", "", "GET", path, nil, 401)
	})
}
