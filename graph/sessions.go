package graph

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/emailtoken"
	"github.com/folio/folio/ent/passkeyceremony"
	"github.com/folio/folio/ent/ratecounter"
	"github.com/folio/folio/ent/session"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/jobs"
)

// SessionSettings bound sign-in sessions (FOLIO_SESSION_IDLE,
// FOLIO_SESSION_LIFETIME) and say whether anyone may make an account
// (FOLIO_OPEN_SIGNUP). Zero durations are the defaults.
type SessionSettings struct {
	Idle, Lifetime time.Duration
	OpenSignup     bool
}

// Default session lifetimes.
const (
	DefaultSessionIdle     = 168 * time.Hour
	DefaultSessionLifetime = 720 * time.Hour
)

func (s SessionSettings) idle() time.Duration {
	if s.Idle > 0 {
		return s.Idle
	}
	return DefaultSessionIdle
}

func (s SessionSettings) lifetime() time.Duration {
	if s.Lifetime > 0 {
		return s.Lifetime
	}
	return DefaultSessionLifetime
}

// Sign-in rate limits: failures counted per account (the email typed,
// whether or not it has an account, so the limit tells nothing about
// existence) and per client address, in fixed windows kept in the
// database (rate_counters) so that every instance sees the same counts.
// Once a count reaches its limit, every attempt of that account or address
// is refused, the right password too, until the window passes.
const (
	SignInWindow       = 15 * time.Minute
	MaxAccountFailures = 5
	MaxAddressFailures = 50
)

// lastUseTouchEvery is how stale a session's last_seen_at or an API
// token's last_used_at may be before a request touches it: telemetry, at
// most once a minute.
const lastUseTouchEvery = time.Minute

// MaxSessionsListed caps viewer.sessions and the account page: the newest
// live sessions.
const MaxSessionsListed = 100

var (
	// ErrSignInFailed is the one answer to a wrong email or a wrong
	// password.
	ErrSignInFailed = apperr.Unauthenticatedf("wrong email or password")
	// ErrTooManyAttempts refuses an attempt of an account or address
	// that failed too often in the window.
	ErrTooManyAttempts = apperr.Unauthenticatedf("too many failed attempts: try again later")
)

// errNoSession is a cookie that names no live session.
var errNoSession = errors.New("no live session")

// SessionCookieName is folio_session, or __Host-folio_session behind
// https: the prefix makes browsers keep the cookie to this host alone,
// Secure and with Path=/.
func (r *Resolver) SessionCookieName() string {
	if r.secureCookies() {
		return "__Host-folio_session"
	}
	return "folio_session"
}

func (r *Resolver) secureCookies() bool { return strings.HasPrefix(r.BaseURL, "https://") }

// SessionCookie is the cookie that carries secret until expires.
func (r *Resolver) SessionCookie(secret string, expires time.Time) *http.Cookie {
	return &http.Cookie{Name: r.SessionCookieName(), Value: secret, Path: "/", Expires: expires,
		HttpOnly: true, Secure: r.secureCookies(), SameSite: http.SameSiteLaxMode}
}

// ClearSessionCookie removes the session cookie from the browser.
func (r *Resolver) ClearSessionCookie() *http.Cookie {
	c := r.SessionCookie("", time.Unix(0, 0))
	c.MaxAge = -1
	return c
}

