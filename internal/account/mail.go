package account

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// The pages of mailed links (graph/account_mail.go): asking for a password
// reset, choosing the new password, verifying an address, and the account
// page's own forms (a verification link, the profile). The reset and
// verification pages are not found until FOLIO_SMTP_URL is set.
func mailRoutes(r chi.Router, p *pages) {
	r.Get("/reset-password", p.resetForm)
	r.Post("/reset-password", p.requestReset)
	r.Get("/reset-password/confirm", p.resetConfirmForm)
	r.Post("/reset-password/confirm", p.resetConfirm)
	r.Get("/verify-email", p.verifyForm)
	r.Post("/verify-email", p.verify)
	r.Post("/account/verify-email", p.requestVerification)
	r.Post("/account/profile", p.updateProfile)
}

// mailOff answers 404 when mail is not configured: the pages do not exist.
func (p *pages) mailOff(w http.ResponseWriter, r *http.Request) bool {
	if p.res.MailConfigured() {
		return false
	}
	p.fail(w, r, apperr.NotFoundf("there is nothing at this address"))
	return true
}

func (p *pages) resetForm(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) {
		return
	}
	p.render(w, http.StatusOK, "reset-request", view{Title: "Reset your password"})
}

// requestReset answers the same page whether or not the address has an
// account (graph queues the same job either way).
func (p *pages) requestReset(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) || !p.sameOrigin(w, r) {
		return
	}
	email := r.PostFormValue("email")
	err := p.res.RequestPasswordReset(r.Context(), email, clientIP(r))
	switch e, ok := apperr.As(err); {
	case err == nil:
		p.render(w, http.StatusOK, "reset-sent", view{Title: "Check your mail", Email: strings.TrimSpace(email)})
	case errors.Is(err, graph.ErrTooManyAttempts):
		w.Header().Set("Retry-After", strconv.Itoa(int(graph.SignInWindow/time.Second)))
		p.render(w, http.StatusTooManyRequests, "reset-request", view{Title: "Reset your password", Error: "Too many requests: try again later.", Email: email})
	case ok && e.Kind == apperr.Invalid:
		p.render(w, e.Status(), "reset-request", view{Title: "Reset your password", Error: e.Message, Email: email})
	default:
		p.fail(w, r, err)
	}
}

func (p *pages) resetConfirmForm(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) {
		return
	}
	token := r.URL.Query().Get("token")
	if err := p.res.CheckResetLink(r.Context(), token); err != nil {
		p.linkFailed(w, r, err, "reset-request", "Reset your password")
		return
	}
	p.render(w, http.StatusOK, "reset-confirm", view{Title: "Choose a new password", Token: token})
}

func (p *pages) resetConfirm(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) || !p.sameOrigin(w, r) {
		return
	}
	token := r.PostFormValue("token")
	err := p.res.ResetPassword(r.Context(), token, r.PostFormValue("password"))
	if errors.Is(err, graph.ErrMailedLinkInvalid) {
		p.linkFailed(w, r, err, "reset-request", "Reset your password")
		return
	}
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Invalid {
		p.render(w, e.Status(), "reset-confirm", view{Title: "Choose a new password", Token: token, Error: e.Message})
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	// Every session of the account ended, this browser's too.
	http.SetCookie(w, p.res.ClearSessionCookie())
	http.Redirect(w, r, "/sign-in?notice=password-reset", http.StatusSeeOther)
}

// linkFailed shows a used or expired link's message on the page that asks
// for a new one.
func (p *pages) linkFailed(w http.ResponseWriter, r *http.Request, err error, page, title string) {
	if errors.Is(err, graph.ErrMailedLinkInvalid) {
		p.render(w, http.StatusBadRequest, page, view{Title: title, Error: "This link is no longer valid (used or expired): ask for a new one."})
		return
	}
	p.fail(w, r, err)
}

// verifyForm asks for a click before the link is used: mail scanners that
// open every link must not use it up.
func (p *pages) verifyForm(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) {
		return
	}
	p.render(w, http.StatusOK, "verify-email", view{Title: "Verify your email address", Token: r.URL.Query().Get("token")})
}

func (p *pages) verify(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) || !p.sameOrigin(w, r) {
		return
	}
	err := p.res.VerifyEmail(r.Context(), r.PostFormValue("token"))
	if errors.Is(err, graph.ErrMailedLinkInvalid) {
		p.render(w, http.StatusBadRequest, "verified", view{Title: "Verify your email address",
			Error: "This link is no longer valid (used, expired, or for an address the account no longer has): send a new one from your account page."})
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.render(w, http.StatusOK, "verified", view{Title: "Email verified"})
}

func (p *pages) requestVerification(w http.ResponseWriter, r *http.Request) {
	if p.mailOff(w, r) {
		return
	}
	p.signedInPost(w, r, "/account?notice=verification-sent", func(ctx context.Context) error {
		return p.res.RequestEmailVerification(ctx, clientIP(r))
	})
}

// updateProfile changes the display name and photo (an empty photo field
// removes the photo), with updateUserById's rules.
func (p *pages) updateProfile(w http.ResponseWriter, r *http.Request) {
	p.signedInPost(w, r, "/account?notice=profile-saved", func(ctx context.Context) error {
		v, err := p.res.CurrentViewer(ctx)
		if err != nil {
			return err
		}
		name, photo := r.PostFormValue("displayName"), strings.TrimSpace(r.PostFormValue("photoURL"))
		in := model.UpdateUserInput{DisplayName: graphql.OmittableOf(&name), PhotoURL: graphql.OmittableOf(&photo)}
		if photo == "" {
			in.PhotoURL = graphql.OmittableOf[*string](nil)
		}
		_, err = p.res.UpdateUser(ctx, v.User.ID, in)
		return err
	})
}

// notices are the messages a redirect's ?notice= names (a fixed set: the
// query never puts text on the page).
var notices = map[string]string{
	"password-reset":    "Your password was changed and every session signed out: sign in with the new password.",
	"verification-sent": "A verification link is on its way to your address.",
	"profile-saved":     "Your profile was saved.",
}
