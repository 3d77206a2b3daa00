package app

import (
	"net/http"
	"strings"
)

// DataCSP is the policy of everything Folio answers that is not a page of
// its own (JSON, errors, downloads): nothing in it may load or run, and no
// site may frame it. Pages (the explorer) and uploaded files set their own.
const DataCSP = "default-src 'none'; frame-ancestors 'none'"

// securityHeaders sets the headers every answer carries. Handlers that
// serve a page or a file replace Content-Security-Policy with their own,
// which keeps frame-ancestors 'none'.
func (a *App) securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", DataCSP)
		h.Set("X-Frame-Options", "DENY") // frame-ancestors for browsers that predate it
		// Only an https base URL says the operator serves Folio over TLS;
		// promising HSTS over plain http would lock users out.
		if strings.HasPrefix(strings.ToLower(a.Config.BaseURL), "https://") {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}
