package app

import (
	"net/http"
	"strings"

	"github.com/rs/cors"
)

// corsMaxAge is how long a browser may keep a preflight's answer (seconds):
// a front end then pays one preflight per endpoint every ten minutes, not
// one per request. Chromium caps it at two hours.
const corsMaxAge = 600

// corsRequestHeaders are the headers a front end may send cross-origin:
// its token, JSON, and what Apollo Client adds (apollo-require-preflight
// is the header Apollo's own servers ask for against CSRF;
// x-apollo-operation-name names the operation).
var corsRequestHeaders = []string{"Authorization", "Content-Type", "Accept",
	"Apollo-Require-Preflight", "X-Apollo-Operation-Name"}

// crossOrigin lets pages of the configured origins (FOLIO_CORS_ORIGINS)
// call the two APIs, /graphql and /v1, with a bearer token. It is mounted
// before authentication and the body limit: a preflight carries neither a
// token nor a body, and is answered here from the allow-list alone (204,
// and no Access-Control-* header for an origin not on it, which the
// browser then refuses). No credentials mode: the APIs take bearer tokens,
// never cookies, so no browser sends Folio's cookies cross-origin. Without
// origins there is no middleware and no Access-Control-* header at all.
// Published sites and files are not APIs and are left alone, as is every
// path of a host mapped to a site.
//
// rs/cors does the protocol (preflight, Vary, the exact-origin match,
// rejected methods and headers), which is easy to get subtly wrong by hand.
func (a *App) crossOrigin(origins []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
			http.MethodPatch, http.MethodDelete},
		AllowedHeaders:   corsRequestHeaders,
		ExposedHeaders:   []string{RequestIDHeader},
		MaxAge:           corsMaxAge,
		AllowCredentials: false,
	})
	return func(next http.Handler) http.Handler {
		withCORS := c.Handler(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isAPIPath(r.URL.Path) {
				next.ServeHTTP(w, r)
				return
			}
			if _, mapped := a.Reader.MappedSite(r); mapped {
				next.ServeHTTP(w, r)
				return
			}
			withCORS.ServeHTTP(w, r)
		})
	}
}

// isAPIPath reports whether path is one of the two APIs.
func isAPIPath(path string) bool {
	return path == graphQLPath || path == "/v1" || strings.HasPrefix(path, "/v1/")
}
