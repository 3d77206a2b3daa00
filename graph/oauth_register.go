package graph

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/ratecounter"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// OAuth dynamic client registration (RFC 7591) for tools on the user's
// machine: public clients (no secret, PKCE instead) whose redirect URIs are
// loopback addresses (RFC 8252 7.3). Anyone may register; a client gets
// nothing until a signed-in user consents, so the limits only keep the
// table small: per client address, in the rate_counters windows every
// instance shares (sessions.go: bumpCounter).
const (
	MaxOAuthClientName      = 100
	MaxOAuthRedirectURIs    = 10
	MaxOAuthRedirectURI     = 2048
	MaxRegistrationsPerAddr = 20
	// OAuthRegistrationWindow is the window of MaxRegistrationsPerAddr:
	// the sign-in window, which the periodic purge also ends.
	OAuthRegistrationWindow = SignInWindow
)

// OAuthError is a refusal in OAuth's terms (RFC 6749 5.2, RFC 7591 3.2.2):
// Code is the error code, Description a sentence for the developer.
type OAuthError struct {
	Code, Description string
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthErr(code, description string) *OAuthError {
	return &OAuthError{Code: code, Description: description}
}

// ClientRegistration is the metadata a client registers with (the fields
// Folio reads; others are ignored, as RFC 7591 2 allows).
type ClientRegistration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
}

// RegisteredClient is the answer to a registration (RFC 7591 3.2.1).
type RegisteredClient struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// Grant and response types Folio's clients may use.
var (
	oauthGrantTypes    = []string{"authorization_code", "refresh_token"}
	oauthResponseTypes = []string{"code"}
)

// ErrTooManyRegistrations refuses a registration from an address that
// registered MaxRegistrationsPerAddr clients in the window.
var ErrTooManyRegistrations = oauthErr("too_many_requests", "too many client registrations from this address: try again later")

func registrationKey(ip string) string { return "oauth-register:addr:" + ip }

// RegisterOAuthClient checks c and stores it as a new public client,
// counting the registration against ip. Bad metadata changes nothing.
func (r *Resolver) RegisterOAuthClient(ctx context.Context, c ClientRegistration, ip string) (*RegisteredClient, error) {
	name := strings.TrimSpace(c.ClientName)
	if name == "" || utf8.RuneCountInString(name) > MaxOAuthClientName || strings.ContainsAny(name, "\r\n\t") || !utf8.ValidString(name) {
		return nil, oauthErr("invalid_client_metadata", "client_name: one line of 1 to 100 characters")
	}
	if m := c.TokenEndpointAuthMethod; m != "" && m != "none" {
		return nil, oauthErr("invalid_client_metadata", "token_endpoint_auth_method: only \"none\" (public clients with PKCE)")
	}
	if !subset(c.GrantTypes, oauthGrantTypes) {
		return nil, oauthErr("invalid_client_metadata", "grant_types: only authorization_code and refresh_token")
	}
	if !subset(c.ResponseTypes, oauthResponseTypes) {
		return nil, oauthErr("invalid_client_metadata", "response_types: only code")
	}
	if len(c.RedirectURIs) == 0 || len(c.RedirectURIs) > MaxOAuthRedirectURIs {
		return nil, oauthErr("invalid_redirect_uri", "redirect_uris: 1 to 10 loopback URIs")
	}
	for _, u := range c.RedirectURIs {
		if !loopbackRedirect(u) {
			return nil, oauthErr("invalid_redirect_uri", "redirect_uris: only loopback addresses over http (http://127.0.0.1:<port>/..., http://[::1]:<port>/..., http://localhost:<port>/...)")
		}
	}
	key := registrationKey(ip)
	now := clock.Now()
	n, err := r.Client.RateCounter.Query().
		Where(ratecounter.Key(key), ratecounter.WindowStartGT(now.Add(-OAuthRegistrationWindow)), ratecounter.CountGTE(MaxRegistrationsPerAddr)).
		Count(ctx)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		// Telemetry: how many registrations the limit refused.
		err := r.Client.RateCounter.Update().Where(ratecounter.Key(key)).AddRefused(1).Exec(events.Exempt(ctx, events.ExemptRate))
		if err != nil {
			return nil, err
		}
		return nil, ErrTooManyRegistrations
	}
	// No user acts: the registration endpoint does.
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceAPI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "oauth-register", Label: "OAuth client registration"}})
	var out *ent.OAuthClient
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := bumpCounter(ctx, tx, key); err != nil {
			return err
		}
		var err error
		out, err = tx.OAuthClient.Create().SetName(name).SetRedirectUris(c.RedirectURIs).SetIP(cutBytes(ip, 64)).Save(ctx)
		if err != nil {
			return entError(err)
		}
		record(ctx, events.Event{Action: events.OAuthClientRegistered, Target: events.Target{Type: "oauth-client", ID: out.ID, Label: out.Name},
			Payload: map[string]any{"clientId": out.ID, "clientName": out.Name}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &RegisteredClient{ClientID: out.ID, ClientIDIssuedAt: out.CreatedAt.Unix(), ClientName: out.Name,
		RedirectURIs: out.RedirectUris, GrantTypes: oauthGrantTypes, ResponseTypes: oauthResponseTypes,
		TokenEndpointAuthMethod: "none"}, nil
}

func subset(got, allowed []string) bool {
	for _, g := range got {
		ok := false
		for _, a := range allowed {
			ok = ok || g == a
		}
		if !ok {
			return false
		}
	}
	return true
}

// loopbackRedirect tells whether raw is an http URI on the machine's
// loopback interface, the only redirect a native public client may have
// here: no other site can receive a code meant for it.
func loopbackRedirect(raw string) bool {
	if len(raw) > MaxOAuthRedirectURI {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	switch h := u.Hostname(); {
	case h == "localhost":
		return true
	default:
		ip := net.ParseIP(h)
		return ip != nil && ip.IsLoopback() && (h == "::1" || strings.HasPrefix(h, "127."))
	}
}

// redirectMatches tells whether requested is one of a client's registered
// redirect URIs; loopback URIs match whatever their port (RFC 8252 7.3:
// the tool listens on a port it picks each time).
func redirectMatches(registered []string, requested string) bool {
	if !loopbackRedirect(requested) {
		return false
	}
	q, _ := url.Parse(requested)
	for _, reg := range registered {
		g, err := url.Parse(reg)
		if err != nil {
			continue
		}
		if g.Scheme == q.Scheme && strings.EqualFold(g.Hostname(), q.Hostname()) && g.EscapedPath() == q.EscapedPath() && g.RawQuery == q.RawQuery {
			return true
		}
	}
	return false
}

// oauthClient is a registered client ("" or unknown: nil).
func (r *Resolver) oauthClient(ctx context.Context, id string) (*ent.OAuthClient, error) {
	if id == "" || len(id) > 64 {
		return nil, nil
	}
	c, err := r.Client.OAuthClient.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return c, err
}
