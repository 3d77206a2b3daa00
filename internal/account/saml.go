package account

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// SAML sign-in's HTTP side (the rules are graph/saml_signin.go's): the SP
// metadata, the start of an SP-initiated sign-in and the assertion
// consumer service (ACS).

// maxSAMLResponseBytes bounds the ACS form: a signed response with a
// certificate chain and attributes is a few tens of kilobytes.
const maxSAMLResponseBytes = 512 << 10

func samlRoutes(r chi.Router, p *pages) {
	r.Get("/sso/saml/{id}", p.samlMetadata)
	r.Get("/sso/saml/{id}/metadata", p.samlMetadata)
	r.Get("/sso/saml/{id}/start", p.samlStart)
	r.Post("/sso/saml/{id}/acs", p.samlACS)
}

// samlMetadata serves the SP metadata an identity provider is configured
// with (404 for an unknown or pending provider).
func (p *pages) samlMetadata(w http.ResponseWriter, r *http.Request) {
	out, err := p.res.SAMLMetadata(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/samlmetadata+xml")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(out)
}

// samlStart sends the browser to the identity provider with an
// AuthnRequest; ?next= (a local path) comes back as the RelayState.
func (p *pages) samlStart(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	start, err := p.res.StartSAMLSignIn(r.Context(), id, localNext(r.URL.Query().Get("next")))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.SetCookie(w, p.res.SAMLRequestCookie(id, start.RequestID))
	http.Redirect(w, r, start.Location, http.StatusSeeOther)
}

// samlACS receives the identity provider's response. It is a cross-site
// POST by design (the IdP's page submits it), so the same-origin rule of
// Folio's forms does not apply: the IdP's signature authenticates it, not
// a cookie. It answers 303 with a new session cookie, to the RelayState
// when that is a local path, else /account; a refused response is a 403
// page and changes nothing.
func (p *pages) samlACS(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	r.Body = http.MaxBytesReader(w, r.Body, maxSAMLResponseBytes)
	if err := r.ParseForm(); err != nil {
		p.fail(w, r, apperr.Invalidf("SAMLResponse: the form could not be read"))
		return
	}
	// The request id is used once, whatever the outcome.
	requestID := p.res.SAMLRequestID(r)
	if requestID != "" {
		http.SetCookie(w, p.res.SAMLRequestCookie(id, ""))
	}
	s, err := p.res.FinishSAMLSignIn(r.Context(), id, r, requestID,
		graph.SignInAttempt{UserAgent: r.UserAgent(), IP: clientIP(r)})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.SetCookie(w, p.res.SessionCookie(s.Secret, s.ExpiresAt))
	http.Redirect(w, r, orDefault(localNext(s.RelayState)), http.StatusSeeOther)
}