// SessionSecret is the session cookie's value in req, "" without one.
func (r *Resolver) SessionSecret(req *http.Request) string {
	c, err := req.Cookie(r.SessionCookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

type sessionKey struct{}

// CurrentSessionID is the session the request authenticated with, "" for
// a token or an anonymous caller.
func CurrentSessionID(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// sessionViewerContext is ctx for the user whose live session secret
// names: two statements (the session, then the user with memberships),
// and at most once a minute a third touching last_seen_at. Expired, idle
// and revoked sessions are errNoSession. Its writes have the source ui.
func (r *Resolver) sessionViewerContext(ctx context.Context, secret string) (context.Context, error) {
	now := clock.Now()
	s, err := r.Client.Session.Query().Where(session.TokenHash(auth.HashToken(secret))).Only(ctx)
	if ent.IsNotFound(err) {
		return ctx, errNoSession
	}
	if err != nil {
		return ctx, err
	}
	if !s.ExpiresAt.After(now) || !s.LastSeenAt.Add(r.SessionSettings.idle()).After(now) {
		return ctx, errNoSession
	}
	u, err := r.Client.User.Query().Where(user.ID(s.UserID)).Modify(loader.WithViewerMemberships).Only(ctx)
	if ent.IsNotFound(err) {
		return ctx, errNoSession
	}
	if err != nil {
		return ctx, err
	}
	if now.Sub(s.LastSeenAt) >= lastUseTouchEvery {
		// By the clock, once a minute: statement counts leave it out.
		err := r.Client.Session.UpdateOneID(s.ID).SetLastSeenAt(now).Exec(db.Uncounted(events.Exempt(ctx, events.ExemptSession)))
		if err != nil && !ent.IsNotFound(err) {
			return ctx, err
		}
	}
	return r.userContext(context.WithValue(ctx, sessionKey{}, s.ID), u, events.SourceUI, "")
}

// SessionViewerContext is ctx for the user of the request's live session
// cookie, for the HTML pages; ok is false without one.
func (r *Resolver) SessionViewerContext(req *http.Request) (ctx context.Context, ok bool, err error) {
	secret := r.SessionSecret(req)
	if secret == "" {
		return req.Context(), false, nil
	}
	ctx, err = r.sessionViewerContext(req.Context(), secret)
	if errors.Is(err, errNoSession) {
		return req.Context(), false, nil
	}
	return ctx, err == nil, err
}

// SignInAttempt is what a sign-in form sends, with where it came from.
type SignInAttempt struct {
	Email, Password string
	UserAgent, IP   string
}

// SignedIn is a new session: the secret for the cookie (shown once, only
// its hash is stored) and when the session ends at the latest.
type SignedIn struct {
	Secret    string
	ExpiresAt time.Time
	UserID    string
	// PasskeyPending, instead of a session: the password was right and
	// the user requires a passkey after it (passkeys_signin.go).
	PasskeyPending *Ceremony
}

func accountKey(email string) string { return "signin:account:" + email }
func addressKey(ip string) string    { return "signin:addr:" + ip }

// SignIn checks an email and password and opens a session. A wrong email
// and a wrong password answer the same (ErrSignInFailed) after the same
// work: an unknown email is checked against a dummy hash, and both record
// the failure (the counters and user.sign_in_failed). An account or
// address past its limit answers ErrTooManyAttempts before any check.
// The right password of a user who requires a passkey after it opens no
// session: the answer's PasskeyPending is the ceremony that will
// (passkeys_signin.go).
func (r *Resolver) SignIn(ctx context.Context, a SignInAttempt) (*SignedIn, error) {
	email := strings.ToLower(strings.TrimSpace(a.Email))
	if len(email) > 320 {
		email = email[:320]
	}
	keys := []string{accountKey(email), addressKey(a.IP)}
	locked, err := r.signInLocked(ctx, keys)
	if err != nil {
		return nil, err
	}
	if locked {
		// Telemetry: how many attempts the lock refused, no event (a
		// guessing loop would flood the log).
		err := r.Client.RateCounter.Update().Where(ratecounter.KeyIn(keys...)).AddRefused(1).
			Exec(events.Exempt(ctx, events.ExemptRate))
		if err != nil {
			return nil, err
		}
		return nil, ErrTooManyAttempts
	}
	u, err := r.Client.User.Query().Where(user.Email(email)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	ok := false
	switch {
	case len(a.Password) > auth.MaxPasswordBytes:
		auth.CheckDummyPassword("")
	case u == nil || u.PasswordHash == nil:
		auth.CheckDummyPassword(a.Password)
	default:
		ok = auth.CheckPassword(*u.PasswordHash, a.Password)
	}
	if !ok {
		return nil, r.signInFailed(ctx, email, u, keys)
	}
	if u.PasskeyRequired {
		return r.secondFactor(ctx, u)
	}
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorUser, ID: u.ID, Label: u.DisplayName}})
	var out *SignedIn
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if out, err = r.openSession(ctx, tx, u, a, "password"); err != nil {
			return err
		}
		// The owner got in: their account's failures no longer count
		// (the address's still do).
		_, err = tx.RateCounter.Delete().Where(ratecounter.Key(keys[0])).Exec(ctx)
		return err
	})
	return out, err
}

