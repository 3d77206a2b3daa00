package account_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/oidcprovider"
	"github.com/folio/folio/ent/session"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/ent/useridentity"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
)

// addOIDC configures idp as provider name, as `folio oidc add` does.
func addOIDC(t *testing.T, s *testkit.Server, name, label string, idp *fakeIdP, domains ...string) {
	t.Helper()
	_, err := s.App.AddOIDCProvider(context.Background(), graph.OIDCProviderInput{Name: name, Label: label,
		Issuer: idp.URL, ClientID: idp.clientID, ClientSecret: idp.secret, AllowedDomains: domains})
	if err != nil {
		t.Fatal(err)
	}
}

// get sends a GET with cookies, following no redirect.
func get(t *testing.T, rawURL string, cookies ...*http.Cookie) answer {
	t.Helper()
	req, err := http.NewRequest("GET", rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies {
		if c != nil {
			req.AddCookie(c)
		}
	}
	req.Header.Set("User-Agent", "oidc-test")
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

func cookieNamed(a answer, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// oidcFlow is one sign-in up to the callback: the callback's URL, as the
// provider redirected to it, and the flow's cookie.
type oidcFlow struct {
	callback string
	cookie   *http.Cookie
}

// startOIDC clicks "Sign in with" and lets the provider answer.
func startOIDC(t *testing.T, s *testkit.Server, name, next string) oidcFlow {
	t.Helper()
	start := get(t, s.URL+"/sso/oidc/"+name+"/start?next="+url.QueryEscape(next))
	if start.status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", start.status, start.body)
	}
	flow := cookieNamed(start, "folio_oidc")
	if flow == nil || !flow.HttpOnly || flow.SameSite != http.SameSiteLaxMode || flow.MaxAge <= 0 {
		t.Fatalf("flow cookie %+v", flow)
	}
	at := get(t, start.header.Get("Location"))
	if at.status != http.StatusFound {
		t.Fatalf("authorize: %d %s", at.status, at.body)
	}
	return oidcFlow{callback: at.header.Get("Location"), cookie: flow}
}

// finish calls the callback with the flow's cookie.
func (f oidcFlow) finish(t *testing.T) answer {
	t.Helper()
	return get(t, f.callback, f.cookie)
}

// signInOIDC runs a whole sign-in that must succeed: the session cookie.
func signInOIDC(t *testing.T, s *testkit.Server, name, next string) *http.Cookie {
	t.Helper()
	a := startOIDC(t, s, name, next).finish(t)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != next {
		t.Fatalf("callback: %d %s %s", a.status, a.header.Get("Location"), a.body)
	}
	if c := cookieNamed(a, "folio_oidc"); c == nil || c.MaxAge >= 0 {
		t.Fatalf("the flow cookie is not cleared: %+v", c)
	}
	return sessionCookie(t, a)
}

// viewerEmail is the email GraphQL's viewer has with cookie.
func viewerEmail(t *testing.T, s *testkit.Server, cookie *http.Cookie) string {
	t.Helper()
	data, errs, _ := gql(t, s, cookie.Value, s.URL, `{ viewer { user { email } } }`)
	if len(errs) > 0 {
		t.Fatalf("viewer: %v", errs)
	}
	v, _ := data["viewer"].(map[string]any)
	u, _ := v["user"].(map[string]any)
	email, _ := u["email"].(string)
	return email
}

// TestOIDCSignIn: the full flow through an in-process provider makes a
// user just in time and opens a session; later sign-ins find the linked
// user; an existing verified account with the same email is linked; the
// request to the provider carries PKCE S256, state and nonce.
func TestOIDCSignIn(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		idp := newFakeIdP(t, "folio-client", "client-secret-1")
		addOIDC(t, s, "acme-id", "Acme ID", idp)

		t.Run("sign-in page lists the provider", func(t *testing.T) {
			a := get(t, s.URL+"/sign-in?next=/account/tokens")
			if a.status != 200 || !strings.Contains(a.body, `href="/sso/oidc/acme-id/start?next=%2Faccount%2Ftokens"`) ||
				!strings.Contains(a.body, "Sign in with Acme ID") {
				t.Fatalf("%d %s", a.status, a.body)
			}
		})

		var first *http.Cookie
		var ann string
		t.Run("first sign-in makes the user", func(t *testing.T) {
			idp.as(map[string]any{"sub": "ann-1", "email": "Ann@Example.com", "email_verified": true, "name": "Ann Example"})
			first = signInOIDC(t, s, "acme-id", "/account")
			q := idp.lastAuthorize()
			if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" || q.Get("nonce") == "" ||
				q.Get("redirect_uri") != s.URL+"/sso/oidc/acme-id/callback" || !strings.Contains(q.Get("scope"), "openid") ||
				!strings.Contains(q.Get("scope"), "email") {
				t.Fatalf("authorize query %v", q)
			}
			u := s.Client().User.Query().Where(user.Email("ann@example.com")).OnlyX(ctx)
			if !u.EmailVerified || u.DisplayName != "Ann Example" || u.PasswordHash != nil {
				t.Fatalf("user %+v", u)
			}
			ann = u.ID
			id := s.Client().UserIdentity.Query().OnlyX(ctx)
			if id.UserID != ann || id.Kind != "oidc" || id.Provider != "acme-id" || id.Subject != "ann-1" {
				t.Fatalf("identity %+v", id)
			}
			if got := viewerEmail(t, s, first); got != "ann@example.com" {
				t.Fatalf("viewer %q", got)
			}
			page := send(t, s, "GET", "/account", first.Value, "", "", "")
			if page.status != 200 || !strings.Contains(page.body, "ann@example.com") {
				t.Fatalf("account: %d %s", page.status, page.body)
			}
			for action, n := range map[string]int{"user.created": 1, "user_identity.linked": 1} {
				if got := s.Client().Event.Query().Where(event.Action(action), event.TargetID(ann)).CountX(ctx); got != n {
					t.Fatalf("%s: %d events", action, got)
				}
			}
			ev := s.Client().Event.Query().Where(event.Action("user.signed_in"), event.TargetID(ann)).OnlyX(ctx)
			if ev.Payload["method"] != "oidc" || ev.Source != "ui" {
				t.Fatalf("signed_in %+v", ev)
			}
		})

		t.Run("second sign-in reuses the linked user, whatever the email now", func(t *testing.T) {
			idp.as(map[string]any{"sub": "ann-1", "email": "ann@new.example", "email_verified": true})
			c := signInOIDC(t, s, "acme-id", "/account/tokens")
			if c.Value == first.Value {
				t.Fatal("the session was not rotated")
			}
			if got := viewerEmail(t, s, c); got != "ann@example.com" {
				t.Fatalf("viewer %q", got)
			}
			if n := s.Client().User.Query().CountX(ctx); n != 1 {
				t.Fatalf("%d users", n)
			}
			if n := s.Client().Session.Query().Where(session.UserID(ann)).CountX(ctx); n != 2 {
				t.Fatalf("%d sessions", n)
			}
			if n := s.Client().Event.Query().Where(event.Action("user_identity.linked")).CountX(ctx); n != 1 {
				t.Fatalf("%d links", n)
			}
		})

		t.Run("an existing account with the verified email is linked", func(t *testing.T) {
			bob, _ := s.NewUser(t, "bob@example.com", "Bob's")
			idp.as(map[string]any{"sub": "bob-7", "email": "bob@example.com", "email_verified": true})
			c := signInOIDC(t, s, "acme-id", "/account")
			if got := viewerEmail(t, s, c); got != "bob@example.com" {
				t.Fatalf("viewer %q", got)
			}
			id := s.Client().UserIdentity.Query().Where(useridentity.Subject("bob-7")).OnlyX(ctx)
			if id.UserID != bob.ID {
				t.Fatalf("linked to %s, not %s", id.UserID, bob.ID)
			}
			if n := s.Client().Event.Query().Where(event.Action("user.created"), event.TargetID(bob.ID), event.Source("ui")).CountX(ctx); n != 0 {
				t.Fatal("bob was made again")
			}
		})

		t.Run("an unverified account with the email is not taken over", func(t *testing.T) {
			u, _ := s.NewUser(t, "carol@example.com", "")
			s.Client().User.UpdateOneID(u.ID).SetEmailVerified(false).ExecX(testkit.Fixture(ctx))
			idp.as(map[string]any{"sub": "carol-1", "email": "carol@example.com", "email_verified": true})
			a := startOIDC(t, s, "acme-id", "/account").finish(t)
			if a.status != http.StatusForbidden || !strings.Contains(a.body, "has not verified it") || cookieNamed(a, "folio_session") != nil {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if n := s.Client().UserIdentity.Query().Where(useridentity.Subject("carol-1")).CountX(ctx); n != 0 {
				t.Fatal("linked")
			}
		})

		t.Run("start by POST: same origin only", func(t *testing.T) {
			if a := send(t, s, "POST", "/sso/oidc/acme-id/start", "", "https://evil.example", formType, form("next", "/account")); a.status != 403 || cookieNamed(a, "folio_oidc") != nil {
				t.Fatalf("cross-site: %d %s", a.status, a.body)
			}
			a := send(t, s, "POST", "/sso/oidc/acme-id/start", "", s.URL, formType, form("next", "/account"))
			if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), idp.URL+"/authorize?") || cookieNamed(a, "folio_oidc") == nil {
				t.Fatalf("same origin: %d %v", a.status, a.header)
			}
		})

		t.Run("next stays on this server", func(t *testing.T) {
			idp.as(map[string]any{"sub": "ann-1", "email": "ann@example.com", "email_verified": true})
			a := startOIDC(t, s, "acme-id", "https://evil.example/x").finish(t)
			if a.status != http.StatusSeeOther || a.header.Get("Location") != "/account" {
				t.Fatalf("%d %s", a.status, a.header.Get("Location"))
			}
		})

		t.Run("removing the provider removes its links, not its users", func(t *testing.T) {
			if err := s.App.RemoveOIDCProvider(ctx, "acme-id"); err != nil {
				t.Fatal(err)
			}
			if n := s.Client().UserIdentity.Query().CountX(ctx); n != 0 {
				t.Fatalf("%d links left", n)
			}
			ev := s.Client().Event.Query().Where(event.Action("oidc_provider.removed")).OnlyX(ctx)
			if ev.Payload["unlinked"] != float64(2) {
				t.Fatalf("payload %v", ev.Payload)
			}
			if n := s.Client().User.Query().Where(user.Email("ann@example.com")).CountX(ctx); n != 1 {
				t.Fatal("ann is gone")
			}
			// Added again: ann is found by her verified email and linked anew.
			addOIDC(t, s, "acme-id", "Acme ID", idp)
			idp.as(map[string]any{"sub": "ann-1", "email": "ann@example.com", "email_verified": true})
			if got := viewerEmail(t, s, signInOIDC(t, s, "acme-id", "/account")); got != "ann@example.com" {
				t.Fatalf("viewer %q", got)
			}
			if id := s.Client().UserIdentity.Query().OnlyX(ctx); id.UserID != ann {
				t.Fatalf("linked to %s", id.UserID)
			}
		})
	})
}

