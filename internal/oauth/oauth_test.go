package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/oauthclient"
	"github.com/folio/folio/ent/ratecounter"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/testkit"
)

// TestGitBookCLILogin takes the steps of `gitbook login` against Folio:
// metadata, registration, consent in the browser, the loopback callback,
// the code exchange with PKCE, API calls with the access token, refresh
// with rotation, revocation.
func TestGitBookCLILogin(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, cookie := newUser(t, s, "alice@example.com")
		cb := newCallback(t)

		// 1. Metadata, as the CLI reads it.
		a := send(t, s, "GET", "/.well-known/oauth-authorization-server", "", "", "", "", "")
		if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("metadata: %d %v", a.status, a.header)
		}
		meta := a.json(t)
		for k, want := range map[string]string{"issuer": s.URL, "authorization_endpoint": s.URL + "/oauth/authorize",
			"token_endpoint": s.URL + "/oauth/token", "registration_endpoint": s.URL + "/oauth/register", "revocation_endpoint": s.URL + "/oauth/revoke"} {
			if meta[k] != want {
				t.Fatalf("metadata %s = %v, want %s", k, meta[k], want)
			}
		}
		if b, _ := json.Marshal(meta["code_challenge_methods_supported"]); string(b) != `["S256"]` {
			t.Fatalf("code_challenge_methods_supported %s", b)
		}
		if b, _ := json.Marshal(meta["token_endpoint_auth_methods_supported"]); string(b) != `["none"]` {
			t.Fatalf("token_endpoint_auth_methods_supported %s", b)
		}
		if a := send(t, s, "GET", "/.well-known/oauth-authorization-server/v1", "", "", "", "", ""); a.status != 200 || a.json(t)["issuer"] != s.URL {
			t.Fatalf("metadata under a suffix: %d %s", a.status, a.body)
		}
		pr := send(t, s, "GET", "/.well-known/oauth-protected-resource", "", "", "", "", "")
		if b, _ := json.Marshal(pr.json(t)["authorization_servers"]); pr.status != 200 || string(b) != `["`+s.URL+`"]` {
			t.Fatalf("protected resource: %d %s", pr.status, pr.body)
		}
		if a := send(t, s, "OPTIONS", "/oauth/token", "", "https://mcp.example", "", "", ""); a.status != 204 || a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("preflight: %d %v", a.status, a.header)
		}

		// 2. Registration, on a port other than the one the callback
		// will listen on: loopback redirects match whatever the port.
		reg := register(t, s, "GitBook CLI", "http://127.0.0.1:8123/callback")
		if reg.status != http.StatusCreated {
			t.Fatalf("register: %d %s", reg.status, reg.body)
		}
		client := reg.json(t)
		clientID, _ := client["client_id"].(string)
		if clientID == "" || client["client_name"] != "GitBook CLI" || client["token_endpoint_auth_method"] != "none" || client["client_id_issued_at"] == nil {
			t.Fatalf("registration answer %v", client)
		}
		if b, _ := json.Marshal(client["redirect_uris"]); string(b) != `["http://127.0.0.1:8123/callback"]` {
			t.Fatalf("redirect_uris %s", b)
		}

		// 3. The browser: sign-in first without a session, then consent.
		verifier, challenge := pkce()
		q := authorizeQuery(clientID, cb.redirectURI(), challenge, "S256", "state-1")
		a = send(t, s, "GET", q, "", "", "", "", "")
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/sign-in?next="+url.QueryEscape(q) {
			t.Fatalf("authorize without a session: %d %q", a.status, a.header.Get("Location"))
		}
		// The sign-in form brings the browser back to the request.
		in := send(t, s, "POST", "/sign-in", "", s.URL, formType, form("email", "alice@example.com", "password", password, "next", q), "")
		if in.status != http.StatusSeeOther || in.header.Get("Location") != q {
			t.Fatalf("sign-in with next: %d %q", in.status, in.header.Get("Location"))
		}
		a = send(t, s, "GET", q, cookie, "", "", "", "")
		if a.status != 200 || !strings.Contains(a.body, "GitBook CLI") || !strings.Contains(a.body, "alice@example.com") ||
			!strings.Contains(a.body, `name="decision" value="approve"`) || strings.Contains(a.body, "<script") {
			t.Fatalf("consent page: %d %s", a.status, a.body)
		}
		if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' "+cb.URL) || a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("consent headers %v", a.header)
		}
		code := authorize(t, s, cb, cookie, clientID, challenge, "state-1")
		if n := s.Client().Event.Query().Where(event.Action("oauth.grant_authorized"), event.ActorID(alice.ID)).CountX(ctx); n != 1 {
			t.Fatalf("%d oauth.grant_authorized events", n)
		}

		// 4. The code for tokens; the code and tokens are stored hashed.
		access, refreshToken := tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
		snap := s.Snapshot(t)
		for _, secret := range []string{code, access, refreshToken, verifier} {
			if strings.Contains(snap, secret) {
				t.Fatal("a code, token or verifier is stored in the clear")
			}
		}

		// 5. The access token is an API token of alice's, on both APIs.
		u := send(t, s, "GET", "/v1/user", "", "", "", "", access)
		if u.status != 200 || u.json(t)["id"] != alice.ID {
			t.Fatalf("/v1/user: %d %s", u.status, u.body)
		}
		data := s.MustGraphQL(t, access, `{ viewer { user { id } apiTokens { edges { node { name oauthClientId oauthClientName expiresAt } } } } }`, nil)
		b, _ := json.Marshal(data)
		if !strings.Contains(string(b), `"oauthClientId":"`+clientID+`"`) || !strings.Contains(string(b), `"oauthClientName":"GitBook CLI"`) ||
			!strings.Contains(string(b), `"oauthClientName":null`) {
			t.Fatalf("viewer.apiTokens: %s", b)
		}
		// Its writes say which client made them.
		s.MustGraphQL(t, access, `mutation { createAPIToken(input: {name: "by the CLI"}) { token { id } } }`, nil)
		ev := s.Client().Event.Query().Where(event.Action("api_token.created"), event.TargetLabel("by the CLI")).OnlyX(ctx)
		if ev.Payload["oauthClientId"] != clientID || ev.Payload["tokenId"] == nil || ev.ActorID != alice.ID || ev.Source != "api" {
			t.Fatalf("event of a write with the OAuth token: %+v", ev)
		}
		// The tokens page names the client.
		if p := send(t, s, "GET", "/account/tokens", cookie, "", "", "", ""); !strings.Contains(p.body, "GitBook CLI <small>(OAuth app") {
			t.Fatalf("tokens page: %s", p.body)
		}

		// 6. Refresh: a new pair; the old access token and the old
		// refresh token stop working.
		access2, refresh2 := tokens(t, refresh(t, s, clientID, refreshToken))
		if access2 == access || refresh2 == refreshToken {
			t.Fatal("refresh did not rotate")
		}
		if st := userStatus(t, s, access); st != 401 {
			t.Fatalf("old access token after refresh: %d", st)
		}
		if st := userStatus(t, s, access2); st != 200 {
			t.Fatalf("new access token: %d", st)
		}
		// A rotated refresh token used again revokes the whole grant.
		oauthError(t, refresh(t, s, clientID, refreshToken), 400, "invalid_grant")
		if st := userStatus(t, s, access2); st != 401 {
			t.Fatalf("access token after refresh token reuse: %d", st)
		}
		oauthError(t, refresh(t, s, clientID, refresh2), 400, "invalid_grant")
		if n := s.Client().Event.Query().Where(event.Action("oauth.grant_revoked"), event.ActorID(clientID), event.ActorType("integration")).CountX(ctx); n != 1 {
			t.Fatalf("%d oauth.grant_revoked events", n)
		}

		// 7. A new login, then revocation by the client (RFC 7009).
		verifier, challenge = pkce()
		code = authorize(t, s, cb, cookie, clientID, challenge, "state-2")
		access, refreshToken = tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
		if st := userStatus(t, s, access); st != 200 {
			t.Fatalf("access token: %d", st)
		}
		rv := send(t, s, "POST", "/oauth/revoke", "", "", formType, form("token", refreshToken, "client_id", clientID), "")
		if rv.status != 200 {
			t.Fatalf("revoke: %d %s", rv.status, rv.body)
		}
		if st := userStatus(t, s, access); st != 401 {
			t.Fatalf("access token after revocation: %d", st)
		}
		oauthError(t, refresh(t, s, clientID, refreshToken), 400, "invalid_grant")
		// Revoking again, or an unknown token: still 200.
		if rv := send(t, s, "POST", "/oauth/revoke", "", "", formType, form("token", refreshToken, "client_id", clientID), ""); rv.status != 200 {
			t.Fatalf("revoke again: %d", rv.status)
		}
		if n := s.Client().OAuthGrant.Query().CountX(ctx) + s.Client().OAuthRefreshToken.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d grants and refresh tokens left", n)
		}
		if n := s.Client().APIToken.Query().Where(apitoken.OauthGrantIDNotNil()).CountX(ctx); n != 0 {
			t.Fatalf("%d access tokens left", n)
		}

		// 8. Deny: the callback learns access_denied, nothing is issued.
		_, challenge = pkce()
		a = send(t, s, "POST", "/oauth/authorize", cookie, s.URL, formType, consentForm(clientID, cb.redirectURI(), challenge, "state-3", "deny"), "")
		if got := cb.follow(t, a); got.Get("error") != "access_denied" || got.Get("state") != "state-3" || got.Get("code") != "" {
			t.Fatalf("deny: %v", got)
		}
		if n := s.Client().OAuthGrant.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d grants after deny", n)
		}
	})
}

