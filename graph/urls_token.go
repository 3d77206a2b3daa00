package graph

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/secrets"
)

// The site-scoped read token (issue 29): what resolving a published URL
// hands the renderer as `apiToken`. It is stateless, so every instance
// verifies it with nothing but the installation's secret key:
//
//	folio_site_<base64url of the JSON scope>.<HMAC-SHA256 of that text>
//
// The MAC is the secrets package's lookup HMAC (a key derived from
// FOLIO_SECRET_KEY, the same key that seals secrets at rest) under an area
// of its own, so it can be confused with no other lookup value. The scope
// is readable by whoever holds the token, like a JWT's claims: it holds
// ids, the visitor's claims (which the holder sent) and the expiry, never
// a secret. Rotating the secret key voids every token (they last an hour).

// SiteTokenPrefix starts every site-scoped read token: Authenticate tells
// them from API tokens (folio_…) by it, and secret scanners can too.
const SiteTokenPrefix = "folio_site_"

// SiteTokenLifetime is how long a site-scoped read token lasts.
const SiteTokenLifetime = time.Hour

// siteTokenArea keys the token's MAC apart from every other lookup hash.
const siteTokenArea = "site-scoped read token v1"

// siteTokenBody is the scope as the token carries it.
type siteTokenBody struct {
	Org           string         `json:"org"`
	Site          string         `json:"site"`
	Claims        map[string]any `json:"claims,omitempty"`
	Space         string         `json:"space,omitempty"`
	ChangeRequest string         `json:"cr,omitempty"`
	Revision      string         `json:"rev,omitempty"`
	// Exp is the expiry in milliseconds since the epoch (internal/clock's
	// precision, so tests that move the clock see it expire exactly).
	Exp int64 `json:"exp"`
}

// issueSiteToken is the token of scope sc (its ExpiresAt set by the
// caller, at most SiteTokenLifetime away).
func (r *Resolver) issueSiteToken(sc *SiteScope) string {
	raw, _ := json.Marshal(siteTokenBody{Org: sc.OrganizationID, Site: sc.SiteID, Claims: sc.Claims, Space: sc.SpaceID,
		ChangeRequest: sc.ChangeRequestID, Revision: sc.RevisionID, Exp: sc.ExpiresAt.UnixMilli()})
	body := base64.RawURLEncoding.EncodeToString(raw)
	return SiteTokenPrefix + body + "." + r.siteTokenMAC(body)
}

// siteTokenMAC is the HMAC of a token's body: the lookup hash's digest
// alone (its "h1:<key id>:" prefix says nothing the verifier needs).
func (r *Resolver) siteTokenMAC(body string) string {
	l := r.Secrets.Lookup(siteTokenArea, body)
	return l[strings.LastIndexByte(l, ':')+1:]
}

// IsSiteToken tells a site-scoped read token from an API token.
func IsSiteToken(token string) bool { return strings.HasPrefix(token, SiteTokenPrefix) }

// verifySiteToken is the scope a token carries; a token that was changed,
// made with another key or has expired is a 401.
func (r *Resolver) verifySiteToken(token string) (*SiteScope, error) {
	bad := apperr.Unauthenticatedf("invalid site token: it was altered, made with another key, or is not one")
	rest, ok := strings.CutPrefix(token, SiteTokenPrefix)
	body, mac, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || !secrets.Equal(mac, r.siteTokenMAC(body)) {
		return nil, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var b siteTokenBody
	if err != nil || json.Unmarshal(raw, &b) != nil || b.Site == "" || b.Org == "" {
		return nil, bad
	}
	exp := time.UnixMilli(b.Exp).UTC()
	if !clock.Now().Before(exp) {
		return nil, apperr.Unauthenticatedf("expired site token: resolve the published URL again for a new one")
	}
	if b.Claims == nil {
		b.Claims = map[string]any{}
	}
	return &SiteScope{OrganizationID: b.Org, SiteID: b.Site, Claims: b.Claims, SpaceID: b.Space,
		ChangeRequestID: b.ChangeRequest, RevisionID: b.Revision, ExpiresAt: exp, res: r}, nil
}

// siteTokenContext is ctx for a request a site-scoped token authenticated:
// no user (viewerUser refuses it), a published-site reader's loaders that
// read the token's site as its audience with the token's claims, the scope
// for the guards, and writes' events (there are none: every guard refuses)
// from the token.
func (r *Resolver) siteTokenContext(ctx context.Context, token string) (context.Context, error) {
	sc, err := r.verifySiteToken(token)
	if err != nil {
		return ctx, err
	}
	ctx = r.ReaderContext(ctx)
	sc.readAsAudience(ctx)
	ctx = WithSiteScope(ctx, sc)
	return events.WithOrigin(ctx, events.Origin{Source: events.SourceAPI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "site-token:" + sc.SiteID, Label: "Site-scoped read token"}}), nil
}

// readAsAudience records in the request's loaders (which a request may
// replace: loader.Solo) that it reads the scope's site as its audience,
// with the scope's claims: every field of the site, its sections and site
// spaces then answers as that visitor sees it (sites_published.go).
func (sc *SiteScope) readAsAudience(ctx context.Context) {
	claims, _ := json.Marshal(sc.Claims)
	sum := sha256.Sum256(append([]byte("site token\x00"), claims...))
	loader.For(ctx).ReadAsAudience(sc.SiteID, &loader.Audience{Claims: sc.Claims, State: "site-token:" + hex.EncodeToString(sum[:12])})
}

