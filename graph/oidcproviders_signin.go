package graph

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/oidcprovider"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/ent/useridentity"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/secrets"
)

// Sign-in through an OpenID Connect provider (authorization code flow with
// PKCE S256, state and nonce):
//
//  1. StartOIDCSignIn discovers the provider from its issuer and answers
//     the provider's authorization address and a cookie carrying the flow
//     (state, nonce, PKCE verifier, where to go after), sealed with the
//     server's key (secrets.OIDCFlow) so the browser can neither read nor
//     change it, bound to the provider and short-lived.
//  2. FinishOIDCSignIn, at the callback, checks the state against the
//     cookie, exchanges the code with the verifier, verifies the ID token
//     (signature by the provider's keys, issuer, audience, expiry, nonce)
//     and requires the email and email_verified: true claims. The person is
//     the user linked to (provider, subject); else the user with that
//     email, which gets linked (when its address is verified: an
//     unverified account may be someone else's claim on the address); else
//     a new user made just in time (email verified). A session opens
//     (user.signed_in with method "oidc").
//
// Every request to the provider is bounded by the caller's context and
// oidcTimeout and goes through r.Fetcher's guarded client (no private
// addresses unless FOLIO_ALLOW_PRIVATE_FETCH).

const (
	// oidcFlowLifetime bounds the time from the button to the callback.
	oidcFlowLifetime = 10 * time.Minute
	// oidcTimeout bounds every exchange with a provider.
	oidcTimeout = 15 * time.Second
	// oidcDiscoveryTTL is how long a provider's discovery document and
	// keys are reused before being fetched again.
	oidcDiscoveryTTL = time.Hour
	// OIDCIdentityKind is UserIdentity.kind for OpenID Connect.
	OIDCIdentityKind = "oidc"
)

// OIDCRedirect is where StartOIDCSignIn sends the browser, with the flow's
// cookie to set first.
type OIDCRedirect struct {
	URL    string
	Cookie *http.Cookie
}

// OIDCCallback is what the provider sent back to the callback, with the
// flow's cookie and who the browser is.
type OIDCCallback struct {
	Name                    string // provider, from the address
	State, Code             string
	Error, ErrorDescription string
	FlowCookie              string
	UserAgent, IP           string
}

// oidcFlow is the content of the flow's cookie.
type oidcFlow struct {
	Provider string `json:"p"` // provider id: a provider removed and added again is another flow
	Name     string `json:"n"`
	State    string `json:"s"`
	Nonce    string `json:"o"`
	Verifier string `json:"v"`
	Next     string `json:"x,omitempty"`
	Expires  int64  `json:"e"`
}

// OIDCFlowCookieName is folio_oidc, or __Host-folio_oidc behind https (as
// the session cookie).
func (r *Resolver) OIDCFlowCookieName() string {
	if r.secureCookies() {
		return "__Host-folio_oidc"
	}
	return "folio_oidc"
}

// ClearOIDCFlowCookie removes the flow's cookie: a flow serves once.
func (r *Resolver) ClearOIDCFlowCookie() *http.Cookie {
	return &http.Cookie{Name: r.OIDCFlowCookieName(), Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(0, 0),
		HttpOnly: true, Secure: r.secureCookies(), SameSite: http.SameSiteLaxMode}
}

// errOIDCNoProvider is the answer for a name no provider has.
func errOIDCNoProvider(name string) error {
	return apperr.NotFoundf("no sign-in provider named %q", name)
}

func (r *Resolver) oidcProviderByName(ctx context.Context, name string) (*ent.OIDCProvider, error) {
	p, err := r.Client.OIDCProvider.Query().Where(oidcprovider.Name(name)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errOIDCNoProvider(name)
	}
	return p, err
}

// oidcContext bounds ctx by oidcTimeout and makes go-oidc and oauth2 use
// the guarded client.
func (r *Resolver) oidcContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, oidcTimeout)
	r.oidc.clientOnce.Do(func() {
		r.oidc.client = r.Fetcher.HTTPClient()
		r.oidc.client.Timeout = oidcTimeout
	})
	client := r.oidc.client
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	return oidc.ClientContext(ctx, client), cancel
}

// oidcCache keeps discovered providers (their endpoints and key sets) by
// provider id and issuer, so a sign-in fetches discovery and keys once an
// hour rather than at every step.
type oidcCache struct {
	mu   sync.Mutex
	byID map[string]oidcCached
	// client talks to every provider (one connection pool), made once.
	clientOnce sync.Once
	client     *http.Client
}

type oidcCached struct {
	issuer  string
	op      *oidc.Provider
	fetched time.Time
}

