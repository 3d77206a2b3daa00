package account

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// Sign-in through OpenID Connect providers (graph/oidcproviders_signin.go has the
// rules): the sign-in page's buttons are links to /sso/oidc/<name>/start
// (not forms: the pages' CSP form-action 'self' would stop a form's
// redirect to the provider), which sends the browser to the provider; the
// provider sends it back to /sso/oidc/<name>/callback, which opens the
// session and goes on to next.

// oidcRoutes adds the two addresses of every provider.
func (p *pages) oidcRoutes(r chi.Router) {
	r.Get("/sso/oidc/{name}/start", p.oidcStart)
	r.Post("/sso/oidc/{name}/start", p.oidcStartPost)
	r.Get("/sso/oidc/{name}/callback", p.oidcCallback)
}

// oidcLogins are the sign-in page's buttons, going on to next after; a
// failure to list them shows the page without them (the password form
// still works) and is logged.
func (p *pages) oidcLogins(r *http.Request, next string) []graph.OIDCLogin {
	logins, err := p.res.OIDCLogins(r.Context())
	if err != nil {
		apperr.LogInternal(r.Context(), err, "path", r.URL.Path)
		return nil
	}
	if next != "" {
		for i := range logins {
			logins[i].StartURL += "?next=" + url.QueryEscape(next)
		}
	}
	return logins
}

func (p *pages) oidcStart(w http.ResponseWriter, r *http.Request) {
	p.startOIDC(w, r, localNext(r.URL.Query().Get("next")))
}

// oidcStartPost is the start from a form that posts (same origin only).
func (p *pages) oidcStartPost(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	p.startOIDC(w, r, localNext(r.PostFormValue("next")))
}

func (p *pages) startOIDC(w http.ResponseWriter, r *http.Request, next string) {
	to, err := p.res.StartOIDCSignIn(r.Context(), chi.URLParam(r, "name"), next)
	if err != nil {
		p.oidcFailed(w, r, err, next)
		return
	}
	http.SetCookie(w, to.Cookie)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to.URL, http.StatusSeeOther)
}

func (p *pages) oidcCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cb := graph.OIDCCallback{Name: chi.URLParam(r, "name"), State: q.Get("state"), Code: q.Get("code"),
		Error: q.Get("error"), ErrorDescription: q.Get("error_description"),
		UserAgent: r.UserAgent(), IP: clientIP(r)}
	if c, err := r.Cookie(p.res.OIDCFlowCookieName()); err == nil {
		cb.FlowCookie = c.Value
	}
	// A flow serves once, whatever comes of it.
	http.SetCookie(w, p.res.ClearOIDCFlowCookie())
	s, next, err := p.res.FinishOIDCSignIn(r.Context(), cb)
	if err != nil {
		p.oidcFailed(w, r, err, "")
		return
	}
	http.SetCookie(w, p.res.SessionCookie(s.Secret, s.ExpiresAt))
	http.Redirect(w, r, orDefault(localNext(next)), http.StatusSeeOther)
}

// oidcFailed is the page of a sign-in that did not happen: why, and the
// way back to the sign-in page.
func (p *pages) oidcFailed(w http.ResponseWriter, r *http.Request, err error, next string) {
	e, ok := apperr.As(err)
	if !ok || e.Kind == apperr.Internal {
		p.fail(w, r, err)
		return
	}
	if e.Kind == apperr.Unavailable && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	back := "/sign-in"
	if next != "" {
		back += "?next=" + url.QueryEscape(next)
	}
	p.render(w, e.Status(), "oidc-failed", view{Title: "Sign-in failed", Error: e.Message, Action: back})
}
