package account_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/emailtoken"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/mail/mailtest"
	"github.com/folio/folio/internal/testkit"
)

// mailServers runs fn on each database with a server whose jobs run (the
// links are mailed by a job) and whose mail goes to srv.
func mailServers(t *testing.T, fn func(t *testing.T, s *testkit.Server, srv *mailtest.Server)) {
	srv := mailtest.Start(t)
	t.Setenv("FOLIO_SMTP_URL", srv.URL("", "", "folio@acme.com"))
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) { fn(t, testkit.StartJobs(t, kind, nil).Server, srv) })
	}
}

var linkToken = regexp.MustCompile(`\?token=([A-Za-z0-9_-]+)`)

// mailedToken waits for the n-th message (from 0) and answers its link's
// secret, checking it went to want.
func mailedToken(t *testing.T, srv *mailtest.Server, n int, want string) string {
	t.Helper()
	msg := srv.Wait(t, n+1, 10*time.Second)[n]
	if len(msg.To) != 1 || msg.To[0] != want {
		t.Fatalf("message to %v, want %s", msg.To, want)
	}
	m := linkToken.FindStringSubmatch(msg.Data)
	if m == nil {
		t.Fatalf("no link in:\n%s", msg.Data)
	}
	return m[1]
}

func TestPasswordResetByMail(t *testing.T) {
	mailServers(t, func(t *testing.T, s *testkit.Server, srv *mailtest.Server) {
		ctx := context.Background()
		sent := len(srv.Messages())
		u := newUserWithPassword(t, s, "rita@example.com")
		old := sessionCookie(t, signIn(t, s, "rita@example.com", password)).Value

		if a := send(t, s, "GET", "/sign-in", "", "", "", ""); !strings.Contains(a.body, `href="/reset-password"`) {
			t.Fatalf("the sign-in page has no reset link: %s", a.body)
		}
		if a := send(t, s, "GET", "/reset-password", "", "", "", ""); a.status != 200 || !strings.Contains(a.body, `action="/reset-password"`) {
			t.Fatalf("form: %d %s", a.status, a.body)
		}
		// Another site cannot make Folio mail anyone.
		if a := send(t, s, "POST", "/reset-password", "", "https://evil.example", formType, form("email", "rita@example.com")); a.status != 403 {
			t.Fatalf("cross-origin request: %d", a.status)
		}
		if a := send(t, s, "POST", "/reset-password", "", s.URL, formType, form("email", "not an address")); a.status != 400 || !strings.Contains(a.body, "email") {
			t.Fatalf("bad email: %d %s", a.status, a.body)
		}

		// An address with an account and one without get the same answer.
		known := send(t, s, "POST", "/reset-password", "", s.URL, formType, form("email", "Rita@Example.com"))
		unknown := send(t, s, "POST", "/reset-password", "", s.URL, formType, form("email", "nobody@example.com"))
		if known.status != 200 || unknown.status != 200 ||
			strings.ReplaceAll(known.body, "Rita@Example.com", "X") != strings.ReplaceAll(unknown.body, "nobody@example.com", "X") {
			t.Fatalf("answers differ:\n%d %s\n%d %s", known.status, known.body, unknown.status, unknown.body)
		}
		token := mailedToken(t, srv, sent, "rita@example.com")

		if a := send(t, s, "GET", "/reset-password/confirm?token=wrong", "", "", "", ""); a.status != 400 || !strings.Contains(a.body, "no longer valid") {
			t.Fatalf("unknown link: %d %s", a.status, a.body)
		}
		if a := send(t, s, "GET", "/reset-password/confirm?token="+token, "", "", "", ""); a.status != 200 || !strings.Contains(a.body, `name="token" value="`+token+`"`) {
			t.Fatalf("confirm form: %d %s", a.status, a.body)
		}
		if a := send(t, s, "POST", "/reset-password/confirm", "", "https://evil.example", formType, form("token", token, "password", "a new password")); a.status != 403 {
			t.Fatalf("cross-origin confirm: %d", a.status)
		}
		// A password too short changes nothing and keeps the link.
		if a := send(t, s, "POST", "/reset-password/confirm", "", s.URL, formType, form("token", token, "password", "short")); a.status != 400 || !strings.Contains(a.body, "password") {
			t.Fatalf("short password: %d %s", a.status, a.body)
		}
		a := send(t, s, "POST", "/reset-password/confirm", "", s.URL, formType, form("token", token, "password", "a new password"))
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/sign-in?notice=password-reset" {
			t.Fatalf("reset: %d %v %s", a.status, a.header, a.body)
		}
		if a := send(t, s, "GET", "/sign-in?notice=password-reset", "", "", "", ""); !strings.Contains(a.body, "every session signed out") {
			t.Fatalf("notice: %s", a.body)
		}
		// The link worked once; the old session and password no longer do.
		if a := send(t, s, "POST", "/reset-password/confirm", "", s.URL, formType, form("token", token, "password", "another password")); a.status != 400 {
			t.Fatalf("link used twice: %d", a.status)
		}
		if a := send(t, s, "GET", "/account", old, "", "", ""); a.status != http.StatusSeeOther {
			t.Fatalf("the old session still works: %d", a.status)
		}
		if a := signIn(t, s, "rita@example.com", password); a.status != 401 {
			t.Fatalf("old password: %d", a.status)
		}
		if a := signIn(t, s, "rita@example.com", "a new password"); a.status != http.StatusSeeOther {
			t.Fatalf("new password: %d", a.status)
		}
		got := s.Client().User.GetX(ctx, u.ID)
		if !got.EmailVerified {
			t.Fatal("a reset link proves the address; it is not verified")
		}
		if n := s.Client().EmailToken.Query().Where(emailtoken.UserID(u.ID)).CountX(ctx); n != 0 {
			t.Fatalf("%d links left", n)
		}
		if n := s.Client().Event.Query().Where(event.Action("user.password_reset"), event.TargetID(u.ID)).CountX(ctx); n != 1 {
			t.Fatalf("%d user.password_reset events", n)
		}
		// No link went to the address without an account.
		for _, m := range srv.Messages()[sent:] {
			if m.To[0] == "nobody@example.com" {
				t.Fatal("mailed an address without an account")
			}
		}

		// Requests per address are limited, whoever the address is.
		refused := 0
		for i := 0; i < graph.MaxMailRequestsPerEmail+3; i++ {
			a := send(t, s, "POST", "/reset-password", "", s.URL, formType, form("email", "guess@example.com"))
			if a.status == http.StatusTooManyRequests {
				refused++
			} else if a.status != 200 {
				t.Fatalf("request %d: %d", i, a.status)
			}
		}
		if refused != 3 {
			t.Fatalf("%d requests refused, want 3", refused)
		}
	})
}

