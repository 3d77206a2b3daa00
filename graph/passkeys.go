package graph

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/passkey"
	"github.com/folio/folio/ent/passkeyceremony"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// Passkeys (WebAuthn, README: Passkeys): a user registers passkeys on the
// account page and signs in with one alone (a discoverable credential,
// no email typed) or, when they require it, after their password. The
// relying party is FOLIO_BASE_URL: its host is the RP ID, its origin the
// one origin accepted.

// PasskeyCeremonyTTL is how long a ceremony (the options asked for until
// the authenticator's answer) or a password sign-in waiting for its
// passkey lasts.
const PasskeyCeremonyTTL = 5 * time.Minute

// MaxPasskeys caps a user's passkeys (viewer.passkeys and the account
// page list them all).
const MaxPasskeys = 20

// ErrPasskeyFailed is the one answer to a passkey sign-in that did not
// verify: a wrong origin or challenge, an unknown credential, a spent or
// expired ceremony, a bad signature, a signature counter gone backwards.
var ErrPasskeyFailed = apperr.Unauthenticatedf("the passkey was not accepted: try again")

// errPasskeysUnavailable: the RP ID must be a domain name (browsers refuse
// an IP address).
var errPasskeysUnavailable = apperr.Invalidf("passkeys need FOLIO_BASE_URL with a domain name (localhost will do), not an IP address")

// PasskeysAvailable tells whether FOLIO_BASE_URL can be a relying party.
func (r *Resolver) PasskeysAvailable() bool {
	_, err := r.relyingParty()
	return err == nil
}

// relyingParty is the go-webauthn relying party for FOLIO_BASE_URL.
func (r *Resolver) relyingParty() (*webauthn.WebAuthn, error) {
	u, err := url.Parse(r.BaseURL)
	if err != nil || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil {
		return nil, errPasskeysUnavailable
	}
	return webauthn.New(&webauthn.Config{
		RPID:          u.Hostname(),
		RPDisplayName: "Folio",
		RPOrigins:     []string{u.Scheme + "://" + u.Host},
		// A passkey: kept by the authenticator, so it can sign in without
		// an email typed first. No attestation: Folio trusts no maker's
		// list, and asking for one prompts people for nothing.
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification:   protocol.VerificationPreferred,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Timeout: PasskeyCeremonyTTL, TimeoutUVD: PasskeyCeremonyTTL},
			Registration: webauthn.TimeoutConfig{Timeout: PasskeyCeremonyTTL, TimeoutUVD: PasskeyCeremonyTTL},
		},
	})
}

// passkeyUser is a user with their credentials, as go-webauthn sees them.
// The user handle is the user's id (random, no personal data).
type passkeyUser struct {
	u     *ent.User
	rows  []*ent.Passkey
	creds []webauthn.Credential
}

func (p *passkeyUser) WebAuthnID() []byte                         { return []byte(p.u.ID) }
func (p *passkeyUser) WebAuthnName() string                       { return p.u.Email }
func (p *passkeyUser) WebAuthnDisplayName() string                { return p.u.DisplayName }
func (p *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }

// loadPasskeyUser reads u's passkeys. The stored signature counter is the
// column's (the JSON's is what it was at registration).
func (r *Resolver) loadPasskeyUser(ctx context.Context, u *ent.User) (*passkeyUser, error) {
	rows, err := r.Client.Passkey.Query().Where(passkey.UserID(u.ID)).
		Order(ent.Asc(passkey.FieldCreatedAt), ent.Asc(passkey.FieldID)).Limit(MaxPasskeys).All(ctx)
	if err != nil {
		return nil, err
	}
	pu := &passkeyUser{u: u, rows: rows}
	for _, row := range rows {
		var c webauthn.Credential
		if err := json.Unmarshal(row.Credential, &c); err != nil {
			return nil, err
		}
		c.Authenticator.SignCount = uint32(row.SignCount)
		pu.creds = append(pu.creds, c)
	}
	return pu, nil
}

func credentialID(raw []byte) string { return base64.RawURLEncoding.EncodeToString(raw) }

