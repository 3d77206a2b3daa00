package oauth_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

const password = "correct horse battery"

// noRedirect shows redirects instead of following them and keeps no
// cookies: each request says which cookie it sends.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type answer struct {
	status int
	header http.Header
	body   string
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(a.body), &out); err != nil {
		t.Fatalf("%d %s: %v", a.status, a.body, err)
	}
	return out
}

// send makes a request to s (or, when path is a full URL, there) with the
// session cookie, Origin, Content-Type and bearer token when set.
func send(t *testing.T, s *testkit.Server, method, path, cookie, origin, contentType, body, bearer string) answer {
	t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = s.URL + path
	}
	req, err := http.NewRequest(method, target, strings.NewReader(body))
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
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

const formType = "application/x-www-form-urlencoded"

func form(values ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(values); i += 2 {
		v.Set(values[i], values[i+1])
	}
	return v.Encode()
}

// newUser makes a user with a password and signs them in through the
// form, answering the session cookie.
func newUser(t *testing.T, s *testkit.Server, email string) (testkit.User, string) {
	t.Helper()
	u, _ := s.NewUser(t, email, "")
	if err := s.App.SetPassword(context.Background(), email, password); err != nil {
		t.Fatal(err)
	}
	a := send(t, s, "POST", "/sign-in", "", s.URL, formType, form("email", email, "password", password), "")
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == "folio_session" {
			return u, c.Value
		}
	}
	t.Fatalf("sign-in: %d %s", a.status, a.body)
	return u, ""
}

// callback is the tool's loopback listener: it keeps the query of each
// redirect it receives, as the CLI's local server does.
type callback struct {
	*httptest.Server
	mu  sync.Mutex
	got []url.Values
}

func newCallback(t *testing.T) *callback {
	c := &callback{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.got = append(c.got, r.URL.Query())
		c.mu.Unlock()
		_, _ = io.WriteString(w, "you may close this window")
	}))
	t.Cleanup(c.Close)
	return c
}

// redirectURI is the callback's address (on 127.0.0.1, its port).
func (c *callback) redirectURI() string { return c.URL + "/callback" }

// follow sends a redirect's Location to the callback and answers the
// query it received.
func (c *callback) follow(t *testing.T, a answer) url.Values {
	t.Helper()
	loc := a.header.Get("Location")
	if a.status != http.StatusSeeOther || !strings.HasPrefix(loc, c.URL+"/callback?") {
		t.Fatalf("want a redirect to the callback, got %d %q %s", a.status, loc, a.body)
	}
	resp, err := http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[len(c.got)-1]
}

// wait answers the first query the callback received, once it has one
// (a browser's redirect arrives on its own time), failing after limit.
func (c *callback) wait(t *testing.T, limit time.Duration) url.Values {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		c.mu.Lock()
		n := len(c.got)
		c.mu.Unlock()
		if n > 0 {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.got[0]
		}
	}
	t.Fatal("the callback was not called")
	return nil
}

// pkce is a new verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	verifier = base64.RawURLEncoding.EncodeToString(b[:])
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// register registers a client as the GitBook CLI does.
func register(t *testing.T, s *testkit.Server, name string, redirects ...string) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": redirects,
		"token_endpoint_auth_method": "none", "application_type": "native",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	return send(t, s, "POST", "/oauth/register", "", "", "application/json", string(body), "")
}

func mustRegister(t *testing.T, s *testkit.Server, name string, redirects ...string) string {
	t.Helper()
	a := register(t, s, name, redirects...)
	if a.status != http.StatusCreated {
		t.Fatalf("register: %d %s", a.status, a.body)
	}
	return a.json(t)["client_id"].(string)
}

// authorizeQuery is an authorization request's query, as the CLI sends it.
func authorizeQuery(clientID, redirect, challenge, method, state string) string {
	return "/oauth/authorize?" + url.Values{"client_id": {clientID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"code_challenge": {challenge}, "code_challenge_method": {method}, "state": {state}, "scope": {"read write offline_access"}}.Encode()
}

// consentForm is what the consent page's Allow (or Deny) button posts.
func consentForm(clientID, redirect, challenge, state, decision string) string {
	return form("client_id", clientID, "redirect_uri", redirect, "response_type", "code", "code_challenge", challenge,
		"code_challenge_method", "S256", "state", state, "scope", "read write offline_access", "decision", decision)
}

// authorize consents for the signed-in cookie and answers the code the
// callback received.
func authorize(t *testing.T, s *testkit.Server, cb *callback, cookie, clientID, challenge, state string) string {
	t.Helper()
	a := send(t, s, "POST", "/oauth/authorize", cookie, s.URL, formType, consentForm(clientID, cb.redirectURI(), challenge, state, "approve"), "")
	got := cb.follow(t, a)
	if got.Get("state") != state || got.Get("code") == "" || got.Get("error") != "" {
		t.Fatalf("callback got %v", got)
	}
	return got.Get("code")
}

func exchange(t *testing.T, s *testkit.Server, clientID, code, redirect, verifier string) answer {
	t.Helper()
	return send(t, s, "POST", "/oauth/token", "", "", formType, form("grant_type", "authorization_code", "client_id", clientID,
		"code", code, "redirect_uri", redirect, "code_verifier", verifier), "")
}

func refresh(t *testing.T, s *testkit.Server, clientID, token string) answer {
	t.Helper()
	return send(t, s, "POST", "/oauth/token", "", "", formType, form("grant_type", "refresh_token", "client_id", clientID, "refresh_token", token), "")
}

// tokens reads a token endpoint's success.
func tokens(t *testing.T, a answer) (access, refresh string) {
	t.Helper()
	if a.status != http.StatusOK || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %v %s", a.status, a.header, a.body)
	}
	j := a.json(t)
	if j["token_type"] != "Bearer" || j["expires_in"].(float64) != 3600 || j["scope"] == "" {
		t.Fatalf("token answer %v", j)
	}
	return j["access_token"].(string), j["refresh_token"].(string)
}

// oauthError checks an error answer's status and code.
func oauthError(t *testing.T, a answer, status int, code string) {
	t.Helper()
	if a.status != status || a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("want %d %s, got %d %v %s", status, code, a.status, a.header, a.body)
	}
	j := a.json(t)
	if j["error"] != code || j["error_description"] == "" {
		t.Fatalf("want %s, got %s", code, a.body)
	}
}

// userStatus is GET /v1/user's status with a bearer token.
func userStatus(t *testing.T, s *testkit.Server, token string) int {
	t.Helper()
	return send(t, s, "GET", "/v1/user", "", "", "", "", token).status
}