// TestOIDCRefusals: every callback that does not prove who the person is
// opens no session and makes no user.
func TestOIDCRefusals(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		idp := newFakeIdP(t, "folio-client", "client-secret-1")
		addOIDC(t, s, "acme-id", "Acme ID", idp)
		dave := map[string]any{"sub": "dave-1", "email": "dave@example.com", "email_verified": true}
		before := s.Client().Session.Query().CountX(ctx)

		refused := func(t *testing.T, a answer, status int, says string) {
			t.Helper()
			if a.status != status || !strings.Contains(a.body, says) || cookieNamed(a, "folio_session") != nil {
				t.Fatalf("want %d with %q, got %d %s", status, says, a.status, a.body)
			}
			if a.header.Get("Cache-Control") != "no-store" {
				t.Fatalf("Cache-Control %q", a.header.Get("Cache-Control"))
			}
			if n := s.Client().Session.Query().CountX(ctx); n != before {
				t.Fatalf("%d sessions", n)
			}
			if n := s.Client().User.Query().Where(user.Email("dave@example.com")).CountX(ctx); n != 0 {
				t.Fatal("user made")
			}
		}
		cases := []struct {
			name   string
			claims map[string]any
			tweak  func(map[string]any)
			badSig bool
			status int
			says   string
		}{
			{"email_verified false", map[string]any{"sub": "dave-1", "email": "dave@example.com", "email_verified": false}, nil, false, 403, "email_verified is not true"},
			{"email_verified missing", map[string]any{"sub": "dave-1", "email": "dave@example.com"}, nil, false, 403, "email_verified is not true"},
			{"no email", map[string]any{"sub": "dave-1", "email_verified": true}, nil, false, 403, "the email claim"},
			{"signed by another key", dave, nil, true, 401, "is not valid"},
			// Signed, then changed on the way (fakeIdP: "tamper").
			{"tampered payload", dave, func(c map[string]any) { c["tamper"] = "admin@example.com" }, false, 401, "is not valid"},
			{"wrong audience", dave, func(c map[string]any) { c["aud"] = "someone-else" }, false, 401, "is not valid"},
			{"wrong issuer", dave, func(c map[string]any) { c["iss"] = "https://issuer.example" }, false, 401, "is not valid"},
			{"expired", dave, func(c map[string]any) { c["exp"] = c["iat"].(int64) - 60 }, false, 401, "is not valid"},
			{"wrong nonce", dave, func(c map[string]any) { c["nonce"] = "not-the-one" }, false, 401, "nonce"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				idp.as(c.claims)
				idp.set(c.tweak, c.badSig)
				flow := startOIDC(t, s, "acme-id", "/account")
				refused(t, flow.finish(t), c.status, c.says)
			})
		}
		// Refusals of a person the provider vouched for are in the audit
		// log; unverifiable callbacks are not (anyone can send them).
		failed := s.Client().Event.Query().Where(event.Action("user.sign_in_failed")).AllX(ctx)
		reasons := map[string]int{}
		for _, e := range failed {
			reasons[e.Payload["reason"].(string)]++
		}
		if len(failed) != 3 || reasons["oidc: email not verified"] != 2 || reasons["oidc: no email"] != 1 {
			t.Fatalf("sign_in_failed events: %v", reasons)
		}

		t.Run("bad state", func(t *testing.T) {
			idp.as(dave)
			flow := startOIDC(t, s, "acme-id", "/account")
			u, _ := url.Parse(flow.callback)
			q := u.Query()
			q.Set("state", "forged")
			u.RawQuery = q.Encode()
			refused(t, get(t, u.String(), flow.cookie), 400, "not the one this browser started")
		})
		t.Run("no flow cookie", func(t *testing.T) {
			idp.as(dave)
			flow := startOIDC(t, s, "acme-id", "/account")
			refused(t, get(t, flow.callback), 400, "not the one this browser started")
		})
		t.Run("forged flow cookie", func(t *testing.T) {
			idp.as(dave)
			flow := startOIDC(t, s, "acme-id", "/account")
			forged := *flow.cookie
			forged.Value = flow.cookie.Value[:len(flow.cookie.Value)-4] + "AAAA"
			refused(t, get(t, flow.callback, &forged), 400, "not the one this browser started")
		})
		t.Run("provider refused", func(t *testing.T) {
			flow := startOIDC(t, s, "acme-id", "/account")
			u, _ := url.Parse(flow.callback)
			u.RawQuery = url.Values{"state": {u.Query().Get("state")}, "error": {"access_denied"}}.Encode()
			refused(t, get(t, u.String(), flow.cookie), 401, "access_denied")
		})
		t.Run("domain not allowed", func(t *testing.T) {
			other := newFakeIdP(t, "c2", "s2")
			addOIDC(t, s, "corp", "Corp", other, "corp.example")
			other.as(dave)
			refused(t, startOIDC(t, s, "corp", "/account").finish(t), 403, "may not sign in with Corp")
		})
		t.Run("provider unreachable", func(t *testing.T) {
			gone := newFakeIdP(t, "c3", "s3")
			addOIDC(t, s, "gone", "Gone", gone)
			gone.Close()
			a := get(t, s.URL+"/sso/oidc/gone/start")
			if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" ||
				!strings.Contains(a.body, "could not be reached") || cookieNamed(a, "folio_oidc") != nil {
				t.Fatalf("%d %v %s", a.status, a.header, a.body)
			}
		})
		t.Run("unknown provider", func(t *testing.T) {
			for _, path := range []string{"/sso/oidc/nope/start", "/sso/oidc/nope/callback?state=x&code=y"} {
				if a := get(t, s.URL+path); a.status != 404 {
					t.Fatalf("%s: %d %s", path, a.status, a.body)
				}
			}
		})
		t.Run("a flow of one provider does not finish at another", func(t *testing.T) {
			idp.as(dave)
			flow := startOIDC(t, s, "acme-id", "/account")
			refused(t, get(t, strings.Replace(flow.callback, "/acme-id/", "/corp/", 1), flow.cookie), 400, "not the one this browser started")
		})
	})
}