// signInLocked tells whether one of keys (the account's, then the
// address's) reached its limit in the current window.
func (r *Resolver) signInLocked(ctx context.Context, keys []string) (bool, error) {
	return r.rateLimited(ctx, keys, MaxAccountFailures, MaxAddressFailures)
}

// rateLimited tells whether the counter of keys[0] reached first, or
// another of keys reached others, in the current window.
func (r *Resolver) rateLimited(ctx context.Context, keys []string, first, others int) (bool, error) {
	rows, err := r.Client.RateCounter.Query().
		Where(ratecounter.KeyIn(keys...), ratecounter.WindowStartGT(clock.Now().Add(-SignInWindow))).All(ctx)
	if err != nil {
		return false, err
	}
	for _, c := range rows {
		limit := others
		if c.Key == keys[0] {
			limit = first
		}
		if c.Count >= limit {
			return true, nil
		}
	}
	return false, nil
}

// signInFailed records a failed attempt: its counters and its event, in
// one write (the counter's write is what the event records). Known and
// unknown emails make the same statements.
func (r *Resolver) signInFailed(ctx context.Context, email string, u *ent.User, keys []string) error {
	target := events.Target{Type: "email", ID: email, Label: email}
	if u != nil {
		target = events.Target{Type: "user", ID: u.ID, Label: email}
	}
	if email == "" {
		target.ID = "(empty)"
	}
	// Whoever typed the form is not known: the sign-in form acts.
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "sign-in", Label: "Sign-in form"}})
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		for _, k := range keys {
			if err := bumpCounter(ctx, tx, k); err != nil {
				return err
			}
		}
		record(ctx, events.Event{Action: events.UserSignInFailed, Target: target,
			Payload: map[string]any{"email": email, "reason": "credentials"}})
		return nil
	})
	if err != nil {
		return err
	}
	return ErrSignInFailed
}

// bumpCounter adds a failure to key's counter: in its window when that is
// still open, else in a new window from now. Each step is one atomic
// statement, so instances counting at once lose no failure.
func bumpCounter(ctx context.Context, tx *ent.Client, key string) error {
	now := clock.Now()
	n, err := tx.RateCounter.Update().Where(ratecounter.Key(key), ratecounter.WindowStartGT(now.Add(-SignInWindow))).
		AddCount(1).Save(ctx)
	if err != nil || n > 0 {
		return err
	}
	n, err = tx.RateCounter.Update().Where(ratecounter.Key(key), ratecounter.WindowStartLTE(now.Add(-SignInWindow))).
		SetCount(1).SetRefused(0).SetWindowStart(now).Save(ctx)
	if err != nil || n > 0 {
		return err
	}
	return tx.RateCounter.Create().SetKey(key).SetCount(1).SetWindowStart(now).
		OnConflictColumns(ratecounter.FieldKey).AddCount(1).Exec(ctx)
}