// siteScopeAllows says whether the request is authenticated by a
// site-scoped token of site siteID: site-level operations of the published
// site (search, insights events) call it to let the renderer in. Requests
// of other callers answer false, and go through their own guards.
func siteScopeAllows(ctx context.Context, siteID string) bool {
	sc := siteScopeOf(ctx)
	return sc != nil && siteID != "" && sc.SiteID == siteID
}

// scopeSiteRole is the role a site-scoped request has on site s: read on
// its own site while it is published (as its audience: loader.Audience was
// recorded when the token was verified), none on any other.
func scopeSiteRole(ctx context.Context, sc *SiteScope, s *ent.Site) *access.Role {
	if sc.SiteID != s.ID || sc.OrganizationID != s.OrganizationID || !s.Published {
		return nil
	}
	sc.readAsAudience(ctx)
	read := access.Read
	return &read
}

// scopeSpaceRole is the role a site-scoped request has on space s: read
// (never more) when s is the space of a site space of the token's site
// that the token's visitor sees (published, conditions over its claims as
// the reader applies them); none otherwise, so every read of any other
// space is a 404 and every write a 403 or 404.
func scopeSpaceRole(ctx context.Context, sc *SiteScope, s *ent.Space) (*access.Role, error) {
	if s.OrganizationID != sc.OrganizationID || s.DeletedAt != nil {
		return nil, nil
	}
	ok, err := scopeShowsSpace(ctx, sc, s.ID)
	if err != nil || !ok {
		return nil, err
	}
	// Read as published content: no counts of its activity, no word of
	// its organization (spaces.go).
	loader.For(ctx).ShowSpaceToAudience(s.ID)
	read := access.Read
	return &read, nil
}

// scopeShowsSpace says whether the token's site shows spaceID to the
// token's visitor.
func scopeShowsSpace(ctx context.Context, sc *SiteScope, spaceID string) (bool, error) {
	if sc.res == nil {
		return false, nil
	}
	s, err := loader.For(ctx).SiteByID.Load(ctx, sc.SiteID)()
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return false, nil
	}
	if err != nil || !s.Published {
		return false, err
	}
	// The view of the token's visitor, whatever the request's loaders
	// recorded: the structure comes from them, the claims from the token.
	ps, err := sc.res.publishedStructure(ctx, s)
	if err != nil {
		return false, err
	}
	v := published.NewView(ps, "", sc.Claims)
	for _, ss := range v.SpacesOf(nil) {
		if ss.SpaceID == spaceID {
			return true, nil
		}
	}
	for _, sec := range v.Sections() {
		for _, ss := range v.SpacesOf(sec) {
			if ss.SpaceID == spaceID {
				return true, nil
			}
		}
	}
	return false, nil
}

// scopedChangeRequest refuses (404) a change request a site-scoped request
// may not read: any but the one whose preview URL the token was resolved
// from (by a member who could read it).
func scopedChangeRequest(ctx context.Context, cr *ent.ChangeRequest) error {
	sc := siteScopeOf(ctx)
	if sc == nil || (sc.ChangeRequestID != "" && cr.ID == sc.ChangeRequestID && cr.SpaceID == sc.SpaceID) {
		return nil
	}
	return apperr.NotFoundf("change request %s not found", cr.ID)
}

// scopedRevision refuses (404) a revision a site-scoped request may not
// read: it reads the live content of its site's spaces (their current
// revision), the revision it previews, and the current revision of the
// change request it previews; no other.
func scopedRevision(ctx context.Context, rev *ent.Revision) error {
	sc := siteScopeOf(ctx)
	if sc == nil || rev.ID == sc.RevisionID && rev.SpaceID == sc.SpaceID {
		return nil
	}
	notFound := apperr.NotFoundf("revision %s not found", rev.ID)
	l := loader.For(ctx)
	s, err := l.SpaceByID.Load(ctx, rev.SpaceID)()
	if err != nil {
		return notFound
	}
	if s.RevisionID == rev.ID {
		return nil
	}
	if sc.ChangeRequestID != "" && rev.SpaceID == sc.SpaceID {
		if cr, err := l.ChangeRequestByID.Load(ctx, sc.ChangeRequestID)(); err == nil && cr.RevisionID == rev.ID {
			return nil
		}
	}
	return notFound
}

// siteScopeHides refuses (404) what a site-scoped request never reads:
// what happens around published content (change-request lists, comments,
// history), named what and id for the message.
func siteScopeHides(ctx context.Context, what, id string) error {
	if siteScopeOf(ctx) != nil {
		return apperr.NotFoundf("%s %s not found", what, id)
	}
	return nil
}

// siteScopeUser is viewerUser's refusal of a site-scoped request: it acts
// as no user, so whatever needs one is forbidden to it (nil for others).
func siteScopeUser(ctx context.Context) error {
	if siteScopeOf(ctx) != nil {
		return apperr.Forbiddenf("a site-scoped read token acts as no user: it reads its site's published content and changes nothing")
	}
	return nil
}
