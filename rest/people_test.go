package rest_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/mail/mailtest"
	"github.com/folio/folio/internal/testkit"
)

// peopleWorld: an admin of Acme, a reader of Acme, a user with an account
// but no membership, and a stranger with an organization of their own.
type peopleWorld struct {
	admin, reader, bob, stranger testkit.User
	org, otherOrg                string
}

func newPeopleWorld(t *testing.T, s *testkit.Server) peopleWorld {
	t.Helper()
	var w peopleWorld
	w.admin, w.org = s.NewUser(t, "admin@acme.com", "Acme")
	w.reader, _ = s.NewUser(t, "reader@acme.com", "")
	s.AddMember(t, w.org, w.reader, testkit.RoleOf(access.Read))
	w.bob, _ = s.NewUser(t, "bob@acme.com", "")
	w.stranger, w.otherOrg = s.NewUser(t, "stranger@else.org", "Elsewhere")
	return w
}

// unverify marks u's email as not verified (a user who signed up by
// themselves, once sign-up exists).
func unverify(t *testing.T, s *testkit.Server, u testkit.User) {
	t.Helper()
	s.Client().User.UpdateOneID(u.ID).SetEmailVerified(false).ExecX(testkit.Fixture(context.Background()))
}

func verified(t *testing.T, s *testkit.Server, u testkit.User) bool {
	t.Helper()
	return s.Client().User.GetX(context.Background(), u.ID).EmailVerified
}

// lastSegment is the invitation id at the end of its link.
func lastSegment(url string) string { return url[strings.LastIndex(url, "/")+1:] }