// openSession stores a new session of u (a new random secret: sign-in
// rotates the cookie) and records user.signed_in.
func (r *Resolver) openSession(ctx context.Context, tx *ent.Client, u *ent.User, a SignInAttempt, method string) (*SignedIn, error) {
	secret, hash := auth.NewSessionSecret()
	now := clock.Now()
	s, err := tx.Session.Create().SetUserID(u.ID).SetTokenHash(hash).SetCreatedAt(now).SetLastSeenAt(now).
		SetExpiresAt(now.Add(r.SessionSettings.lifetime())).
		SetUserAgent(cutBytes(a.UserAgent, 512)).SetIP(cutBytes(a.IP, 64)).Save(ctx)
	if err != nil {
		return nil, entError(err)
	}
	record(ctx, events.Event{Action: events.UserSignedIn, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
		Payload: map[string]any{"sessionId": s.ID, "method": method}})
	return &SignedIn{Secret: secret, ExpiresAt: s.ExpiresAt, UserID: u.ID}, nil
}

// cutBytes cuts s to at most n bytes, on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// SignOut ends the request's own session.
func (r *Resolver) SignOut(ctx context.Context) error {
	id := CurrentSessionID(ctx)
	if id == "" {
		return nil
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.Session.Delete().Where(session.ID(id)).Exec(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, events.Event{Action: events.UserSignedOut, Target: events.Target{Type: "user", ID: auth.ViewerID(ctx)},
			Payload: map[string]any{"sessionId": id}})
		return nil
	})
}

// ViewerSessions are the viewer's live sessions, newest first (at most
// MaxSessionsListed).
func (r *Resolver) ViewerSessions(ctx context.Context) ([]*ent.Session, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	now := clock.Now()
	return r.Client.Session.Query().
		Where(session.UserID(u.ID), session.ExpiresAtGT(now), session.LastSeenAtGT(now.Add(-r.SessionSettings.idle()))).
		Order(ent.Desc(session.FieldCreatedAt), ent.Desc(session.FieldID)).Limit(MaxSessionsListed).All(ctx)
}

// viewerSession is one of the viewer's sessions (404 otherwise: another
// user's session is not theirs to see).
func (r *Resolver) viewerSession(ctx context.Context, id string) (*ent.Session, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	s, err := r.Client.Session.Query().Where(session.ID(id), session.UserID(u.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("session %s not found", id)
	}
	return s, err
}

// RevokeSession ends one of the viewer's sessions (their current one
// too: that signs them out).
func (r *Resolver) RevokeSession(ctx context.Context, id string) error {
	s, err := r.viewerSession(ctx, id)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.Session.Delete().Where(session.ID(s.ID)).Exec(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, events.Event{Action: events.SessionRevoked, Target: events.Target{Type: "session", ID: s.ID, Label: s.UserAgent},
			Payload: map[string]any{"sessionId": s.ID, "userId": s.UserID}})
		return nil
	})
}

// SignOutEverywhere ends every session of the viewer, this one too.
func (r *Resolver) SignOutEverywhere(ctx context.Context) error {
	u, err := viewerUser(ctx)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		ids, err := tx.Session.Query().Where(session.UserID(u.ID)).IDs(ctx)
		if err != nil || len(ids) == 0 {
			return err
		}
		if _, err := tx.Session.Delete().Where(session.IDIn(ids...)).Exec(ctx); err != nil {
			return err
		}
		for _, id := range ids {
			record(ctx, events.Event{Action: events.SessionRevoked, Target: events.Target{Type: "session", ID: id},
				Payload: map[string]any{"sessionId": id, "userId": u.ID}})
		}
		return nil
	})
}

// checkPassword refuses a password too short or too long to be stored.
func checkPassword(password string) error {
	if n := len([]rune(password)); n < auth.MinPasswordLength {
		return apperr.InvalidField("password", "at least %d characters", auth.MinPasswordLength)
	}
	if len(password) > auth.MaxPasswordBytes {
		return apperr.InvalidField("password", "at most %d bytes", auth.MaxPasswordBytes)
	}
	return nil
}

