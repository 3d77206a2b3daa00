// Package account serves Folio's own sign-in pages: sign in, sign up (when
// FOLIO_OPEN_SIGNUP allows it), sign out and the account page with the
// user's sessions. It presents only: every rule (passwords, rate limits,
// sessions, the origin rule) is the application's (graph/sessions.go),
// which GraphQL shares. The pages look like the published reader's and
// keep its policy: forms to Folio only, and no script, except passkey.js
// on the pages that offer passkeys (passkeys.go; never inline).
package account

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/reader"
)

//go:embed templates/*.html
var templateFiles embed.FS

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// Routes adds the pages to r.
func Routes(r chi.Router, res *graph.Resolver) {
	p := &pages{res: res}
	r.Get("/sign-in", p.signInForm)
	r.Post("/sign-in", p.signIn)
	r.Get("/sign-up", p.signUpForm)
	r.Post("/sign-up", p.signUp)
	r.Post("/sign-out", p.signOut)
	r.Get("/account", p.account)
	r.Post("/account/sessions/{id}/revoke", p.revoke)
	r.Get("/account/tokens", p.tokens)
	r.Post("/account/tokens", p.createToken)
	r.Post("/account/tokens/{id}/revoke", p.revokeToken)
	p.oidcRoutes(r)
	passkeyRoutes(r, p)
	r.Get("/invitations/{org}/{id}", p.invitation)
	r.Post("/invitations/{org}/{id}", p.acceptInvitation)
	mailRoutes(r, p)
	consentRoutes(r, p)
	samlRoutes(r, p)
}

type pages struct{ res *graph.Resolver }

// view is what every template is given.
type view struct {
	Title, Error     string
	Stylesheet, Icon string
	Email, Name      string
	Next             string
	OpenSignup       bool
	User             *ent.User
	Sessions         []sessionRow
	Tokens           []tokenRow
	Secret           string // a token's, shown once
	ExpiresDays      string
	Invitation       *graph.Invitation
	Notice           string            // a message of the notices table
	Token            string            // a mailed link's secret, posted back by its form
	MailConfigured   bool              // FOLIO_SMTP_URL is set: the mailed-link pages exist
	OIDC             []graph.OIDCLogin // the sign-in page's "Sign in with …" links
	Action           string            // the page's own path, its forms' action
	// Script is the page's one script (passkey.js), "" for none: the
	// page's policy then allows scripts from Folio itself.
	Script   string
	Passkeys passkeysView
	// Consent is the OAuth consent page's (consent.go); FormTarget an
	// origin its form's answer may redirect to, besides Folio (browsers
	// check a form's redirects against form-action).
	Consent    *consentView
	FormTarget string
}

type sessionRow struct {
	ID, UserAgent         string
	CreatedAt, LastSeenAt string
	Current               bool
}

func (p *pages) render(w http.ResponseWriter, status int, name string, v view) {
	v.Stylesheet, v.Icon = reader.Stylesheet(), reader.Icon()
	v.OpenSignup = p.res.SessionSettings.OpenSignup
	v.MailConfigured = p.res.MailConfigured()
	reader.SetPageHeaders(w, p.res.BaseURL)
	if v.Script != "" {
		allowOwnScript(w)
	}
	if v.FormTarget != "" {
		h := w.Header()
		h.Set("Content-Security-Policy", strings.Replace(h.Get("Content-Security-Policy"), "form-action 'self'", "form-action 'self' "+v.FormTarget, 1))
	}
	// Pages about a person's sign-in are never kept by caches.
	w.Header().Set("Cache-Control", "no-store")
	// Their forms post to Folio itself: with the APIs' no-referrer,
	// browsers would send them with Origin: null; same-origin keeps the
	// origin for Folio and still tells other sites nothing.
	w.Header().Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_ = templates.ExecuteTemplate(w, name, v)
}

// fail answers an error as a page: its message when the caller may see
// it, "internal error" (logged) otherwise.
func (p *pages) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apperr.As(err)
	if !ok {
		apperr.LogInternal(r.Context(), err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Kind: apperr.Internal, Message: "internal error"}
	}
	p.render(w, e.Status(), "head", view{Title: http.StatusText(e.Status()), Error: e.Message})
	_ = templates.ExecuteTemplate(w, "foot", nil)
}

// sameOrigin refuses a form posted from another site (graph's one origin
// rule), before its body is read.
func (p *pages) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if err := p.res.CheckSameOrigin(r); err != nil {
		p.fail(w, r, err)
		return false
	}
	return true
}

// localNext is next when it is a path of this server ("" otherwise): a
// sign-in never sends its browser to another site.
func localNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	return next
}

// clientIP is the address the request came from (the connection's: behind
// a proxy, the proxy's, so per-address limits then count everyone
// together; the per-account limit still holds).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (p *pages) signInForm(w http.ResponseWriter, r *http.Request) {
	next := localNext(r.URL.Query().Get("next"))
	if _, ok, err := p.res.SessionViewerContext(r); err == nil && ok {
		http.Redirect(w, r, orDefault(next), http.StatusSeeOther)
		return
	}
	p.render(w, http.StatusOK, "sign-in", p.withPasskeys(view{Title: "Sign in", Next: next, OIDC: p.oidcLogins(r, next), Notice: notices[r.URL.Query().Get("notice")]}))
}