func TestInviteUsersToOrganization(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		path := "/v1/orgs/" + w.org + "/invites"
		op := "inviteUsersToOrganization"

		t.Run("bad input names the field", func(t *testing.T) {
			many := make([]string, 101)
			for i := range many {
				many[i] = fmt.Sprintf("u%d@acme.com", i)
			}
			before := s.Snapshot(t)
			for _, c := range []struct {
				body  any
				field string
			}{
				{map[string]any{}, "emails"},
				{map[string]any{"emails": []string{}}, "emails"},
				{map[string]any{"emails": many}, "emails"},
				{map[string]any{"emails": "bob@acme.com"}, "emails"},
				{map[string]any{"emails": []any{"nope"}}, "emails[0]"},
				{map[string]any{"emails": []any{"ok@acme.com", "Bob <bob@acme.com>"}}, "emails[1]"},
				{map[string]any{"emails": []any{42}}, "emails[0]"},
				{map[string]any{"emails": []any{"ok@acme.com", map[string]any{"email": "c@acme.com", "role": "owner"}}}, "emails[1].role"},
				{map[string]any{"emails": []any{map[string]any{"email": "c@acme.com", "role": nil}}}, "emails[0].role"},
				{map[string]any{"emails": []any{"c@acme.com"}, "role": "owner"}, "role"},
				{map[string]any{"emails": []any{"c@acme.com"}, "role": nil}, "role"},
				{map[string]any{"emails": []any{"c@acme.com"}, "sso": "yes"}, "sso"},
			} {
				msg := s.Fail(t, op, w.admin.Token, "POST", path, c.body, 400)
				if !strings.HasPrefix(msg, c.field+": ") {
					t.Errorf("%v: message %q does not name %s", c.body, msg, c.field)
				}
			}
			s.Unchanged(t, before)
		})

		t.Run("non-admins and strangers", func(t *testing.T) {
			before := s.Snapshot(t)
			body := map[string]any{"emails": []string{"new@acme.com"}}
			s.Fail(t, op, w.reader.Token, "POST", path, body, 403)
			s.Fail(t, op, w.reader.Token, "POST", path, `{"emails": `, 403)
			s.Fail(t, op, w.stranger.Token, "POST", path, body, 404)
			s.Fail(t, op, w.stranger.Token, "POST", path, `{"emails": `, 404)
			s.Fail(t, op, w.admin.Token, "POST", "/v1/orgs/"+w.otherOrg+"/invites", body, 404)
			s.Fail(t, op, w.admin.Token, "POST", "/v1/orgs/nosuchorg/invites", body, 404)
			s.Unchanged(t, before)
		})

		var carolInvite string
		t.Run("existing users join at once, others get a link", func(t *testing.T) {
			resp := s.Call(t, op, w.admin.Token, "POST", path, map[string]any{
				"emails": []any{"Bob@Acme.com", map[string]any{"email": "carol@new.org", "role": "edit"}, "bob@acme.com", "reader@acme.com"},
				"role":   "comment",
			}, 200)
			var out struct {
				Users           []string `json:"users"`
				Invited         int      `json:"invited"`
				FailedSSOEmails []string `json:"failedSSOEmails"`
				InviteLinks     []struct {
					Email, URL, Reason string
				} `json:"inviteLinks"`
			}
			resp.Decode(t, &out)
			if len(out.Users) != 1 || out.Users[0] != w.bob.ID || out.Invited != 2 || len(out.FailedSSOEmails) != 0 {
				t.Fatalf("answer %s", resp.Body)
			}
			if len(out.InviteLinks) != 1 || out.InviteLinks[0].Email != "carol@new.org" || out.InviteLinks[0].Reason != "NOT_CONFIGURED" ||
				!strings.HasPrefix(out.InviteLinks[0].URL, s.Server.URL+"/invitations/"+w.org+"/") {
				t.Fatalf("invite links %s", resp.Body)
			}
			carolInvite = lastSegment(out.InviteLinks[0].URL)
			if m := s.MemberOf(t, w.org, w.bob.ID); m == nil || m.Role == nil || *m.Role != access.Comment {
				t.Fatalf("bob's membership %+v", m)
			}
			// The reader keeps the role they had.
			if m := s.MemberOf(t, w.org, w.reader.ID); *m.Role != access.Read {
				t.Fatalf("reader became %s", *m.Role)
			}
			expectEvents(t, s, resp, w.admin,
				eventCheck{action: "member.added", targetType: "member", targetID: w.bob.ID, payload: map[string]any{"userId": w.bob.ID, "role": "comment", "email": "bob@acme.com", "sso": false}},
				eventCheck{action: "member.invited", targetType: "invite", targetID: carolInvite, payload: map[string]any{"email": "carol@new.org", "role": "edit"}})
		})

		t.Run("invitations are not invite links", func(t *testing.T) {
			list := s.Call(t, "listOrganizationInviteLinks", w.admin.Token, "GET", "/v1/orgs/"+w.org+"/link-invites", nil, 200)
			if strings.Contains(string(list.Body), carolInvite) {
				t.Fatalf("an invitation is listed as a link: %s", list.Body)
			}
			s.Fail(t, "getOrganizationInviteLink", w.admin.Token, "GET", "/v1/orgs/"+w.org+"/link-invites/"+carolInvite, nil, 404)
		})

		t.Run("only the invited address accepts, once, and is verified", func(t *testing.T) {
			join := "/v1/orgs/" + w.org + "/invites/" + carolInvite
			s.Fail(t, "joinOrganizationWithInvite", w.stranger.Token, "POST", join, nil, 404)
			// Invite links off: an invitation still works.
			s.Call(t, "updateOrganizationById", w.admin.Token, "PATCH", "/v1/orgs/"+w.org, map[string]any{"inviteLinks": false}, 200)
			carol, _ := s.NewUser(t, "carol@new.org", "")
			unverify(t, s, carol)
			resp := s.Call(t, "joinOrganizationWithInvite", carol.Token, "POST", join, nil, 200)
			if m := s.MemberOf(t, w.org, carol.ID); m == nil || *m.Role != access.Edit {
				t.Fatalf("carol's membership %+v (%s)", m, resp.Body)
			}
			if !verified(t, s, carol) {
				t.Fatal("accepting a mailed invitation did not verify the address")
			}
			if n := s.Client().Invite.Query().Where(invite.ID(carolInvite)).CountX(context.Background()); n != 0 {
				t.Fatal("the invitation was not used up")
			}
			s.Fail(t, "joinOrganizationWithInvite", carol.Token, "POST", join, nil, 404)
		})

		t.Run("inviting again renews one invitation", func(t *testing.T) {
			body := map[string]any{"emails": []string{"dan@new.org"}}
			first := s.Call(t, op, w.admin.Token, "POST", path, body, 200).JSON(t)
			body["role"] = "review"
			second := s.Call(t, op, w.admin.Token, "POST", path, body, 200).JSON(t)
			a := first["inviteLinks"].([]any)[0].(map[string]any)["url"]
			b := second["inviteLinks"].([]any)[0].(map[string]any)["url"]
			if a != b {
				t.Fatalf("two invitations for one address: %v %v", a, b)
			}
			inv := s.Client().Invite.Query().Where(invite.EmailEQ("dan@new.org")).OnlyX(context.Background())
			if inv.Role != access.Review {
				t.Fatalf("role %s", inv.Role)
			}
		})

		t.Run("sso for existing users", func(t *testing.T) {
			// erin is an SSO member of the stranger's organization.
			erin, _ := s.NewUser(t, "erin@else.org", "")
			s.Client().Member.Create().SetOrganizationID(w.otherOrg).SetUserID(erin.ID).SetSSO(true).ExecX(testkit.Fixture(context.Background()))
			fay, _ := s.NewUser(t, "fay@else.org", "")
			out := s.Call(t, op, w.admin.Token, "POST", path, map[string]any{"emails": []string{"erin@else.org", "fay@else.org"}, "sso": true}, 200).JSON(t)
			if f := out["failedSSOEmails"].([]any); len(f) != 1 || f[0] != "erin@else.org" {
				t.Fatalf("failedSSOEmails %v", out)
			}
			if !s.MemberOf(t, w.org, fay.ID).SSO || s.MemberOf(t, w.org, erin.ID).SSO {
				t.Fatal("sso memberships")
			}
			// Acme's default role (none: read) applies.
			if *s.MemberOf(t, w.org, fay.ID).Role != access.Read {
				t.Fatal("default role")
			}
		})
	})
}