// TestOIDCTwoProviders: two providers configured at once both sign in,
// each to its own identity; the sign-in page offers both.
func TestOIDCTwoProviders(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		one, two := newFakeIdP(t, "client-one", "secret-one"), newFakeIdP(t, "client-two", "secret-two")
		addOIDC(t, s, "one", "First IdP", one)
		addOIDC(t, s, "two", "Second IdP", two)
		page := get(t, s.URL+"/sign-in")
		if !strings.Contains(page.body, "Sign in with First IdP") || !strings.Contains(page.body, "Sign in with Second IdP") {
			t.Fatal(page.body)
		}
		one.as(map[string]any{"sub": "e-1", "email": "erin@example.com", "email_verified": true})
		two.as(map[string]any{"sub": "e-2", "email": "erin@example.com", "email_verified": true})
		a := signInOIDC(t, s, "one", "/account")
		b := signInOIDC(t, s, "two", "/account")
		if viewerEmail(t, s, a) != "erin@example.com" || viewerEmail(t, s, b) != "erin@example.com" {
			t.Fatal("viewer")
		}
		ids := s.Client().UserIdentity.Query().Order(useridentity.ByProvider()).AllX(ctx)
		if len(ids) != 2 || ids[0].Provider != "one" || ids[1].Provider != "two" || ids[0].UserID != ids[1].UserID {
			t.Fatalf("identities %+v", ids)
		}
	})
}