func orDefault(next string) string {
	if next == "" {
		return "/account"
	}
	return next
}

// signIn answers 303 with a new session cookie, or the form again with one
// message for a wrong email or password (401) and another once the
// account or address is locked out (429, Retry-After: the window).
func (p *pages) signIn(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	email, next := r.PostFormValue("email"), localNext(r.PostFormValue("next"))
	s, err := p.res.SignIn(r.Context(), graph.SignInAttempt{Email: email, Password: r.PostFormValue("password"),
		UserAgent: r.UserAgent(), IP: clientIP(r)})
	switch {
	case err == nil && s.PasskeyPending != nil:
		// The password was right; the session waits for a passkey.
		http.SetCookie(w, p.res.PasskeyCookie(s.PasskeyPending))
		http.Redirect(w, r, "/sign-in/passkey"+nextQuery(next), http.StatusSeeOther)
	case err == nil:
		http.SetCookie(w, p.res.SessionCookie(s.Secret, s.ExpiresAt))
		http.Redirect(w, r, orDefault(next), http.StatusSeeOther)
	case errors.Is(err, graph.ErrSignInFailed):
		p.render(w, http.StatusUnauthorized, "sign-in", p.withPasskeys(view{Title: "Sign in", Error: "Wrong email or password.", Email: email, Next: next, OIDC: p.oidcLogins(r, next)}))
	case errors.Is(err, graph.ErrTooManyAttempts):
		w.Header().Set("Retry-After", strconv.Itoa(int(graph.SignInWindow/time.Second)))
		p.render(w, http.StatusTooManyRequests, "sign-in", p.withPasskeys(view{Title: "Sign in", Error: "Too many failed attempts: try again later.", Email: email, Next: next, OIDC: p.oidcLogins(r, next)}))
	default:
		p.fail(w, r, err)
	}
}

func (p *pages) signUpForm(w http.ResponseWriter, r *http.Request) {
	if !p.res.SessionSettings.OpenSignup {
		p.fail(w, r, apperr.NotFoundf("there is nothing at this address"))
		return
	}
	p.render(w, http.StatusOK, "sign-up", view{Title: "Sign up"})
}

func (p *pages) signUp(w http.ResponseWriter, r *http.Request) {
	if !p.res.SessionSettings.OpenSignup {
		p.fail(w, r, apperr.NotFoundf("there is nothing at this address"))
		return
	}
	if !p.sameOrigin(w, r) {
		return
	}
	email, name := r.PostFormValue("email"), r.PostFormValue("name")
	s, err := p.res.SignUp(r.Context(), graph.SignInAttempt{Email: email, Password: r.PostFormValue("password"),
		UserAgent: r.UserAgent(), IP: clientIP(r)}, name)
	if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
		p.render(w, e.Status(), "sign-up", view{Title: "Sign up", Error: e.Message, Email: email, Name: name})
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	http.SetCookie(w, p.res.SessionCookie(s.Secret, s.ExpiresAt))
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}

// signOut ends the browser's session, if it has one, and clears the
// cookie either way.
func (p *pages) signOut(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err == nil && ok {
		err = p.res.SignOut(ctx)
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	http.SetCookie(w, p.res.ClearSessionCookie())
	http.Redirect(w, r, "/sign-in", http.StatusSeeOther)
}

// account shows the signed-in user and their sessions; without a session,
// the sign-in form, coming back here after.
func (p *pages) account(w http.ResponseWriter, r *http.Request) {
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if !ok {
		http.Redirect(w, r, "/sign-in?next=/account", http.StatusSeeOther)
		return
	}
	v, err := p.res.CurrentViewer(ctx)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	sessions, err := p.res.ViewerSessions(ctx)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	rows := make([]sessionRow, len(sessions))
	for i, s := range sessions {
		rows[i] = sessionRow{ID: s.ID, UserAgent: s.UserAgent, Current: s.ID == graph.CurrentSessionID(ctx),
			CreatedAt: s.CreatedAt.Format(time.RFC3339), LastSeenAt: s.LastSeenAt.Format(time.RFC3339)}
	}
	pv, err := p.accountPasskeys(ctx, v.User)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, http.StatusOK, "account", view{Title: "Account", User: v.User, Sessions: rows, Passkeys: pv, Script: pv.script(), Notice: notices[r.URL.Query().Get("notice")]})
}

func (p *pages) revoke(w http.ResponseWriter, r *http.Request) {
	p.signedInPost(w, r, "/account", func(ctx context.Context) error {
		return p.res.RevokeSession(ctx, chi.URLParam(r, "id"))
	})
}

// signedInPost runs a form's action for the signed-in caller (from
// Folio's own origin), then sends them to back.
func (p *pages) signedInPost(w http.ResponseWriter, r *http.Request, back string, do func(ctx context.Context) error) {
	if !p.sameOrigin(w, r) {
		return
	}
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err == nil && !ok {
		err = apperr.Unauthenticatedf("sign in first")
	}
	if err == nil {
		err = do(ctx)
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