func TestInvitationsAreMailed(t *testing.T) {
	srv := mailtest.Start(t)
	t.Setenv("FOLIO_SMTP_URL", srv.URL("folio", "mailpw", "folio@acme.com"))
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		sent := len(srv.Messages())
		path := "/v1/orgs/" + w.org + "/invites"
		resp := s.Call(t, "inviteUsersToOrganization", w.admin.Token, "POST", path, map[string]any{"emails": []string{"gus@new.org"}}, 200)
		if strings.Contains(string(resp.Body), "inviteLinks") {
			t.Fatalf("a mailed invitation's link is in the answer: %s", resp.Body)
		}
		msg := srv.Wait(t, sent+1, 10*time.Second)[sent]
		if len(msg.To) != 1 || msg.To[0] != "gus@new.org" || msg.From != "folio@acme.com" || msg.Auth != "folio:mailpw" {
			t.Fatalf("envelope %+v", msg)
		}
		link := regexp.MustCompile(`http://\S+/invitations/` + w.org + `/(\S+)`).FindStringSubmatch(msg.Data)
		if link == nil || !strings.Contains(msg.Data, "Subject: Invitation to Acme on Folio") {
			t.Fatalf("message:\n%s", msg.Data)
		}
		gus, _ := s.NewUser(t, "gus@new.org", "")
		s.Call(t, "joinOrganizationWithInvite", gus.Token, "POST", "/v1/orgs/"+w.org+"/invites/"+link[1], nil, 200)
		if s.MemberOf(t, w.org, gus.ID) == nil {
			t.Fatal("the mailed link did not join")
		}

		// A refused recipient: the invitation stands and its link is
		// answered for the admin to hand out.
		srv.Reject.Store(true)
		defer srv.Reject.Store(false)
		out := s.Call(t, "inviteUsersToOrganization", w.admin.Token, "POST", path, map[string]any{"emails": []string{"hal@new.org"}}, 200).JSON(t)
		links, _ := out["inviteLinks"].([]any)
		if len(links) != 1 || links[0].(map[string]any)["reason"] != "FAILED" || out["invited"] != float64(1) {
			t.Fatalf("answer %v", out)
		}
	})
}