// TestOIDCProviderConfig: the operator's commands' application side: the
// secret sealed at rest, events without it, bad input refused, callers
// other than the command line refused, removal.
func TestOIDCProviderConfig(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		idp := newFakeIdP(t, "cid", "very-secret-value")
		addOIDC(t, s, "google", "Google", idp, "Example.com", "example.com", "corp.example")
		p := s.Client().OIDCProvider.Query().Where(oidcprovider.Name("google")).OnlyX(ctx)
		if p.ClientSecretSealed == "very-secret-value" || strings.Contains(p.ClientSecretSealed, "very-secret") || !secrets.IsSealed(p.ClientSecretSealed) {
			t.Fatalf("stored %q", p.ClientSecretSealed)
		}
		var raw string
		if err := s.App.DB.SQL.QueryRow("SELECT client_secret FROM oidc_providers").Scan(&raw); err != nil || raw != p.ClientSecretSealed {
			t.Fatalf("raw column %q: %v", raw, err)
		}
		if got := s.Open(t, secrets.OIDCClientSecret, raw); got != "very-secret-value" {
			t.Fatalf("opens to %q", got)
		}
		if strings.Join(p.AllowedDomains, ",") != "example.com,corp.example" {
			t.Fatalf("domains %v", p.AllowedDomains)
		}
		ev := s.Client().Event.Query().Where(event.Action("oidc_provider.added")).OnlyX(ctx)
		if ev.Source != "script" || ev.Payload["name"] != "google" || ev.Payload["clientId"] != "cid" {
			t.Fatalf("event %+v", ev)
		}
		for _, e := range s.Client().Event.Query().AllX(ctx) {
			for _, v := range e.Payload {
				if s, ok := v.(string); ok && strings.Contains(s, "very-secret") {
					t.Fatalf("event %s holds the secret", e.Action)
				}
			}
		}

		bad := []struct {
			in    graph.OIDCProviderInput
			field string
		}{
			{graph.OIDCProviderInput{Name: "Bad Name", Issuer: idp.URL, ClientID: "c", ClientSecret: "s"}, "name"},
			{graph.OIDCProviderInput{Name: "x", Issuer: "not a url", ClientID: "c", ClientSecret: "s"}, "issuer"},
			{graph.OIDCProviderInput{Name: "x", Issuer: idp.URL, ClientID: "", ClientSecret: "s"}, "clientId"},
			{graph.OIDCProviderInput{Name: "x", Issuer: idp.URL, ClientID: "c", ClientSecret: ""}, "clientSecret"},
			{graph.OIDCProviderInput{Name: "x", Issuer: idp.URL, ClientID: "c", ClientSecret: "s", AllowedDomains: []string{"not a domain"}}, "allowedDomains"},
			{graph.OIDCProviderInput{Name: "google", Issuer: idp.URL, ClientID: "c", ClientSecret: "s"}, "name"},
		}
		for _, b := range bad {
			_, err := s.App.AddOIDCProvider(ctx, b.in)
			if e, ok := apperr.As(err); !ok || e.Field != b.field {
				t.Fatalf("%+v: %v", b.in, err)
			}
		}
		if n := s.Client().OIDCProvider.Query().CountX(ctx); n != 1 {
			t.Fatalf("%d providers", n)
		}

		// Only the command line: a signed-in user's context is refused.
		newUserWithPassword(t, s, "admin@example.com")
		req, _ := http.NewRequest("GET", s.URL+"/account", nil)
		req.AddCookie(sessionCookie(t, signIn(t, s, "admin@example.com", password)))
		uctx, ok, err := s.App.Resolver.SessionViewerContext(req)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if _, err := s.App.Resolver.AddOIDCProvider(uctx, graph.OIDCProviderInput{Name: "y", Issuer: idp.URL, ClientID: "c", ClientSecret: "s"}); !isKind(err, apperr.Forbidden) {
			t.Fatalf("add as a user: %v", err)
		}
		if _, err := s.App.Resolver.OIDCProviders(uctx); !isKind(err, apperr.Forbidden) {
			t.Fatalf("list as a user: %v", err)
		}
		if err := s.App.Resolver.RemoveOIDCProvider(uctx, "google"); !isKind(err, apperr.Forbidden) {
			t.Fatalf("remove as a user: %v", err)
		}

		list, err := s.App.OIDCProviders(ctx)
		if err != nil || len(list) != 1 || list[0].Name != "google" {
			t.Fatalf("list %v %v", list, err)
		}
		if err := s.App.RemoveOIDCProvider(ctx, "nope"); !isKind(err, apperr.NotFound) {
			t.Fatalf("remove unknown: %v", err)
		}
		if err := s.App.RemoveOIDCProvider(ctx, "google"); err != nil {
			t.Fatal(err)
		}
		if n := s.Client().Event.Query().Where(event.Action("oidc_provider.removed"), event.Source("script")).CountX(ctx); n != 1 {
			t.Fatalf("%d removed events", n)
		}
		if a := get(t, s.URL+"/sso/oidc/google/start"); a.status != 404 {
			t.Fatalf("start after removal: %d", a.status)
		}
		if a := get(t, s.URL+"/sign-in"); strings.Contains(a.body, "Sign in with") {
			t.Fatal("button after removal")
		}
	})
}

