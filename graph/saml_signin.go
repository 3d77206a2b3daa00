package graph

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"log/slog"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/crewjam/saml"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/samlassertion"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// Sign-in through an organization's SAML provider (samlproviders.go holds
// the configuration). Folio is the service provider (SP); the
// organization's identity provider (IdP) vouches for the person.
//
//   - GET <base>/sso/saml/<id> (the SP's entity ID) serves the SP metadata:
//     entity ID, ACS URL (HTTP-POST), AuthnRequestsSigned false (Folio has
//     no signing key), WantAssertionsSigned true.
//   - SP-initiated: <base>/sso/saml/<id>/start sends an AuthnRequest
//     (HTTP-Redirect) to the provider's ssoURL; the request id travels in a
//     short-lived cookie and the response's InResponseTo must match it.
//   - IdP-initiated: a response with no InResponseTo is accepted too (the
//     IdP's signature is what authenticates either).
//   - <base>/sso/saml/<id>/acs verifies the response with crewjam/saml
//     against the stored entityID, ssoURL and certificate(s): a signature
//     by one of the provider's certificates (on the response or the
//     assertion), the audience (the SP entity ID), the destination and the
//     validity window. Each assertion id is accepted once (saml_assertions
//     until it expires).
//
// Who gets in: the email the IdP asserts. A new email becomes a user (its
// address verified: the IdP asserted it) and a member of the provider's
// organization with the provider's default role (read when unset) and in
// its default team. An existing account is signed in only when it is
// already a member of the provider's organization: an organization's IdP
// speaks for its own people, not for accounts of other organizations that
// happen to carry the same address (or else any admin who configures an
// IdP could sign in as anyone). Such a person joins by an invitation and
// then signs in through SSO. A disabled member is refused.
//
// Only active providers (ssoURL, entityID and certificate set) answer;
// pending or unknown ids are 404. Nothing here needs a viewer.

// SAMLRequestLifetime bounds an SP-initiated sign-in: its request id is
// remembered (cookie) this long.
const SAMLRequestLifetime = 10 * time.Minute

// samlReplayMargin is how long after an assertion's own expiry its id is
// still remembered: the verifier allows that much clock skew, and a little
// more.
var samlReplayMargin = saml.MaxClockSkew + time.Minute

var (
	errSAMLReplay    = apperr.Forbiddenf("this SAML response was already used: sign in again")
	errSAMLInvalid   = apperr.Forbiddenf("the identity provider's SAML response could not be verified: sign in again, or ask an administrator to check the provider's certificate and entity ID")
	errSAMLNoEmail   = apperr.Forbiddenf("the identity provider did not send an email address (NameID in emailAddress format, or an email attribute)")
	errSAMLDisabled  = apperr.Forbiddenf("your membership of this organization is disabled")
	errSAMLNotMember = apperr.Forbiddenf("an account with this email already exists and is not a member of this organization: ask an administrator to invite it, then sign in with SSO again")
)

// activeSAMLProvider is provider id when it is active; 404 otherwise.
func (r *Resolver) activeSAMLProvider(ctx context.Context, id string) (*ent.SAMLProvider, error) {
	p, err := r.Client.SAMLProvider.Query().Where(samlprovider.ID(id)).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && r.SAMLProviderStatus(p) != model.SAMLProviderStatusActive) {
		return nil, apperr.NotFoundf("no active SAML provider %s", id)
	}
	return p, err
}

// samlServiceProvider is crewjam/saml's service provider for p, trusting
// the IdP p describes.
func (r *Resolver) samlServiceProvider(p *ent.SAMLProvider) (*saml.ServiceProvider, error) {
	svc := r.SAMLService(p)
	acs, err := url.Parse(svc.AcsURL)
	if err != nil {
		return nil, err
	}
	meta, err := url.Parse(svc.EntityID)
	if err != nil {
		return nil, err
	}
	var keys []saml.KeyDescriptor
	rest := []byte(*p.Certificate)
	for {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, err
		}
		keys = append(keys, saml.KeyDescriptor{Use: "signing", KeyInfo: saml.KeyInfo{X509Data: saml.X509Data{
			X509Certificates: []saml.X509Certificate{{Data: base64.StdEncoding.EncodeToString(block.Bytes)}},
		}}})
	}
	return &saml.ServiceProvider{
		EntityID:    svc.EntityID,
		MetadataURL: *meta,
		AcsURL:      *acs,
		IDPMetadata: &saml.EntityDescriptor{
			EntityID: *p.EntityID,
			IDPSSODescriptors: []saml.IDPSSODescriptor{{
				SSODescriptor: saml.SSODescriptor{RoleDescriptor: saml.RoleDescriptor{
					ProtocolSupportEnumeration: "urn:oasis:names:tc:SAML:2.0:protocol",
					KeyDescriptors:             keys,
				}},
				SingleSignOnServices: []saml.Endpoint{{Binding: saml.HTTPRedirectBinding, Location: *p.SSOURL}},
			}},
		},
		AssertionConsumerServiceBindings: []string{saml.HTTPPostBinding},
		// The metadata does not go stale: an IdP that loaded it from a
		// file would otherwise stop trusting Folio after validUntil.
		MetadataOmitValidUntil: true,
		// Folio knows people by their email: the metadata and the
		// requests ask for it as the NameID (an email attribute does too).
		AuthnNameIDFormat: saml.EmailAddressNameIDFormat,
		AllowIDPInitiated: true,
		// SAML trusts the key, not the certificate's dates (see the
		// provider's schema).
		IgnoreCertificateExpiry: true,
	}, nil
}

