package graph

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	entsql "entgo.io/ent/dialect/sql"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/oauthgrant"
	"github.com/folio/folio/ent/oauthrefreshtoken"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// OAuth 2.1 authorization for tools (README: OAuth for tools): a user
// consents on Folio's page, the tool exchanges the code (with PKCE S256)
// for an access token, which is an API token of the user's bound to the
// client and the grant, and a refresh token, rotated at each use. Revoking
// any of them ends the grant: its access and refresh tokens together.

// OAuthSettings bound the tokens (FOLIO_OAUTH_ACCESS_LIFETIME,
// FOLIO_OAUTH_REFRESH_LIFETIME); zero durations are the defaults.
type OAuthSettings struct {
	AccessLifetime, RefreshLifetime time.Duration
}

// Default OAuth token lifetimes, and the authorization code's.
const (
	DefaultOAuthAccessLifetime  = time.Hour
	DefaultOAuthRefreshLifetime = 720 * time.Hour
	OAuthCodeLifetime           = 60 * time.Second
)

// OAuthScope is the scope every grant has: the token acts as its user,
// reading and writing what they may. Requested scopes are accepted and
// ignored (tools always send one).
const OAuthScope = "read write"

// OAuthScopes are the scopes the metadata lists.
var OAuthScopes = []string{"read", "write"}

func (s OAuthSettings) access() time.Duration {
	if s.AccessLifetime > 0 {
		return s.AccessLifetime
	}
	return DefaultOAuthAccessLifetime
}

func (s OAuthSettings) refresh() time.Duration {
	if s.RefreshLifetime > 0 {
		return s.RefreshLifetime
	}
	return DefaultOAuthRefreshLifetime
}

// OAuthAccessLifetime is how long an access token authenticates.
func (r *Resolver) OAuthAccessLifetime() time.Duration { return r.OAuthSettings.access() }

// AuthorizeRequest is an authorization request's parameters (RFC 6749
// 4.1.1 with PKCE, RFC 7636 4.3).
type AuthorizeRequest struct {
	ClientID, RedirectURI, ResponseType string
	CodeChallenge, CodeChallengeMethod  string
	State, Scope                        string
}

// AuthorizeCheck is a checked request: its client, and where to send the
// browser back (the request's redirect URI, or the client's only one).
type AuthorizeCheck struct {
	Client      *ent.OAuthClient
	RedirectURI string
}

// CheckAuthorization checks an authorization request. A client or redirect
// URI that is not known is an apperr (the page shows it: the browser is
// never sent to an unverified URI); any other refusal is an *OAuthError
// returned with the check, to send to the redirect URI.
func (r *Resolver) CheckAuthorization(ctx context.Context, q AuthorizeRequest) (*AuthorizeCheck, error) {
	c, err := r.oauthClient(ctx, q.ClientID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, apperr.InvalidField("client_id", "no registered client has this id")
	}
	redirect := q.RedirectURI
	if redirect == "" && len(c.RedirectUris) == 1 {
		redirect = c.RedirectUris[0]
	}
	if !redirectMatches(c.RedirectUris, redirect) {
		return nil, apperr.InvalidField("redirect_uri", "not a redirect URI this client registered")
	}
	check := &AuthorizeCheck{Client: c, RedirectURI: redirect}
	switch {
	case q.ResponseType != "code":
		return check, oauthErr("unsupported_response_type", "response_type: only code")
	case q.CodeChallenge == "":
		return check, oauthErr("invalid_request", "code_challenge: required (PKCE with S256)")
	case q.CodeChallengeMethod != "S256":
		return check, oauthErr("invalid_request", "code_challenge_method: only S256")
	case !pkceString(q.CodeChallenge, 43, 43):
		return check, oauthErr("invalid_request", "code_challenge: the base64url SHA-256 of the verifier (43 characters)")
	case len(q.State) > 1024 || len(q.Scope) > 1024:
		return check, oauthErr("invalid_request", "state and scope: at most 1024 bytes")
	}
	return check, nil
}

