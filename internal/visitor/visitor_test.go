package visitor

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/visitorauth"
)

const key = "site-private-key"

var schema = func() *adaptive.Schema {
	s, err := adaptive.ParseSchema([]byte(`{"type":"object","properties":{
		"plan":{"type":"string","description":"Plan","enum":["free","pro"]},
		"unsigned":{"type":"object","description":"Unsigned claims of the site visitor.","properties":{
			"isBeta":{"type":"boolean","description":"Beta"},
			"lang":{"type":"string","description":"Language","enum":["en","fr"]},
			"tags":{"type":"array","description":"Tags","items":{"type":"string","description":"Tag"}}
		},"additionalProperties":false}},"additionalProperties":false}`))
	if err != nil {
		panic(err)
	}
	return s
}()

// links is a share-link store: key → active.
type links map[string]bool

func (l links) active(_ context.Context, k string) (bool, error) {
	if k == "broken" {
		return false, errors.New("database down")
	}
	return l[k], nil
}

func site(visibility string, l links) Site {
	return Site{ID: "site1", Visibility: visibility, CookiePath: "/s/docs/", VisitorKey: key,
		Schema: schema, ShareKeyActive: l.active}
}

func token(t *testing.T, k string, claims map[string]any) string {
	t.Helper()
	if _, ok := claims["exp"]; !ok {
		claims["exp"] = time.Now().Add(time.Hour).Unix()
	}
	tok, err := visitorauth.Sign(k, claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// visit makes a request to target with cookies and answers the recorder and
// Admit's results.
func visit(s Site, target string, cookies ...*http.Cookie) (*httptest.ResponseRecorder, Visitor, bool) {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	v, ok := Admit(w, r, s)
	return w, v, ok
}

func cookieNamed(t *testing.T, w *httptest.ResponseRecorder, name string) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestPublicAndUnlisted(t *testing.T) {
	for _, vis := range []string{"public", "unlisted"} {
		w, v, ok := visit(site(vis, nil), "/s/docs/page?x=1")
		if !ok || w.Code != http.StatusOK || len(v.Claims) != 0 || v.Claims == nil || v.State == "" {
			t.Fatalf("%s: ok=%v code=%d visitor=%+v", vis, ok, w.Code, v)
		}
		if len(w.Result().Cookies()) != 0 {
			t.Errorf("%s: cookies set for an anonymous visit", vis)
		}
		_, v2, _ := visit(site(vis, nil), "/s/docs/other")
		if v2.State != v.State {
			t.Errorf("%s: state differs between two anonymous visits", vis)
		}
	}
	_, pub, _ := visit(site("public", nil), "/s/docs/")
	_, unl, _ := visit(site("unlisted", nil), "/s/docs/")
	if pub.State == unl.State {
		t.Error("public and unlisted share a state")
	}
}

func TestUnknownVisibilityIs404(t *testing.T) {
	for _, vis := range []string{"", "private", "in-collection", "PUBLIC"} {
		w, _, ok := visit(site(vis, nil), "/s/docs/")
		if ok || w.Code != http.StatusNotFound {
			t.Errorf("%q: ok=%v code=%d", vis, ok, w.Code)
		}
	}
}

func TestShareLink(t *testing.T) {
	l := links{"good": true, "off": false}
	s := site("share-link", l)
	s.Secure = true

	t.Run("no key is 404", func(t *testing.T) {
		w, _, ok := visit(s, "/s/docs/")
		if ok || w.Code != http.StatusNotFound || w.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
	})
	for _, k := range []string{"off", "unknown", "broken"} {
		t.Run("key "+k+" is 404", func(t *testing.T) {
			w, _, ok := visit(s, "/s/docs/?shareKey="+k)
			if ok || w.Code != http.StatusNotFound || cookieNamed(t, w, ShareCookie) != nil {
				t.Fatalf("ok=%v code=%d", ok, w.Code)
			}
		})
	}
	t.Run("no ShareKeyActive is 404", func(t *testing.T) {
		s := s
		s.ShareKeyActive = nil
		if w, _, ok := visit(s, "/s/docs/?shareKey=good"); ok || w.Code != http.StatusNotFound {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
	})

	w, v, ok := visit(s, "/s/docs/page?shareKey=good")
	if !ok || w.Code != http.StatusOK || v.State == "" {
		t.Fatalf("active key: ok=%v code=%d", ok, w.Code)
	}
	c := cookieNamed(t, w, ShareCookie)
	if c == nil {
		t.Fatal("no share cookie")
	}
	if strings.Contains(c.Value, "good") || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode ||
		c.Path != "/s/docs/" || c.MaxAge != int(ShareCookieMaxAge/time.Second) {
		t.Fatalf("share cookie: %+v", c)
	}

	t.Run("the cookie admits without the key", func(t *testing.T) {
		w, v2, ok := visit(s, "/s/docs/other", c)
		if !ok || w.Code != http.StatusOK || v2.State != v.State {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
	})
	t.Run("a bad key in the URL falls back to the cookie", func(t *testing.T) {
		if _, _, ok := visit(s, "/s/docs/?shareKey=off", c); !ok {
			t.Fatal("refused")
		}
	})
	t.Run("the cookie of another site is 404", func(t *testing.T) {
		other := s
		other.ID = "site2"
		w, _, ok := visit(other, "/s/docs/", c)
		if ok || w.Code != http.StatusNotFound {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
		if cl := cookieNamed(t, w, ShareCookie); cl == nil || cl.MaxAge >= 0 {
			t.Fatalf("refused cookie not cleared: %+v", cl)
		}
	})
	t.Run("a regenerated visitor key voids the cookie", func(t *testing.T) {
		other := s
		other.VisitorKey = "new-key"
		if _, _, ok := visit(other, "/s/docs/", c); ok {
			t.Fatal("admitted")
		}
	})
	t.Run("a tampered cookie is 404", func(t *testing.T) {
		bad := *c
		bad.Value = c.Value[:len(c.Value)-2] + "AA"
		for _, val := range []string{bad.Value, "", "x", "%%%"} {
			bad.Value = val
			if _, _, ok := visit(s, "/s/docs/", &bad); ok {
				t.Fatalf("admitted with %q", val)
			}
		}
	})
	t.Run("deactivating the link stops the cookie", func(t *testing.T) {
		l["good"] = false
		defer func() { l["good"] = true }()
		w, _, ok := visit(s, "/s/docs/", c)
		if ok || w.Code != http.StatusNotFound {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
		if cl := cookieNamed(t, w, ShareCookie); cl == nil || cl.MaxAge >= 0 {
			t.Fatalf("cookie not cleared: %+v", cl)
		}
	})
	t.Run("without a visitor key the key admits but leaves no cookie", func(t *testing.T) {
		s := s
		s.VisitorKey = ""
		w, _, ok := visit(s, "/s/docs/?shareKey=good")
		if !ok || cookieNamed(t, w, ShareCookie) != nil {
			t.Fatalf("ok=%v cookies=%v", ok, w.Result().Cookies())
		}
	})
}

func TestVisitorAuth(t *testing.T) {
	s := site("visitor-auth", nil)

	t.Run("no token is 401", func(t *testing.T) {
		w, _, ok := visit(s, "/s/docs/")
		if ok || w.Code != http.StatusUnauthorized || w.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
	})
	t.Run("no token goes to the fallback URL with the location", func(t *testing.T) {
		s := s
		s.FallbackURL = "https://app.example.com/login?from=docs"
		w, _, ok := visit(s, "/s/docs/guide?tab=2&jwt_token=bad")
		if ok || w.Code != http.StatusFound {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
		u, err := url.Parse(w.Header().Get("Location"))
		if err != nil || u.Host != "app.example.com" || u.Query().Get("from") != "docs" ||
			u.Query().Get("location") != "/s/docs/guide?tab=2" {
			t.Fatalf("Location %q", w.Header().Get("Location"))
		}
	})
	t.Run("a fallback URL that is not http(s) is 401", func(t *testing.T) {
		s := s
		s.FallbackURL = "javascript:alert(1)"
		if w, _, _ := visit(s, "/s/docs/"); w.Code != http.StatusUnauthorized {
			t.Fatalf("code=%d", w.Code)
		}
	})

	expired := token(t, key, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})
	for name, tok := range map[string]string{
		"expired":      expired,
		"another key":  token(t, "other-key", map[string]any{}),
		"no exp":       forge(key, `{"alg":"HS256"}`, `{"plan":"pro"}`),
		"alg none":     forge(key, `{"alg":"none"}`, `{"exp":9999999999}`),
		"alg RS256":    forge(key, `{"alg":"RS256"}`, `{"exp":9999999999}`),
		"garbage":      "not-a-token",
		"empty string": "",
	} {
		t.Run("a token "+name+" is refused", func(t *testing.T) {
			w, _, ok := visit(s, "/s/docs/?jwt_token="+url.QueryEscape(tok))
			if ok || w.Code != http.StatusUnauthorized || cookieNamed(t, w, TokenCookie) != nil {
				t.Fatalf("ok=%v code=%d", ok, w.Code)
			}
			w, _, ok = visit(s, "/s/docs/", &http.Cookie{Name: TokenCookie, Value: tok})
			if ok || w.Code != http.StatusUnauthorized {
				t.Fatalf("cookie: ok=%v code=%d", ok, w.Code)
			}
		})
	}

	exp := time.Now().Add(time.Hour).Unix()
	tok := token(t, key, map[string]any{"plan": "pro", "exp": exp})
	w, _, ok := visit(s, "/s/docs/guide?a=1&jwt_token="+tok+"&b=%20two&visitor.isBeta=true")
	if ok || w.Code != http.StatusFound {
		t.Fatalf("valid token: ok=%v code=%d", ok, w.Code)
	}
	if loc := w.Header().Get("Location"); loc != "/s/docs/guide?a=1&b=%20two&visitor.isBeta=true" {
		t.Fatalf("Location %q", loc)
	}
	c := cookieNamed(t, w, TokenCookie)
	if c == nil || c.Value != tok || !c.HttpOnly || c.Secure || c.SameSite != http.SameSiteLaxMode || c.Path != "/s/docs/" ||
		c.MaxAge <= 3000 || c.MaxAge > 3600+int(visitorauth.Leeway/time.Second) {
		t.Fatalf("token cookie %+v", c)
	}

	t.Run("the cookie admits with the token's claims", func(t *testing.T) {
		w, v, ok := visit(s, "/s/docs/guide", c)
		if !ok || w.Code != http.StatusOK || v.Claims["plan"] != "pro" {
			t.Fatalf("ok=%v code=%d claims=%v", ok, w.Code, v.Claims)
		}
		_, anon, _ := visit(site("public", nil), "/s/docs/")
		if v.State == anon.State {
			t.Error("a token visitor shares the anonymous state")
		}
	})
	t.Run("Secure on https", func(t *testing.T) {
		s := s
		s.Secure = true
		w, _, _ := visit(s, "/s/docs/?jwt_token="+tok)
		if c := cookieNamed(t, w, TokenCookie); c == nil || !c.Secure {
			t.Fatalf("cookie %+v", c)
		}
	})
	t.Run("GitBook's cookie is read", func(t *testing.T) {
		if _, v, ok := visit(s, "/s/docs/", &http.Cookie{Name: GitBookTokenCookie, Value: tok}); !ok || v.Claims["plan"] != "pro" {
			t.Fatalf("ok=%v claims=%v", ok, v.Claims)
		}
	})
	t.Run("a regenerated key voids and clears the cookie", func(t *testing.T) {
		s := s
		s.VisitorKey = "regenerated"
		w, _, ok := visit(s, "/s/docs/", c)
		if ok || w.Code != http.StatusUnauthorized {
			t.Fatalf("ok=%v code=%d", ok, w.Code)
		}
		if cl := cookieNamed(t, w, TokenCookie); cl == nil || cl.MaxAge >= 0 {
			t.Fatalf("cookie not cleared: %+v", cl)
		}
	})
	t.Run("the clock passing exp ends the cookie", func(t *testing.T) {
		defer func(f func() time.Time) { now = f }(now)
		now = func() time.Time { return time.Now().Add(2 * time.Hour) }
		if _, _, ok := visit(s, "/s/docs/", c); ok {
			t.Fatal("admitted after exp")
		}
	})
	t.Run("behind StripPrefix the redirect keeps the full path", func(t *testing.T) {
		var loc string
		h := http.StripPrefix("/s/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			Admit(w, r, s)
			loc = w.Header().Get("Location")
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/s/docs/p?jwt_token="+tok, nil))
		if loc != "/s/docs/p" {
			t.Fatalf("Location %q", loc)
		}
	})
}

// A token on a site that does not need one carries adaptive claims; it
// still leaves the URL, and an invalid one is simply dropped.
func TestTokenOnPublicSite(t *testing.T) {
	s := site("public", nil)
	tok := token(t, key, map[string]any{"plan": "pro"})
	w, _, ok := visit(s, "/s/docs/?jwt_token="+tok)
	if ok || w.Code != http.StatusFound || w.Header().Get("Location") != "/s/docs/" || cookieNamed(t, w, TokenCookie) == nil {
		t.Fatalf("ok=%v code=%d loc=%q", ok, w.Code, w.Header().Get("Location"))
	}
	w, _, ok = visit(s, "/s/docs/?jwt_token=bad&q=1")
	if ok || w.Code != http.StatusFound || w.Header().Get("Location") != "/s/docs/?q=1" || cookieNamed(t, w, TokenCookie) != nil {
		t.Fatalf("bad token: ok=%v code=%d loc=%q", ok, w.Code, w.Header().Get("Location"))
	}
	_, v, ok := visit(s, "/s/docs/", &http.Cookie{Name: TokenCookie, Value: tok})
	if !ok || v.Claims["plan"] != "pro" {
		t.Fatalf("claims %v", v.Claims)
	}
	_, v, ok = visit(s, "/s/docs/", &http.Cookie{Name: TokenCookie, Value: "bad"})
	if !ok || len(v.Claims) != 0 {
		t.Fatalf("bad cookie: ok=%v claims %v", ok, v.Claims)
	}
}

func TestUnsignedClaims(t *testing.T) {
	s := site("public", nil)
	w, v, ok := visit(s, "/s/docs/?visitor.isBeta=true&visitor.lang=de&visitor.tags=a&visitor.tags=b&visitor.plan=pro&visitor.nope=1")
	if !ok {
		t.Fatal("refused")
	}
	want := map[string]any{"unsigned": map[string]any{"isBeta": true, "tags": []any{"a", "b"}}}
	if !reflect.DeepEqual(v.Claims, want) {
		t.Fatalf("claims %#v", v.Claims)
	}
	c := cookieNamed(t, w, UnsignedCookie)
	if c == nil || !c.HttpOnly || c.Path != "/s/docs/" {
		t.Fatalf("cookie %+v", c)
	}

	t.Run("the cookie keeps them", func(t *testing.T) {
		w, v2, _ := visit(s, "/s/docs/next", c)
		if !reflect.DeepEqual(v2.Claims, want) || v2.State != v.State || cookieNamed(t, w, UnsignedCookie) != nil {
			t.Fatalf("claims %#v", v2.Claims)
		}
	})
	t.Run("the URL wins over the cookie", func(t *testing.T) {
		_, v2, _ := visit(s, "/s/docs/?visitor.isBeta=false&visitor.lang=fr&visitor.tags=%5B%22x%22%5D", c)
		want := map[string]any{"unsigned": map[string]any{"isBeta": false, "lang": "fr", "tags": []any{"x"}}}
		if !reflect.DeepEqual(v2.Claims, want) || v2.State == v.State {
			t.Fatalf("claims %#v", v2.Claims)
		}
	})
	t.Run("GitBook's cookie is read", func(t *testing.T) {
		gb := &http.Cookie{Name: GitBookUnsignedCookie, Value: url.QueryEscape(`{"lang":"en","isBeta":"nope"}`)}
		_, v2, _ := visit(s, "/s/docs/", gb)
		if !reflect.DeepEqual(v2.Claims, map[string]any{"unsigned": map[string]any{"lang": "en"}}) {
			t.Fatalf("claims %#v", v2.Claims)
		}
	})
	t.Run("broken cookies are ignored", func(t *testing.T) {
		for _, val := range []string{"%%%", "e30", "bm90IGpzb24", ""} {
			_, v2, ok := visit(s, "/s/docs/", &http.Cookie{Name: UnsignedCookie, Value: val},
				&http.Cookie{Name: GitBookUnsignedCookie, Value: val})
			if !ok || len(v2.Claims) != 0 {
				t.Fatalf("%q: claims %#v", val, v2.Claims)
			}
		}
	})
	t.Run("without a schema there are none", func(t *testing.T) {
		s := s
		s.Schema = nil
		w, v2, _ := visit(s, "/s/docs/?visitor.isBeta=true")
		if len(v2.Claims) != 0 || cookieNamed(t, w, UnsignedCookie) != nil {
			t.Fatalf("claims %#v", v2.Claims)
		}
	})
	t.Run("signed claims beside unsigned ones; a signed unsigned value wins", func(t *testing.T) {
		tok := token(t, key, map[string]any{"plan": "pro", "unsigned": map[string]any{"lang": "en"}})
		_, v2, _ := visit(s, "/s/docs/?visitor.lang=fr&visitor.isBeta=true", &http.Cookie{Name: TokenCookie, Value: tok})
		u, _ := v2.Claims["unsigned"].(map[string]any)
		if v2.Claims["plan"] != "pro" || u["lang"] != "en" || u["isBeta"] != true {
			t.Fatalf("claims %#v", v2.Claims)
		}
	})
	t.Run("conditions read them", func(t *testing.T) {
		cond, err := adaptive.Compile(`visitor.claims.unsigned.isBeta && "a" in visitor.claims.unsigned.tags`, schema)
		if err != nil {
			t.Fatal(err)
		}
		if !cond.Eval(v.Claims) {
			t.Fatal("condition false")
		}
	})
}

func TestWithoutParam(t *testing.T) {
	for raw, want := range map[string]string{
		"":                            "",
		"jwt_token=x":                 "",
		"a=1&jwt_token=x&b=2":         "?a=1&b=2",
		"jwt%5Ftoken=x&a=1":           "?a=1",
		"jwt_token&a=1&&":             "?a=1",
		"a=1&jwt_token=1&jwt_token=2": "?a=1",
	} {
		if got := withoutParam(raw, TokenParam); got != want {
			t.Errorf("%q: %q, want %q", raw, got, want)
		}
	}
}

// FuzzAdmit: no query or cookie panics Admit, and whatever it admits is
// allowed by the site's visibility.
func FuzzAdmit(f *testing.F) {
	tok, _ := visitorauth.Sign(key, map[string]any{"exp": time.Now().Add(time.Hour).Unix(), "plan": "pro"})
	sealed, _ := seal(key, "site1", "good")
	for _, q := range []string{"", "shareKey=good", "jwt_token=" + tok, "visitor.isBeta=true&visitor.tags=%5B1%5D",
		"visitor.=x&visitor..=y", "shareKey=%zz", "jwt_token=a.b.c"} {
		for _, c := range []string{"", tok, sealed, "e30", "%7B%22lang%22%3A%22en%22%7D"} {
			f.Add(q, c)
		}
	}
	l := links{"good": true}
	f.Fuzz(func(t *testing.T, query, cookie string) {
		for _, vis := range []string{"public", "share-link", "visitor-auth"} {
			s := site(vis, l)
			r := httptest.NewRequest(http.MethodGet, "/s/docs/", nil)
			r.URL.RawQuery = query
			r.RequestURI = "/s/docs/?" + query
			for _, name := range []string{ShareCookie, TokenCookie, UnsignedCookie, GitBookTokenCookie, GitBookUnsignedCookie} {
				r.Header.Add("Cookie", name+"="+cookie)
			}
			w := httptest.NewRecorder()
			v, ok := Admit(w, r, s)
			if !ok {
				if w.Code == http.StatusOK {
					t.Fatalf("%s: refused without an answer", vis)
				}
				continue
			}
			if v.Claims == nil || v.State == "" {
				t.Fatalf("%s: admitted without claims or state", vis)
			}
			if vis == "visitor-auth" {
				if _, err := visitorauth.Verify(key, cookie, time.Now()); err != nil {
					t.Fatalf("visitor-auth admitted without a valid token: %q %q", query, cookie)
				}
			}
		}
	})
}

// forge signs any header and body under k, as an attacker trying other
// algorithms or dropping exp would.
func forge(k, hdr, body string) string {
	enc := base64.RawURLEncoding.EncodeToString
	input := enc([]byte(hdr)) + "." + enc([]byte(body))
	m := hmac.New(sha256.New, []byte(k))
	m.Write([]byte(input))
	return input + "." + enc(m.Sum(nil))
}