// TestOIDCFlowCookieBehindHTTPS: behind https the flow's cookie is
// __Host- prefixed and Secure, as the session cookie.
func TestOIDCFlowCookieBehindHTTPS(t *testing.T) {
	r := &graph.Resolver{BaseURL: "https://docs.example.com"}
	c := r.ClearOIDCFlowCookie()
	if r.OIDCFlowCookieName() != "__Host-folio_oidc" || c.Name != "__Host-folio_oidc" || !c.Secure || c.Path != "/" || !c.HttpOnly {
		t.Fatalf("%+v", c)
	}
	if (&graph.Resolver{BaseURL: "http://localhost:8080"}).OIDCFlowCookieName() != "folio_oidc" {
		t.Fatal("http name")
	}
}

func isKind(err error, k apperr.Kind) bool {
	e, ok := apperr.As(err)
	return ok && e.Kind == k
}

// A provider configured with an organization makes everyone who signs in
// through it a member, new and existing users alike, with its role; a
// member keeps their role; another organization is untouched.
func TestOIDCJoinsOrganization(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		admin, org := s.NewUser(t, "root@acme.example", "Acme")
		_, other := s.NewUser(t, "root@other.example", "Other")
		idp := newFakeIdP(t, "folio-client", "client-secret-1")
		for _, bad := range []struct {
			in    graph.OIDCProviderInput
			field string
		}{
			{graph.OIDCProviderInput{Name: "x", Issuer: idp.URL, ClientID: "c", ClientSecret: "s", OrganizationID: "nope"}, "organization"},
			{graph.OIDCProviderInput{Name: "x", Issuer: idp.URL, ClientID: "c", ClientSecret: "s", OrganizationID: org, Role: "owner"}, "role"},
			{graph.OIDCProviderInput{Name: "x", Issuer: idp.URL, ClientID: "c", ClientSecret: "s", Role: "edit"}, "role"},
		} {
			if _, err := s.App.AddOIDCProvider(ctx, bad.in); !isKind(err, apperr.Invalid) || !strings.Contains(err.Error(), bad.field) {
				t.Fatalf("%+v: %v", bad.in, err)
			}
		}
		if n := s.Client().OIDCProvider.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d providers after refusals", n)
		}
		if _, err := s.App.AddOIDCProvider(ctx, graph.OIDCProviderInput{Name: "acme-id", Issuer: idp.URL, ClientID: idp.clientID,
			ClientSecret: idp.secret, OrganizationID: org, Role: "edit"}); err != nil {
			t.Fatal(err)
		}

		idp.as(map[string]any{"sub": "new-1", "email": "new@acme.example", "email_verified": true})
		signInOIDC(t, s, "acme-id", "/account")
		nu := s.Client().User.Query().Where(user.Email("new@acme.example")).OnlyX(ctx)
		if m := s.MemberOf(t, org, nu.ID); m == nil || m.Role == nil || *m.Role != "edit" || !m.SSO {
			t.Fatalf("new user's membership %+v", m)
		}
		if m := s.MemberOf(t, other, nu.ID); m != nil {
			t.Fatalf("joined another organization: %+v", m)
		}
		if n := s.Client().Event.Query().Where(event.Action("member.joined"), event.OrganizationID(org)).CountX(ctx); n != 1 {
			t.Fatalf("%d member.joined events", n)
		}

		// An existing user with the verified address joins too.
		old, _ := s.NewUser(t, "old@acme.example", "")
		idp.as(map[string]any{"sub": "old-1", "email": "old@acme.example", "email_verified": true})
		signInOIDC(t, s, "acme-id", "/account")
		if m := s.MemberOf(t, org, old.ID); m == nil || *m.Role != "edit" {
			t.Fatalf("existing user's membership %+v", m)
		}

		// The admin keeps their role.
		idp.as(map[string]any{"sub": "root-1", "email": "root@acme.example", "email_verified": true})
		signInOIDC(t, s, "acme-id", "/account")
		if m := s.MemberOf(t, org, admin.ID); m == nil || *m.Role != "admin" {
			t.Fatalf("admin's membership %+v", m)
		}
	})
}