// pkceString tells whether s is min to max characters of RFC 7636's
// unreserved set (verifiers; challenges are base64url, a subset).
func pkceString(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// ApproveAuthorization is the viewer's consent to a checked request: a new
// grant with a single-use code, short-lived, bound to the client, the
// redirect URI, the viewer and the PKCE challenge. It answers the code
// (only its hash is stored).
func (r *Resolver) ApproveAuthorization(ctx context.Context, q AuthorizeRequest) (string, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return "", err
	}
	check, err := r.CheckAuthorization(ctx, q)
	if err != nil {
		return "", err
	}
	code, hash := auth.NewSessionSecret()
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		g, err := tx.OAuthGrant.Create().SetClientID(check.Client.ID).SetUserID(u.ID).SetScope(OAuthScope).
			SetCodeHash(hash).SetRedirectURI(check.RedirectURI).SetCodeChallenge(q.CodeChallenge).
			SetCodeExpiresAt(clock.Now().Add(OAuthCodeLifetime)).Save(ctx)
		if err != nil {
			return entError(err)
		}
		record(ctx, events.Event{Action: events.OAuthGrantAuthorized, Target: events.Target{Type: "oauth-client", ID: check.Client.ID, Label: check.Client.Name},
			Payload: map[string]any{"clientId": check.Client.ID, "clientName": check.Client.Name, "grantId": g.ID, "userId": u.ID, "scope": OAuthScope}})
		return nil
	})
	return code, err
}

// OAuthTokens is a token endpoint's answer (RFC 6749 5.1).
type OAuthTokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

var errInvalidGrant = oauthErr("invalid_grant", "the code or refresh token is unknown, expired, used, or not this client's")

// clientContext is ctx for the writes a client makes at the token and
// revocation endpoints: the client acts (for its user).
func clientContext(ctx context.Context, c *ent.OAuthClient) context.Context {
	return events.WithOrigin(ctx, events.Origin{Source: events.SourceAPI,
		Actor: events.Actor{Type: events.ActorIntegration, ID: c.ID, Label: c.Name}})
}

// tokenClient is the client a token request names (invalid_client if none).
func (r *Resolver) tokenClient(ctx context.Context, clientID string) (*ent.OAuthClient, error) {
	c, err := r.oauthClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, oauthErr("invalid_client", "client_id: no registered client has this id")
	}
	return c, nil
}

// ExchangeOAuthCode is grant_type=authorization_code: the code, for the
// client it was issued to, with the same redirect URI and the verifier of
// its challenge, gives tokens once. A second exchange of a code revokes
// what the first one issued.
func (r *Resolver) ExchangeOAuthCode(ctx context.Context, clientID, code, redirectURI, verifier string) (*OAuthTokens, error) {
	c, err := r.tokenClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	if code == "" || len(code) > 256 {
		return nil, errInvalidGrant
	}
	ctx = clientContext(ctx, c)
	g, err := r.Client.OAuthGrant.Query().Where(oauthgrant.CodeHash(auth.HashToken(code))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errInvalidGrant
	}
	if err != nil {
		return nil, err
	}
	if g.ClientID != c.ID {
		return nil, errInvalidGrant
	}
	if g.CodeUsedAt != nil {
		return nil, r.revokeReused(ctx, g, "code reused")
	}
	if !g.CodeExpiresAt.After(clock.Now()) {
		return nil, errInvalidGrant
	}
	if redirectURI != g.RedirectURI {
		return nil, oauthErr("invalid_grant", "redirect_uri: not the one of the authorization request")
	}
	if !pkceString(verifier, 43, 128) {
		return nil, oauthErr("invalid_grant", "code_verifier: 43 to 128 characters of [A-Za-z0-9-._~]")
	}
	sum := sha256.Sum256([]byte(verifier))
	if subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(g.CodeChallenge)) != 1 {
		return nil, oauthErr("invalid_grant", "code_verifier: does not match the code_challenge")
	}
	var out *OAuthTokens
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// One exchange wins: a concurrent one finds the code used.
		n, err := tx.OAuthGrant.Update().Where(oauthgrant.ID(g.ID), oauthgrant.CodeUsedAtIsNil()).SetCodeUsedAt(clock.Now()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errInvalidGrant
		}
		out, err = r.issueOAuthTokens(ctx, tx, c, g, "authorization_code")
		return err
	})
	return out, err
}