// discover is p's discovery, cached.
func (r *Resolver) discover(ctx context.Context, p *ent.OIDCProvider) (*oidc.Provider, error) {
	c := &r.oidc
	c.mu.Lock()
	hit, ok := c.byID[p.ID]
	c.mu.Unlock()
	if ok && hit.issuer == p.Issuer && clock.Now().Sub(hit.fetched) < oidcDiscoveryTTL {
		return hit.op, nil
	}
	op, err := oidc.NewProvider(ctx, p.Issuer)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, ctx.Err()
		}
		oidcWarn(ctx, err, p, "discovery")
		return nil, apperr.Unavailablef(30, "the sign-in provider %s could not be reached: try again later", p.Label)
	}
	c.mu.Lock()
	if c.byID == nil {
		c.byID = map[string]oidcCached{}
	}
	c.byID[p.ID] = oidcCached{issuer: p.Issuer, op: op, fetched: clock.Now()}
	c.mu.Unlock()
	return op, nil
}

// forgetOIDCProvider drops p's cached discovery.
func (r *Resolver) forgetOIDCProvider(p *ent.OIDCProvider) {
	r.oidc.mu.Lock()
	delete(r.oidc.byID, p.ID)
	r.oidc.mu.Unlock()
}

// oidcWarn logs why a provider's step failed, for the operator: the page
// says only that it failed (a provider's or an attacker's fault, not the
// server's, so a warning).
func oidcWarn(ctx context.Context, err error, p *ent.OIDCProvider, step string) {
	slog.WarnContext(ctx, "OpenID Connect sign-in failed", "err", err, "oidcProvider", p.Name, "step", step)
}

// oauthConfig is the OAuth 2 client of p at op.
func (r *Resolver) oauthConfig(p *ent.OIDCProvider, op *oidc.Provider) (*oauth2.Config, error) {
	secret, err := r.openSecret(secrets.OIDCClientSecret, p.ID, p.ClientSecretSealed)
	if err != nil {
		return nil, err
	}
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: secret, Endpoint: op.Endpoint(),
		RedirectURL: r.OIDCRedirectURI(p.Name), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}, nil
}

func randomToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// StartOIDCSignIn begins a sign-in through the provider named name; next
// is a local path to go to after (the caller checked it is local).
func (r *Resolver) StartOIDCSignIn(ctx context.Context, name, next string) (*OIDCRedirect, error) {
	p, err := r.oidcProviderByName(ctx, name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := r.oidcContext(ctx)
	defer cancel()
	op, err := r.discover(ctx, p)
	if err != nil {
		return nil, err
	}
	cfg, err := r.oauthConfig(p, op)
	if err != nil {
		return nil, err
	}
	f := oidcFlow{Provider: p.ID, Name: p.Name, State: randomToken(), Nonce: randomToken(),
		Verifier: oauth2.GenerateVerifier(), Next: next, Expires: clock.Now().Add(oidcFlowLifetime).Unix()}
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	cookie := &http.Cookie{Name: r.OIDCFlowCookieName(), Value: r.seal(secrets.OIDCFlow, string(raw)), Path: "/",
		MaxAge: int(oidcFlowLifetime / time.Second), HttpOnly: true, Secure: r.secureCookies(), SameSite: http.SameSiteLaxMode}
	url := cfg.AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return &OIDCRedirect{URL: url, Cookie: cookie}, nil
}

// errOIDCFlow refuses a callback that belongs to no flow of this browser.
var errOIDCFlow = apperr.Invalidf("this sign-in is not the one this browser started, or it took too long: start again from the sign-in page")

// openFlow reads the flow's cookie; it must be live, for this provider and
// carry the state the provider sent back.
func (r *Resolver) openFlow(cb OIDCCallback) (*oidcFlow, error) {
	if cb.FlowCookie == "" || cb.State == "" {
		return nil, errOIDCFlow
	}
	raw, err := r.Secrets.Open(secrets.OIDCFlow, cb.FlowCookie)
	if err != nil {
		return nil, errOIDCFlow
	}
	var f oidcFlow
	if err := json.Unmarshal([]byte(raw), &f); err != nil {
		return nil, errOIDCFlow
	}
	if f.Name != cb.Name || !secrets.Equal(f.State, cb.State) || clock.Now().Unix() > f.Expires {
		return nil, errOIDCFlow
	}
	return &f, nil
}

// oidcClaims are the ID token's claims Folio reads.
type oidcClaims struct {
	Email         string `json:"email"`
	EmailVerified any    `json:"email_verified"`
	Name          string `json:"name"`
}

// verified reads email_verified: true, or the string "true" some
// providers send.
func (c oidcClaims) verified() bool {
	switch v := c.EmailVerified.(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

// FinishOIDCSignIn completes a sign-in at the callback: the new session
// and where to go (the flow's next, "" for the default).
func (r *Resolver) FinishOIDCSignIn(ctx context.Context, cb OIDCCallback) (*SignedIn, string, error) {
	p, err := r.oidcProviderByName(ctx, cb.Name)
	if err != nil {
		return nil, "", err
	}
	f, err := r.openFlow(cb)
	if err != nil {
		return nil, "", err
	}
	if f.Provider != p.ID {
		return nil, "", errOIDCFlow
	}
	if cb.Error != "" {
		msg := cutBytes(cb.Error, 100)
		if cb.ErrorDescription != "" {
			msg += ": " + cutBytes(cb.ErrorDescription, 300)
		}
		return nil, "", apperr.Unauthenticatedf("%s did not sign you in (%s)", p.Label, msg)
	}
	if cb.Code == "" {
		return nil, "", apperr.Invalidf("the provider sent no authorization code: start again from the sign-in page")
	}
	claims, subject, err := r.exchangeOIDC(ctx, p, f, cb.Code)
	if err != nil {
		return nil, "", err
	}
	email := strings.ToLower(strings.TrimSpace(claims.Email))
	switch {
	case email == "" || !strings.Contains(email, "@") || len(email) > 320:
		return nil, "", r.oidcRefused(ctx, p, "", "oidc: no email",
			apperr.Forbiddenf("%s did not tell Folio your email address (the email claim): Folio needs it to know who you are", p.Label))
	case !claims.verified():
		return nil, "", r.oidcRefused(ctx, p, email, "oidc: email not verified",
			apperr.Forbiddenf("%s has not verified your email address %s (email_verified is not true): verify it there, then sign in again", p.Label, email))
	}
	if len(p.AllowedDomains) > 0 {
		domain := email[strings.LastIndex(email, "@")+1:]
		if !slices.Contains(p.AllowedDomains, domain) {
			return nil, "", r.oidcRefused(ctx, p, email, "oidc: domain not allowed",
				apperr.Forbiddenf("addresses at %s may not sign in with %s", domain, p.Label))
		}
	}
	s, err := r.oidcSignIn(ctx, p, subject, email, claims.Name, SignInAttempt{UserAgent: cb.UserAgent, IP: cb.IP})
	if err != nil {
		return nil, "", err
	}
	return s, f.Next, nil
}

// oidcRefused records user.sign_in_failed for a person the provider
// vouched for but Folio refuses (the audit log shows who tried), and
// answers refusal. Callbacks that prove nothing (a forged state, an ID
// token that does not verify) record nothing: anyone can send them.
func (r *Resolver) oidcRefused(ctx context.Context, p *ent.OIDCProvider, email, reason string, refusal error) error {
	target := events.Target{Type: "email", ID: email, Label: email}
	if email == "" {
		target = events.Target{Type: "oidc-provider", ID: p.ID, Label: p.Label}
	}
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "oidc:" + p.Name, Label: "Sign-in with " + p.Label}})
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		record(ctx, events.Event{Action: events.UserSignInFailed, Target: target,
			Payload: map[string]any{"email": email, "reason": reason}})
		return nil
	})
	if err != nil {
		return err
	}
	return refusal
}

// exchangeOIDC trades code for tokens and verifies the ID token.
func (r *Resolver) exchangeOIDC(ctx context.Context, p *ent.OIDCProvider, f *oidcFlow, code string) (*oidcClaims, string, error) {
	ctx, cancel := r.oidcContext(ctx)
	defer cancel()
	op, err := r.discover(ctx, p)
	if err != nil {
		return nil, "", err
	}
	cfg, err := r.oauthConfig(p, op)
	if err != nil {
		return nil, "", err
	}
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", apperr.Unavailablef(30, "%s did not answer in time: try again", p.Label)
		}
		oidcWarn(ctx, err, p, "token")
		return nil, "", apperr.Unauthenticatedf("%s refused to complete the sign-in: start again from the sign-in page", p.Label)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, "", apperr.Unauthenticatedf("%s sent no ID token", p.Label)
	}
	idt, err := op.Verifier(&oidc.Config{ClientID: p.ClientID}).Verify(ctx, raw)
	if err != nil {
		oidcWarn(ctx, err, p, "id token")
		return nil, "", apperr.Unauthenticatedf("the ID token from %s is not valid: start again from the sign-in page", p.Label)
	}
	if !secrets.Equal(idt.Nonce, f.Nonce) {
		return nil, "", apperr.Unauthenticatedf("the ID token from %s is not for this sign-in (nonce): start again from the sign-in page", p.Label)
	}
	var c oidcClaims
	if err := idt.Claims(&c); err != nil {
		return nil, "", apperr.Unauthenticatedf("the ID token from %s has claims Folio cannot read", p.Label)
	}
	if idt.Subject == "" || len(idt.Subject) > 255 {
		return nil, "", apperr.Unauthenticatedf("the ID token from %s has no usable subject", p.Label)
	}
	return &c, idt.Subject, nil
}