// SetPassword sets the password of the user with email, creating the
// user if needed (`folio user password`). Their sessions stay: the
// operator ends them with signOutEverywhere if the password leaked.
func (r *Resolver) SetPassword(ctx context.Context, email, password string) (*ent.User, error) {
	if err := checkPassword(password); err != nil {
		return nil, err
	}
	u, err := r.EnsureUser(ctx, email, "")
	if err != nil {
		return nil, err
	}
	hash := auth.HashPassword(password)
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.User.UpdateOneID(u.ID).SetPasswordHash(hash).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, events.Event{Action: events.UserPasswordChanged, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
			Payload: map[string]any{"userId": u.ID}})
		return nil
	})
	return u, err
}

// SignUp makes a local account and signs it in, when FOLIO_OPEN_SIGNUP
// allows it (404 otherwise, as if there were no such page). An email that
// already has an account is refused: sign-up cannot hide which emails
// have one (the README says so).
func (r *Resolver) SignUp(ctx context.Context, a SignInAttempt, displayName string) (*SignedIn, error) {
	if !r.SessionSettings.OpenSignup {
		return nil, apperr.NotFoundf("sign-up is closed")
	}
	email := strings.ToLower(strings.TrimSpace(a.Email))
	if !strings.Contains(email, "@") || len(email) < 3 || len(email) > 320 {
		return nil, apperr.InvalidField("email", "an email address")
	}
	if err := checkPassword(a.Password); err != nil {
		return nil, err
	}
	displayName = strings.TrimSpace(displayName)
	if displayName == "" {
		displayName, _, _ = strings.Cut(email, "@")
	}
	hash := auth.HashPassword(a.Password)
	// No user acts yet: the sign-up form does.
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "sign-up", Label: "Sign-up form"}})
	var out *SignedIn
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u, err := tx.User.Create().SetEmail(email).SetDisplayName(cutBytes(displayName, 255)).SetPasswordHash(hash).Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.ConflictField("email", "already has an account: sign in")
		}
		if err != nil {
			return entError(err)
		}
		record(ctx, events.Event{Action: events.UserCreated, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName}})
		record(ctx, events.Event{Action: events.UserPasswordChanged, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
			Payload: map[string]any{"userId": u.ID}})
		if r.Mailer != nil {
			// The address is verified by the link this job mails.
			if err := jobs.Enqueue(ctx, tx, r.Dialect, ids.New(), JobAccountMail, purposeVerify+":"+email); err != nil {
				return err
			}
		}
		out, err = r.openSession(ctx, tx, u, a, "sign-up")
		return err
	})
	if err == nil && r.Mailer != nil && r.Jobs != nil {
		r.Jobs.Wake()
	}
	return out, err
}

// PurgeEndedSessions deletes the sessions that no longer sign anyone in
// (past their lifetime or idle) and the rate counters whose window has
// passed, and mailed links past their life: maintenance, recording
// nothing (they are already of no effect).
func (r *Resolver) PurgeEndedSessions(ctx context.Context) error {
	ctx = events.Exempt(ctx, events.ExemptMaintenance)
	now := clock.Now()
	if _, err := r.Client.Session.Delete().
		Where(session.Or(session.ExpiresAtLTE(now), session.LastSeenAtLTE(now.Add(-r.SessionSettings.idle())))).Exec(ctx); err != nil {
		return err
	}
	if _, err := r.Client.EmailToken.Delete().Where(emailtoken.ExpiresAtLTE(now)).Exec(ctx); err != nil {
		return err
	}
	if _, err := r.Client.PasskeyCeremony.Delete().Where(passkeyceremony.ExpiresAtLTE(now)).Exec(ctx); err != nil {
		return err
	}
	if _, err := r.Client.RateCounter.Delete().Where(ratecounter.WindowStartLTE(now.Add(-SignInWindow))).Exec(ctx); err != nil {
		return err
	}
	return r.purgeEndedOAuth(ctx)
}