// issueOAuthTokens makes the grant's access token (an API token of its
// user, named after the client) and a refresh token.
func (r *Resolver) issueOAuthTokens(ctx context.Context, tx *ent.Client, c *ent.OAuthClient, g *ent.OAuthGrant, grantType string) (*OAuthTokens, error) {
	now := clock.Now()
	access, accessHash := auth.NewToken()
	refresh, refreshHash := auth.NewSessionSecret()
	t, err := tx.APIToken.Create().SetUserID(g.UserID).SetHash(accessHash).SetName(cutBytes(c.Name, 255)).
		SetExpiresAt(now.Add(r.OAuthSettings.access())).SetOauthClientID(c.ID).SetOauthGrantID(g.ID).Save(ctx)
	if err != nil {
		return nil, entError(err)
	}
	if err := tx.OAuthRefreshToken.Create().SetGrantID(g.ID).SetHash(refreshHash).
		SetExpiresAt(now.Add(r.OAuthSettings.refresh())).Exec(ctx); err != nil {
		return nil, entError(err)
	}
	record(ctx, events.Event{Action: events.OAuthTokenIssued, Target: events.Target{Type: "api-token", ID: t.ID, Label: t.Name},
		Payload: map[string]any{"clientId": c.ID, "grantId": g.ID, "userId": g.UserID, "grantType": grantType}})
	return &OAuthTokens{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(r.OAuthSettings.access() / time.Second),
		RefreshToken: refresh, Scope: g.Scope}, nil
}

// RefreshOAuthToken is grant_type=refresh_token: the refresh token is
// rotated (it stops working; a new one comes with the answer) and the
// grant's access token replaced. A rotated refresh token used again is a
// copy in someone else's hands: the whole grant is revoked.
func (r *Resolver) RefreshOAuthToken(ctx context.Context, clientID, refresh string) (*OAuthTokens, error) {
	c, err := r.tokenClient(ctx, clientID)
	if err != nil {
		return nil, err
	}
	if refresh == "" || len(refresh) > 256 {
		return nil, errInvalidGrant
	}
	ctx = clientContext(ctx, c)
	rt, err := r.Client.OAuthRefreshToken.Query().Where(oauthrefreshtoken.Hash(auth.HashToken(refresh))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, errInvalidGrant
	}
	if err != nil {
		return nil, err
	}
	g, err := r.Client.OAuthGrant.Get(ctx, rt.GrantID)
	if ent.IsNotFound(err) {
		return nil, errInvalidGrant
	}
	if err != nil {
		return nil, err
	}
	if g.ClientID != c.ID {
		return nil, errInvalidGrant
	}
	if rt.UsedAt != nil {
		return nil, r.revokeReused(ctx, g, "refresh token reused")
	}
	if !rt.ExpiresAt.After(clock.Now()) {
		return nil, errInvalidGrant
	}
	var out *OAuthTokens
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.OAuthRefreshToken.Update().Where(oauthrefreshtoken.ID(rt.ID), oauthrefreshtoken.UsedAtIsNil()).
			SetUsedAt(clock.Now()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errInvalidGrant
		}
		// The grant's earlier access token ends: one live token per grant.
		if _, err := tx.APIToken.Delete().Where(apitoken.OauthGrantID(g.ID)).Exec(ctx); err != nil {
			return err
		}
		out, err = r.issueOAuthTokens(ctx, tx, c, g, "refresh_token")
		return err
	})
	return out, err
}

