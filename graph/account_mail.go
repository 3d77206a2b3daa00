package graph

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/emailtoken"
	"github.com/folio/folio/ent/session"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/mail"
)

// Links Folio mails to a user: one verifies their address, one sets a new
// password. Both are off until FOLIO_SMTP_URL is set. A request only
// queues a job (JobAccountMail) with the address; the job makes the link
// and mails it. So a request for an address with an account and one for an
// address without make the same statements and answer the same: the answer
// and its timing say nothing of who has an account.

// JobAccountMail mails one link; its payload is "<purpose>:<email>".
const JobAccountMail = "account.mail"

// How long a mailed link works.
const (
	VerifyEmailLinkLifetime   = 48 * time.Hour
	ResetPasswordLinkLifetime = time.Hour
)

// Mail requests are limited like failed sign-ins, per address typed and
// per client address, in windows kept in the database (every instance
// counts together). Past a limit a request answers ErrTooManyAttempts
// whoever the address belongs to.
const (
	MaxMailRequestsPerEmail   = 3
	MaxMailRequestsPerAddress = 30
)

const (
	purposeVerify = "verify_email"
	purposeReset  = "reset_password"
)

// ErrMailedLinkInvalid is a mailed link that is unknown, used or expired.
var ErrMailedLinkInvalid = apperr.Invalidf("this link is no longer valid: ask for a new one")

// MailConfigured tells whether Folio can mail links (FOLIO_SMTP_URL).
func (r *Resolver) MailConfigured() bool { return r.Mailer != nil }

// RequestPasswordReset queues a reset link for email, if it has a local
// account; the caller learns nothing of whether it has. Off (404) without
// a mail server.
func (r *Resolver) RequestPasswordReset(ctx context.Context, email, ip string) error {
	return r.requestMail(ctx, purposeReset, email, ip, events.PasswordResetRequested,
		events.Actor{Type: events.ActorSystem, ID: "reset-password", Label: "Password reset form"})
}

// RequestEmailVerification queues a verification link for the viewer's
// address. A verified address asks for nothing (Invalid).
func (r *Resolver) RequestEmailVerification(ctx context.Context, ip string) error {
	u, err := viewerUser(ctx)
	if err != nil {
		return err
	}
	if u.EmailVerified {
		return apperr.InvalidField("email", "%s is already verified", u.Email)
	}
	return r.requestMail(ctx, purposeVerify, u.Email, ip, events.EmailVerificationRequested, events.Actor{})
}

// requestMail counts the request against email's and ip's limits and
// queues the job, in one write that records action (with the form as the
// actor when no one is signed in).
func (r *Resolver) requestMail(ctx context.Context, purpose, email, ip string, action string, form events.Actor) error {
	if r.Mailer == nil {
		return apperr.NotFoundf("mail is not configured on this server (FOLIO_SMTP_URL)")
	}
	email = strings.ToLower(strings.TrimSpace(email))
	if !strings.Contains(email, "@") || len(email) < 3 || len(email) > 320 {
		return apperr.InvalidField("email", "an email address")
	}
	keys := []string{"mail:" + purpose + ":" + email, "mail:addr:" + ip}
	limited, err := r.rateLimited(ctx, keys, MaxMailRequestsPerEmail, MaxMailRequestsPerAddress)
	if err != nil {
		return err
	}
	if limited {
		return ErrTooManyAttempts
	}
	if form.ID != "" {
		ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI, Actor: form})
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		for _, k := range keys {
			if err := bumpCounter(ctx, tx, k); err != nil {
				return err
			}
		}
		record(ctx, events.Event{Action: action, Target: events.Target{Type: "email", ID: email, Label: email},
			Payload: map[string]any{"email": email}})
		return jobs.Enqueue(ctx, tx, r.Dialect, ids.New(), JobAccountMail, purpose+":"+email)
	})
	if err == nil && r.Jobs != nil {
		r.Jobs.Wake()
	}
	return err
}

// MailAccountLink runs JobAccountMail: it makes the link of the payload's
// purpose for the user with that address, if any (a reset needs a local
// account: a password to replace; a verification an address not verified
// yet), and mails it. A job run again after a failed send mails a new link.
func (r *Resolver) MailAccountLink(ctx context.Context, j jobs.Job) error {
	purpose, email, ok := strings.Cut(j.Payload, ":")
	if !ok || (purpose != purposeVerify && purpose != purposeReset) {
		return fmt.Errorf("account mail job %s: bad payload", j.ID)
	}
	if r.Mailer == nil {
		return nil // configured off since it was queued
	}
	u, err := r.Client.User.Query().Where(user.Email(email)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if (purpose == purposeReset && u.PasswordHash == nil) || (purpose == purposeVerify && u.EmailVerified) {
		return nil
	}
	secret, hash := auth.NewSessionSecret()
	lifetime, action := ResetPasswordLinkLifetime, events.PasswordResetMailed
	if purpose == purposeVerify {
		lifetime, action = VerifyEmailLinkLifetime, events.EmailVerificationMailed
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		err := tx.EmailToken.Create().SetUserID(u.ID).SetPurpose(emailtoken.Purpose(purpose)).SetEmail(u.Email).
			SetTokenHash(hash).SetExpiresAt(clock.Now().Add(lifetime)).Exec(ctx)
		if err != nil {
			return err
		}
		record(ctx, events.Event{Action: action, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
			Payload: map[string]any{"email": u.Email}})
		return nil
	})
	if err != nil {
		return err
	}
	return r.Mailer.Send(ctx, r.accountLinkMessage(purpose, u.Email, secret, lifetime))
}

