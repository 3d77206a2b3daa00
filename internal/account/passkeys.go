package account

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// Passkeys on the pages (README: Passkeys): the account page lists them
// and adds one, the sign-in page signs in with one, and /sign-in/passkey
// asks for one after the password when the user requires it. The browser
// half of each ceremony is passkey.js, the only script of these pages:
// it fetches options as JSON and posts the authenticator's answer back,
// through the same origin rule as every form.

//go:embed assets/passkey.js
var passkeyJS []byte

// passkeyJSTag is the script's ETag: browsers revalidate it (no-cache),
// so a new Folio's script is used at once.
var passkeyJSTag = func() string {
	sum := sha256.Sum256(passkeyJS)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

const passkeyScript = "/account/assets/passkey.js"

// maxCeremonyBody bounds what the ceremony endpoints read: an answer is a
// few kilobytes.
const maxCeremonyBody = 64 << 10

func passkeyRoutes(r chi.Router, p *pages) {
	r.Get(passkeyScript, servePasskeyJS)
	r.Post("/account/passkeys/options", p.passkeyRegistrationOptions)
	r.Post("/account/passkeys", p.addPasskey)
	r.Post("/account/passkeys/{id}/remove", p.removePasskey)
	r.Post("/account/passkeys/{id}/rename", p.renamePasskey)
	r.Post("/account/passkey-required", p.setPasskeyRequired)
	r.Get("/sign-in/passkey", p.passkeySecondFactor)
	r.Post("/sign-in/passkey/options", p.passkeySignInOptions)
	r.Post("/sign-in/passkey", p.passkeySignIn)
}

// passkeysView is what the passkey parts of a page show.
type passkeysView struct {
	Available bool // FOLIO_BASE_URL can be a relying party
	Required  bool // the user's passkey_required
	List      []passkeyRow
}

type passkeyRow struct {
	ID, Name, CreatedAt, LastUsedAt string
}

// script is the page's script when passkeys are offered.
func (v passkeysView) script() string {
	if v.Available {
		return passkeyScript
	}
	return ""
}

// allowOwnScript lets a page run scripts from Folio itself (passkey.js):
// only the pages that offer passkeys, and still no inline script.
func allowOwnScript(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", h.Get("Content-Security-Policy")+"; script-src 'self'")
}

func servePasskeyJS(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", passkeyJSTag)
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Header.Get("If-None-Match") == passkeyJSTag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(passkeyJS)
}

// withPasskeys offers the passkey button on a sign-in page.
func (p *pages) withPasskeys(v view) view {
	v.Passkeys.Available = p.res.PasskeysAvailable()
	v.Script = v.Passkeys.script()
	return v
}

// accountPasskeys is the account page's passkey section for u.
func (p *pages) accountPasskeys(ctx context.Context, u *ent.User) (passkeysView, error) {
	v := passkeysView{Available: p.res.PasskeysAvailable(), Required: u.PasskeyRequired}
	if !v.Available {
		return v, nil
	}
	list, err := p.res.ViewerPasskeys(ctx)
	if err != nil {
		return v, err
	}
	for _, k := range list {
		row := passkeyRow{ID: k.ID, Name: k.Name, CreatedAt: k.CreatedAt.Format(time.RFC3339)}
		if k.LastUsedAt != nil {
			row.LastUsedAt = k.LastUsedAt.Format(time.RFC3339)
		}
		v.List = append(v.List, row)
	}
	return v, nil
}

func (p *pages) removePasskey(w http.ResponseWriter, r *http.Request) {
	p.signedInPost(w, r, "/account", func(ctx context.Context) error {
		return p.res.RemovePasskey(ctx, chi.URLParam(r, "id"))
	})
}

func (p *pages) renamePasskey(w http.ResponseWriter, r *http.Request) {
	p.signedInPost(w, r, "/account", func(ctx context.Context) error {
		return p.res.RenamePasskey(ctx, chi.URLParam(r, "id"), r.PostFormValue("name"))
	})
}

func (p *pages) setPasskeyRequired(w http.ResponseWriter, r *http.Request) {
	p.signedInPost(w, r, "/account", func(ctx context.Context) error {
		return p.res.SetPasskeyRequired(ctx, r.PostFormValue("required") == "on")
	})
}

// passkeySecondFactor is the page that asks for a passkey after the
// password; without a pending sign-in, the sign-in form.
func (p *pages) passkeySecondFactor(w http.ResponseWriter, r *http.Request) {
	next := localNext(r.URL.Query().Get("next"))
	pending, err := p.res.PasskeyPending(r.Context(), p.res.PasskeySecret(r))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if !pending {
		http.Redirect(w, r, "/sign-in"+nextQuery(next), http.StatusSeeOther)
		return
	}
	v := p.withPasskeys(view{Title: "Use your passkey", Next: next})
	p.render(w, http.StatusOK, "passkey-second-factor", v)
}

// nextQuery is "?next=…" for a non-empty next.
func nextQuery(next string) string {
	if next == "" {
		return ""
	}
	return "?next=" + url.QueryEscape(next)
}

// The ceremony endpoints answer JSON, for passkey.js.

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// jsonFail answers err as {"error": message}.
func jsonFail(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apperr.As(err)
	if !ok {
		apperr.LogInternal(r.Context(), err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Kind: apperr.Internal, Message: "internal error"}
	}
	writeJSON(w, e.Status(), map[string]string{"error": e.Message})
}

// ceremonyRequest checks the origin rule and reads the JSON body into v
// (an empty body leaves v alone).
func (p *pages) ceremonyRequest(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := p.res.CheckSameOrigin(r); err != nil {
		jsonFail(w, r, err)
		return false
	}
	if v == nil {
		return true
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxCeremonyBody)
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		jsonFail(w, r, apperr.Invalidf("body: a JSON object"))
		return false
	}
	return true
}

