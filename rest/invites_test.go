package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestInviteLinks(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/link-invites"

		resp := s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", base, map[string]any{"role": "edit", "other": 1}, 201)
		inv := resp.JSON(t)
		id, _ := inv["id"].(string)
		if inv["object"] != "invite" || len(id) < 20 || inv["role"] != "edit" || inv["redundant"] != true {
			t.Fatalf("created: %v", inv)
		}
		if resp.Header.Get("Location") != s.URL+base+"/"+id {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		stored := s.Client().Invite.GetX(ctx, id)
		if stored.OrganizationID != f.org || stored.Role != access.Edit || stored.CreatedBy != f.admin.ID {
			t.Fatalf("stored: %+v", stored)
		}
		s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", base, map[string]any{"role": "read"}, 201)
		s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", base, map[string]any{"role": "admin"}, 201)

		got := s.Call(t, "getOrganizationInviteLink", f.admin.Token, "GET", base+"/"+id, nil, 200).JSON(t)
		if got["id"] != id || got["role"] != "edit" || got["redundant"] != true {
			t.Fatalf("get: %v", got)
		}
		ids := walkPages(t, s, "listOrganizationInviteLinks", f.admin.Token, base, 3)
		if ids[2] != id {
			t.Fatalf("not newest first: %v", ids)
		}

		upd := s.Call(t, "updateOrganizationInviteById", f.admin.Token, "PATCH", base+"/"+id, map[string]any{"role": "comment"}, 200).JSON(t)
		if upd["id"] != id || upd["role"] != "comment" {
			t.Fatalf("updated: %v", upd)
		}
		if s.Client().Invite.GetX(ctx, id).Role != access.Comment {
			t.Fatal("role not stored")
		}

		resp = s.Call(t, "deleteOrganizationInviteById", f.admin.Token, "DELETE", base+"/"+id, nil, 205)
		if len(resp.Body) != 0 {
			t.Fatalf("delete body: %s", resp.Body)
		}
		if s.Client().Invite.Query().Where(invite.ID(id)).ExistX(ctx) {
			t.Fatal("deleted invite still stored")
		}
		s.Fail(t, "getOrganizationInviteLink", f.admin.Token, "GET", base+"/"+id, nil, 404)
		// A deleted link no longer lets anyone in.
		s.Fail(t, "joinOrganizationWithInvite", f.bob.Token, "POST", "/v1/orgs/"+f.org+"/invites/"+id, nil, 404)
	})
}

func TestInviteLinksRefuseBadInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/link-invites"
		id := s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", base, map[string]any{"role": "read"}, 201).JSON(t)["id"].(string)

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"role": "read"`, "malformed"},
			{`[]`, "object"},
			{``, "required"},
			{map[string]any{}, "role"},
			{map[string]any{"role": nil}, "role"},
			{map[string]any{"role": ""}, "role"},
			{map[string]any{"role": "boss"}, "role"},
			{map[string]any{"role": "Admin"}, "role"},
			{map[string]any{"role": 3}, "role"},
			{map[string]any{"role": []string{"read"}}, "role"},
		} {
			msg := s.Fail(t, "createOrganizationInvite", f.admin.Token, "POST", base, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("create %v: message %q does not name %q", c.body, msg, c.field)
			}
			msg = s.Fail(t, "updateOrganizationInviteById", f.admin.Token, "PATCH", base+"/"+id, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("update %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		for _, q := range []string{"limit=0", "limit=1001", "page=nonsense!", "order=up"} {
			s.Fail(t, "listOrganizationInviteLinks", f.admin.Token, "GET", base+"?"+q, nil, 400)
		}
		s.Unchanged(t, before)
	})
}

func TestInviteLinksAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/link-invites"
		id := s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", base, map[string]any{"role": "read"}, 201).JSON(t)["id"].(string)
		bobsID := s.Call(t, "createOrganizationInvite", f.bob.Token, "POST", "/v1/orgs/"+f.otherOrg+"/link-invites", map[string]any{"role": "read"}, 201).JSON(t)["id"].(string)
		body := map[string]any{"role": "admin"}

		before := s.Snapshot(t)
		for _, c := range []struct {
			op, method, path string
			body             any
		}{
			{"listOrganizationInviteLinks", "GET", base, nil},
			{"createOrganizationInvite", "POST", base, body},
			{"getOrganizationInviteLink", "GET", base + "/" + id, nil},
			{"updateOrganizationInviteById", "PATCH", base + "/" + id, body},
			{"deleteOrganizationInviteById", "DELETE", base + "/" + id, nil},
		} {
			s.Fail(t, c.op, "", c.method, c.path, c.body, 401)
			s.Fail(t, c.op, f.bob.Token, c.method, c.path, c.body, 404)
			s.Fail(t, c.op, f.bob.Token, c.method, strings.Replace(c.path, f.org, "unknownorg", 1), c.body, 404)
			// Invite links are secrets: even reading them is for admins.
			s.Fail(t, c.op, f.reader.Token, c.method, c.path, c.body, 403)
			s.Fail(t, c.op, f.guest.Token, c.method, c.path, c.body, 403)
		}
		for _, other := range []string{"unknowninvite", bobsID} {
			s.Fail(t, "getOrganizationInviteLink", f.admin.Token, "GET", base+"/"+other, nil, 404)
			s.Fail(t, "updateOrganizationInviteById", f.admin.Token, "PATCH", base+"/"+other, body, 404)
			s.Fail(t, "deleteOrganizationInviteById", f.admin.Token, "DELETE", base+"/"+other, nil, 404)
		}
		s.Unchanged(t, before)
	})
}

func TestJoinOrganizationWithInvite(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newOrgFixture(t, s)
		links := "/v1/orgs/" + f.org + "/link-invites"
		edit := s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", links, map[string]any{"role": "edit"}, 201).JSON(t)["id"].(string)
		bobsInvite := s.Call(t, "createOrganizationInvite", f.bob.Token, "POST", "/v1/orgs/"+f.otherOrg+"/link-invites", map[string]any{"role": "read"}, 201).JSON(t)["id"].(string)
		join := "/v1/orgs/" + f.org + "/invites/"
		roleOf := func(u testkit.User) *access.Role {
			t.Helper()
			return s.Client().Member.Query().Where(member.OrganizationID(f.org), member.UserID(u.ID)).OnlyX(ctx).Role
		}

		// Failures first: nothing may change.
		dave, _ := s.NewUser(t, "dave@else.org", "")
		before := s.Snapshot(t)
		s.Fail(t, "joinOrganizationWithInvite", "", "POST", join+edit, nil, 401)
		s.Fail(t, "joinOrganizationWithInvite", dave.Token, "POST", join+"unknowninvite", nil, 404)
		s.Fail(t, "joinOrganizationWithInvite", dave.Token, "POST", join+bobsInvite, nil, 404)
		s.Fail(t, "joinOrganizationWithInvite", dave.Token, "POST", "/v1/orgs/unknownorg/invites/"+edit, nil, 404)
		s.Unchanged(t, before)

		// A new user becomes a member with the invite's role.
		res := s.Call(t, "joinOrganizationWithInvite", dave.Token, "POST", join+edit, nil, 200).JSON(t)
		if res["object"] != "invite" || res["id"] != edit || res["role"] != "edit" || res["redundant"] != false {
			t.Fatalf("join: %v", res)
		}
		m := s.Client().Member.Query().Where(member.OrganizationID(f.org), member.UserID(dave.ID)).OnlyX(ctx)
		if m.Role == nil || *m.Role != access.Edit || m.Disabled {
			t.Fatalf("member: %+v", m)
		}
		// Dave now sees the organization; joining again changes nothing.
		s.Call(t, "getOrganizationById", dave.Token, "GET", "/v1/orgs/"+f.org, nil, 200)
		before = s.Snapshot(t)
		if res := s.Call(t, "joinOrganizationWithInvite", dave.Token, "POST", join+edit, nil, 200).JSON(t); res["redundant"] != true {
			t.Fatalf("second join: %v", res)
		}
		s.Unchanged(t, before)

		// A current member keeps the role the admin set, whatever the
		// link's role: a guest stays a guest, a read member stays read, and
		// the answer says the join was redundant.
		for _, c := range []struct {
			who  testkit.User
			want *access.Role
		}{
			{f.reader, testkit.RoleOf(access.Read)},
			{f.guest, nil},
			{f.admin, testkit.RoleOf(access.Admin)},
		} {
			before := s.Snapshot(t)
			res := s.Call(t, "joinOrganizationWithInvite", c.who.Token, "POST", join+edit, nil, 200).JSON(t)
			if res["redundant"] != true || res["role"] != "edit" {
				t.Fatalf("%s: %v", c.who.Email, res)
			}
			if r := roleOf(c.who); (r == nil) != (c.want == nil) || (r != nil && *r != *c.want) {
				t.Fatalf("%s: role %v, want %v", c.who.Email, r, c.want)
			}
			s.Unchanged(t, before)
		}
		creator, _ := s.NewUser(t, "erin@acme.com", "")
		s.AddMember(t, f.org, creator, testkit.RoleOf(access.Create))
		if res := s.Call(t, "joinOrganizationWithInvite", creator.Token, "POST", join+edit, nil, 200).JSON(t); res["redundant"] != true || *roleOf(creator) != access.Create {
			t.Fatalf("create-role member: %v, %v", res, *roleOf(creator))
		}
		// A member the admin demoted cannot take the role back through a
		// link with a higher one.
		adminLink := s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", links, map[string]any{"role": "admin"}, 201).JSON(t)["id"].(string)
		s.Call(t, "updateMemberInOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org+"/members/"+creator.ID, map[string]any{"role": "read"}, 200)
		before = s.Snapshot(t)
		if res := s.Call(t, "joinOrganizationWithInvite", creator.Token, "POST", join+adminLink, nil, 200).JSON(t); res["redundant"] != true || res["role"] != "admin" {
			t.Fatalf("demoted member's join: %v", res)
		}
		if r := roleOf(creator); r == nil || *r != access.Read {
			t.Fatalf("demoted member's role after joining through an admin link: %v, want read", r)
		}
		s.Unchanged(t, before)
		s.Fail(t, "updateOrganizationById", creator.Token, "PATCH", "/v1/orgs/"+f.org, map[string]any{"title": "Mine"}, 403)
		// The invite reports redundancy for whoever asks.
		if got := s.Call(t, "getOrganizationInviteLink", f.admin.Token, "GET", links+"/"+edit, nil, 200).JSON(t); got["redundant"] != true {
			t.Fatalf("admin's view: %v", got)
		}

		// With invite links disabled, creating and joining are refused (403);
		// admins still list, read, change and delete existing links.
		s.Call(t, "updateOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org, map[string]any{"inviteLinks": false}, 200)
		frank, _ := s.NewUser(t, "frank@else.org", "")
		before = s.Snapshot(t)
		msg := s.Fail(t, "joinOrganizationWithInvite", frank.Token, "POST", join+edit, nil, 403)
		if !strings.Contains(msg, "inviteLinks") {
			t.Fatalf("disabled join message: %q", msg)
		}
		s.Fail(t, "createOrganizationInvite", f.admin.Token, "POST", links, map[string]any{"role": "read"}, 403)
		s.Unchanged(t, before)
		if s.Client().Member.Query().Where(member.UserID(frank.ID)).ExistX(ctx) {
			t.Fatal("frank joined an organization with invite links disabled")
		}
		s.Call(t, "listOrganizationInviteLinks", f.admin.Token, "GET", links, nil, 200)
		s.Call(t, "updateOrganizationInviteById", f.admin.Token, "PATCH", links+"/"+edit, map[string]any{"role": "read"}, 200)

		// Enabled again, the link works again.
		s.Call(t, "updateOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org, map[string]any{"inviteLinks": true}, 200)
		if res := s.Call(t, "joinOrganizationWithInvite", frank.Token, "POST", join+edit, nil, 200).JSON(t); res["role"] != "read" || *roleOf(frank) != access.Read {
			t.Fatalf("frank: %v", res)
		}
	})
}

// TestConcurrentJoins sends the same newcomer's join twice at once: one
// makes them a member with the link's role, the other answers redundant;
// neither fails.
func TestConcurrentJoins(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newOrgFixture(t, s)
		link := s.Call(t, "createOrganizationInvite", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/link-invites", map[string]any{"role": "comment"}, 201).JSON(t)["id"].(string)
		path := "/v1/orgs/" + f.org + "/invites/" + link
		for round := 0; round < 10; round++ {
			u, _ := s.NewUser(t, fmt.Sprintf("newcomer%d@else.org", round), "")
			res := together(t, s, u.Token, [3]any{"POST", path, nil}, [3]any{"POST", path, nil})
			fresh := 0
			for _, r := range res {
				if r.Status != 200 {
					t.Fatalf("round %d: %d %s", round, r.Status, r.Body)
				}
				if r.JSON(t)["redundant"] == false {
					fresh++
				}
			}
			if fresh != 1 {
				t.Fatalf("round %d: %d joins say they made the member, want 1", round, fresh)
			}
			if m := s.Client().Member.Query().Where(member.OrganizationID(f.org), member.UserID(u.ID)).OnlyX(ctx); m.Role == nil || *m.Role != access.Comment {
				t.Fatalf("round %d: member %+v", round, m)
			}
		}
	})
}