// ResetPasswordURL and VerifyEmailURL are the pages a mailed link opens.
// The secret is a query parameter: the pages send no Referer to other
// sites, and their form posts it back.
func (r *Resolver) accountLinkURL(purpose, secret string) string {
	if purpose == purposeReset {
		return r.BaseURL + "/reset-password/confirm?token=" + secret
	}
	return r.BaseURL + "/verify-email?token=" + secret
}

func (r *Resolver) accountLinkMessage(purpose, to, secret string, lifetime time.Duration) mail.Message {
	link := r.accountLinkURL(purpose, secret)
	if purpose == purposeReset {
		return mail.Message{To: to, Subject: "Reset your Folio password",
			Body: fmt.Sprintf("Someone asked to reset the password of the Folio account of %s.\n\nChoose a new password:\n%s\n\nThe link works once, for %s. If you did not ask for it, ignore this message: your password stays as it is.\n",
				to, link, lifetime)}
	}
	return mail.Message{To: to, Subject: "Verify your email address on Folio",
		Body: fmt.Sprintf("Confirm that %s is your address on Folio:\n%s\n\nThe link works once, for %s. If you did not make a Folio account, ignore this message.\n",
			to, link, lifetime)}
}

// mailedLink is the live link of purpose whose secret is given, or
// ErrMailedLinkInvalid.
func (r *Resolver) mailedLink(ctx context.Context, purpose, secret string) (*ent.EmailToken, error) {
	if secret == "" || len(secret) > 200 {
		return nil, ErrMailedLinkInvalid
	}
	t, err := r.Client.EmailToken.Query().
		Where(emailtoken.TokenHash(auth.HashToken(secret)), emailtoken.PurposeEQ(emailtoken.Purpose(purpose))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrMailedLinkInvalid
	}
	if err != nil {
		return nil, err
	}
	if !t.ExpiresAt.After(clock.Now()) {
		return nil, ErrMailedLinkInvalid
	}
	return t, nil
}

// CheckResetLink tells whether a reset link still works (the page asks for
// a new password only then).
func (r *Resolver) CheckResetLink(ctx context.Context, secret string) error {
	_, err := r.mailedLink(ctx, purposeReset, secret)
	return err
}

// usedLink deletes t in tx: a link works once (a second use, even at the
// same moment on another instance, finds it gone).
func usedLink(ctx context.Context, tx *ent.Client, t *ent.EmailToken) error {
	n, err := tx.EmailToken.Delete().Where(emailtoken.ID(t.ID)).Exec(ctx)
	if err == nil && n == 0 {
		return ErrMailedLinkInvalid
	}
	return err
}

// VerifyEmail marks the address of a verification link verified, if it is
// still the user's address.
func (r *Resolver) VerifyEmail(ctx context.Context, secret string) error {
	t, err := r.mailedLink(ctx, purposeVerify, secret)
	if err != nil {
		return err
	}
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorUser, ID: t.UserID}})
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := usedLink(ctx, tx, t); err != nil {
			return err
		}
		n, err := tx.User.Update().Where(user.ID(t.UserID), user.Email(t.Email)).SetEmailVerified(true).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrMailedLinkInvalid // the address changed since
		}
		record(ctx, events.Event{Action: events.UserEmailVerified, Target: events.Target{Type: "user", ID: t.UserID, Label: t.Email},
			Payload: map[string]any{"email": t.Email}})
		return nil
	})
}

// ResetPassword sets the password of a reset link's user, in one write:
// the link and the user's other reset links stop working, every session
// of the user ends (whoever knew the old password is signed out), and the
// address counts as verified (the link reached it). The user then signs
// in with the new password.
func (r *Resolver) ResetPassword(ctx context.Context, secret, password string) error {
	t, err := r.mailedLink(ctx, purposeReset, secret)
	if err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	hash := auth.HashPassword(password)
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorUser, ID: t.UserID}})
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := usedLink(ctx, tx, t); err != nil {
			return err
		}
		if _, err := tx.EmailToken.Delete().Where(emailtoken.UserID(t.UserID), emailtoken.PurposeEQ(emailtoken.PurposeResetPassword)).Exec(ctx); err != nil {
			return err
		}
		u, err := tx.User.UpdateOneID(t.UserID).SetPasswordHash(hash).SetEmailVerified(true).Save(ctx)
		if err != nil {
			return entError(err)
		}
		ended, err := tx.Session.Query().Where(session.UserID(u.ID)).IDs(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Session.Delete().Where(session.UserID(u.ID)).Exec(ctx); err != nil {
			return err
		}
		target := events.Target{Type: "user", ID: u.ID, Label: u.DisplayName}
		record(ctx, events.Event{Action: events.UserPasswordReset, Target: target, Payload: map[string]any{"userId": u.ID}})
		for _, id := range ended {
			record(ctx, events.Event{Action: events.SessionRevoked, Target: events.Target{Type: "session", ID: id},
				Payload: map[string]any{"sessionId": id, "userId": u.ID}})
		}
		return nil
	})
}
