package graph

import (
	"context"
	"encoding/json"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/visitor"
)

// A published site's audience (anyone who reads it without being a member
// who can read the site) reads it through GraphQL under exactly the
// reader's rules: who may read it is internal/visitor's Decide (the
// reader's gate asks it too), which sections and site spaces exist for the
// visitor is internal/published's View over the visitor's claims (the
// reader's view), and pages come with the reader's navigation and renderer
// (sites_pages.go). publishedSite records the request as the site's
// audience in its loaders (loader.Audience); every field of a site, a
// section, a group and a site space then answers as the audience sees it.

// VisitorArgs are what a published site's visitor brings to GraphQL: the
// reader's ?shareKey=, ?jwt_token= and ?visitor.<name>= as arguments.
type VisitorArgs struct {
	ShareKey, VisitorToken *string
	// UnsignedClaims is the unsignedClaims argument: an object, or nil.
	UnsignedClaims any
}

func nonEmpty(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// PublishedSite is a site as its audience reads it: a published site
// whose visibility admits the visitor (public and unlisted to anyone,
// share-link with an active link's key, visitor-auth with a valid token),
// and any site (published or not, any visibility) to members who can read
// it, as members. Everyone else: 404.
func (r *Resolver) PublishedSite(ctx context.Context, orgID, siteID string, args VisitorArgs) (*ent.Site, error) {
	notFound := apperr.NotFoundf("site %s not found", siteID)
	shareKey, token := nonEmpty(args.ShareKey), nonEmpty(args.VisitorToken)
	if shareKey != "" || token != "" {
		// The answer (or the refusal) depends on a secret sent in the
		// query: no shared cache may keep it (graph/transport.go).
		loader.For(ctx).KeepPrivate()
	}
	s, err := loader.For(ctx).SiteByID.Load(ctx, siteID)()
	if e, ok := apperr.As(err); (ok && e.Kind == apperr.NotFound) || (err == nil && orgID != "" && s.OrganizationID != orgID) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	role, _, err := siteRole(ctx, s)
	if err != nil {
		return nil, err
	}
	if access.CanSeeSite(role) {
		return s, nil
	}
	if !s.Published || siteScopeOf(ctx) != nil { // a site token reads its own site alone
		return nil, notFound
	}
	creds := visitor.Credentials{}
	if token != "" {
		key, err := r.SiteAuthKey(s)
		if err != nil {
			return nil, err
		}
		creds.Signed = visitor.VerifyToken(key, token)
	}
	if s.Visibility == site.VisibilityShareLink && shareKey != "" {
		if creds.ShareKeyActive, err = r.SiteShareKeyActive(ctx, s.ID, shareKey); err != nil {
			return nil, err
		}
	}
	if visitor.Decide(s.Visibility.String(), creds) != visitor.Admitted {
		return nil, notFound
	}
	// Checked once the visitor is in: a stranger learns nothing, not even
	// that an argument was malformed.
	if args.UnsignedClaims != nil {
		obj, ok := args.UnsignedClaims.(map[string]any)
		if !ok {
			return nil, apperr.InvalidField("unsignedClaims", "must be an object of claims, such as {isBeta: true}")
		}
		creds.Unsigned = visitor.UnsignedFrom(SchemaOf(s), obj)
	}
	v := visitor.VisitorOf(s.Visibility.String(), creds)
	if !loader.For(ctx).ReadAsAudience(s.ID, &loader.Audience{Claims: v.Claims, State: v.State}) {
		return nil, apperr.Invalidf("site %s is read with other credentials or claims elsewhere in this request: a request reads a site as one visitor", siteID)
	}
	return s, nil
}

// readAnonymously records the request as an anonymous visitor of a site
// reached by id (node(id:) of a published page), unless the caller is a
// member who reads it as such. Public and unlisted published sites only;
// anything else is not found, and so is a site this request reads as
// another visitor (publishedSite with credentials or claims).
func (r *Resolver) readAnonymously(ctx context.Context, s *ent.Site) error {
	l := loader.For(ctx)
	role, _, err := siteRole(ctx, s)
	if err != nil || access.CanSeeSite(role) {
		return err
	}
	notFound := apperr.NotFoundf("site %s not found", s.ID)
	if !s.Published || siteScopeOf(ctx) != nil || visitor.Decide(s.Visibility.String(), visitor.Credentials{}) != visitor.Admitted {
		return notFound
	}
	v := visitor.VisitorOf(s.Visibility.String(), visitor.Credentials{})
	if !l.ReadAsAudience(s.ID, &loader.Audience{Claims: v.Claims, State: v.State}) {
		return notFound
	}
	return nil
}

// siteView is a site as the caller sees it, built once per request: its
// audience's view (conditions over the visitor's claims), or, for a
// member, everything. Addresses start at the site's absolute published
// root, those the APIs hand out.
func (r *Resolver) siteView(ctx context.Context, s *ent.Site) (*published.View, error) {
	l := loader.For(ctx)
	return l.SiteView(s.ID, func() (*published.View, error) {
		ps, err := r.publishedStructure(ctx, s)
		if err != nil {
			return nil, err
		}
		prefix := r.sitePath(siteName(s))
		if a := l.AudienceOf(s.ID); a != nil {
			return published.NewView(ps, prefix, a.Claims), nil
		}
		return published.MemberView(ps, prefix), nil
	})
}

// audienceView is the view of the site with this id when the request
// reads it as its audience; nil for members.
func (r *Resolver) audienceView(ctx context.Context, siteID string) (*published.View, error) {
	l := loader.For(ctx)
	if !l.ReadsAsAudience(siteID) {
		return nil, nil
	}
	s, err := l.SiteByID.Load(ctx, siteID)()
	if err != nil {
		return nil, err
	}
	return r.siteView(ctx, s)
}

// shownSections keeps the sections the audience sees (all for members).
func (r *Resolver) shownSections(ctx context.Context, siteID string, all []*ent.SiteSection) ([]*ent.SiteSection, error) {
	v, err := r.audienceView(ctx, siteID)
	if v == nil || err != nil {
		return all, err
	}
	out := []*ent.SiteSection{}
	for _, sec := range all {
		if v.ShowsSection(sec.ID) {
			out = append(out, sec)
		}
	}
	return out, nil
}

// shownSiteSpaces keeps the site spaces the audience sees: with content,
// shown by their condition and their section's (all for members).
func (r *Resolver) shownSiteSpaces(ctx context.Context, siteID string, all []*ent.SiteSpace) ([]*ent.SiteSpace, error) {
	v, err := r.audienceView(ctx, siteID)
	if v == nil || err != nil {
		return all, err
	}
	out := []*ent.SiteSpace{}
	for _, ss := range all {
		if _, _, ok := v.SiteSpace(ss.ID); ok {
			out = append(out, ss)
		}
	}
	return out, nil
}

// SectionCondition is a section's condition, for members only: the
// audience sees what the condition decided, never the condition.
func (r *Resolver) SectionCondition(ctx context.Context, sec *ent.SiteSection) *string {
	if loader.For(ctx).ReadsAsAudience(sec.SiteID) {
		return nil
	}
	return sec.Condition
}

// SiteSpaceCondition is a site space's condition, for members only.
func (r *Resolver) SiteSpaceCondition(ctx context.Context, ss *ent.SiteSpace) *string {
	if loader.For(ctx).ReadsAsAudience(ss.SiteID) {
		return nil
	}
	return ss.Condition
}

// SiteURLsFor are a site's addresses for the caller: its API location for
// members, its published address for its audience (the API answers them
// 404, and its address names the organization).
func (r *Resolver) SiteURLsFor(ctx context.Context, s *ent.Site) SiteURLs {
	if loader.For(ctx).ReadsAsAudience(s.ID) {
		if u := r.SitePublishedURL(s); u != nil {
			return SiteURLs{Location: *u, App: *u}
		}
	}
	return r.SiteURLsOf(s)
}

// SiteAdaptiveSchemaFor is a site's adaptive schema as the caller may see
// it: whole for members; for the audience, only the `unsigned` claims —
// the ones anyone may set (unsignedClaims) — and never the signed claims a
// site's backend puts in tokens.
func (r *Resolver) SiteAdaptiveSchemaFor(ctx context.Context, s *ent.Site) json.RawMessage {
	doc := json.RawMessage(SchemaOf(s).JSON())
	if !loader.For(ctx).ReadsAsAudience(s.ID) {
		return doc
	}
	var full struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	out := map[string]any{"type": "object", "properties": map[string]any{}}
	if json.Unmarshal(doc, &full) == nil {
		if u, ok := full.Properties["unsigned"]; ok {
			out["properties"] = map[string]json.RawMessage{"unsigned": u}
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// publishedSiteSpace is a site space as the caller sees it in its site's
// published view: for the audience, only one shown to them; for members,
// any whose space they can read. ok is false for a site space without
// content (nothing is published there).
func (r *Resolver) publishedSiteSpace(ctx context.Context, ss *ent.SiteSpace) (*ent.Site, *published.View, *published.Section, *published.SiteSpace, bool, error) {
	notFound := apperr.NotFoundf("site space %s not found", ss.ID)
	l := loader.For(ctx)
	s, err := l.SiteByID.Load(ctx, ss.SiteID)()
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	v, err := r.siteView(ctx, s)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	sec, pss, shown := v.SiteSpace(ss.ID)
	if l.ReadsAsAudience(s.ID) {
		if !shown {
			return nil, nil, nil, nil, false, notFound
		}
		return s, v, sec, pss, true, nil
	}
	// A member reads what the site shows of spaces they can read.
	sp, err := r.SiteSpaceSpace(ctx, ss)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	if sp == nil {
		return nil, nil, nil, nil, false, notFound
	}
	return s, v, sec, pss, pss != nil, nil
}

// memberReadsSpace says whether a member may read the space of a site
// space (the audience reads every site space its view shows).
func memberReadsSpace(ctx context.Context, st *loader.SiteStructure, spaceID string) (bool, error) {
	sp := st.Spaces[spaceID]
	if sp == nil {
		return false, nil
	}
	role, err := spaceRole(ctx, sp)
	return err == nil && access.AtLeast(role, access.Read), err
}
