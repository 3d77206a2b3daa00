package graph

import (
	"context"
	"encoding/json"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/passkey"
	"github.com/folio/folio/ent/passkeyceremony"
	"github.com/folio/folio/ent/ratecounter"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// Sign-in with a passkey, alone or after the password. Alone: the
// browser asks the authenticator for any passkey of Folio's (a
// discoverable credential) and the answer names its user; user
// verification is required, so the passkey is two factors in itself.
// After the password (the user's passkey_required): SignIn opens no
// session but a second_factor ceremony, and only an assertion of one of
// that user's passkeys opens it.

// secondFactor starts the passkey step of u's password sign-in: no
// session yet, a ceremony for the browser's cookie.
func (r *Resolver) secondFactor(ctx context.Context, u *ent.User) (*SignedIn, error) {
	c, err := r.newCeremony(ctx, passkeyceremony.KindSecondFactor, u.ID, nil)
	if err != nil {
		return nil, err
	}
	return &SignedIn{UserID: u.ID, PasskeyPending: c}, nil
}

// PasskeyPending tells whether secret names a password sign-in waiting
// for its passkey.
func (r *Resolver) PasskeyPending(ctx context.Context, secret string) (bool, error) {
	c, err := r.liveCeremony(ctx, secret, passkeyceremony.KindSecondFactor)
	return c != nil, err
}

// BeginPasskeySignIn answers the options for navigator.credentials.get.
// When secret names a password sign-in waiting for its passkey, they
// allow that user's passkeys and the ceremony stays the one the cookie
// names (nil Ceremony); otherwise any passkey of Folio's may answer, in a
// new ceremony.
func (r *Resolver) BeginPasskeySignIn(ctx context.Context, secret string) (*protocol.CredentialAssertion, *Ceremony, error) {
	wa, err := r.relyingParty()
	if err != nil {
		return nil, nil, err
	}
	pending, err := r.liveCeremony(ctx, secret, passkeyceremony.KindSecondFactor)
	if err != nil {
		return nil, nil, err
	}
	if pending == nil {
		assertion, sd, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
		if err != nil {
			return nil, nil, err
		}
		c, err := r.newCeremony(ctx, passkeyceremony.KindLogin, "", sd)
		return assertion, c, err
	}
	u, err := r.Client.User.Get(ctx, pending.UserID)
	if err != nil {
		return nil, nil, err
	}
	pu, err := r.loadPasskeyUser(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	if len(pu.creds) == 0 {
		return nil, nil, ErrPasskeyFailed
	}
	assertion, sd, err := wa.BeginLogin(pu, webauthn.WithUserVerification(protocol.VerificationPreferred))
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(sd)
	if err != nil {
		return nil, nil, err
	}
	// A new challenge for the same pending sign-in (asked again after a
	// cancelled prompt): the last one asked is the one that counts.
	err = r.Client.PasskeyCeremony.UpdateOneID(pending.ID).SetSessionData(raw).Exec(events.Exempt(ctx, events.ExemptCeremony))
	return assertion, nil, err
}

// FinishPasskeySignIn checks the authenticator's answer (credential: the
// PublicKeyCredential as JSON) against the ceremony secret names, spends
// the ceremony, and opens a session for the passkey's user. Every failure
// answers ErrPasskeyFailed and records user.sign_in_failed.
func (r *Resolver) FinishPasskeySignIn(ctx context.Context, a SignInAttempt, secret string, credential []byte) (*SignedIn, error) {
	wa, err := r.relyingParty()
	if err != nil {
		return nil, err
	}
	c, sd, err := r.takeCeremony(ctx, secret, passkeyceremony.KindLogin, passkeyceremony.KindSecondFactor)
	if err != nil {
		return nil, err
	}
	if c == nil || sd == nil {
		return nil, r.passkeyFailed(ctx, nil, "ceremony")
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(credential)
	if err != nil {
		return nil, r.passkeyFailed(ctx, nil, "answer")
	}
	var pu *passkeyUser
	var cred *webauthn.Credential
	if c.Kind == passkeyceremony.KindSecondFactor {
		u, err := r.Client.User.Get(ctx, c.UserID)
		if err != nil {
			return nil, err
		}
		if pu, err = r.loadPasskeyUser(ctx, u); err != nil {
			return nil, err
		}
		cred, err = wa.ValidateLogin(pu, *sd, parsed)
		if err != nil {
			return nil, r.passkeyFailed(ctx, u, "passkey")
		}
	} else {
		// The answer names its credential and user handle: the passkey
		// must be that user's.
		handler := func(rawID, userHandle []byte) (webauthn.User, error) {
			row, err := r.Client.Passkey.Query().Where(passkey.CredentialID(credentialID(rawID)), passkey.UserID(string(userHandle))).
				WithUser().Only(ctx)
			if err != nil {
				return nil, err
			}
			pu, err = r.loadPasskeyUser(ctx, row.Edges.User)
			return pu, err
		}
		if _, cred, err = wa.ValidatePasskeyLogin(handler, *sd, parsed); err != nil {
			var u *ent.User
			if pu != nil {
				u = pu.u
			}
			return nil, r.passkeyFailed(ctx, u, "passkey")
		}
	}
	var row *ent.Passkey
	for _, p := range pu.rows {
		if p.CredentialID == credentialID(cred.ID) {
			row = p
		}
	}
	// The counter did not move forward: two authenticators hold this key
	// (a clone), or an old answer was kept.
	if row == nil || cred.Authenticator.CloneWarning {
		return nil, r.passkeyFailed(ctx, pu.u, "sign_count")
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	method := "passkey"
	if c.Kind == passkeyceremony.KindSecondFactor {
		method = "password+passkey"
	}
	u := pu.u
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorUser, ID: u.ID, Label: u.DisplayName}})
	var out *SignedIn
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// Only from the counter this check read: of two answers at once,
		// one moves it.
		n, err := tx.Passkey.Update().Where(passkey.ID(row.ID), passkey.SignCount(row.SignCount)).
			SetSignCount(int64(cred.Authenticator.SignCount)).SetLastUsedAt(clock.Now()).SetCredential(raw).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrPasskeyFailed
		}
		if out, err = r.openSession(ctx, tx, u, a, method); err != nil {
			return err
		}
		if c.Kind == passkeyceremony.KindSecondFactor {
			// The owner got in: their account's failed passwords no
			// longer count (as a password sign-in does).
			_, err = tx.RateCounter.Delete().Where(ratecounter.Key(accountKey(u.Email))).Exec(ctx)
		}
		return err
	})
	return out, err
}

// passkeyFailed records a refused passkey sign-in (of u when the answer
// named a known passkey) and answers ErrPasskeyFailed.
func (r *Resolver) passkeyFailed(ctx context.Context, u *ent.User, reason string) error {
	target := events.Target{Type: "passkey", ID: "(unknown)"}
	email := ""
	if u != nil {
		target = events.Target{Type: "user", ID: u.ID, Label: u.Email}
		email = u.Email
	}
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "sign-in", Label: "Sign-in form"}})
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		record(ctx, events.Event{Action: events.UserSignInFailed, Target: target,
			Payload: map[string]any{"email": email, "reason": "passkey:" + reason}})
		return nil
	})
	if err != nil {
		return err
	}
	return ErrPasskeyFailed
}
