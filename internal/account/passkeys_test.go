package account_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/passkey"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// browser is an HTTP client with a cookie jar, sending Folio's own Origin
// as the pages' script does: one browser's cookies across requests.
type browser struct {
	t      *testing.T
	s      *testkit.Server
	c      *http.Client
	origin string
}

func newBrowser(t *testing.T, s *testkit.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, s: s, origin: s.URL,
		c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path, contentType, body string, extra ...*http.Cookie) answer {
	b.t.Helper()
	req, err := http.NewRequest(method, b.s.URL+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if b.origin != "" {
		req.Header.Set("Origin", b.origin)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("User-Agent", "passkey-test")
	for _, c := range extra {
		req.AddCookie(c)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

func (b *browser) postJSON(path string, v any) answer {
	b.t.Helper()
	raw, _ := json.Marshal(v)
	return b.do("POST", path, "application/json", string(raw))
}

// cookie is the browser's cookie named name ("" without one).
func (b *browser) cookie(name string) string {
	u, _ := http.NewRequest("GET", b.s.URL+"/", nil)
	for _, c := range b.c.Jar.Cookies(u.URL) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func (b *browser) signIn(email string) answer {
	b.t.Helper()
	return b.do("POST", "/sign-in", formType, form("email", email, "password", password))
}

// addPasskey registers a new credential of auth for the browser's user.
func (b *browser) addPasskey(auth *testkit.Authenticator, name string) *testkit.SoftCredential {
	b.t.Helper()
	a := b.postJSON("/account/passkeys/options", nil)
	if a.status != http.StatusOK {
		b.t.Fatalf("registration options: %d %s", a.status, a.body)
	}
	cred, c := auth.Create(b.t, []byte(a.body))
	if a := b.postJSON("/account/passkeys", map[string]any{"name": name, "credential": cred}); a.status != http.StatusCreated {
		b.t.Fatalf("add passkey: %d %s", a.status, a.body)
	}
	return c
}

// passkeySignIn runs a sign-in ceremony with c (nil: the authenticator
// chooses), answering the finish.
func (b *browser) passkeySignIn(auth *testkit.Authenticator, c *testkit.SoftCredential, next string) answer {
	b.t.Helper()
	a := b.postJSON("/sign-in/passkey/options", nil)
	if a.status != http.StatusOK {
		b.t.Fatalf("sign-in options: %d %s", a.status, a.body)
	}
	return b.postJSON("/sign-in/passkey", map[string]any{"next": next, "credential": auth.Get(b.t, []byte(a.body), c)})
}

func (b *browser) signedIn() bool {
	b.t.Helper()
	return b.do("GET", "/account", "", "").status == http.StatusOK
}

func countEvents(t *testing.T, s *testkit.Server, action, targetID string) int {
	t.Helper()
	return s.Client().Event.Query().Where(event.Action(action), event.TargetID(targetID)).CountX(context.Background())
}

// TestPasskeys walks passkeys over HTTP with a software authenticator:
// adding one on the account page, signing in with it alone, requiring it
// after the password, and what is refused: another origin, a stale or
// replayed challenge, another user's passkey, a signature counter gone
// backwards.
func TestPasskeys(t *testing.T) {
	testkit.ForEachDBOnLocalhost(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		u := newUserWithPassword(t, s, "ada@example.com")
		other := newUserWithPassword(t, s, "bob@example.com")
		auth := testkit.NewAuthenticator(s.URL)
		ada := newBrowser(t, s)
		if a := ada.signIn(u.Email); a.status != http.StatusSeeOther || ada.cookie("folio_session") == "" {
			t.Fatalf("password sign-in: %d %v", a.status, a.header)
		}

		t.Run("the account page offers passkeys with its one script", func(t *testing.T) {
			a := ada.do("GET", "/account", "", "")
			if a.status != http.StatusOK || !strings.Contains(a.body, `data-passkey="register"`) || !strings.Contains(a.body, `<script src="/account/assets/passkey.js" defer></script>`) {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
				t.Fatalf("policy: %s", csp)
			}
			if strings.Contains(a.body, "<script>") {
				t.Fatal("an inline script")
			}
			js := ada.do("GET", "/account/assets/passkey.js", "", "")
			if js.status != http.StatusOK || js.header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
				js.header.Get("ETag") == "" || !strings.Contains(js.body, "navigator.credentials.create") {
				t.Fatalf("script: %d %v", js.status, js.header)
			}
			req, _ := http.NewRequest("GET", s.URL+"/account/assets/passkey.js", nil)
			req.Header.Set("If-None-Match", js.header.Get("ETag"))
			if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNotModified {
				t.Fatalf("revalidation: %v %v", resp, err)
			}
			// Pages without passkeys keep no script at all.
			if csp := ada.do("GET", "/account/tokens", "", "").header.Get("Content-Security-Policy"); strings.Contains(csp, "script-src") {
				t.Fatalf("tokens page policy: %s", csp)
			}
			if a := newBrowser(t, s).do("GET", "/sign-in", "", ""); !strings.Contains(a.body, `data-passkey="sign-in"`) ||
				!strings.Contains(a.header.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Fatalf("sign-in page: %s", a.body)
			}
		})

		t.Run("requiring a passkey needs one", func(t *testing.T) {
			if a := ada.do("POST", "/account/passkey-required", formType, form("required", "on")); a.status != http.StatusBadRequest {
				t.Fatalf("%d %s", a.status, a.body)
			}
		})

		var cred *testkit.SoftCredential
		t.Run("add a passkey", func(t *testing.T) {
			cred = ada.addPasskey(auth, "Laptop")
			k := s.Client().Passkey.Query().Where(passkey.UserID(u.ID)).OnlyX(ctx)
			if k.Name != "Laptop" || k.Aaguid != "00000000-0000-0000-0000-000000000000" || len(k.PublicKey) == 0 ||
				len(k.Transports) != 1 || k.LastUsedAt != nil {
				t.Fatalf("%+v", k)
			}
			if n := countEvents(t, s, "passkey.added", k.ID); n != 1 {
				t.Fatalf("%d passkey.added", n)
			}
			if ada.cookie("folio_passkey") != "" {
				t.Fatal("the ceremony cookie outlived the ceremony")
			}
			list := s.MustGraphQL(t, u.Token, `{ viewer { passkeys { id name createdAt lastUsedAt } } }`, nil)["viewer"].(map[string]any)["passkeys"].([]any)
			if len(list) != 1 || list[0].(map[string]any)["name"] != "Laptop" || list[0].(map[string]any)["lastUsedAt"] != nil {
				t.Fatalf("%v", list)
			}
			if a := ada.do("GET", "/account", "", ""); !strings.Contains(a.body, "<td>Laptop</td>") {
				t.Fatalf("the account page does not list it: %s", a.body)
			}
		})

		t.Run("registration refuses a replay, another origin, no session", func(t *testing.T) {
			a := ada.postJSON("/account/passkeys/options", nil)
			secret := ada.cookie("folio_passkey")
			answer, _ := auth.Create(t, []byte(a.body))
			body, _ := json.Marshal(map[string]any{"name": "Phone", "credential": answer})
			if a := ada.do("POST", "/account/passkeys", "application/json", string(body)); a.status != http.StatusCreated {
				t.Fatalf("%d %s", a.status, a.body)
			}
			// The same answer with the spent ceremony's cookie.
			again := ada.do("POST", "/account/passkeys", "application/json", string(body), &http.Cookie{Name: "folio_passkey", Value: secret})
			if again.status != http.StatusBadRequest {
				t.Fatalf("replay: %d %s", again.status, again.body)
			}
			// Answered from another origin (clientDataJSON).
			a = ada.postJSON("/account/passkeys/options", nil)
			evil := testkit.NewAuthenticator("http://evil.example")
			answer, _ = evil.Create(t, []byte(a.body))
			if a := ada.postJSON("/account/passkeys", map[string]any{"credential": answer}); a.status != http.StatusBadRequest {
				t.Fatalf("other origin: %d %s", a.status, a.body)
			}
			// Posted by another site's page (the HTTP origin rule).
			cross := newBrowser(t, s)
			cross.c.Jar = ada.c.Jar
			cross.origin = "http://evil.example"
			if a := cross.postJSON("/account/passkeys/options", nil); a.status != http.StatusForbidden {
				t.Fatalf("cross-site options: %d %s", a.status, a.body)
			}
			if a := newBrowser(t, s).postJSON("/account/passkeys/options", nil); a.status != http.StatusUnauthorized {
				t.Fatalf("signed out: %d %s", a.status, a.body)
			}
			if n := s.Client().Passkey.Query().Where(passkey.UserID(u.ID)).CountX(ctx); n != 2 {
				t.Fatalf("%d passkeys", n)
			}
		})

		t.Run("sign in with the passkey alone", func(t *testing.T) {
			b := newBrowser(t, s)
			a := b.postJSON("/sign-in/passkey/options", nil)
			var opts struct {
				PublicKey map[string]any `json:"publicKey"`
			}
			_ = json.Unmarshal([]byte(a.body), &opts)
			if opts.PublicKey["rpId"] != "localhost" || opts.PublicKey["allowCredentials"] != nil || opts.PublicKey["userVerification"] != "required" {
				t.Fatalf("options: %s", a.body)
			}
			secret := b.cookie("folio_passkey")
			body, _ := json.Marshal(map[string]any{"next": "/account/tokens", "credential": auth.Get(t, []byte(a.body), cred)})
			a = b.do("POST", "/sign-in/passkey", "application/json", string(body))
			if a.status != http.StatusOK || !strings.Contains(a.body, `"next":"/account/tokens"`) || b.cookie("folio_session") == "" {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if !b.signedIn() {
				t.Fatal("no session")
			}
			k := s.Client().Passkey.Query().Where(passkey.CredentialID(b64(cred.ID))).OnlyX(ctx)
			if k.LastUsedAt == nil || k.SignCount != 1 {
				t.Fatalf("%+v", k)
			}
			if n := s.Client().Event.Query().Where(event.Action("user.signed_in"), event.TargetID(u.ID)).AllX(ctx); n[len(n)-1].Payload["method"] != "passkey" {
				t.Fatalf("%v", n[len(n)-1].Payload)
			}
			// The same answer again, with the spent ceremony's cookie.
			replay := newBrowser(t, s)
			if a := replay.do("POST", "/sign-in/passkey", "application/json", string(body), &http.Cookie{Name: "folio_passkey", Value: secret}); a.status != http.StatusUnauthorized || replay.cookie("folio_session") != "" {
				t.Fatalf("replay: %d %s", a.status, a.body)
			}
			// Sent to a next elsewhere: the account page instead.
			if a := newBrowser(t, s).passkeySignIn(auth, cred, "https://evil.example/"); a.status != http.StatusOK || !strings.Contains(a.body, `"next":"/account"`) {
				t.Fatalf("%d %s", a.status, a.body)
			}
		})

		t.Run("refused: another origin, another challenge, no ceremony, a counter gone back", func(t *testing.T) {
			refused := func(what string, b *browser, a answer) {
				t.Helper()
				if a.status != http.StatusUnauthorized || b.cookie("folio_session") != "" {
					t.Fatalf("%s: %d %s", what, a.status, a.body)
				}
			}
			wrongOrigin := &testkit.Authenticator{Origin: "http://evil.example", Creds: auth.Creds}
			b := newBrowser(t, s)
			refused("other origin", b, b.passkeySignIn(wrongOrigin, cred, ""))

			b = newBrowser(t, s)
			first := b.postJSON("/sign-in/passkey/options", nil)
			b.postJSON("/sign-in/passkey/options", nil) // the cookie's ceremony is this one
			refused("another challenge", b, b.postJSON("/sign-in/passkey", map[string]any{"credential": auth.Get(t, []byte(first.body), cred)}))

			b = newBrowser(t, s)
			refused("no ceremony", b, b.postJSON("/sign-in/passkey", map[string]any{"credential": auth.Get(t, []byte(first.body), cred)}))

			before := s.Client().Passkey.Query().Where(passkey.CredentialID(b64(cred.ID))).OnlyX(ctx).SignCount
			cred.Count = uint32(before) // not above the stored counter: a clone's
			b = newBrowser(t, s)
			refused("counter", b, b.passkeySignIn(auth, cred, ""))
			if after := s.Client().Passkey.Query().Where(passkey.CredentialID(b64(cred.ID))).OnlyX(ctx).SignCount; after != before {
				t.Fatalf("counter moved to %d", after)
			}
			if n := s.Client().Event.Query().Where(event.Action("user.sign_in_failed"), event.TargetID(u.ID)).CountX(ctx); n == 0 {
				t.Fatal("no user.sign_in_failed")
			}
			cred.Count = uint32(before) + 10
		})

		bob := newBrowser(t, s)
		bob.signIn(other.Email)
		bobAuth := testkit.NewAuthenticator(s.URL)
		bobCred := bob.addPasskey(bobAuth, "Bob's key")

		t.Run("the password alone opens no session when a passkey is required", func(t *testing.T) {
			if a := ada.do("POST", "/account/passkey-required", formType, form("required", "on")); a.status != http.StatusSeeOther {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if !s.Client().User.Query().Where(user.ID(u.ID)).OnlyX(ctx).PasskeyRequired {
				t.Fatal("not required")
			}
			b := newBrowser(t, s)
			a := b.do("POST", "/sign-in", formType, form("email", u.Email, "password", password, "next", "/account/tokens"))
			if a.status != http.StatusSeeOther || a.header.Get("Location") != "/sign-in/passkey?next=%2Faccount%2Ftokens" ||
				b.cookie("folio_session") != "" || b.cookie("folio_passkey") == "" {
				t.Fatalf("%d %v", a.status, a.header)
			}
			if b.signedIn() {
				t.Fatal("signed in with the password alone")
			}
			if a := b.do("GET", "/sign-in/passkey?next=/account/tokens", "", ""); a.status != http.StatusOK || !strings.Contains(a.body, `data-next="/account/tokens"`) {
				t.Fatalf("%d %s", a.status, a.body)
			}
			// Bob's passkey does not finish Ada's sign-in.
			opts := b.postJSON("/sign-in/passkey/options", nil)
			if !strings.Contains(opts.body, b64(cred.ID)) || strings.Contains(opts.body, b64(bobCred.ID)) {
				t.Fatalf("allowed: %s", opts.body)
			}
			if a := b.postJSON("/sign-in/passkey", map[string]any{"credential": bobAuth.Get(t, []byte(opts.body), bobCred)}); a.status != http.StatusUnauthorized || b.cookie("folio_session") != "" {
				t.Fatalf("bob's passkey: %d %s", a.status, a.body)
			}
			// That spent the pending sign-in: the password again, then Ada's passkey.
			if a := b.do("GET", "/sign-in/passkey", "", ""); a.status != http.StatusSeeOther {
				t.Fatalf("spent pending sign-in: %d", a.status)
			}
			b.signIn(u.Email)
			a = b.passkeySignIn(auth, cred, "/account/tokens")
			if a.status != http.StatusOK || !strings.Contains(a.body, `"next":"/account/tokens"`) || !b.signedIn() {
				t.Fatalf("%d %s", a.status, a.body)
			}
			evs := s.Client().Event.Query().Where(event.Action("user.signed_in"), event.TargetID(u.ID)).AllX(ctx)
			if evs[len(evs)-1].Payload["method"] != "password+passkey" {
				t.Fatalf("%v", evs[len(evs)-1].Payload)
			}
			// A passkey alone still signs in: it is two factors itself.
			if a := newBrowser(t, s).passkeySignIn(auth, cred, ""); a.status != http.StatusOK {
				t.Fatalf("%d %s", a.status, a.body)
			}
		})

		t.Run("another user's passkey cannot be removed", func(t *testing.T) {
			k := s.Client().Passkey.Query().Where(passkey.UserID(u.ID), passkey.Name("Laptop")).OnlyX(ctx)
			if a := bob.do("POST", "/account/passkeys/"+k.ID+"/remove", formType, ""); a.status != http.StatusNotFound {
				t.Fatalf("%d %s", a.status, a.body)
			}
			_, errs := s.GraphQL(t, other.Token, `mutation($id: ID!) { removePasskey(id: $id) }`, map[string]any{"id": k.ID})
			if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("%+v", errs)
			}
			if d, errs := s.GraphQL(t, other.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": k.ID}); d["node"] != nil || len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("%v %+v", d, errs)
			}
			if d := s.MustGraphQL(t, u.Token, `query($id: ID!) { node(id: $id) { ... on Passkey { name } } }`, map[string]any{"id": k.ID}); d["node"].(map[string]any)["name"] != "Laptop" {
				t.Fatalf("%v", d)
			}
			if !s.Client().Passkey.Query().Where(passkey.ID(k.ID)).ExistX(ctx) {
				t.Fatal("removed")
			}
		})

		t.Run("rename", func(t *testing.T) {
			k := s.Client().Passkey.Query().Where(passkey.UserID(u.ID), passkey.Name("Phone")).OnlyX(ctx)
			if a := bob.do("POST", "/account/passkeys/"+k.ID+"/rename", formType, form("name", "Mine")); a.status != http.StatusNotFound {
				t.Fatalf("another user's: %d %s", a.status, a.body)
			}
			if a := ada.do("POST", "/account/passkeys/"+k.ID+"/rename", formType, form("name", strings.Repeat("x", 101))); a.status != http.StatusBadRequest {
				t.Fatalf("too long: %d %s", a.status, a.body)
			}
			if a := ada.do("POST", "/account/passkeys/"+k.ID+"/rename", formType, form("name", " Old phone ")); a.status != http.StatusSeeOther {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if k = s.Client().Passkey.GetX(ctx, k.ID); k.Name != "Old phone" {
				t.Fatalf("named %q", k.Name)
			}
			if n := countEvents(t, s, "passkey.renamed", k.ID); n != 1 {
				t.Fatalf("%d passkey.renamed", n)
			}
		})

		t.Run("remove: the last one stays while required", func(t *testing.T) {
			keys := s.Client().Passkey.Query().Where(passkey.UserID(u.ID)).Order(passkey.ByCreatedAt()).AllX(ctx)
			if a := ada.do("POST", "/account/passkeys/"+keys[1].ID+"/remove", formType, ""); a.status != http.StatusSeeOther {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if n := countEvents(t, s, "passkey.removed", keys[1].ID); n != 1 {
				t.Fatalf("%d passkey.removed", n)
			}
			if a := ada.do("POST", "/account/passkeys/"+keys[0].ID+"/remove", formType, ""); a.status != http.StatusBadRequest {
				t.Fatalf("last one: %d %s", a.status, a.body)
			}
			ada.do("POST", "/account/passkey-required", formType, form("required", "off"))
			s.MustGraphQL(t, u.Token, `mutation($id: ID!) { removePasskey(id: $id) }`, map[string]any{"id": keys[0].ID})
			if n := s.Client().Passkey.Query().Where(passkey.UserID(u.ID)).CountX(ctx); n != 0 {
				t.Fatalf("%d left", n)
			}
			// Its key signs no one in any more.
			if a := newBrowser(t, s).passkeySignIn(auth, cred, ""); a.status != http.StatusUnauthorized {
				t.Fatalf("%d %s", a.status, a.body)
			}
		})
	})
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// TestPasskeyCeremonyExpiry: a ceremony, and a password sign-in waiting
// for its passkey, end after graph.PasskeyCeremonyTTL; the retention job
// deletes their rows.
func TestPasskeyCeremonyExpiry(t *testing.T) {
	t.Cleanup(clock.Reset)
	testkit.ForEachDBOnLocalhost(t, func(t *testing.T, s *testkit.Server) {
		defer clock.Reset()
		ctx := context.Background()
		u := newUserWithPassword(t, s, "dan@example.com")
		auth := testkit.NewAuthenticator(s.URL)
		dan := newBrowser(t, s)
		dan.signIn(u.Email)
		cred := dan.addPasskey(auth, "Key")

		b := newBrowser(t, s)
		opts := b.postJSON("/sign-in/passkey/options", nil)
		clock.Advance(graph.PasskeyCeremonyTTL + time.Second)
		if a := b.postJSON("/sign-in/passkey", map[string]any{"credential": auth.Get(t, []byte(opts.body), cred)}); a.status != http.StatusUnauthorized {
			t.Fatalf("expired ceremony: %d %s", a.status, a.body)
		}

		if a := dan.do("POST", "/account/passkey-required", formType, form("required", "on")); a.status != http.StatusSeeOther {
			t.Fatalf("%d %s", a.status, a.body)
		}
		b = newBrowser(t, s)
		if a := b.signIn(u.Email); a.header.Get("Location") != "/sign-in/passkey" {
			t.Fatalf("%d %v", a.status, a.header)
		}
		clock.Advance(graph.PasskeyCeremonyTTL + time.Second)
		if a := b.do("GET", "/sign-in/passkey", "", ""); a.status != http.StatusSeeOther || a.header.Get("Location") != "/sign-in" {
			t.Fatalf("expired pending sign-in: %d %v", a.status, a.header)
		}
		if err := s.App.Resolver.PurgeEndedSessions(ctx); err != nil {
			t.Fatal(err)
		}
		if n := s.Client().PasskeyCeremony.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d ceremonies left", n)
		}
		// Past its pending sign-in, the passkey step is a sign-in with a
		// passkey alone (which this one also is).
		if a := b.passkeySignIn(auth, cred, ""); a.status != http.StatusOK {
			t.Fatalf("%d %s", a.status, a.body)
		}
	})
}
