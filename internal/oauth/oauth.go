// Package oauth serves Folio's OAuth 2.1 authorization server for tools
// (the GitBook CLI's `gitbook login`, MCP clients): the metadata (RFC 8414,
// RFC 9728), dynamic registration (RFC 7591), the token
// and revocation endpoints (RFC 6749, RFC 7636, RFC 7009). It parses and
// presents; every rule is the application's (graph/oauth*.go). The
// consent page at AuthorizePath is one of the account pages
// (internal/account/consent.go), in their style and with their session.
//
// The JSON endpoints are for programs, not browsers: they never read the
// session cookie, so they need no origin check, and any page may call
// them (CORS without credentials).
package oauth

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// Paths of the endpoints.
const (
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token"
	RegisterPath  = "/oauth/register"
	RevokePath    = "/oauth/revoke"
)

// maxFormBytes bounds a token, revocation or registration body: they are
// a few hundred bytes.
const maxFormBytes = 16 << 10

// Routes adds the authorization server's JSON endpoints to r; its page,
// AuthorizePath, is one of the account pages (internal/account/consent.go).
func Routes(r chi.Router, res *graph.Resolver) {
	s := &server{res: res}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/*"} {
		r.Get(p, open(s.metadata))
		r.Options(p, open(nil))
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/*"} {
		r.Get(p, open(s.protectedResource))
		r.Options(p, open(nil))
	}
	r.Post(RegisterPath, open(s.register))
	r.Options(RegisterPath, open(nil))
	r.Post(TokenPath, open(s.token))
	r.Options(TokenPath, open(nil))
	r.Post(RevokePath, open(s.revoke))
	r.Options(RevokePath, open(nil))
}

type server struct{ res *graph.Resolver }

// open lets any origin's page call an endpoint without credentials (an
// MCP client running in a browser): the endpoints read no cookie, so
// there is nothing of the user's for another site to borrow. A preflight
// (h nil) answers 204.
func open(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions || h == nil {
			hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			hd.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, MCP-Protocol-Version")
			hd.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h(w, r)
	}
}

func (s *server) base() string { return strings.TrimRight(s.res.BaseURL, "/") }

// metadata is RFC 8414's authorization server metadata; the same document
// answers under a path suffix (/v1: clients that derive it from the API's
// address).
func (s *server) metadata(w http.ResponseWriter, r *http.Request) {
	b := s.base()
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         b,
		"authorization_endpoint":                         b + AuthorizePath,
		"token_endpoint":                                 b + TokenPath,
		"registration_endpoint":                          b + RegisterPath,
		"revocation_endpoint":                            b + RevokePath,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"revocation_endpoint_auth_methods_supported":     []string{"none"},
		"scopes_supported":                               graph.OAuthScopes,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          b + "/graphql",
	}, false)
}

// protectedResource is RFC 9728's metadata of the APIs: MCP clients find
// the authorization server through it. Under a path suffix it describes
// that path's resource (/graphql, /v1).
func (s *server) protectedResource(w http.ResponseWriter, r *http.Request) {
	b := s.base()
	resource := b
	if suffix := chi.URLParam(r, "*"); suffix != "" {
		resource = b + "/" + strings.TrimLeft(suffix, "/")
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{b},
		"bearer_methods_supported": []string{"header"},
		"scopes_supported":         graph.OAuthScopes,
		"resource_name":            "Folio",
	}, false)
}

// register is RFC 7591's registration: JSON metadata in, 201 with the
// client's id out.
func (s *server) register(w http.ResponseWriter, r *http.Request) {
	var c graph.ClientRegistration
	body := http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := json.NewDecoder(body).Decode(&c); err != nil {
		writeOAuthError(w, r, &graph.OAuthError{Code: "invalid_client_metadata", Description: "the body must be a JSON object of client metadata (at most 16 KiB)"})
		return
	}
	out, err := s.res.RegisterOAuthClient(r.Context(), c, clientIP(r))
	if err != nil {
		writeOAuthError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, out, true)
}

// token is the token endpoint: form-encoded, the client's id in the form
// (or as the user of HTTP Basic with an empty password).
func (s *server) token(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	clientID := clientIDOf(r)
	var out *graph.OAuthTokens
	var err error
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "authorization_code":
		out, err = s.res.ExchangeOAuthCode(r.Context(), clientID, r.PostForm.Get("code"), r.PostForm.Get("redirect_uri"), r.PostForm.Get("code_verifier"))
	case "refresh_token":
		out, err = s.res.RefreshOAuthToken(r.Context(), clientID, r.PostForm.Get("refresh_token"))
	case "":
		err = &graph.OAuthError{Code: "invalid_request", Description: "grant_type: required"}
	default:
		err = &graph.OAuthError{Code: "unsupported_grant_type", Description: "grant_type: authorization_code or refresh_token"}
	}
	if err != nil {
		writeOAuthError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out, true)
}

// revoke is RFC 7009's revocation: 200 whether or not the token was
// known.
func (s *server) revoke(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	if err := s.res.RevokeOAuthToken(r.Context(), clientIDOf(r), r.PostForm.Get("token")); err != nil {
		writeOAuthError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// readForm reads a form-encoded body, answering invalid_request itself
// when it cannot.
func readForm(w http.ResponseWriter, r *http.Request) bool {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(r.Header.Get("Content-Type"), ";")[0]))
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if ct != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
		writeOAuthError(w, r, &graph.OAuthError{Code: "invalid_request", Description: "the body must be application/x-www-form-urlencoded (at most 16 KiB)"})
		return false
	}
	return true
}

func clientIDOf(r *http.Request) string {
	if id := r.PostForm.Get("client_id"); id != "" {
		return id
	}
	if user, _, ok := r.BasicAuth(); ok {
		return user
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, v any, noStore bool) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	if noStore {
		h.Set("Cache-Control", "no-store")
		h.Set("Pragma", "no-cache")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeOAuthError answers err in RFC 6749's shape: 401 for an unknown
// client, 429 past the registration limit, 400 for other refusals, 500
// (logged) for what is not a refusal.
func writeOAuthError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *graph.OAuthError
	if !errors.As(err, &oe) {
		apperr.LogInternal(r.Context(), err, "method", r.Method, "path", r.URL.Path)
		oe = &graph.OAuthError{Code: "server_error", Description: "internal error"}
		writeJSON(w, http.StatusInternalServerError, errorBody(oe), true)
		return
	}
	status := http.StatusBadRequest
	switch oe.Code {
	case "invalid_client":
		status = http.StatusUnauthorized
	case graph.ErrTooManyRegistrations.Code:
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(int(graph.OAuthRegistrationWindow/time.Second)))
	}
	writeJSON(w, status, errorBody(oe), true)
}

func errorBody(e *graph.OAuthError) map[string]string {
	return map[string]string{"error": e.Code, "error_description": e.Description}
}

// clientIP is the address the request came from (the connection's:
// behind a proxy, the proxy's, so the registration limit then counts
// everyone together, as the sign-in limits do).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