// TestOAuthRefusals: what a client or a page may not do.
func TestOAuthRefusals(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		_, cookie := newUser(t, s, "alice@example.com")
		_, bobCookie := newUser(t, s, "bob@example.com")
		cb := newCallback(t)
		clientID := mustRegister(t, s, "GitBook CLI", "http://127.0.0.1/callback")
		otherID := mustRegister(t, s, "Other tool", "http://localhost:9000/callback", "http://[::1]:9000/cb")

		t.Run("registration refuses non-loopback redirects and confidential clients", func(t *testing.T) {
			before := s.Client().OAuthClient.Query().CountX(ctx)
			for _, uri := range []string{"https://evil.example/callback", "http://evil.example/callback", "http://127.0.0.1.evil.example/cb",
				"https://127.0.0.1/callback", "http://user@127.0.0.1/cb", "http://127.0.0.1/cb#frag", "com.example.app:/cb", "http://10.0.0.1/cb"} {
				oauthError(t, register(t, s, "GitBook CLI", uri), 400, "invalid_redirect_uri")
			}
			oauthError(t, register(t, s, "GitBook CLI"), 400, "invalid_redirect_uri")
			body := `{"client_name":"x","redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"client_secret_basic"}`
			oauthError(t, send(t, s, "POST", "/oauth/register", "", "", "application/json", body, ""), 400, "invalid_client_metadata")
			oauthError(t, register(t, s, strings.Repeat("n", 101), "http://127.0.0.1/cb"), 400, "invalid_client_metadata")
			oauthError(t, send(t, s, "POST", "/oauth/register", "", "", "application/json", "not json", ""), 400, "invalid_client_metadata")
			if n := s.Client().OAuthClient.Query().CountX(ctx); n != before {
				t.Fatalf("refused registrations stored clients: %d -> %d", before, n)
			}
		})

		t.Run("authorize: unknown client or redirect is a page, never a redirect", func(t *testing.T) {
			_, challenge := pkce()
			for _, q := range []string{
				authorizeQuery("nope", cb.redirectURI(), challenge, "S256", "s"),
				authorizeQuery(clientID, "https://evil.example/callback", challenge, "S256", "s"),
				authorizeQuery(clientID, cb.URL+"/other", challenge, "S256", "s"),
				authorizeQuery(otherID, cb.redirectURI(), challenge, "S256", "s"),
			} {
				a := send(t, s, "GET", q, cookie, "", "", "", "")
				if a.status != 400 || a.header.Get("Location") != "" || !strings.Contains(a.body, "not valid") {
					t.Fatalf("%s: %d %q %s", q, a.status, a.header.Get("Location"), a.body)
				}
			}
		})

		t.Run("plain PKCE or none is refused back to the client", func(t *testing.T) {
			verifier, challenge := pkce()
			for _, q := range []string{
				authorizeQuery(clientID, cb.redirectURI(), verifier, "plain", "s1"),
				authorizeQuery(clientID, cb.redirectURI(), "", "", "s1"),
			} {
				got := cb.follow(t, send(t, s, "GET", q, cookie, "", "", "", ""))
				if got.Get("error") != "invalid_request" || got.Get("state") != "s1" || got.Get("code") != "" {
					t.Fatalf("%s: callback got %v", q, got)
				}
			}
			// The consent form re-checks: plain posted there is refused too.
			f := strings.Replace(consentForm(clientID, cb.redirectURI(), challenge, "s2", "approve"), "S256", "plain", 1)
			got := cb.follow(t, send(t, s, "POST", "/oauth/authorize", cookie, s.URL, formType, f, ""))
			if got.Get("error") != "invalid_request" || got.Get("code") != "" {
				t.Fatalf("consent with plain: %v", got)
			}
		})

		t.Run("wrong verifier, wrong redirect, another client's code, unknown client", func(t *testing.T) {
			verifier, challenge := pkce()
			code := authorize(t, s, cb, cookie, clientID, challenge, "s")
			wrong, _ := pkce()
			oauthError(t, exchange(t, s, clientID, code, cb.redirectURI(), wrong), 400, "invalid_grant")
			oauthError(t, exchange(t, s, clientID, code, cb.redirectURI(), ""), 400, "invalid_grant")
			oauthError(t, exchange(t, s, clientID, code, "http://127.0.0.1:1/callback", verifier), 400, "invalid_grant")
			oauthError(t, exchange(t, s, otherID, code, cb.redirectURI(), verifier), 400, "invalid_grant")
			oauthError(t, exchange(t, s, "nope", code, cb.redirectURI(), verifier), 401, "invalid_client")
			oauthError(t, send(t, s, "POST", "/oauth/token", "", "", formType, form("grant_type", "password", "client_id", clientID), ""), 400, "unsupported_grant_type")
			oauthError(t, send(t, s, "POST", "/oauth/token", "", "", "application/json", `{}`, ""), 400, "invalid_request")
			// None of those used the code up: the right exchange works.
			access, _ := tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
			if st := userStatus(t, s, access); st != 200 {
				t.Fatalf("access: %d", st)
			}
		})

		t.Run("a code used twice revokes what it gave", func(t *testing.T) {
			verifier, challenge := pkce()
			code := authorize(t, s, cb, cookie, clientID, challenge, "s")
			access, refreshToken := tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
			oauthError(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier), 400, "invalid_grant")
			if st := userStatus(t, s, access); st != 401 {
				t.Fatalf("access after code reuse: %d", st)
			}
			oauthError(t, refresh(t, s, clientID, refreshToken), 400, "invalid_grant")
		})

		t.Run("another client's refresh token or revocation does nothing", func(t *testing.T) {
			verifier, challenge := pkce()
			code := authorize(t, s, cb, cookie, clientID, challenge, "s")
			access, refreshToken := tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
			oauthError(t, refresh(t, s, otherID, refreshToken), 400, "invalid_grant")
			if a := send(t, s, "POST", "/oauth/revoke", "", "", formType, form("token", access, "client_id", otherID), ""); a.status != 200 {
				t.Fatalf("revoke: %d", a.status)
			}
			if st := userStatus(t, s, access); st != 200 {
				t.Fatalf("another client revoked the token: %d", st)
			}
			// The owner's refresh token still works.
			tokens(t, refresh(t, s, clientID, refreshToken))
		})

		t.Run("cross-origin consent is refused", func(t *testing.T) {
			_, challenge := pkce()
			before := s.Client().OAuthGrant.Query().CountX(ctx)
			for _, origin := range []string{"https://evil.example", ""} {
				a := send(t, s, "POST", "/oauth/authorize", cookie, origin, formType, consentForm(clientID, cb.redirectURI(), challenge, "s", "approve"), "")
				if a.status != 403 || a.header.Get("Location") != "" {
					t.Fatalf("origin %q: %d %v", origin, a.status, a.header)
				}
			}
			// Without a session: no consent either.
			a := send(t, s, "POST", "/oauth/authorize", "", s.URL, formType, consentForm(clientID, cb.redirectURI(), challenge, "s", "approve"), "")
			if a.status != 401 || a.header.Get("Location") != "" {
				t.Fatalf("no session: %d", a.status)
			}
			if n := s.Client().OAuthGrant.Query().CountX(ctx); n != before {
				t.Fatalf("grants %d -> %d", before, n)
			}
		})

		t.Run("the tokens page revokes a grant, and only its owner may", func(t *testing.T) {
			verifier, challenge := pkce()
			code := authorize(t, s, cb, cookie, clientID, challenge, "s")
			access, refreshToken := tokens(t, exchange(t, s, clientID, code, cb.redirectURI(), verifier))
			tok := s.Client().APIToken.Query().Where(apitoken.OauthClientID(clientID), apitoken.NameEQ("GitBook CLI")).
				Order(apitoken.ByCreatedAt()).AllX(ctx)
			id := tok[len(tok)-1].ID
			a := send(t, s, "POST", "/account/tokens/"+id+"/revoke", bobCookie, s.URL, formType, "", "")
			if a.status != 404 {
				t.Fatalf("bob revoking alice's token: %d", a.status)
			}
			if st := userStatus(t, s, access); st != 200 {
				t.Fatalf("access after bob's attempt: %d", st)
			}
			a = send(t, s, "POST", "/account/tokens/"+id+"/revoke", cookie, s.URL, formType, "", "")
			if a.status != http.StatusSeeOther {
				t.Fatalf("alice revoking: %d %s", a.status, a.body)
			}
			if st := userStatus(t, s, access); st != 401 {
				t.Fatalf("access after revoke: %d", st)
			}
			oauthError(t, refresh(t, s, clientID, refreshToken), 400, "invalid_grant")
			if n := s.Client().Event.Query().Where(event.Action("oauth.grant_revoked"), event.ActorType("user")).CountX(ctx); n != 1 {
				t.Fatalf("%d oauth.grant_revoked events by the user", n)
			}
		})
	})
}