func TestJoinOrganizationByEmailDomain(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		op := "joinOrganization"
		join := "/v1/orgs/" + w.org + "/join"
		s.Call(t, "updateOrganizationById", w.admin.Token, "PATCH", "/v1/orgs/"+w.org, map[string]any{"emailDomains": []string{"acme.com"}, "defaultRole": "edit"}, 200)
		unverified, _ := s.NewUser(t, "ivy@acme.com", "")
		unverify(t, s, unverified)

		t.Run("refusals", func(t *testing.T) {
			before := s.Snapshot(t)
			s.Fail(t, op, unverified.Token, "POST", join, nil, 403)
			// Another domain cannot see the organization; nor can anyone
			// see one that does not exist.
			s.Fail(t, op, w.stranger.Token, "POST", join, nil, 404)
			s.Fail(t, op, w.bob.Token, "POST", "/v1/orgs/"+w.otherOrg+"/join", nil, 404)
			s.Fail(t, op, w.bob.Token, "POST", "/v1/orgs/nosuchorg/join", nil, 404)
			s.Unchanged(t, before)
		})

		t.Run("a verified address of the domain joins with the default role", func(t *testing.T) {
			resp := s.Call(t, op, w.bob.Token, "POST", join, nil, 204)
			if m := s.MemberOf(t, w.org, w.bob.ID); m == nil || *m.Role != access.Edit {
				t.Fatalf("membership %+v", m)
			}
			expectEvents(t, s, resp, w.bob, eventCheck{action: "member.joined", targetType: "member", targetID: w.bob.ID,
				payload: map[string]any{"userId": w.bob.ID, "role": "edit", "emailDomain": "acme.com"}})
			// Again, and a member of another role: nothing changes.
			before := s.Snapshot(t)
			s.Call(t, op, w.bob.Token, "POST", join, nil, 204)
			s.Call(t, op, w.reader.Token, "POST", join, nil, 204)
			s.Unchanged(t, before)
			if *s.MemberOf(t, w.org, w.reader.ID).Role != access.Read {
				t.Fatal("the reader's role changed")
			}
		})
	})
}

func TestUpdateUserById(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		op := "updateUserById"
		me := "/v1/users/" + w.bob.ID

		t.Run("own profile", func(t *testing.T) {
			resp := s.Call(t, op, w.bob.Token, "PATCH", me, map[string]any{"displayName": " Bob Builder ", "photoURL": "https://img.example.com/bob.png"}, 200)
			out := resp.JSON(t)
			if out["object"] != "user" || out["id"] != w.bob.ID || out["displayName"] != "Bob Builder" || out["photoURL"] != "https://img.example.com/bob.png" {
				t.Fatalf("answer %v", out)
			}
			expectEvents(t, s, resp, w.bob, eventCheck{action: "user.updated", targetType: "user", targetID: w.bob.ID})
			out = s.Call(t, op, w.bob.Token, "PATCH", me, map[string]any{"photoURL": nil}, 200).JSON(t)
			if _, ok := out["photoURL"]; ok || out["displayName"] != "Bob Builder" {
				t.Fatalf("photo not removed: %v", out)
			}
			got := s.Call(t, "getUserById", w.bob.Token, "GET", me, nil, 200).JSON(t)
			if got["displayName"] != "Bob Builder" {
				t.Fatalf("read back %v", got)
			}
		})

		t.Run("bad input names the field", func(t *testing.T) {
			before := s.Snapshot(t)
			for _, c := range []struct {
				body  any
				field string
			}{
				{map[string]any{"displayName": ""}, "displayName"},
				{map[string]any{"displayName": "   "}, "displayName"},
				{map[string]any{"displayName": strings.Repeat("é", 65)}, "displayName"},
				{map[string]any{"displayName": nil}, "displayName"},
				{map[string]any{"displayName": 7}, "displayName"},
				{map[string]any{"photoURL": "ftp://img.example.com/a.png"}, "photoURL"},
				{map[string]any{"photoURL": "javascript:alert(1)"}, "photoURL"},
				{map[string]any{"photoURL": "https://img.example.com/" + strings.Repeat("a", 2048)}, "photoURL"},
			} {
				msg := s.Fail(t, op, w.bob.Token, "PATCH", me, c.body, 400)
				if !strings.HasPrefix(msg, c.field+": ") {
					t.Errorf("%v: message %q does not name %s", c.body, msg, c.field)
				}
			}
			s.Fail(t, op, w.bob.Token, "PATCH", me, map[string]any{}, 400)
			s.Unchanged(t, before)
		})

		t.Run("someone else is not found", func(t *testing.T) {
			before := s.Snapshot(t)
			// The admin shares an organization with the reader, and still
			// may not edit them; a stranger does not even see them.
			s.Fail(t, op, w.admin.Token, "PATCH", "/v1/users/"+w.reader.ID, map[string]any{"displayName": "X"}, 404)
			s.Fail(t, op, w.stranger.Token, "PATCH", me, map[string]any{"displayName": "X"}, 404)
			s.Fail(t, op, w.stranger.Token, "PATCH", me, `{"displayName": `, 404)
			s.Fail(t, op, w.bob.Token, "PATCH", "/v1/users/nosuchuser", map[string]any{"displayName": "X"}, 404)
			s.Unchanged(t, before)
		})
	})
}

