package account_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/ratecounter"
	"github.com/folio/folio/ent/session"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

const password = "correct horse battery"

// noRedirect is a client that shows redirects instead of following them
// and keeps no cookies: each test says which cookie it sends.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type answer struct {
	status int
	header http.Header
	body   string
}

// send makes a request with the session cookie (when cookie is set) and
// the Origin (when origin is set).
func send(t *testing.T, s *testkit.Server, method, path, cookie, origin, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "folio_session", Value: cookie})
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", "session-test")
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

func form(values ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(values); i += 2 {
		v.Set(values[i], values[i+1])
	}
	return v.Encode()
}

const formType = "application/x-www-form-urlencoded"

// signIn posts the form from Folio's own origin.
func signIn(t *testing.T, s *testkit.Server, email, pw string) answer {
	t.Helper()
	return send(t, s, "POST", "/sign-in", "", s.URL, formType, form("email", email, "password", pw))
}

// sessionCookie is the folio_session cookie an answer set.
func sessionCookie(t *testing.T, a answer) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == "folio_session" {
			return c
		}
	}
	t.Fatalf("no folio_session cookie: %d %v", a.status, a.header)
	return nil
}

func gql(t *testing.T, s *testkit.Server, cookie, origin, query string) (data map[string]any, errs []map[string]any, status int) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	a := send(t, s, "POST", "/graphql", cookie, origin, "application/json", string(body))
	var out struct {
		Data   map[string]any   `json:"data"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal([]byte(a.body), &out); err != nil {
		t.Fatalf("%d %s", a.status, a.body)
	}
	return out.Data, out.Errors, a.status
}

func newUserWithPassword(t *testing.T, s *testkit.Server, email string) testkit.User {
	t.Helper()
	u, _ := s.NewUser(t, email, "Acme "+email)
	if err := s.App.SetPassword(context.Background(), email, password); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSessionSignIn walks a session's life over HTTP: the form, the cookie
// on both APIs and the account page, the origin rule, revocation from the
// page and from GraphQL, sign-out.
func TestSessionSignIn(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u := newUserWithPassword(t, s, "alice@example.com")
		var cookie string
		t.Run("form answers 303 with the cookie", func(t *testing.T) {
			a := signIn(t, s, "Alice@Example.com", password)
			if a.status != http.StatusSeeOther || a.header.Get("Location") != "/account" {
				t.Fatalf("%d %v %s", a.status, a.header, a.body)
			}
			c := sessionCookie(t, a)
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure || len(c.Value) < 40 {
				t.Fatalf("cookie %+v", c)
			}
			cookie = c.Value
			if n := s.Client().Event.Query().Where(event.Action("user.signed_in"), event.Source("ui"), event.TargetID(u.ID)).CountX(context.Background()); n != 1 {
				t.Fatalf("%d user.signed_in events", n)
			}
			if n := s.Client().Event.Query().Where(event.Action("user.password_changed"), event.Source("script"), event.TargetID(u.ID)).CountX(context.Background()); n != 1 {
				t.Fatalf("%d user.password_changed events", n)
			}
			// Only the cookie's hash is stored, and no event holds it.
			if s.Client().Session.Query().CountX(context.Background()) != 1 || strings.Contains(s.Snapshot(t), cookie) || strings.Contains(s.Snapshot(t), password) {
				t.Fatal("the cookie or the password is stored")
			}
			// next: a local path is followed, another site is not.
			a = send(t, s, "POST", "/sign-in", "", s.URL, formType, form("email", u.Email, "password", password, "next", "/s/docs/"))
			if a.header.Get("Location") != "/s/docs/" {
				t.Fatalf("next: %v", a.header)
			}
			a = send(t, s, "POST", "/sign-in", "", s.URL, formType, form("email", u.Email, "password", password, "next", "//evil.example/"))
			if a.header.Get("Location") != "/account" {
				t.Fatalf("next to another site: %v", a.header)
			}
		})
		t.Run("sign-in rotates the cookie", func(t *testing.T) {
			other := sessionCookie(t, signIn(t, s, u.Email, password)).Value
			if other == cookie {
				t.Fatal("two sign-ins share a cookie")
			}
		})
		t.Run("the cookie authenticates GraphQL and /v1", func(t *testing.T) {
			data, errs, _ := gql(t, s, cookie, s.URL, `{ viewer { user { id } sessions { id current userAgent } } }`)
			if errs != nil || data["viewer"].(map[string]any)["user"].(map[string]any)["id"] != u.ID {
				t.Fatalf("%v %v", data, errs)
			}
			sessions := data["viewer"].(map[string]any)["sessions"].([]any)
			current := 0
			for _, x := range sessions {
				if x.(map[string]any)["current"] == true {
					current++
				}
			}
			if len(sessions) != 4 || current != 1 {
				t.Fatalf("sessions %v", sessions)
			}
			a := send(t, s, "GET", "/v1/user", cookie, "", "", "")
			if a.status != 200 || !strings.Contains(a.body, u.ID) {
				t.Fatalf("/v1/user: %d %s", a.status, a.body)
			}
			// A GET needs no origin.
			a = send(t, s, "GET", "/graphql?query="+url.QueryEscape("{viewer{user{id}}}"), cookie, "", "", "")
			if a.status != 200 || !strings.Contains(a.body, u.ID) || a.header.Get("Cache-Control") != "private, no-cache" {
				t.Fatalf("GET /graphql: %d %v %s", a.status, a.header, a.body)
			}
		})
		t.Run("cross-origin writes with the cookie are refused before parsing", func(t *testing.T) {
			before := s.Snapshot(t)
			mutation := `mutation { signOutEverywhere }`
			for _, origin := range []string{"https://evil.example", ""} {
				_, errs, status := gql(t, s, cookie, origin, mutation)
				if status != http.StatusForbidden || len(errs) != 1 || errs[0]["extensions"].(map[string]any)["code"] != "FORBIDDEN" {
					t.Fatalf("origin %q: %d %v", origin, status, errs)
				}
			}
			// Not even parsed: a body that is not JSON answers the same.
			a := send(t, s, "POST", "/graphql", cookie, "https://evil.example", "application/json", "{not json")
			if a.status != http.StatusForbidden {
				t.Fatalf("%d %s", a.status, a.body)
			}
			a = send(t, s, "POST", "/v1/orgs", cookie, "https://evil.example", "application/json", `{"title":"Evil"}`)
			if a.status != http.StatusForbidden || !strings.Contains(a.body, `"code":403`) {
				t.Fatalf("/v1: %d %s", a.status, a.body)
			}
			a = send(t, s, "POST", "/account/sessions/x/revoke", cookie, "https://evil.example", formType, "")
			if a.status != http.StatusForbidden {
				t.Fatalf("account form: %d %s", a.status, a.body)
			}
			s.Unchanged(t, before)
			// A bearer token is not a cookie: its origin does not matter.
			req, _ := http.NewRequest("POST", s.URL+"/graphql", strings.NewReader(`{"query":"{viewer{user{id}}}"}`))
			req.Header.Set("Authorization", "Bearer "+u.Token)
			req.Header.Set("Origin", "https://evil.example")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("bearer: %v %v", resp, err)
			}
			resp.Body.Close()
		})
		t.Run("same-origin writes work, as ui", func(t *testing.T) {
			// Sec-Fetch-Site stands for a missing Origin.
			req, _ := http.NewRequest("POST", s.URL+"/graphql", strings.NewReader(`{"query":"{viewer{user{id}}}"}`))
			req.AddCookie(&http.Cookie{Name: "folio_session", Value: cookie})
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("Sec-Fetch-Site: %v %v", resp, err)
			}
			resp.Body.Close()
			// Origin: null (a no-referrer page's form) goes by Sec-Fetch-Site.
			for site, want := range map[string]int{"same-origin": http.StatusSeeOther, "cross-site": http.StatusForbidden, "": http.StatusForbidden} {
				req, _ := http.NewRequest("POST", s.URL+"/sign-in", strings.NewReader(form("email", u.Email, "password", password)))
				req.Header.Set("Origin", "null")
				req.Header.Set("Content-Type", formType)
				if site != "" {
					req.Header.Set("Sec-Fetch-Site", site)
				}
				resp, err := noRedirect.Do(req)
				if err != nil || resp.StatusCode != want {
					t.Fatalf("Origin null, Sec-Fetch-Site %q: %v %v", site, resp, err)
				}
				resp.Body.Close()
			}
			a := send(t, s, "POST", "/v1/orgs", cookie, s.URL, "application/json", `{"title":"Made in a browser"}`)
			if a.status != 201 {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if n := s.Client().Event.Query().Where(event.Action("organization.created"), event.Source("ui"), event.ActorID(u.ID)).CountX(context.Background()); n != 1 {
				t.Fatalf("%d organization.created events from ui", n)
			}
		})
		t.Run("revoke from the account page", func(t *testing.T) {
			victim := sessionCookie(t, signIn(t, s, u.Email, password)).Value
			a := send(t, s, "GET", "/account", cookie, "", "", "")
			if a.status != 200 || !strings.Contains(a.body, "(this browser)") || !strings.Contains(a.body, "alice") || a.header.Get("Referrer-Policy") != "same-origin" ||
				!strings.Contains(a.header.Get("Content-Security-Policy"), "default-src 'none'") || strings.Contains(a.body, "<script") {
				t.Fatalf("%d %v %s", a.status, a.header, a.body)
			}
			ids := sessionIDs(t, s, victim)
			a = send(t, s, "POST", "/account/sessions/"+ids.current+"/revoke", cookie, s.URL, formType, "")
			if a.status != http.StatusSeeOther {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if a := send(t, s, "GET", "/v1/user", victim, "", "", ""); a.status != 401 {
				t.Fatalf("revoked cookie: %d", a.status)
			}
			if n := s.Client().Event.Query().Where(event.Action("session.revoked"), event.TargetID(ids.current), event.Source("ui")).CountX(context.Background()); n != 1 {
				t.Fatalf("%d session.revoked", n)
			}
		})
		t.Run("revoke through GraphQL", func(t *testing.T) {
			victim := sessionCookie(t, signIn(t, s, u.Email, password)).Value
			ids := sessionIDs(t, s, victim)
			// Another user cannot see it.
			bob, _ := s.NewUser(t, "bob@example.com", "")
			d, errs := s.GraphQL(t, bob.Token, `mutation($id: ID!) { revokeSession(id: $id) }`, map[string]any{"id": ids.current})
			if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("bob: %v %v", d, errs)
			}
			if d, errs := s.GraphQL(t, bob.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": ids.current}); d["node"] != nil || len(errs) != 1 {
				t.Fatalf("bob's node: %v %v", d, errs)
			}
			if d := s.MustGraphQL(t, u.Token, `query($id: ID!) { node(id: $id) { ... on Session { id current } } }`, map[string]any{"id": ids.current}); d["node"].(map[string]any)["current"] != false {
				t.Fatalf("node: %v", d)
			}
			data, gerrs, _ := gql(t, s, cookie, s.URL, `mutation { revokeSession(id: "`+ids.current+`") }`)
			if gerrs != nil || data["revokeSession"] != true {
				t.Fatalf("%v %v", data, gerrs)
			}
			// An ended session is no session: anonymous for GraphQL.
			_, gerrs, _ = gql(t, s, victim, s.URL, `{ viewer { user { id } } }`)
			if len(gerrs) != 1 || gerrs[0]["extensions"].(map[string]any)["code"] != "UNAUTHENTICATED" {
				t.Fatalf("revoked cookie on GraphQL: %v", gerrs)
			}
		})
		t.Run("sign-out", func(t *testing.T) {
			a := send(t, s, "POST", "/sign-out", cookie, s.URL, formType, "")
			if a.status != http.StatusSeeOther || !strings.Contains(a.header.Get("Set-Cookie"), "Max-Age=0") {
				t.Fatalf("%d %v", a.status, a.header)
			}
			if a := send(t, s, "GET", "/v1/user", cookie, "", "", ""); a.status != 401 {
				t.Fatalf("cookie after sign-out: %d", a.status)
			}
			if n := s.Client().Event.Query().Where(event.Action("user.signed_out")).CountX(context.Background()); n != 1 {
				t.Fatalf("%d user.signed_out", n)
			}
		})
		t.Run("sign out everywhere", func(t *testing.T) {
			c := sessionCookie(t, signIn(t, s, u.Email, password)).Value
			data, errs, _ := gql(t, s, c, s.URL, `mutation { signOutEverywhere }`)
			if errs != nil || data["signOutEverywhere"] != true {
				t.Fatalf("%v %v", data, errs)
			}
			if d := s.MustGraphQL(t, u.Token, `{ viewer { sessions { id } } }`, nil); len(d["viewer"].(map[string]any)["sessions"].([]any)) != 0 {
				t.Fatalf("left: %v", d)
			}
		})
	})
}

type ids struct{ current string }

// sessionIDs is the id of the session cookie signs in with.
func sessionIDs(t *testing.T, s *testkit.Server, cookie string) ids {
	t.Helper()
	data, errs, _ := gql(t, s, cookie, s.URL, `{ viewer { sessions { id current } } }`)
	if errs != nil {
		t.Fatal(errs)
	}
	for _, x := range data["viewer"].(map[string]any)["sessions"].([]any) {
		if m := x.(map[string]any); m["current"] == true {
			return ids{current: m["id"].(string)}
		}
	}
	t.Fatal("no current session")
	return ids{}
}

// TestSessionExpiry: an idle session ends after FOLIO_SESSION_IDLE, a used
// one after FOLIO_SESSION_LIFETIME whatever the use.
func TestSessionExpiry(t *testing.T) {
	t.Cleanup(clock.Reset)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u := newUserWithPassword(t, s, "carol@example.com")
		idle := sessionCookie(t, signIn(t, s, u.Email, password)).Value
		used := sessionCookie(t, signIn(t, s, u.Email, password)).Value
		step := graph.DefaultSessionIdle - time.Hour
		for i := 1; i*int(step/time.Hour) < int(graph.DefaultSessionLifetime/time.Hour); i++ {
			clock.Advance(step)
			if a := send(t, s, "GET", "/v1/user", used, "", "", ""); a.status != 200 {
				t.Fatalf("used session refused after %d steps: %d", i, a.status)
			}
			if i == 1 {
				if a := send(t, s, "GET", "/v1/user", idle, "", "", ""); a.status != 200 {
					t.Fatalf("idle session refused before its idle time: %d", a.status)
				}
			}
			if i == 2 {
				if a := send(t, s, "GET", "/v1/user", idle, "", "", ""); a.status != 200 {
					t.Fatalf("session refused after a use: %d", a.status)
				}
			}
		}
		clock.Advance(step)
		if a := send(t, s, "GET", "/v1/user", used, "", "", ""); a.status != 401 {
			t.Fatalf("session past its lifetime: %d", a.status)
		}
		clock.Reset()
		short := sessionCookie(t, signIn(t, s, u.Email, password)).Value
		clock.Advance(graph.DefaultSessionIdle + time.Minute)
		if a := send(t, s, "GET", "/v1/user", short, "", "", ""); a.status != 401 {
			t.Fatalf("idle session: %d", a.status)
		}
		if _, errs, _ := gql(t, s, short, s.URL, `{ viewer { user { id } } }`); len(errs) != 1 {
			t.Fatalf("idle session on GraphQL: %v", errs)
		}
		// The retention job deletes the ended sessions' rows.
		if err := s.App.Resolver.PurgeEndedSessions(context.Background()); err != nil {
			t.Fatal(err)
		}
		if s.Client().Session.Query().Where(session.TokenHash(auth.HashToken(short))).ExistX(context.Background()) {
			t.Fatal("the idle session's row is left")
		}
		clock.Reset()
	})
}

// TestSignInRateLimit: a password-guessing loop is refused after
// MaxAccountFailures failures, the right password too, until the window
// passes; unknown and known emails answer alike.
func TestSignInRateLimit(t *testing.T) {
	t.Cleanup(clock.Reset)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		u := newUserWithPassword(t, s, "dave@example.com")
		// No enumeration: the same answer for a wrong password and an
		// unknown email (the form echoes the email typed).
		wrong := signIn(t, s, u.Email, "guess-0")
		unknown := signIn(t, s, "nobody@example.com", "guess-0")
		if wrong.status != http.StatusUnauthorized || unknown.status != wrong.status ||
			strings.ReplaceAll(unknown.body, "nobody@example.com", u.Email) != wrong.body {
			t.Fatalf("answers differ:\n%d %s\n%d %s", wrong.status, wrong.body, unknown.status, unknown.body)
		}
		failed, refused := 1, 0
		for i := 1; i < 12; i++ {
			pw := "guess-" + string(rune('a'+i))
			if i >= 8 {
				pw = password // the right one, once locked
			}
			switch a := signIn(t, s, u.Email, pw); a.status {
			case http.StatusUnauthorized:
				failed++
			case http.StatusTooManyRequests:
				refused++
				if a.header.Get("Set-Cookie") != "" {
					t.Fatal("a refused attempt set a cookie")
				}
			default:
				t.Fatalf("attempt %d: %d", i, a.status)
			}
		}
		if failed != graph.MaxAccountFailures || refused != 12-graph.MaxAccountFailures {
			t.Fatalf("%d failed, %d refused", failed, refused)
		}
		c := s.Client().RateCounter.Query().Where(ratecounter.Key("signin:account:" + u.Email)).OnlyX(ctx)
		if c.Count != graph.MaxAccountFailures || c.Refused != refused {
			t.Fatalf("counter %+v", c)
		}
		if n := s.Client().Event.Query().Where(event.Action("user.sign_in_failed"), event.OrganizationID("")).CountX(ctx); n != failed+1 {
			t.Fatalf("%d user.sign_in_failed events", n)
		}
		for _, e := range s.Client().Event.Query().AllX(ctx) {
			raw, _ := json.Marshal(e.Payload)
			if strings.Contains(string(raw), password) || strings.Contains(string(raw), "guess") {
				t.Fatalf("a password in an event: %s", raw)
			}
		}
		// Another account from the same address is not locked.
		if a := signIn(t, s, "nobody@example.com", "guess"); a.status != http.StatusUnauthorized {
			t.Fatalf("other account: %d", a.status)
		}
		clock.Advance(graph.SignInWindow + time.Second)
		if a := signIn(t, s, u.Email, password); a.status != http.StatusSeeOther {
			t.Fatalf("after the window: %d %s", a.status, a.body)
		}
		clock.Reset()
	})
}

// TestSignInAddressLimit: MaxAddressFailures failures from one address,
// each of another email (no account limit is reached), lock the address
// out: the right password of a real account is refused too.
func TestSignInAddressLimit(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u := newUserWithPassword(t, s, "heidi@example.com")
	for i := range graph.MaxAddressFailures {
		if a := signIn(t, s, "guess"+strconv.Itoa(i)+"@example.com", "guess"); a.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i, a.status)
		}
	}
	if a := signIn(t, s, u.Email, password); a.status != http.StatusTooManyRequests {
		t.Fatalf("locked address: %d", a.status)
	}
}

// TestSignUp: closed by default; FOLIO_OPEN_SIGNUP opens it.
func TestSignUp(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	if a := send(t, s, "GET", "/sign-up", "", "", "", ""); a.status != 404 {
		t.Fatalf("closed sign-up: %d", a.status)
	}
	if a := send(t, s, "POST", "/sign-up", "", s.URL, formType, form("email", "x@example.com", "password", password)); a.status != 404 {
		t.Fatalf("closed sign-up: %d", a.status)
	}
	t.Setenv("FOLIO_OPEN_SIGNUP", "true")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		if a := send(t, s, "GET", "/sign-up", "", "", "", ""); a.status != 200 {
			t.Fatalf("%d", a.status)
		}
		if a := send(t, s, "POST", "/sign-up", "", s.URL, formType, form("email", "erin@example.com", "password", "short")); a.status != 400 {
			t.Fatalf("short password: %d", a.status)
		}
		a := send(t, s, "POST", "/sign-up", "", s.URL, formType, form("email", "erin@example.com", "name", "Erin", "password", password))
		if a.status != http.StatusSeeOther {
			t.Fatalf("%d %s", a.status, a.body)
		}
		c := sessionCookie(t, a).Value
		if a := send(t, s, "GET", "/v1/user", c, "", "", ""); a.status != 200 || !strings.Contains(a.body, "Erin") {
			t.Fatalf("%d %s", a.status, a.body)
		}
		if a := signIn(t, s, "erin@example.com", password); a.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d", a.status)
		}
	})
}

// TestSessionCookieBehindHTTPS: behind an https base URL the cookie is
// __Host-folio_session, Secure.
func TestSessionCookieBehindHTTPS(t *testing.T) {
	r := &graph.Resolver{BaseURL: "https://docs.example.com"}
	c := r.SessionCookie("v", time.Now().Add(time.Hour))
	if c.Name != "__Host-folio_session" || !c.Secure || !c.HttpOnly || c.Path != "/" || c.Domain != "" || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("%+v", c)
	}
	if c := (&graph.Resolver{BaseURL: "http://127.0.0.1:8080"}).SessionCookie("v", time.Now()); c.Name != "folio_session" || c.Secure {
		t.Fatalf("%+v", c)
	}
}
