package app_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"github.com/folio/folio/internal/testkit"
)

// request sends a request with headers (name, value, …) and no body.
func request(t *testing.T, method, url string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// corsHeaders are the Access-Control-* headers of an answer.
func corsHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			out[k] = strings.Join(v, ", ")
		}
	}
	return out
}

const allowed = "https://app.example.com"

// TestCORS: with FOLIO_CORS_ORIGINS, a page of a listed origin may call
// /graphql and /v1 with a bearer token: preflights are answered from the
// list without a token or a body, the actual answers name the origin and
// expose X-Request-Id, and no credentials mode is offered. Another origin
// gets no Access-Control-* header, nor does what is not an API.
func TestCORS(t *testing.T) {
	t.Setenv("FOLIO_CORS_ORIGINS", allowed+",http://localhost:5173")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, _ := s.NewUser(t, "cors@example.com", "CORS")
		preflight := func(path, origin, method, headers string) *http.Response {
			return request(t, "OPTIONS", s.URL+path, "Origin", origin,
				"Access-Control-Request-Method", method, "Access-Control-Request-Headers", headers)
		}
		t.Run("preflights of an allowed origin", func(t *testing.T) {
			for _, c := range []struct{ path, method, headers string }{
				{"/graphql", "POST", "authorization,content-type"},
				{"/graphql", "GET", "apollo-require-preflight,authorization,x-apollo-operation-name"},
				{"/v1/orgs/x/spaces", "PATCH", "accept,authorization,content-type"},
				{"/v1/spaces/x", "DELETE", "authorization"},
			} {
				res := preflight(c.path, allowed, c.method, c.headers)
				h := corsHeaders(res.Header)
				if res.StatusCode != 204 || h["Access-Control-Allow-Origin"] != allowed || h["Access-Control-Allow-Methods"] != c.method ||
					h["Access-Control-Allow-Headers"] != c.headers || h["Access-Control-Max-Age"] != "600" || h["Access-Control-Allow-Credentials"] != "" {
					t.Fatalf("%s %s: %d %v", c.method, c.path, res.StatusCode, h)
				}
			}
		})
		t.Run("preflights refused", func(t *testing.T) {
			for _, c := range []struct{ name, path, origin, method, headers string }{
				{"another origin", "/graphql", "https://evil.example.com", "POST", "authorization,content-type"},
				{"a header not allowed", "/graphql", allowed, "POST", "authorization,x-secret"},
				{"a method not allowed", "/graphql", allowed, "CONNECT", "authorization"},
			} {
				res := preflight(c.path, c.origin, c.method, c.headers)
				if h := corsHeaders(res.Header); h["Access-Control-Allow-Origin"] != "" {
					t.Fatalf("%s: %d %v", c.name, res.StatusCode, h)
				}
			}
		})
		t.Run("actual requests", func(t *testing.T) {
			res := request(t, "GET", s.URL+"/graphql?query=%7B__typename%7D", "Origin", allowed, "Authorization", "Bearer "+u.Token)
			h := corsHeaders(res.Header)
			if res.StatusCode != 200 || h["Access-Control-Allow-Origin"] != allowed || h["Access-Control-Expose-Headers"] != "X-Request-Id" ||
				h["Access-Control-Allow-Credentials"] != "" || !strings.Contains(res.Header.Get("Vary"), "Origin") {
				t.Fatalf("%d %v", res.StatusCode, res.Header)
			}
			res = request(t, "GET", s.URL+"/v1/user", "Origin", allowed, "Authorization", "Bearer "+u.Token)
			if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != allowed {
				t.Fatalf("/v1: %d %v", res.StatusCode, res.Header)
			}
			// A refusal carries the headers too, so the page can read it.
			res = request(t, "GET", s.URL+"/v1/user", "Origin", allowed)
			if res.StatusCode != 401 || res.Header.Get("Access-Control-Allow-Origin") != allowed {
				t.Fatalf("/v1 without a token: %d %v", res.StatusCode, res.Header)
			}
			res = request(t, "GET", s.URL+"/v1/user", "Origin", "https://evil.example.com", "Authorization", "Bearer "+u.Token)
			if h := corsHeaders(res.Header); len(h) != 0 {
				t.Fatalf("another origin: %v", h)
			}
			res = request(t, "GET", s.URL+"/healthz", "Origin", allowed)
			if h := corsHeaders(res.Header); len(h) != 0 {
				t.Fatalf("not an API: %v", h)
			}
		})
	})
}

// TestCORSUnset: without FOLIO_CORS_ORIGINS nothing cross-origin is
// allowed: no Access-Control-* header on any answer, and a preflight is an
// OPTIONS request like any other (405).
func TestCORSUnset(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "nocors@example.com", "NoCORS")
	res := request(t, "OPTIONS", s.URL+"/graphql", "Origin", allowed, "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type")
	if h := corsHeaders(res.Header); res.StatusCode != 405 || len(h) != 0 {
		t.Fatalf("preflight: %d %v", res.StatusCode, h)
	}
	res = request(t, "GET", s.URL+"/graphql?query=%7B__typename%7D", "Origin", allowed, "Authorization", "Bearer "+u.Token)
	if h := corsHeaders(res.Header); res.StatusCode != 200 || len(h) != 0 {
		t.Fatalf("actual: %d %v", res.StatusCode, h)
	}
}

// TestCORSInChromium: a page served on an allowed origin calls /graphql with
// fetch and a bearer token and gets its data; the same page served on
// another origin is refused by the browser (fetch rejects).
func TestCORSInChromium(t *testing.T) {
	bin := testkit.Chromium(t, "the CORS test")
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>front end</title>`))
	}
	front := httptest.NewServer(http.HandlerFunc(page))
	defer front.Close()
	other := httptest.NewServer(http.HandlerFunc(page))
	defer other.Close()
	t.Setenv("FOLIO_CORS_ORIGINS", front.URL)

	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "browser@example.com", "Browser")
	// The refused fetch is logged by the browser as a network error.
	browser := testkit.NewBrowser(t, bin, front.URL, 60*time.Second, func(e *cdplog.Entry) bool { return true })
	call := `fetch(` + jsString(s.URL+"/graphql") + `, {method: "POST",
		headers: {"Authorization": "Bearer ` + u.Token + `", "Content-Type": "application/json"},
		body: JSON.stringify({query: "{ viewer { user { email } } }"})})
	.then(r => r.json()).then(j => "data: " + j.data.viewer.user.email, e => "refused: " + e.name)`

	if err := chromedp.Do(browser.Ctx, chromedp.Navigate(front.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(browser.Ctx, chromedp.Evaluate[string](call, chromedp.EvalAwaitPromise))
	if err != nil || got != "data: browser@example.com" {
		t.Fatalf("from the allowed origin: %q %v", got, err)
	}

	if err := chromedp.Do(browser.Ctx, chromedp.Navigate(other.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got, err = chromedp.Run(browser.Ctx, chromedp.Evaluate[string](call, chromedp.EvalAwaitPromise))
	if err != nil || got != "refused: TypeError" {
		t.Fatalf("from another origin: %q %v", got, err)
	}
}

// jsString quotes s for a script.
func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