// Ceremony is the browser's half of a ceremony: the secret its cookie
// carries, until when.
type Ceremony struct {
	Secret    string
	ExpiresAt time.Time
}

// PasskeyCookieName is the ceremony cookie's name (__Host- behind https,
// as the session's).
func (r *Resolver) PasskeyCookieName() string {
	if r.secureCookies() {
		return "__Host-folio_passkey"
	}
	return "folio_passkey"
}

// PasskeyCookie carries a ceremony's secret; Strict: only Folio's own
// pages finish a ceremony.
func (r *Resolver) PasskeyCookie(c *Ceremony) *http.Cookie {
	return &http.Cookie{Name: r.PasskeyCookieName(), Value: c.Secret, Path: "/", Expires: c.ExpiresAt,
		MaxAge: int(c.ExpiresAt.Sub(clock.Now()) / time.Second), HttpOnly: true, Secure: r.secureCookies(), SameSite: http.SameSiteStrictMode}
}

// ClearPasskeyCookie removes the ceremony cookie.
func (r *Resolver) ClearPasskeyCookie() *http.Cookie {
	return &http.Cookie{Name: r.PasskeyCookieName(), Value: "", Path: "/", Expires: time.Unix(0, 0), MaxAge: -1,
		HttpOnly: true, Secure: r.secureCookies(), SameSite: http.SameSiteStrictMode}
}

// PasskeySecret is the ceremony cookie's value in req, "" without one.
func (r *Resolver) PasskeySecret(req *http.Request) string {
	c, err := req.Cookie(r.PasskeyCookieName())
	if err != nil {
		return ""
	}
	return c.Value
}

// newCeremony stores a ceremony's state. Not an event: the row is a
// challenge that lives minutes (events.ExemptCeremony); what it achieves
// records its own.
func (r *Resolver) newCeremony(ctx context.Context, kind passkeyceremony.Kind, userID string, sd *webauthn.SessionData) (*Ceremony, error) {
	secret, hash := auth.NewSessionSecret()
	expires := clock.Now().Add(PasskeyCeremonyTTL)
	create := r.Client.PasskeyCeremony.Create().SetTokenHash(hash).SetKind(kind).SetExpiresAt(expires)
	if userID != "" {
		create.SetUserID(userID)
	}
	if sd != nil {
		raw, err := json.Marshal(sd)
		if err != nil {
			return nil, err
		}
		create.SetSessionData(raw)
	}
	ctx = events.Exempt(ctx, events.ExemptCeremony)
	// Anyone may begin a sign-in: each new ceremony clears the expired
	// ones, so the table holds minutes of them whatever the retention
	// job's interval (an indexed delete, usually of nothing).
	if _, err := r.Client.PasskeyCeremony.Delete().Where(passkeyceremony.ExpiresAtLTE(clock.Now())).Exec(ctx); err != nil {
		return nil, err
	}
	if err := create.Exec(ctx); err != nil {
		return nil, err
	}
	return &Ceremony{Secret: secret, ExpiresAt: expires}, nil
}