func TestEmailVerificationByMail(t *testing.T) {
	t.Setenv("FOLIO_OPEN_SIGNUP", "true")
	mailServers(t, func(t *testing.T, s *testkit.Server, srv *mailtest.Server) {
		ctx := context.Background()
		sent := len(srv.Messages())
		a := send(t, s, "POST", "/sign-up", "", s.URL, formType, form("email", "vera@example.com", "name", "Vera", "password", password))
		if a.status != http.StatusSeeOther {
			t.Fatalf("sign-up: %d %s", a.status, a.body)
		}
		cookie := sessionCookie(t, a).Value
		vera := s.Client().User.Query().Where(user.Email("vera@example.com")).OnlyX(ctx)
		if vera.EmailVerified {
			t.Fatal("an address typed in the sign-up form counts as verified")
		}
		token := mailedToken(t, srv, sent, "vera@example.com")
		if a := send(t, s, "GET", "/account", cookie, "", "", ""); !strings.Contains(a.body, "not verified") || !strings.Contains(a.body, `action="/account/verify-email"`) {
			t.Fatalf("account page: %s", a.body)
		}

		// Opening the link (as a mail scanner would) verifies nothing.
		if a := send(t, s, "GET", "/verify-email?token="+token, "", "", "", ""); a.status != 200 || !strings.Contains(a.body, `action="/verify-email"`) {
			t.Fatalf("verify page: %d %s", a.status, a.body)
		}
		if s.Client().User.GetX(ctx, vera.ID).EmailVerified {
			t.Fatal("opening the link verified the address")
		}
		if a := send(t, s, "POST", "/verify-email", "", "https://evil.example", formType, form("token", token)); a.status != 403 {
			t.Fatalf("cross-origin: %d", a.status)
		}
		if a := send(t, s, "POST", "/verify-email", "", s.URL, formType, form("token", token)); a.status != 200 || !strings.Contains(a.body, "Email verified") {
			t.Fatalf("verify: %d %s", a.status, a.body)
		}
		if !s.Client().User.GetX(ctx, vera.ID).EmailVerified {
			t.Fatal("not verified")
		}
		if a := send(t, s, "POST", "/verify-email", "", s.URL, formType, form("token", token)); a.status != 400 {
			t.Fatalf("link used twice: %d", a.status)
		}
		if n := s.Client().Event.Query().Where(event.Action("user.email_verified"), event.TargetID(vera.ID)).CountX(ctx); n != 1 {
			t.Fatalf("%d user.email_verified events", n)
		}
		// A verified address asks for no link.
		if a := send(t, s, "POST", "/account/verify-email", cookie, s.URL, formType, ""); a.status != 400 {
			t.Fatalf("verified address: %d %s", a.status, a.body)
		}

		// The account page asks again for an address not verified; a link
		// for an address the user no longer has verifies nothing.
		sent = len(srv.Messages())
		s.Client().User.UpdateOneID(vera.ID).SetEmailVerified(false).ExecX(testkit.Fixture(ctx))
		if a := send(t, s, "POST", "/account/verify-email", "", s.URL, formType, ""); a.status != 401 {
			t.Fatalf("signed out: %d", a.status)
		}
		if a := send(t, s, "POST", "/account/verify-email", cookie, s.URL, formType, ""); a.status != http.StatusSeeOther {
			t.Fatalf("ask again: %d %s", a.status, a.body)
		}
		token = mailedToken(t, srv, sent, "vera@example.com")
		s.Client().User.UpdateOneID(vera.ID).SetEmail("vera@other.example").ExecX(testkit.Fixture(ctx))
		if a := send(t, s, "POST", "/verify-email", "", s.URL, formType, form("token", token)); a.status != 400 {
			t.Fatalf("link for an old address: %d", a.status)
		}
		if s.Client().User.GetX(ctx, vera.ID).EmailVerified {
			t.Fatal("a link for the old address verified the new one")
		}
	})
}