// RevokeOAuthToken is RFC 7009's revocation: token is an access or a
// refresh token of clientID's; its grant ends. An unknown token, or
// another client's, changes nothing and is no error (the endpoint always
// answers 200).
func (r *Resolver) RevokeOAuthToken(ctx context.Context, clientID, token string) error {
	c, err := r.tokenClient(ctx, clientID)
	if err != nil {
		return err
	}
	if token == "" || len(token) > 256 {
		return nil
	}
	hash := auth.HashToken(token)
	grantID := ""
	if rt, err := r.Client.OAuthRefreshToken.Query().Where(oauthrefreshtoken.Hash(hash)).Only(ctx); err == nil {
		grantID = rt.GrantID
	} else if !ent.IsNotFound(err) {
		return err
	}
	if grantID == "" {
		t, err := r.Client.APIToken.Query().Where(apitoken.Hash(hash), apitoken.OauthGrantIDNotNil()).Only(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		grantID = *t.OauthGrantID
	}
	g, err := r.Client.OAuthGrant.Get(ctx, grantID)
	if ent.IsNotFound(err) || (err == nil && g.ClientID != c.ID) {
		return nil
	}
	if err != nil {
		return err
	}
	return r.write(clientContext(ctx, c), func(ctx context.Context, tx *ent.Client) error {
		return revokeGrant(ctx, tx, g, "revoked by the client")
	})
}

// revokeGrant ends a grant in tx: its access tokens, its refresh tokens
// and itself, recording it once.
func revokeGrant(ctx context.Context, tx *ent.Client, g *ent.OAuthGrant, reason string) error {
	if _, err := tx.APIToken.Delete().Where(apitoken.OauthGrantID(g.ID)).Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.OAuthRefreshToken.Delete().Where(oauthrefreshtoken.GrantID(g.ID)).Exec(ctx); err != nil {
		return err
	}
	n, err := tx.OAuthGrant.Delete().Where(oauthgrant.ID(g.ID)).Exec(ctx)
	if err != nil || n == 0 {
		return err
	}
	record(ctx, events.Event{Action: events.OAuthGrantRevoked, Target: events.Target{Type: "oauth-grant", ID: g.ID},
		Payload: map[string]any{"clientId": g.ClientID, "grantId": g.ID, "userId": g.UserID, "reason": reason}})
	return nil
}

// purgeEndedOAuth deletes what no longer authorizes anything: grants whose
// code ended unused, rotated or expired refresh tokens past their life,
// expired access tokens of grants, and grants left with no refresh token
// (maintenance).
func (r *Resolver) purgeEndedOAuth(ctx context.Context) error {
	now := clock.Now()
	if _, err := r.Client.OAuthRefreshToken.Delete().Where(oauthrefreshtoken.ExpiresAtLTE(now)).Exec(ctx); err != nil {
		return err
	}
	if _, err := r.Client.APIToken.Delete().Where(apitoken.OauthGrantIDNotNil(), apitoken.ExpiresAtLTE(now)).Exec(ctx); err != nil {
		return err
	}
	if _, err := r.Client.OAuthGrant.Delete().Where(oauthgrant.CodeUsedAtIsNil(), oauthgrant.CodeExpiresAtLTE(now)).Exec(ctx); err != nil {
		return err
	}
	// A grant whose code was used and whose refresh tokens all ended
	// gives nothing any more.
	_, err := r.Client.OAuthGrant.Delete().Where(oauthgrant.CodeUsedAtNotNil(), func(s *entsql.Selector) {
		s.Where(entsql.NotIn(s.C(oauthgrant.FieldID),
			entsql.Select(oauthrefreshtoken.FieldGrantID).From(entsql.Table(oauthrefreshtoken.Table))))
	}).Exec(ctx)
	return err
}

// revokeReused ends grant g because a code or refresh token of it was used
// again (a sign it leaked: RFC 9700), and answers invalid_grant.
func (r *Resolver) revokeReused(ctx context.Context, g *ent.OAuthGrant, reason string) error {
	if err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		return revokeGrant(ctx, tx, g, reason)
	}); err != nil {
		return err
	}
	return errInvalidGrant
}
