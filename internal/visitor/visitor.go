// Package visitor is the access gate of published sites: it decides whether
// a request may read a site (its visibility, a share link's key, a visitor
// token) and gathers the visitor's claims for adaptive content. The reader
// (internal/reader) calls Admit before anything else; the sites area
// (graph/) supplies the site's settings and the share-key check, so this
// package knows HTTP but neither the database nor GraphQL. The rules
// themselves (rules.go: Decide, VerifyToken, UnsignedFrom, VisitorOf) know
// no HTTP either: GraphQL's publishedSite asks them with its arguments,
// as Admit does with the address and cookies.
//
// What a visitor brings, and where it goes:
//
//   - `?shareKey=<key>` on a share-link site: the key of an active share
//     link admits the request and leaves a cookie (folio-share) holding the
//     key sealed under a key derived from the site's visitor key — not the
//     key itself. Every later request unseals it and asks the sites area
//     again, so deactivating or deleting the link (or regenerating the
//     site's visitor key) stops the cookie working at once.
//   - `?jwt_token=<JWT>` on any site with a visitor key: an HS256 token
//     signed with the site's private key, `exp` required
//     (internal/visitorauth). A valid one is kept in a cookie
//     (folio-visitor-token) and the request is redirected to the same URL
//     without the parameter, so the token leaves the address bar, history
//     and Referer headers. GitBook's own cookie name, gitbook-visitor-token
//     (set by the customer's app on a mapped host), is read too. On a
//     visitor-auth site a request without a valid token is redirected to
//     the site's fallback URL (with `location`, the address asked for) or
//     answered 401.
//   - `?visitor.<name>=<value>`: unsigned claims, anyone can set them. They
//     are checked against the `unsigned` object of the site's adaptive
//     schema (undeclared names and values of the wrong type are dropped,
//     never fatal) and kept in a cookie (folio-visitor-public) so they last
//     the visit; GitBook's gitbook-visitor-public cookie (URL-escaped JSON)
//     is read too.
//
// Signed and unsigned claims never collide: as in GitBook, conditions read
// the token's claims as visitor.claims.<name> and the unsigned ones as
// visitor.claims.unsigned.<name>. A token that itself carries an `unsigned`
// object wins over the URL and cookie for the names it sets: a signed value
// is never overridden by one anyone can type.
package visitor

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/visitorauth"
)

// Parameters and cookies.
const (
	ShareKeyParam  = "shareKey"
	TokenParam     = "jwt_token"
	UnsignedPrefix = "visitor."

	ShareCookie    = "folio-share"
	TokenCookie    = "folio-visitor-token"
	UnsignedCookie = "folio-visitor-public"
	// GitBook's cookie names, read (never written) so that an app that
	// already sets them for GitBook works unchanged on a mapped host.
	GitBookTokenCookie    = "gitbook-visitor-token"
	GitBookUnsignedCookie = "gitbook-visitor-public"

	// ShareCookieMaxAge is how long a share-link cookie lasts; the link's
	// state is checked on every request regardless.
	ShareCookieMaxAge = 30 * 24 * time.Hour
	// UnsignedCookieMaxAge is how long unsigned claims are remembered.
	UnsignedCookieMaxAge = 30 * 24 * time.Hour
	// maxUnsignedCookie bounds the unsigned claims kept in a cookie.
	maxUnsignedCookie = 3 << 10
)

// Site is what Admit needs to know about the site being read.
type Site struct {
	// ID is the site's id; Visibility as stored: public, unlisted,
	// share-link, visitor-auth. Any other value is refused (404).
	ID, Visibility string
	// CookiePath is the path the site is served under: "/s/<basename>/",
	// or "/" on a mapped host. Cookies are scoped to it, so two sites of
	// one host never see each other's.
	CookiePath string
	// Secure is true when the request came over https: cookies are then
	// marked Secure.
	Secure bool
	// VisitorKey is the site's visitor-auth private key as stored (every
	// site has one; pass it whatever the visibility: it verifies tokens
	// carrying adaptive claims and seals the share-link cookie).
	// FallbackURL is where a visitor-auth site sends visitors without a
	// valid token; empty: 401.
	VisitorKey, FallbackURL string
	// Schema is the site's adaptive claims schema; nil when it has none
	// (then no unsigned claims are kept).
	Schema *adaptive.Schema
	// ShareKeyActive says whether key is the key of an active share link
	// of this site (graph: Resolver.SiteShareKeyActive).
	ShareKeyActive func(ctx context.Context, key string) (bool, error)
}

// Visitor is an admitted request's reader.
type Visitor struct {
	// Claims are the token's claims plus "unsigned" (the unsigned ones),
	// as adaptive.Condition.Eval reads them. Never nil.
	Claims map[string]any
	// State is an opaque digest of what granted access and of the claims:
	// two requests with the same State see the same site, so it belongs in
	// ETags.
	State string
}

// now is the clock tokens are checked against (tests move it).
var now = time.Now

// Admit lets the request read the site, returning the visitor, or answers
// it itself (a redirect dropping a token from the URL, a redirect to the
// fallback URL, 401, 404) and returns ok=false.
func Admit(w http.ResponseWriter, r *http.Request, s Site) (v Visitor, ok bool) {
	q := r.URL.Query()
	g := gate{w: w, r: r, s: s}

	// A token in the URL is never served from: it is verified, kept in a
	// cookie when valid, and the visitor sent on without it.
	if tokens, present := q[TokenParam]; present {
		claims := g.verify(first(tokens))
		if claims != nil {
			g.setCookie(TokenCookie, first(tokens), time.Until(expiry(claims)))
		} else if s.Visibility == "visitor-auth" {
			g.refuseToken()
			return Visitor{}, false
		}
		g.redirectWithout(TokenParam)
		return Visitor{}, false
	}

	creds := Credentials{Signed: g.cookieToken()}
	if s.Visibility == "share-link" {
		creds.ShareKeyActive = g.shareLink(q)
	}
	switch Decide(s.Visibility, creds) {
	case Refused:
		notFound(w)
		return Visitor{}, false
	case NeedsToken:
		g.refuseToken()
		return Visitor{}, false
	}
	creds.Unsigned = g.unsigned(q)
	return VisitorOf(s.Visibility, creds), true
}