func TestMailedLinkPagesNeedMail(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	for _, path := range []string{"/reset-password", "/reset-password/confirm?token=x", "/verify-email?token=x"} {
		if a := send(t, s, "GET", path, "", "", "", ""); a.status != 404 {
			t.Fatalf("%s without mail: %d", path, a.status)
		}
	}
	if a := send(t, s, "POST", "/reset-password", "", s.URL, formType, form("email", "a@example.com")); a.status != 404 {
		t.Fatalf("reset request without mail: %d", a.status)
	}
	if a := send(t, s, "GET", "/sign-in", "", "", "", ""); strings.Contains(a.body, "/reset-password") {
		t.Fatal("the sign-in page offers a reset without mail")
	}
}

func TestAccountProfile(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u := newUserWithPassword(t, s, "paul@example.com")
		c := sessionCookie(t, signIn(t, s, "paul@example.com", password)).Value
		if a := send(t, s, "POST", "/account/profile", c, "https://evil.example", formType, form("displayName", "Evil")); a.status != 403 {
			t.Fatalf("cross-origin: %d", a.status)
		}
		if a := send(t, s, "POST", "/account/profile", c, s.URL, formType, form("displayName", "Paul", "photoURL", "javascript:alert(1)")); a.status != 400 || !strings.Contains(a.body, "photoURL") {
			t.Fatalf("bad photo: %d %s", a.status, a.body)
		}
		a := send(t, s, "POST", "/account/profile", c, s.URL, formType, form("displayName", "Paul Q", "photoURL", "https://example.com/p.png"))
		if a.status != http.StatusSeeOther {
			t.Fatalf("save: %d %s", a.status, a.body)
		}
		got := s.Client().User.GetX(context.Background(), u.ID)
		if got.DisplayName != "Paul Q" || got.PhotoURL == nil || *got.PhotoURL != "https://example.com/p.png" {
			t.Fatalf("saved %+v", got)
		}
		if a := send(t, s, "GET", "/account?notice=profile-saved", c, "", "", ""); !strings.Contains(a.body, `value="Paul Q"`) || !strings.Contains(a.body, "profile was saved") {
			t.Fatalf("account page: %s", a.body)
		}
		// An empty photo field removes the photo.
		send(t, s, "POST", "/account/profile", c, s.URL, formType, form("displayName", "Paul Q", "photoURL", ""))
		if got := s.Client().User.GetX(context.Background(), u.ID); got.PhotoURL != nil {
			t.Fatalf("photo kept: %v", *got.PhotoURL)
		}
	})
}