// liveCeremony is the unexpired ceremony secret names, of one of kinds
// (nil when there is none).
func (r *Resolver) liveCeremony(ctx context.Context, secret string, kinds ...passkeyceremony.Kind) (*ent.PasskeyCeremony, error) {
	if secret == "" {
		return nil, nil
	}
	c, err := r.Client.PasskeyCeremony.Query().Where(passkeyceremony.TokenHash(auth.HashToken(secret)),
		passkeyceremony.ExpiresAtGT(clock.Now()), passkeyceremony.KindIn(kinds...)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return c, err
}

// takeCeremony uses up the ceremony secret names: it is deleted, and only
// the request whose delete removed it goes on (two instances finishing the
// same ceremony at once: one wins). nil when there was none to take.
func (r *Resolver) takeCeremony(ctx context.Context, secret string, kinds ...passkeyceremony.Kind) (*ent.PasskeyCeremony, *webauthn.SessionData, error) {
	c, err := r.liveCeremony(ctx, secret, kinds...)
	if err != nil || c == nil {
		return nil, nil, err
	}
	n, err := r.Client.PasskeyCeremony.Delete().Where(passkeyceremony.ID(c.ID)).Exec(events.Exempt(ctx, events.ExemptCeremony))
	if err != nil || n == 0 {
		return nil, nil, err
	}
	if len(c.SessionData) == 0 || string(c.SessionData) == "null" {
		return c, nil, nil
	}
	var sd webauthn.SessionData
	if err := json.Unmarshal(c.SessionData, &sd); err != nil {
		return nil, nil, err
	}
	return c, &sd, nil
}

// ViewerPasskeys are the viewer's passkeys, oldest first.
func (r *Resolver) ViewerPasskeys(ctx context.Context) ([]*ent.Passkey, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	return r.Client.Passkey.Query().Where(passkey.UserID(u.ID)).
		Order(ent.Asc(passkey.FieldCreatedAt), ent.Asc(passkey.FieldID)).Limit(MaxPasskeys).All(ctx)
}

// viewerPasskey is one of the viewer's passkeys (404 otherwise: another
// user's passkey is not theirs to see).
func (r *Resolver) viewerPasskey(ctx context.Context, id string) (*ent.Passkey, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	p, err := r.Client.Passkey.Query().Where(passkey.ID(id), passkey.UserID(u.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("passkey %s not found", id)
	}
	return p, err
}

// BeginPasskeyRegistration starts adding a passkey for the viewer: the
// options for navigator.credentials.create (as JSON) and the ceremony for
// the browser's cookie. The viewer's passkeys are excluded (an
// authenticator that holds one says so instead of making another).
func (r *Resolver) BeginPasskeyRegistration(ctx context.Context) (*protocol.CredentialCreation, *Ceremony, error) {
	wa, err := r.relyingParty()
	if err != nil {
		return nil, nil, err
	}
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, nil, err
	}
	pu, err := r.loadPasskeyUser(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	if len(pu.rows) >= MaxPasskeys {
		return nil, nil, apperr.Invalidf("passkeys: at most %d; remove one first", MaxPasskeys)
	}
	creation, sd, err := wa.BeginRegistration(pu,
		webauthn.WithExclusions(webauthn.Credentials(pu.creds).CredentialDescriptors()),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired))
	if err != nil {
		return nil, nil, err
	}
	c, err := r.newCeremony(ctx, passkeyceremony.KindRegister, u.ID, sd)
	if err != nil {
		return nil, nil, err
	}
	return creation, c, nil
}

// FinishPasskeyRegistration checks the authenticator's answer (credential:
// the PublicKeyCredential as JSON) against the viewer's ceremony (secret)
// and stores the passkey as name. The ceremony is spent either way.
func (r *Resolver) FinishPasskeyRegistration(ctx context.Context, secret, name string, credential []byte) (*ent.Passkey, error) {
	wa, err := r.relyingParty()
	if err != nil {
		return nil, err
	}
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	name, err = passkeyName(name)
	if err != nil {
		return nil, err
	}
	c, sd, err := r.takeCeremony(ctx, secret, passkeyceremony.KindRegister)
	if err != nil {
		return nil, err
	}
	if c == nil || sd == nil || c.UserID != u.ID {
		return nil, apperr.Invalidf("credential: no passkey is being added (or it took too long): start again")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(credential)
	if err != nil {
		return nil, apperr.Invalidf("credential: %s", webauthnDetails(err))
	}
	pu, err := r.loadPasskeyUser(ctx, u)
	if err != nil {
		return nil, err
	}
	cred, err := wa.CreateCredential(pu, *sd, parsed)
	if err != nil {
		return nil, apperr.Invalidf("credential: %s", webauthnDetails(err))
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	aaguid := ""
	if id, err := uuid.FromBytes(cred.Authenticator.AAGUID); err == nil {
		aaguid = id.String()
	}
	transports := make([]string, len(cred.Transport))
	for i, t := range cred.Transport {
		transports[i] = string(t)
	}
	var out *ent.Passkey
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.Passkey.Query().Where(passkey.UserID(u.ID)).Count(ctx)
		if err != nil {
			return err
		}
		if n >= MaxPasskeys {
			return apperr.Invalidf("passkeys: at most %d; remove one first", MaxPasskeys)
		}
		out, err = tx.Passkey.Create().SetUserID(u.ID).SetCredentialID(credentialID(cred.ID)).SetPublicKey(cred.PublicKey).
			SetSignCount(int64(cred.Authenticator.SignCount)).SetTransports(transports).SetAaguid(aaguid).
			SetName(name).SetCredential(raw).Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.ConflictField("credential", "this passkey is already registered")
		}
		if err != nil {
			return entError(err)
		}
		record(ctx, events.Event{Action: events.PasskeyAdded, Target: events.Target{Type: "passkey", ID: out.ID, Label: name},
			Payload: map[string]any{"name": name, "userId": u.ID, "aaguid": aaguid}})
		return nil
	})
	return out, err
}