// oidcSignIn finds or makes the user of (p, subject) and opens a session,
// in one write.
func (r *Resolver) oidcSignIn(ctx context.Context, p *ent.OIDCProvider, subject, email, name string, a SignInAttempt) (*SignedIn, error) {
	link, err := r.Client.UserIdentity.Query().Where(useridentity.Kind(OIDCIdentityKind),
		useridentity.Provider(p.Name), useridentity.Subject(subject)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	var u *ent.User
	if link != nil {
		if u, err = r.Client.User.Get(ctx, link.UserID); err != nil {
			return nil, err
		}
	} else {
		u, err = r.Client.User.Query().Where(user.Email(email)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, err
		}
		if u != nil && !u.EmailVerified {
			return nil, r.oidcRefused(ctx, p, email, "oidc: account not verified",
				apperr.Forbiddenf("an account with the address %s exists but has not verified it: sign in with its password, or ask an administrator", email))
		}
	}
	// The user acts once known; a new one is made by the provider's sign-in.
	origin := events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "oidc:" + p.Name, Label: "Sign-in with " + p.Label}}
	if u != nil {
		origin.Actor = events.Actor{Type: events.ActorUser, ID: u.ID, Label: u.DisplayName}
	}
	ctx = events.WithOrigin(ctx, origin)
	var out *SignedIn
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		target := u
		var err error
		if target == nil {
			display := strings.TrimSpace(name)
			if display == "" {
				display, _, _ = strings.Cut(email, "@")
			}
			target, err = tx.User.Create().SetEmail(email).SetDisplayName(cutBytes(display, 255)).SetEmailVerified(true).Save(ctx)
			if ent.IsConstraintError(err) {
				return apperr.Conflictf("another sign-in made this account at the same moment: sign in again")
			}
			if err != nil {
				return entError(err)
			}
			record(ctx, events.Event{Action: events.UserCreated, Target: events.Target{Type: "user", ID: target.ID, Label: target.DisplayName}})
		}
		if link == nil {
			_, err := tx.UserIdentity.Create().SetUserID(target.ID).SetKind(OIDCIdentityKind).SetProvider(p.Name).
				SetSubject(subject).SetEmail(email).Save(ctx)
			if ent.IsConstraintError(err) {
				return apperr.Conflictf("another sign-in linked this account at the same moment: sign in again")
			}
			if err != nil {
				return entError(err)
			}
			record(ctx, events.Event{Action: events.UserIdentityLinked, Target: events.Target{Type: "user", ID: target.ID, Label: target.DisplayName},
				Payload: map[string]any{"kind": OIDCIdentityKind, "provider": p.Name, "userId": target.ID}})
		}
		if err := oidcMembership(ctx, tx, p, target); err != nil {
			return err
		}
		out, err = r.openSession(ctx, tx, target, a, "oidc")
		return err
	})
	return out, err
}

// oidcMembership makes u a member of p's organization, when the operator
// configured one, with p's default role: the operator trusts the provider
// for the whole instance, so it adds existing users as well as new ones. A
// member (disabled or not) keeps their membership as it is.
func oidcMembership(ctx context.Context, tx *ent.Client, p *ent.OIDCProvider, u *ent.User) error {
	if p.OrganizationID == nil || p.DefaultRole == nil {
		return nil
	}
	exists, err := tx.Member.Query().Where(member.OrganizationID(*p.OrganizationID), member.UserID(u.ID)).Exist(ctx)
	if err != nil || exists {
		return err
	}
	// The organization may have gone since the provider was configured.
	if exists, err = tx.Organization.Query().Where(organization.ID(*p.OrganizationID)).Exist(ctx); err != nil || !exists {
		return err
	}
	_, err = tx.Member.Create().SetOrganizationID(*p.OrganizationID).SetUserID(u.ID).SetRole(*p.DefaultRole).SetSSO(true).Save(ctx)
	if ent.IsConstraintError(err) {
		return apperr.Conflictf("another sign-in added this member at the same moment: sign in again")
	}
	if err != nil {
		return entError(err)
	}
	record(ctx, memberEvent(events.MemberJoined, *p.OrganizationID, u.ID, map[string]any{"userId": u.ID, "role": string(*p.DefaultRole)}))
	return nil
}