// TestPeopleInGraphQL: the same three operations as GraphQL mutations.
func TestPeopleInGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		data := s.MustGraphQL(t, w.admin.Token, `mutation($org: ID!) {
  inviteUsersToOrganization(organizationId: $org, input: {emails: [{email: "bob@acme.com"}, {email: "kim@new.org", role: admin}], role: review}) {
    users { id emailVerified } invited failedSSOEmails inviteLinks { email url reason }
  }
}`, map[string]any{"org": w.org})
		res := data["inviteUsersToOrganization"].(map[string]any)
		if users := res["users"].([]any); len(users) != 1 || users[0].(map[string]any)["id"] != w.bob.ID || res["invited"] != float64(2) ||
			len(res["inviteLinks"].([]any)) != 1 {
			t.Fatalf("invite: %v", res)
		}
		_, errs := s.GraphQL(t, w.reader.Token, `mutation($org: ID!) { inviteUsersToOrganization(organizationId: $org, input: {emails: [{email: "x@acme.com"}]}) { invited } }`, map[string]any{"org": w.org})
		if len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("reader: %v", errs)
		}
		_, errs = s.GraphQL(t, w.admin.Token, `mutation($org: ID!) { inviteUsersToOrganization(organizationId: $org, input: {emails: [{email: "nope"}]}) { invited } }`, map[string]any{"org": w.org})
		if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.HasPrefix(errs[0].Message, "emails[0]: ") {
			t.Fatalf("bad address: %v", errs)
		}

		s.Call(t, "updateOrganizationById", w.stranger.Token, "PATCH", "/v1/orgs/"+w.otherOrg, map[string]any{"emailDomains": []string{"acme.com"}}, 200)
		data = s.MustGraphQL(t, w.reader.Token, `mutation($org: ID!) { joinOrganization(organizationId: $org) { id title } }`, map[string]any{"org": w.otherOrg})
		if data["joinOrganization"].(map[string]any)["id"] != w.otherOrg {
			t.Fatalf("join: %v", data)
		}
		// The other organization's default role is null: a guest.
		if m := s.MemberOf(t, w.otherOrg, w.reader.ID); m == nil || m.Role != nil {
			t.Fatalf("joined as %+v", m)
		}

		data = s.MustGraphQL(t, w.bob.Token, `mutation($id: ID!) { updateUser(id: $id, input: {displayName: "Bobby"}) { id displayName emailVerified } }`, map[string]any{"id": w.bob.ID})
		if u := data["updateUser"].(map[string]any); u["displayName"] != "Bobby" || u["emailVerified"] != true {
			t.Fatalf("update: %v", data)
		}
		_, errs = s.GraphQL(t, w.bob.Token, `mutation($id: ID!) { updateUser(id: $id, input: {displayName: "X"}) { id } }`, map[string]any{"id": w.admin.ID})
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("another user: %v", errs)
		}
		n := s.Client().Event.Query().Where(event.Action("user.updated")).CountX(context.Background())
		if n != 1 {
			t.Fatalf("%d user.updated events", n)
		}
	})
}

// TestEmailVerifiedDefaultsForOlderRows: a user row written without the
// column (as every row made before it was) reads as verified, through the
// column's database default: those users were all made by admins or the
// command line. Rows ent writes say false unless set.
func TestEmailVerifiedDefaultsForOlderRows(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		db := s.App.DB.SQL
		q := "INSERT INTO users (id, email, display_name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)"
		if s.Dialect == "sqlite" {
			q = strings.NewReplacer("$1", "?", "$2", "?", "$3", "?", "$4", "?").Replace(q)
		}
		now := time.Now().UTC()
		args := []any{"olduser", "old@acme.com", "Old", now}
		if s.Dialect == "sqlite" {
			args = append(args, now)
		}
		if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
			t.Fatal(err)
		}
		u := s.Client().User.GetX(context.Background(), "olduser")
		if !u.EmailVerified {
			t.Fatal("a row written without email_verified is not verified")
		}
		n := s.Client().User.Create().SetEmail("new@acme.com").SetDisplayName("New").SaveX(testkit.Fixture(context.Background()))
		if n.EmailVerified {
			t.Fatal("a new row is verified by default")
		}
	})
}

