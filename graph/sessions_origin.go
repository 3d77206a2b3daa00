package graph

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/folio/folio/internal/apperr"
)

// sameOrigin is the one rule of what comes from Folio's own pages: a
// request whose Origin is the base URL's (or the Host it was sent to,
// behind a proxy that rewrites neither), or, when the browser sent no
// Origin, whose Sec-Fetch-Site says same-origin (or none: typed in the
// address bar). A request with neither header is not known to be Folio's.
// Cookie-authenticated writes (CheckSameOrigin) and streams sent with
// cookies (sameOriginStream) both go by it.
func sameOrigin(base string, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	// "null": a browser that hides the origin, as Referrer-Policy:
	// no-referrer (the APIs' header) makes it do for form posts, even
	// to the same site. Sec-Fetch-Site still tells.
	if origin == "" || origin == "null" {
		switch r.Header.Get("Sec-Fetch-Site") {
		case "same-origin", "none":
			return true
		}
		return false
	}
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" {
		return false
	}
	if b, err := url.Parse(base); err == nil && b.Host != "" && strings.EqualFold(o.Scheme, b.Scheme) && strings.EqualFold(o.Host, b.Host) {
		return true
	}
	return strings.EqualFold(o.Host, r.Host)
}

// errCrossOriginWrite refuses a write that a browser sent with Folio's
// session cookie from another site's page.
var errCrossOriginWrite = apperr.Forbiddenf("a request sent with the session cookie must come from Folio's own pages (Origin or Sec-Fetch-Site)")

// unsafeMethod is a method that may change something: what a forged
// cross-site request would send.
func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// CheckSameOrigin refuses (403) a POST, PUT, PATCH or DELETE that is not
// from Folio's own origin (sameOrigin); safe methods pass. The session's
// pages check every form with it; the APIs check the requests that carry
// the session cookie (authenticate).
func (r *Resolver) CheckSameOrigin(req *http.Request) error {
	if unsafeMethod(req.Method) && !sameOrigin(r.BaseURL, req) {
		return errCrossOriginWrite
	}
	return nil
}