// SAMLMetadata is the SP metadata XML of active provider id.
func (r *Resolver) SAMLMetadata(ctx context.Context, id string) ([]byte, error) {
	p, err := r.activeSAMLProvider(ctx, id)
	if err != nil {
		return nil, err
	}
	sp, err := r.samlServiceProvider(p)
	if err != nil {
		return nil, err
	}
	out, err := xml.MarshalIndent(sp.Metadata(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), out...), nil
}

// SAMLStart is an SP-initiated sign-in: where to send the browser (the
// IdP, with the AuthnRequest and RelayState) and the request's id, which
// the caller keeps for SAMLRequestLifetime (SAMLRequestCookie).
type SAMLStart struct {
	Location, RequestID string
}

// StartSAMLSignIn makes an AuthnRequest to active provider id; relayState
// comes back with the response (the page to land on).
func (r *Resolver) StartSAMLSignIn(ctx context.Context, id, relayState string) (*SAMLStart, error) {
	p, err := r.activeSAMLProvider(ctx, id)
	if err != nil {
		return nil, err
	}
	sp, err := r.samlServiceProvider(p)
	if err != nil {
		return nil, err
	}
	req, err := sp.MakeAuthenticationRequest(*p.SSOURL, saml.HTTPRedirectBinding, saml.HTTPPostBinding)
	if err != nil {
		return nil, err
	}
	loc, err := req.Redirect(relayState, sp)
	if err != nil {
		return nil, err
	}
	return &SAMLStart{Location: loc.String(), RequestID: req.ID}, nil
}

// SAMLRequestCookie carries an SP-initiated request's id to the ACS of
// provider id. The response comes back as a cross-site POST from the IdP:
// behind https the cookie is SameSite=None (and Secure) so that the
// browser sends it along; over plain http, where browsers refuse
// SameSite=None, it is left to the browser's default. Empty requestID
// clears it.
func (r *Resolver) SAMLRequestCookie(id, requestID string) *http.Cookie {
	c := &http.Cookie{Name: "folio_saml_request", Value: requestID, Path: "/sso/saml/" + id + "/acs",
		MaxAge: int(SAMLRequestLifetime / time.Second), HttpOnly: true, Secure: r.secureCookies()}
	if r.secureCookies() {
		c.SameSite = http.SameSiteNoneMode
	}
	if requestID == "" {
		c.MaxAge = -1
	}
	return c
}

// SAMLRequestID is the request id req's cookie remembers ("" for none);
// the cookie's path keeps it to the ACS of the provider that made it.
func (r *Resolver) SAMLRequestID(req *http.Request) string {
	c, err := req.Cookie("folio_saml_request")
	if err != nil {
		return ""
	}
	return c.Value
}

// SAMLSignedIn is a session opened through SAML and where the response's
// RelayState asked to go.
type SAMLSignedIn struct {
	*SignedIn
	RelayState string
}

