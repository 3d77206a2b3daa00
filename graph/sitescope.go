package graph

import (
	"context"
	"time"
)

// A site-scoped read token (issue 29) is what resolving a published URL
// hands a renderer (PublishedSiteContent.apiToken): it reads only that
// site's published content, for at most an hour, as the visitor whose
// claims it carries, and, when the URL was a change-request or revision
// preview opened by a signed-in member, that change request or revision
// too. A request it authenticates runs with no user (viewerUser refuses
// it) and this scope in its context; the guards consult it, so every read
// of spaces, revisions and pages answers for it as for that visitor, and
// every write is refused.

// SiteScope is what a site-scoped read token allows.
type SiteScope struct {
	OrganizationID string
	SiteID         string
	// Claims are the visitor's (adaptive content and visitor-auth), the
	// ones the URL was resolved with.
	Claims map[string]any
	// ChangeRequestID and RevisionID name a preview the token may also
	// read ("" when the URL was not one).
	SpaceID         string
	ChangeRequestID string
	RevisionID      string
	ExpiresAt       time.Time
	// res reads the site's published view for the guards (set when the
	// token is verified).
	res *Resolver
}

type siteScopeKey struct{}

// WithSiteScope is ctx authenticated by a site-scoped token.
func WithSiteScope(ctx context.Context, s *SiteScope) context.Context {
	return context.WithValue(ctx, siteScopeKey{}, s)
}

// siteScopeOf is the scope of a request a site-scoped token authenticated;
// nil for any other caller.
func siteScopeOf(ctx context.Context) *SiteScope {
	s, _ := ctx.Value(siteScopeKey{}).(*SiteScope)
	return s
}
