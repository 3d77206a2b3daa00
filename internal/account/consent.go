package account

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/oauth"
)

// The consent page of Folio's OAuth server: the one page of the flow
// (internal/oauth serves its JSON endpoints). A tool sends the person's
// browser here; signed in, they allow or deny it.

func consentRoutes(r chi.Router, p *pages) {
	r.Get(oauth.AuthorizePath, p.authorize)
	r.Post(oauth.AuthorizePath, p.consent)
}

// consentView is what the consent page shows: the client, where the
// browser goes back to, and the request again as hidden fields (the POST
// checks it all over again).
type consentView struct {
	ClientName         string
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
func (p *pages) authorize(w http.ResponseWriter, r *http.Request) {
	q := requestOf(r.URL.Query())
	check, err := p.res.CheckAuthorization(r.Context(), q)
	if !p.authorizeAnswered(w, r, check, q, err) {
		return
	}
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if !ok {
		http.Redirect(w, r, "/sign-in?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	v, err := p.res.CurrentViewer(ctx)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, http.StatusOK, "consent", view{Title: "Authorize " + check.Client.Name, User: v.User,
		FormTarget: originOf(check.RedirectURI),
		Consent: &consentView{ClientName: check.Client.Name, RedirectHost: originOf(check.RedirectURI), Request: q,
			AccessLifetimeText: p.res.OAuthAccessLifetime().String()}})
}

// consent is the consent form's answer, from Folio's own page with the
// session: approve sends the browser back with a code, deny with
// access_denied.
func (p *pages) consent(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err == nil && !ok {
		err = apperr.Unauthenticatedf("sign in first")
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxConsentBytes)
	if err := r.ParseForm(); err != nil {
		p.fail(w, r, apperr.Invalidf("the form is too large"))
		return
	}
	q := requestOf(r.PostForm)
	check, err := p.res.CheckAuthorization(ctx, q)
	if !p.authorizeAnswered(w, r, check, q, err) {
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		p.backToClient(w, r, check.RedirectURI, q.State, url.Values{"error": {"access_denied"}, "error_description": {"the user denied access"}})
		return
	}
	code, err := p.res.ApproveAuthorization(ctx, q)
	if err != nil {
		p.authorizeAnswered(w, r, check, q, err)
		return
	}
	p.backToClient(w, r, check.RedirectURI, q.State, url.Values{"code": {code}})
}

// maxConsentBytes bounds the consent form: a few hundred bytes.
const maxConsentBytes = 16 << 10

// authorizeAnswered handles a check's refusal: a page when the redirect
// URI is not verified, else a redirect with the error. It tells whether
// to go on.
func (p *pages) authorizeAnswered(w http.ResponseWriter, r *http.Request, check *graph.AuthorizeCheck, q graph.AuthorizeRequest, err error) bool {
	if err == nil {
		return true
	}
	var oe *graph.OAuthError
	if errors.As(err, &oe) && check != nil {
		p.backToClient(w, r, check.RedirectURI, q.State, url.Values{"error": {oe.Code}, "error_description": {oe.Description}})
		return false
	}
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Invalid {
		p.render(w, e.Status(), "authorize-refused", view{Title: http.StatusText(e.Status()), Error: e.Message})
		return false
	}
	p.fail(w, r, err)
	return false
}

// backToClient sends the browser to the client's verified redirect URI
// with the answer's parameters, state and the issuer (RFC 9207).
func (p *pages) backToClient(w http.ResponseWriter, r *http.Request, redirect, state string, params url.Values) {
	u, err := url.Parse(redirect)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	query := u.Query()
	for k, vs := range params {
		query[k] = vs
	}
	if state != "" {
		query.Set("state", state)
	}
	query.Set("iss", strings.TrimRight(p.res.BaseURL, "/"))
	u.RawQuery = query.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// originOf is the scheme and host of a URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}