// TestAcceptInvitationAsNewUser: the sign-in pages' way in for a person
// without an account (called as they will call it, with no viewer): the
// account is made verified, joins with the invitation's role, and the
// invitation serves once.
func TestAcceptInvitationAsNewUser(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		out := s.Call(t, "inviteUsersToOrganization", w.admin.Token, "POST", "/v1/orgs/"+w.org+"/invites",
			map[string]any{"emails": []any{map[string]any{"email": "joe@new.org", "role": "create"}, "bob@acme.com"}}, 200).JSON(t)
		id := lastSegment(out["inviteLinks"].([]any)[0].(map[string]any)["url"].(string))
		ctx := testkit.Fixture(context.Background())
		res := s.App.Resolver
		if _, err := res.AcceptInvitationAsNewUser(ctx, w.otherOrg, id, ""); err == nil {
			t.Fatal("accepted under another organization")
		}
		link := s.Call(t, "createOrganizationInvite", w.admin.Token, "POST", "/v1/orgs/"+w.org+"/link-invites", map[string]any{"role": "read"}, 201).JSON(t)["id"].(string)
		if _, err := res.AcceptInvitationAsNewUser(ctx, w.org, link, ""); err == nil {
			t.Fatal("an invite link made an account")
		}
		u, err := res.AcceptInvitationAsNewUser(ctx, w.org, id, "Joe")
		if err != nil {
			t.Fatal(err)
		}
		if !u.EmailVerified || u.Email != "joe@new.org" || u.DisplayName != "Joe" {
			t.Fatalf("user %+v", u)
		}
		if m := s.MemberOf(t, w.org, u.ID); m == nil || *m.Role != access.Create {
			t.Fatalf("membership %+v", m)
		}
		if _, err := res.AcceptInvitationAsNewUser(ctx, w.org, id, "Joe"); err == nil {
			t.Fatal("an invitation served twice")
		}
	})
}

// TestInvitationMailIsBounded: a mail server that never answers does not
// hold the request past its deadline: mailing stops short of it and the
// answer carries the link.
func TestInvitationMailIsBounded(t *testing.T) {
	srv := mailtest.Start(t)
	srv.Stall.Store(true)
	t.Setenv("FOLIO_SMTP_URL", srv.URL("", "", "folio@acme.com"))
	t.Setenv("FOLIO_REQUEST_TIMEOUT", "3s")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newPeopleWorld(t, s)
		start := time.Now()
		out := s.Call(t, "inviteUsersToOrganization", w.admin.Token, "POST", "/v1/orgs/"+w.org+"/invites",
			map[string]any{"emails": []string{"a@new.org", "b@new.org"}}, 200).JSON(t)
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("answered after %v", d)
		}
		if links, _ := out["inviteLinks"].([]any); len(links) != 2 || links[1].(map[string]any)["reason"] != "FAILED" {
			t.Fatalf("answer %v", out)
		}
	})
}

// TestMailPasswordIsNotLogged: a failed invitation is logged, and the mail
// server's password is not.
func TestMailPasswordIsNotLogged(t *testing.T) {
	srv := mailtest.Start(t)
	srv.Reject.Store(true)
	t.Setenv("FOLIO_SMTP_URL", srv.URL("folio", "hunter2", "folio@acme.com"))
	var log strings.Builder
	s := testkit.StartLogged(t, "sqlite", &syncWriter{w: &log})
	w := newPeopleWorld(t, s)
	s.Call(t, "inviteUsersToOrganization", w.admin.Token, "POST", "/v1/orgs/"+w.org+"/invites", map[string]any{"emails": []string{"a@new.org"}}, 200)
	s.Served()
	out := log.String()
	if !strings.Contains(out, "invitation not mailed") || strings.Contains(out, "hunter2") {
		t.Fatalf("log:\n%s", out)
	}
}

// syncWriter serializes writes of concurrent requests' log lines.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
