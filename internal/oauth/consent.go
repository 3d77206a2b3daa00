package oauth

import (
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/reader"
)

//go:embed templates/*.html
var templateFiles embed.FS

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// consentView is what the consent page shows: the client, the user, where
// the browser goes back to, and the request again as hidden fields (the
// POST checks it all over again).
type consentView struct {
	Title, Error       string
	Stylesheet, Icon   string
	ClientName         string
	UserName, Email    string
	RedirectHost       string
	Request            graph.AuthorizeRequest
	AccessLifetimeText string
}

func requestOf(v url.Values) graph.AuthorizeRequest {
	return graph.AuthorizeRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"),
		ResponseType: v.Get("response_type"), CodeChallenge: v.Get("code_challenge"),
		CodeChallengeMethod: v.Get("code_challenge_method"), State: v.Get("state"), Scope: v.Get("scope")}
}

// authorize is the authorization endpoint: a request naming an unknown
// client or redirect URI is refused on a page; other refusals go back to
// the client; without a session, the sign-in form first, coming back
// here; then the consent page.
func (s *server) authorize(w http.ResponseWriter, r *http.Request) {
	q := requestOf(r.URL.Query())
	check, err := s.res.CheckAuthorization(r.Context(), q)
	if !s.answered(w, r, check, q, err) {
		return
	}
	ctx, ok, err := s.res.SessionViewerContext(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok {
		http.Redirect(w, r, "/sign-in?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	v, err := s.res.CurrentViewer(ctx)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "consent", check, consentView{Title: "Authorize " + check.Client.Name,
		ClientName: check.Client.Name, UserName: v.User.DisplayName, Email: v.User.Email,
		RedirectHost: hostOf(check.RedirectURI), Request: q,
		AccessLifetimeText: s.res.OAuthAccessLifetime().String()})
}

// consent is the consent form's answer, from Folio's own page with the
// session: approve sends the browser back with a code, deny with
// access_denied.
func (s *server) consent(w http.ResponseWriter, r *http.Request) {
	if err := s.res.CheckSameOrigin(r); err != nil {
		s.fail(w, r, err)
		return
	}
	ctx, ok, err := s.res.SessionViewerContext(r)
	if err == nil && !ok {
		err = apperr.Unauthenticatedf("sign in first")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, apperr.Invalidf("the form is too large"))
		return
	}
	q := requestOf(r.PostForm)
	check, err := s.res.CheckAuthorization(ctx, q)
	if !s.answered(w, r, check, q, err) {
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		s.back(w, r, check.RedirectURI, q.State, url.Values{"error": {"access_denied"}, "error_description": {"the user denied access"}})
		return
	}
	code, err := s.res.ApproveAuthorization(ctx, q)
	if err != nil {
		s.answered(w, r, check, q, err)
		return
	}
	s.back(w, r, check.RedirectURI, q.State, url.Values{"code": {code}})
}

// answered handles a check's refusal: a page when the redirect URI is not
// verified, else a redirect with the error. It tells whether to go on.
func (s *server) answered(w http.ResponseWriter, r *http.Request, check *graph.AuthorizeCheck, q graph.AuthorizeRequest, err error) bool {
	if err == nil {
		return true
	}
	var oe *graph.OAuthError
	if errors.As(err, &oe) && check != nil {
		s.back(w, r, check.RedirectURI, q.State, url.Values{"error": {oe.Code}, "error_description": {oe.Description}})
		return false
	}
	s.fail(w, r, err)
	return false
}

// back sends the browser to the client's verified redirect URI with the
// answer's parameters, state and the issuer (RFC 9207).
func (s *server) back(w http.ResponseWriter, r *http.Request, redirect, state string, params url.Values) {
	u, err := url.Parse(redirect)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	query := u.Query()
	for k, vs := range params {
		query[k] = vs
	}
	if state != "" {
		query.Set("state", state)
	}
	query.Set("iss", s.base())
	u.RawQuery = query.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// render writes a page in the account pages' style. The consent form may
// be answered with a redirect to the client's loopback address: the
// page's form-action allows that origin too (browsers check a form's
// redirects against it).
func (s *server) render(w http.ResponseWriter, status int, name string, check *graph.AuthorizeCheck, v consentView) {
	v.Stylesheet, v.Icon = reader.Stylesheet(), reader.Icon()
	reader.SetPageHeaders(w, s.res.BaseURL)
	if check != nil {
		h := w.Header()
		csp := h.Get("Content-Security-Policy")
		h.Set("Content-Security-Policy", strings.Replace(csp, "form-action 'self'", "form-action 'self' "+hostOf(check.RedirectURI), 1))
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_ = templates.ExecuteTemplate(w, name, v)
}

// fail answers an error as a page: its message when the caller may see
// it, "internal error" (logged) otherwise.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apperr.As(err)
	if !ok {
		apperr.LogInternal(r.Context(), err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Kind: apperr.Internal, Message: "internal error"}
	}
	s.render(w, e.Status(), "oauth-error", nil, consentView{Title: http.StatusText(e.Status()), Error: e.Message})
}