// FinishSAMLSignIn verifies the SAML response req posted to the ACS of
// provider id (form fields SAMLResponse, RelayState; req.ParseForm done),
// requestID being the SP-initiated request the browser remembers ("":
// none, then only an IdP-initiated response is accepted). It finds or
// makes the user and the membership and opens a session, all in one
// write; any refusal (403) changes nothing.
func (r *Resolver) FinishSAMLSignIn(ctx context.Context, id string, req *http.Request, requestID string, a SignInAttempt) (*SAMLSignedIn, error) {
	p, err := r.activeSAMLProvider(ctx, id)
	if err != nil {
		return nil, err
	}
	sp, err := r.samlServiceProvider(p)
	if err != nil {
		return nil, err
	}
	var possible []string
	if requestID != "" {
		possible = []string{requestID}
	}
	as, err := sp.ParseResponse(req, possible)
	if err != nil {
		var invalid *saml.InvalidResponseError
		if errors.As(err, &invalid) && invalid.PrivateErr != nil {
			err = invalid.PrivateErr
		}
		// The reason is for the operator's log; the browser learns only
		// that the response was refused.
		slog.WarnContext(ctx, "SAML response refused", "samlProvider", p.ID, "organization", p.OrganizationID, "error", err.Error())
		return nil, errSAMLInvalid
	}
	email, name := samlIdentity(as)
	if email == "" {
		return nil, errSAMLNoEmail
	}
	existing, err := r.Client.User.Query().Where(user.Email(email)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	// Who acts: the person when they have an account, else the provider
	// that vouches for a new one.
	actor := events.Actor{Type: events.ActorSystem, ID: "saml:" + p.ID, Label: p.Label}
	if existing != nil {
		actor = events.Actor{Type: events.ActorUser, ID: existing.ID, Label: existing.DisplayName}
	}
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI, Actor: actor})
	var out *SignedIn
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := useSAMLAssertion(ctx, tx, p, as); err != nil {
			return err
		}
		u, created, err := samlUser(ctx, tx, email, name)
		if err != nil {
			return err
		}
		joined, err := r.samlMembership(ctx, tx, p, u, created)
		if err != nil {
			return err
		}
		record(ctx, events.Event{Action: events.SAMLSignedIn, OrganizationID: p.OrganizationID,
			Target:  events.Target{Type: "saml-provider", ID: p.ID, Label: p.Label},
			Payload: map[string]any{"providerId": p.ID, "userId": u.ID, "userCreated": created, "joined": joined}})
		out, err = r.openSession(ctx, tx, u, a, "saml")
		return err
	})
	if err != nil {
		return nil, err
	}
	return &SAMLSignedIn{SignedIn: out, RelayState: req.PostForm.Get("RelayState")}, nil
}

// useSAMLAssertion remembers the assertion's id until it expires, refusing
// one already remembered; the provider's expired ids go.
func useSAMLAssertion(ctx context.Context, tx *ent.Client, p *ent.SAMLProvider, as *saml.Assertion) error {
	now := clock.Now()
	if _, err := tx.SAMLAssertion.Delete().
		Where(samlassertion.ProviderID(p.ID), samlassertion.ExpiresAtLT(now)).Exec(ctx); err != nil {
		return err
	}
	used, err := tx.SAMLAssertion.Query().
		Where(samlassertion.ProviderID(p.ID), samlassertion.AssertionID(as.ID)).Exist(ctx)
	if err != nil {
		return err
	}
	if used {
		return errSAMLReplay
	}
	err = tx.SAMLAssertion.Create().SetProviderID(p.ID).SetAssertionID(as.ID).
		SetExpiresAt(samlExpiry(as, now).Add(samlReplayMargin)).Exec(ctx)
	if ent.IsConstraintError(err) {
		// The same assertion, posted twice at once.
		return errSAMLReplay
	}
	return err
}

// samlExpiry is the last moment the assertion could be accepted: the
// latest of its NotOnOrAfter times (an hour from now if it has none).
func samlExpiry(as *saml.Assertion, now time.Time) time.Time {
	var last time.Time
	if as.Conditions != nil && as.Conditions.NotOnOrAfter.After(last) {
		last = as.Conditions.NotOnOrAfter
	}
	if as.Subject != nil {
		for _, sc := range as.Subject.SubjectConfirmations {
			if d := sc.SubjectConfirmationData; d != nil && d.NotOnOrAfter.After(last) {
				last = d.NotOnOrAfter
			}
		}
	}
	if last.IsZero() {
		return now.Add(time.Hour)
	}
	return last
}

