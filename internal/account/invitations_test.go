package account_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/testkit"
)

// invite invites emails to org as editors and answers each invitation's
// page path (no mail server: the links come in inviteLinks).
func invite(t *testing.T, s *testkit.Server, token, org string, emails ...string) map[string]string {
	t.Helper()
	var list []any
	for _, e := range emails {
		list = append(list, map[string]any{"email": e})
	}
	data := s.MustGraphQL(t, token, `mutation($org: ID!, $emails: [InviteEmailInput!]!) {
		inviteUsersToOrganization(organizationId: $org, input: {emails: $emails, role: edit}) { inviteLinks { email url } } }`,
		map[string]any{"org": org, "emails": list})
	out := map[string]string{}
	for _, l := range data["inviteUsersToOrganization"].(map[string]any)["inviteLinks"].([]any) {
		l := l.(map[string]any)
		u, err := url.Parse(l["url"].(string))
		if err != nil {
			t.Fatal(err)
		}
		out[l["email"].(string)] = u.Path
	}
	if len(out) != len(emails) {
		t.Fatalf("links %v", out)
	}
	return out
}

// TestInvitationPage: the page an invitation's link opens. A person
// without an account makes one there and is signed in, a member with the
// invitation's role; a signed-in user with the address joins with one
// button; an address with an account is sent to sign in; a used or
// unknown invitation is 404; its forms come from Folio's origin only.
func TestInvitationPage(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		links := invite(t, s, admin.Token, org, "new@example.com", "bob@example.com")
		page := links["new@example.com"]

		a := send(t, s, "GET", page, "", "", "", "")
		if a.status != http.StatusOK || !strings.Contains(a.body, "Acme") || !strings.Contains(a.body, `name="confirmation"`) || strings.Contains(a.body, "<script") {
			t.Fatalf("page: %d %s", a.status, a.body)
		}
		if a := send(t, s, "POST", page, "", "https://evil.example", formType, form("name", "New", "password", password, "confirmation", password)); a.status != http.StatusForbidden {
			t.Fatalf("cross-origin: %d", a.status)
		}
		if a := send(t, s, "POST", page, "", s.URL, formType, form("name", "New", "password", password, "confirmation", "other")); a.status != http.StatusBadRequest || !strings.Contains(a.body, "confirmation") {
			t.Fatalf("confirmation: %d %s", a.status, a.body)
		}
		if a := send(t, s, "POST", page, "", s.URL, formType, form("name", "New", "password", "short", "confirmation", "short")); a.status != http.StatusBadRequest || !strings.Contains(a.body, "password:") {
			t.Fatalf("short password: %d %s", a.status, a.body)
		}
		if s.Client().User.Query().Where(user.Email("new@example.com")).ExistX(ctx) {
			t.Fatal("a refused form made the account")
		}
		a = send(t, s, "POST", page, "", s.URL, formType, form("name", "New Person", "password", password, "confirmation", password))
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/account" {
			t.Fatalf("accept: %d %v %s", a.status, a.header, a.body)
		}
		cookie := sessionCookie(t, a).Value
		data, errs, _ := gql(t, s, cookie, s.URL, `{ viewer { user { email displayName } } }`)
		if errs != nil || data["viewer"].(map[string]any)["user"].(map[string]any)["displayName"] != "New Person" {
			t.Fatalf("signed in: %v %v", data, errs)
		}
		nu := s.Client().User.Query().Where(user.Email("new@example.com")).OnlyX(ctx)
		if m := s.Client().Member.Query().Where(member.OrganizationID(org), member.UserID(nu.ID)).OnlyX(ctx); m.Role == nil || string(*m.Role) != "edit" || !nu.EmailVerified {
			t.Fatalf("member %+v verified %v", m, nu.EmailVerified)
		}
		for action, n := range map[string]int{"user.created": 1, "invite.accepted": 1, "member.joined": 1, "user.password_changed": 1, "user.signed_in": 1} {
			if got := s.Client().Event.Query().Where(event.Action(action), event.Source("ui"), event.ActorID("invitation")).CountX(ctx); got != n {
				t.Fatalf("%d %s events by the invitation page", got, action)
			}
		}
		// The password signs in again.
		if a := signIn(t, s, "new@example.com", password); a.status != http.StatusSeeOther {
			t.Fatalf("sign in with the new password: %d", a.status)
		}
		// Used: 404, GET and POST.
		if a := send(t, s, "GET", page, "", "", "", ""); a.status != http.StatusNotFound {
			t.Fatalf("used: %d", a.status)
		}
		if a := send(t, s, "POST", page, "", s.URL, formType, form("name", "X", "password", password, "confirmation", password)); a.status != http.StatusNotFound {
			t.Fatalf("used, posted: %d", a.status)
		}
		if a := send(t, s, "GET", "/invitations/"+org+"/nosuchinvite", "", "", "", ""); a.status != http.StatusNotFound {
			t.Fatalf("unknown: %d", a.status)
		}

		// bob made an account after the invitation: the page sends him to
		// sign in, then he joins with the button.
		bobPage := links["bob@example.com"]
		newUserWithPassword(t, s, "bob@example.com")
		a = send(t, s, "GET", bobPage, "", "", "", "")
		if a.status != http.StatusOK || !strings.Contains(a.body, `href="/sign-in?next=`+url.QueryEscape(bobPage)+`"`) || strings.Contains(a.body, `name="password"`) {
			t.Fatalf("existing account, signed out: %d %s", a.status, a.body)
		}
		bobCookie := sessionCookie(t, signIn(t, s, "bob@example.com", password)).Value
		a = send(t, s, "GET", bobPage, bobCookie, "", "", "")
		if a.status != http.StatusOK || !strings.Contains(a.body, "Join Acme as edit") {
			t.Fatalf("signed in: %d %s", a.status, a.body)
		}
		if a := send(t, s, "POST", bobPage, bobCookie, "https://evil.example", formType, ""); a.status != http.StatusForbidden {
			t.Fatalf("cross-origin join: %d", a.status)
		}
		if a := send(t, s, "POST", bobPage, bobCookie, s.URL, formType, ""); a.status != http.StatusSeeOther || a.header.Get("Location") != "/account" {
			t.Fatalf("join: %d %s", a.status, a.body)
		}
		bob := s.Client().User.Query().Where(user.Email("bob@example.com")).OnlyX(ctx)
		if m := s.Client().Member.Query().Where(member.OrganizationID(org), member.UserID(bob.ID)).OnlyX(ctx); m.Role == nil || string(*m.Role) != "edit" {
			t.Fatalf("bob's membership %+v", m)
		}
		if a := send(t, s, "GET", bobPage, bobCookie, "", "", ""); a.status != http.StatusNotFound {
			t.Fatalf("used by bob: %d", a.status)
		}
	})
}