// signedInJSON is the signed-in viewer's context, or false after
// answering 401.
func (p *pages) signedInJSON(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err == nil && !ok {
		err = apperr.Unauthenticatedf("sign in first")
	}
	if err != nil {
		jsonFail(w, r, err)
		return nil, false
	}
	return ctx, true
}

// passkeyRegistrationOptions begins adding a passkey: the options for
// navigator.credentials.create, the ceremony in a cookie.
func (p *pages) passkeyRegistrationOptions(w http.ResponseWriter, r *http.Request) {
	if !p.ceremonyRequest(w, r, nil) {
		return
	}
	ctx, ok := p.signedInJSON(w, r)
	if !ok {
		return
	}
	options, c, err := p.res.BeginPasskeyRegistration(ctx)
	if err != nil {
		jsonFail(w, r, err)
		return
	}
	http.SetCookie(w, p.res.PasskeyCookie(c))
	writeJSON(w, http.StatusOK, options)
}

// ceremonyAnswer is what passkey.js posts: the PublicKeyCredential as
// JSON, with the passkey's name or where to go after sign-in.
type ceremonyAnswer struct {
	Name       string          `json:"name"`
	Next       string          `json:"next"`
	Credential json.RawMessage `json:"credential"`
}

// addPasskey finishes adding a passkey: 201 with its id and name.
func (p *pages) addPasskey(w http.ResponseWriter, r *http.Request) {
	var a ceremonyAnswer
	if !p.ceremonyRequest(w, r, &a) {
		return
	}
	ctx, ok := p.signedInJSON(w, r)
	if !ok {
		return
	}
	// The ceremony is spent either way.
	http.SetCookie(w, p.res.ClearPasskeyCookie())
	k, err := p.res.FinishPasskeyRegistration(ctx, p.res.PasskeySecret(r), a.Name, a.Credential)
	if err != nil {
		jsonFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": k.ID, "name": k.Name})
}

// passkeySignInOptions begins a sign-in with a passkey: alone, or the
// second step of the password's when the cookie names one.
func (p *pages) passkeySignInOptions(w http.ResponseWriter, r *http.Request) {
	if !p.ceremonyRequest(w, r, nil) {
		return
	}
	options, c, err := p.res.BeginPasskeySignIn(r.Context(), p.res.PasskeySecret(r))
	if err != nil {
		jsonFail(w, r, err)
		return
	}
	if c != nil {
		http.SetCookie(w, p.res.PasskeyCookie(c))
	}
	writeJSON(w, http.StatusOK, options)
}

// passkeySignIn finishes a sign-in with a passkey: the session cookie and
// {"next": where to go}, or 401.
func (p *pages) passkeySignIn(w http.ResponseWriter, r *http.Request) {
	var a ceremonyAnswer
	if !p.ceremonyRequest(w, r, &a) {
		return
	}
	http.SetCookie(w, p.res.ClearPasskeyCookie())
	s, err := p.res.FinishPasskeySignIn(r.Context(), graph.SignInAttempt{UserAgent: r.UserAgent(), IP: clientIP(r)},
		p.res.PasskeySecret(r), a.Credential)
	if err != nil {
		jsonFail(w, r, err)
		return
	}
	http.SetCookie(w, p.res.SessionCookie(s.Secret, s.ExpiresAt))
	writeJSON(w, http.StatusOK, map[string]string{"next": orDefault(localNext(a.Next))})
}