// TestOAuthRegistrationLimit: an address registers at most
// graph.MaxRegistrationsPerAddr clients a window, counted in the database;
// refused attempts are counted and store nothing.
func TestOAuthRegistrationLimit(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		for i := 0; i < graph.MaxRegistrationsPerAddr; i++ {
			mustRegister(t, s, "tool", "http://127.0.0.1/cb")
		}
		for i := 0; i < 3; i++ {
			a := register(t, s, "tool", "http://127.0.0.1/cb")
			oauthError(t, a, http.StatusTooManyRequests, "too_many_requests")
			if a.header.Get("Retry-After") == "" {
				t.Fatal("no Retry-After")
			}
		}
		if n := s.Client().OAuthClient.Query().Where(oauthclient.Name("tool")).CountX(ctx); n != graph.MaxRegistrationsPerAddr {
			t.Fatalf("%d clients", n)
		}
		c := s.Client().RateCounter.Query().Where(ratecounter.KeyHasPrefix("oauth-register:addr:")).OnlyX(ctx)
		if c.Count != graph.MaxRegistrationsPerAddr || c.Refused != 3 {
			t.Fatalf("counter %+v", c)
		}
		if n := s.Client().Event.Query().Where(event.Action("oauth.client_registered")).CountX(ctx); n != graph.MaxRegistrationsPerAddr {
			t.Fatalf("%d oauth.client_registered events", n)
		}
	})
}