// Attribute names (Name or FriendlyName) that carry an email address and a
// display name, as identity providers spell them.
var (
	samlEmailAttributes = []string{"email", "mail", "emailaddress", "urn:oid:0.9.2342.19200300.100.1.3",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress"}
	samlNameAttributes = []string{"displayname", "name", "urn:oid:2.16.840.1.113730.3.1.241",
		"http://schemas.microsoft.com/identity/claims/displayname",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name", "cn", "urn:oid:2.5.4.3"}
)

// samlIdentity is the verified assertion's email (lower-cased; "" for
// none) and display name ("" for none): the NameID when its format is
// emailAddress, else an email attribute, else a NameID of unspecified
// format that is an address.
func samlIdentity(as *saml.Assertion) (email, name string) {
	attr := func(names []string) string {
		for _, want := range names {
			for _, st := range as.AttributeStatements {
				for _, at := range st.Attributes {
					if (strings.EqualFold(at.Name, want) || strings.EqualFold(at.FriendlyName, want)) && len(at.Values) > 0 {
						if v := strings.TrimSpace(at.Values[0].Value); v != "" {
							return v
						}
					}
				}
			}
		}
		return ""
	}
	var nameID *saml.NameID
	if as.Subject != nil {
		nameID = as.Subject.NameID
	}
	switch {
	case nameID != nil && nameID.Format == string(saml.EmailAddressNameIDFormat):
		email = nameID.Value
	case attr(samlEmailAttributes) != "":
		email = attr(samlEmailAttributes)
	case nameID != nil && (nameID.Format == "" || nameID.Format == string(saml.UnspecifiedNameIDFormat)):
		email = nameID.Value
	}
	email = strings.ToLower(strings.TrimSpace(email))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 320 {
		email = ""
	}
	name = cutBytes(attr(samlNameAttributes), 255)
	return email, name
}

// samlUser is the user with email, made now (created) when there is none.
func samlUser(ctx context.Context, tx *ent.Client, email, name string) (u *ent.User, created bool, err error) {
	u, err = tx.User.Query().Where(user.Email(email)).Only(ctx)
	if err == nil || !ent.IsNotFound(err) {
		return u, false, err
	}
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	u, err = tx.User.Create().SetEmail(email).SetDisplayName(name).SetEmailVerified(true).Save(ctx)
	if ent.IsConstraintError(err) {
		// Made by another sign-in at the same time: that one wins.
		return nil, false, apperr.Conflictf("this account was just created by another sign-in: sign in again")
	}
	if err != nil {
		return nil, false, entError(err)
	}
	record(ctx, events.Event{Action: events.UserCreated, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName}})
	return u, true, nil
}

// samlMembership makes a new user (created) a member of p's organization
// with p's default role and in its default team; an existing user must
// already be an enabled member (see the rules at the top). joined tells
// whether a membership was made.
func (r *Resolver) samlMembership(ctx context.Context, tx *ent.Client, p *ent.SAMLProvider, u *ent.User, created bool) (joined bool, err error) {
	m, err := tx.Member.Query().Where(member.OrganizationID(p.OrganizationID), member.UserID(u.ID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return false, err
	}
	switch {
	case m != nil && m.Disabled:
		return false, errSAMLDisabled
	case m != nil:
		return false, nil
	case !created:
		return false, errSAMLNotMember
	}
	role := access.Read
	if p.DefaultRole != nil && p.DefaultRole.Valid() {
		role = *p.DefaultRole
	}
	if _, err := tx.Member.Create().SetOrganizationID(p.OrganizationID).SetUserID(u.ID).SetRole(role).SetSSO(true).Save(ctx); err != nil {
		return false, entError(err)
	}
	record(ctx, memberEvent(events.MemberJoined, p.OrganizationID, u.ID, map[string]any{"userId": u.ID, "role": string(role)}))
	if p.DefaultTeamID == nil {
		return true, nil
	}
	t, err := tx.Team.Query().Where(team.ID(*p.DefaultTeamID), team.OrganizationID(p.OrganizationID)).Only(ctx)
	if ent.IsNotFound(err) {
		// The team went after the provider was configured.
		return true, nil
	}
	if err != nil {
		return false, err
	}
	tm, err := tx.TeamMember.Create().SetTeamID(t.ID).SetUserID(u.ID).SetRole(teammember.RoleMember).Save(ctx)
	if err != nil {
		return false, entError(err)
	}
	record(ctx, teamEvent(events.TeamMemberAdded, t, map[string]any{"teamId": t.ID, "userId": u.ID, "role": string(tm.Role)}))
	return true, nil
}

// PurgeExpiredSAMLAssertions deletes the remembered ids of assertions past
// their expiry (those of deleted providers too): maintenance, recording
// nothing (an expired assertion is refused by its own dates).
func (r *Resolver) PurgeExpiredSAMLAssertions(ctx context.Context) error {
	_, err := r.Client.SAMLAssertion.Delete().Where(samlassertion.ExpiresAtLT(clock.Now())).
		Exec(events.Exempt(ctx, events.ExemptMaintenance))
	return err
}
