package account

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// invitation is the page the invitation mail links to: a signed-in user
// joins with one button; a person without an account makes one (display
// name and password) and is signed in; an address with an account is
// sent to sign in first, coming back here. An unknown or used invitation
// is the 404 page.
func (p *pages) invitation(w http.ResponseWriter, r *http.Request) {
	p.invitationPage(w, r, http.StatusOK, view{})
}

func (p *pages) invitationPage(w http.ResponseWriter, r *http.Request, status int, v view) {
	inv, err := p.res.InvitationForHolder(r.Context(), chi.URLParam(r, "org"), chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	v.Invitation, v.Action = inv, r.URL.Path
	v.Next = "/sign-in?next=" + url.QueryEscape(r.URL.Path)
	v.Title = "Join " + inv.OrganizationTitle
	if ok {
		cur, err := p.res.CurrentViewer(ctx)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		v.User = cur.User
	}
	p.render(w, status, "invitation", v)
}

// acceptInvitation accepts for the signed-in user, or makes the account
// of a person without one (password twice) and signs it in: 303 to the
// account page either way.
func (p *pages) acceptInvitation(w http.ResponseWriter, r *http.Request) {
	if !p.sameOrigin(w, r) {
		return
	}
	orgID, id := chi.URLParam(r, "org"), chi.URLParam(r, "id")
	ctx, ok, err := p.res.SessionViewerContext(r)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if ok {
		if _, err := p.res.JoinOrganizationWithInvite(ctx, orgID, id); err != nil {
			p.fail(w, r, err)
			return
		}
		http.Redirect(w, r, "/account", http.StatusSeeOther)
		return
	}
	name, pw := r.PostFormValue("name"), r.PostFormValue("password")
	if pw != r.PostFormValue("confirmation") {
		p.invitationPage(w, r, http.StatusBadRequest, view{Error: "confirmation: the two passwords differ.", Name: name})
		return
	}
	s, err := p.res.AcceptInvitationWithPassword(r.Context(), orgID, id, name,
		graph.SignInAttempt{Password: pw, UserAgent: r.UserAgent(), IP: clientIP(r)})
	if e, isApp := apperr.As(err); isApp && (e.Kind == apperr.Invalid || e.Kind == apperr.Conflict) {
		p.invitationPage(w, r, e.Status(), view{Error: e.Message, Name: name})
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	http.SetCookie(w, p.res.SessionCookie(s.Secret, s.ExpiresAt))
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}