// passkeyName is a passkey's name as stored: trimmed, "Passkey" when
// empty, one line of at most 100 characters.
func passkeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "Passkey", nil
	}
	if len([]rune(name)) > 100 {
		return "", apperr.InvalidField("name", "at most 100 characters")
	}
	if strings.ContainsAny(name, "\r\n") {
		return "", apperr.InvalidField("name", "one line")
	}
	return name, nil
}

// RenamePasskey renames one of the viewer's passkeys.
func (r *Resolver) RenamePasskey(ctx context.Context, id, name string) error {
	p, err := r.viewerPasskey(ctx, id)
	if err != nil {
		return err
	}
	if name, err = passkeyName(name); err != nil {
		return err
	}
	if name == p.Name {
		return nil
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.Passkey.Update().Where(passkey.ID(p.ID)).SetName(name).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, events.Event{Action: events.PasskeyRenamed, Target: events.Target{Type: "passkey", ID: p.ID, Label: name},
			Payload: map[string]any{"name": name, "userId": p.UserID}})
		return nil
	})
}

// webauthnDetails is what go-webauthn says went wrong, for the person (it
// names the check, never a key).
func webauthnDetails(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		if pe.Details != "" {
			return pe.Details
		}
		return pe.Type
	}
	return "not a valid answer from an authenticator"
}

// RemovePasskey deletes one of the viewer's passkeys. The last one stays
// while the viewer requires a passkey after their password (they turn
// that off first: otherwise they could not sign in with the password).
func (r *Resolver) RemovePasskey(ctx context.Context, id string) error {
	p, err := r.viewerPasskey(ctx, id)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u, err := tx.User.Get(ctx, p.UserID)
		if err != nil {
			return err
		}
		if u.PasskeyRequired {
			n, err := tx.Passkey.Query().Where(passkey.UserID(u.ID)).Count(ctx)
			if err != nil {
				return err
			}
			if n <= 1 {
				return apperr.Invalidf("passkeyRequired: your last passkey cannot be removed while sign-in requires one: turn that off first")
			}
		}
		n, err := tx.Passkey.Delete().Where(passkey.ID(p.ID)).Exec(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, events.Event{Action: events.PasskeyRemoved, Target: events.Target{Type: "passkey", ID: p.ID, Label: p.Name},
			Payload: map[string]any{"name": p.Name, "userId": p.UserID}})
		return nil
	})
}

// SetPasskeyRequired turns on or off asking for a passkey after the
// viewer's password. On needs a passkey to ask for.
func (r *Resolver) SetPasskeyRequired(ctx context.Context, on bool) error {
	u, err := viewerUser(ctx)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if on {
			n, err := tx.Passkey.Query().Where(passkey.UserID(u.ID)).Count(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				return apperr.InvalidField("passkeyRequired", "add a passkey first")
			}
		}
		n, err := tx.User.Update().Where(user.ID(u.ID), user.PasskeyRequired(!on)).SetPasskeyRequired(on).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		record(ctx, events.Event{Action: events.UserUpdated, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
			Payload: map[string]any{"fields": []string{"passkeyRequired"}}})
		return nil
	})
}