type gate struct {
	w http.ResponseWriter
	r *http.Request
	s Site
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

func (g *gate) verify(token string) map[string]any { return VerifyToken(g.s.VisitorKey, token) }

// cookieToken answers the claims of the token kept in a cookie, ours first;
// an invalid one of ours (expired, or the key was regenerated) is cleared.
func (g *gate) cookieToken() map[string]any {
	if c, err := g.r.Cookie(TokenCookie); err == nil {
		if claims := g.verify(c.Value); claims != nil {
			return claims
		}
		g.clearCookie(TokenCookie)
	}
	if c, err := g.r.Cookie(GitBookTokenCookie); err == nil {
		return g.verify(c.Value)
	}
	return nil
}

// shareLink admits a share-link request: the URL's key when it is active
// (leaving a sealed cookie), else the cookie's when it still is.
func (g *gate) shareLink(q url.Values) bool {
	if g.s.ShareKeyActive == nil {
		return false
	}
	if key := q.Get(ShareKeyParam); key != "" {
		if active, err := g.s.ShareKeyActive(g.r.Context(), key); err == nil && active {
			if sealed, err := seal(g.s.VisitorKey, g.s.ID, key); err == nil {
				g.setCookie(ShareCookie, sealed, ShareCookieMaxAge)
			}
			return true
		}
	}
	c, err := g.r.Cookie(ShareCookie)
	if err != nil {
		return false
	}
	key, ok := unseal(g.s.VisitorKey, g.s.ID, c.Value)
	if ok {
		if active, err := g.s.ShareKeyActive(g.r.Context(), key); err == nil && active {
			return true
		}
	}
	g.clearCookie(ShareCookie)
	return false
}

// refuseToken answers a visitor-auth request without a valid token.
func (g *gate) refuseToken() {
	noStore(g.w)
	if g.s.FallbackURL != "" {
		if u, err := url.Parse(g.s.FallbackURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			// GitBook's fallback receives the address asked for, so the
			// sign-in can send the visitor back with a token.
			q := u.Query()
			q.Set("location", requestPath(g.r)+withoutParam(requestQuery(g.r), TokenParam))
			u.RawQuery = q.Encode()
			http.Redirect(g.w, g.r, u.String(), http.StatusFound)
			return
		}
	}
	g.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	g.w.WriteHeader(http.StatusUnauthorized)
	_, _ = g.w.Write([]byte("This site is for authenticated visitors: open it through the link your sign-in gives you.\n"))
}

// redirectWithout sends the visitor to the address asked for without the
// named parameter, the others kept in their order.
func (g *gate) redirectWithout(param string) {
	noStore(g.w)
	http.Redirect(g.w, g.r, requestPath(g.r)+withoutParam(requestQuery(g.r), param), http.StatusFound)
}

func (g *gate) cookie(name, value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: name, Value: value, Path: g.s.CookiePath, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: g.s.Secure}
	if c.Path == "" {
		c.Path = "/"
	}
	switch {
	case maxAge < 0:
		c.MaxAge = -1
	case maxAge > 0:
		c.MaxAge = int(maxAge / time.Second)
		if c.MaxAge == 0 {
			c.MaxAge = 1
		}
	}
	return c
}

func (g *gate) setCookie(name, value string, maxAge time.Duration) {
	if maxAge <= 0 {
		return
	}
	http.SetCookie(g.w, g.cookie(name, value, maxAge))
}

func (g *gate) clearCookie(name string) {
	http.SetCookie(g.w, g.cookie(name, "", -1))
}

// expiry is a verified token's exp.
func expiry(claims map[string]any) time.Time {
	f, _ := claims["exp"].(float64)
	return time.Unix(int64(f), 0).Add(visitorauth.Leeway)
}

// requestPath is the path the visitor asked for, as sent: RequestURI
// survives http.StripPrefix, which a mount may use, where r.URL.Path does
// not.
func requestPath(r *http.Request) string {
	if r.RequestURI != "" && strings.HasPrefix(r.RequestURI, "/") {
		p, _, _ := strings.Cut(r.RequestURI, "?")
		return p
	}
	return r.URL.EscapedPath()
}

func requestQuery(r *http.Request) string {
	if r.RequestURI != "" && strings.HasPrefix(r.RequestURI, "/") {
		_, q, _ := strings.Cut(r.RequestURI, "?")
		return q
	}
	return r.URL.RawQuery
}

// withoutParam drops every occurrence of param from a raw query and answers
// the rest ("?a=1&b=2", or "" when nothing is left).
func withoutParam(raw, param string) string {
	var kept []string
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil && n == param {
			continue
		}
		kept = append(kept, part)
	}
	if len(kept) == 0 {
		return ""
	}
	return "?" + strings.Join(kept, "&")
}

func notFound(w http.ResponseWriter) {
	noStore(w)
	http.Error(w, "404 page not found", http.StatusNotFound)
}

// noStore keeps refusals and redirects (which may set cookies) out of
// shared caches.
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
}
