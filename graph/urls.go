package graph

import (
	"context"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/visitor"
)

// URL resolution (issue 29): GitBook's renderer asks the API what a
// published URL shows (resolvePublishedContentByUrl) before anything else,
// then reads the rest with the site-scoped token the answer carries
// (urls_token.go). The resolution is the reader's own: the same site
// lookup (by /s/<name>/ or mapped host), the same gate (internal/visitor:
// Decide, VerifyToken, UnsignedFrom, VisitorOf) and the same view and path
// resolution (internal/published: View.Resolve), so the API and the HTML
// site never disagree about what an address shows.

// URLVisitor is GitBook's SiteVisitorPayload: a visitor token (the
// reader's ?jwt_token=) and unsigned claims (the reader's
// ?visitor.<name>=).
type URLVisitor struct {
	JWTToken       string
	UnsignedClaims map[string]any
}

// maxURL is the reference's URL maxLength.
const maxURL = 2048

// parseURL reads an absolute http(s) URL named field, or a 400 naming it.
func parseURL(field, raw string) (*url.URL, error) {
	if len(raw) > maxURL {
		return nil, apperr.InvalidField(field, "must be at most %d characters", maxURL)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, apperr.InvalidField(field, "must be an absolute http or https URL")
	}
	return u, nil
}

// siteIDForHost is the site a host (as a URL or a Host header has it, with
// or without its port, any case) serves: FOLIO_SITE_HOSTS, then the stored
// custom host names (HostSite, which the reader asks too).
func (r *Resolver) siteIDForHost(ctx context.Context, host string) (string, bool, error) {
	id, ok := r.HostSite(ctx, host)
	return id, ok, nil
}

// siteAddress is where a URL falls in a published site: the site, the
// address of its root (origin and path, the path ending in "/"), and the
// path below it.
type siteAddress struct {
	site     *ent.Site
	origin   string // scheme://host of the site's addresses
	rootPath string // "/s/<name>/" (below FOLIO_BASE_URL's path), or "/" on a mapped host
	rest     string // below rootPath, without a leading "/"
	// slashless: /s/<name> without its slash, which the reader redirects.
	slashless bool
}

// locateSite finds the published site a URL points into; nil when none
// (another host, another path, an unknown or unpublished site).
func (r *Resolver) locateSite(ctx context.Context, u *url.URL) (*siteAddress, error) {
	base, err := url.Parse(r.BaseURL)
	if err != nil {
		return nil, err
	}
	var a siteAddress
	var q *ent.SiteQuery
	if strings.EqualFold(u.Host, base.Host) || strings.EqualFold(u.Hostname(), base.Host) {
		prefix := strings.TrimRight(base.Path, "/") + "/s/"
		after, ok := strings.CutPrefix(u.Path, prefix)
		if !ok {
			return nil, nil
		}
		name, rest, slash := strings.Cut(after, "/")
		if name == "" {
			return nil, nil
		}
		a = siteAddress{origin: base.Scheme + "://" + base.Host, rootPath: prefix + name + "/", rest: rest, slashless: !slash}
		q = r.Client.Site.Query().Where(site.Or(site.Basename(name), site.And(site.ID(name), site.BasenameIsNil())))
	} else {
		id, ok, err := r.siteIDForHost(ctx, u.Host)
		if err != nil || !ok {
			return nil, err
		}
		a = siteAddress{origin: u.Scheme + "://" + u.Host, rootPath: "/", rest: strings.TrimPrefix(u.Path, "/")}
		q = r.Client.Site.Query().Where(site.ID(id))
	}
	s, err := q.First(ctx)
	if ent.IsNotFound(err) || (err == nil && !s.Published) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a.site = s
	return &a, nil
}

// previewMarker is a change-request or revision preview inside a path, as
// GitBook's renderer writes them: …/~/changes/<id>/… or …/~/revisions/<id>/….
type previewMarker struct{ kind, id string }

// cutPreview takes the preview marker out of a path below a site's root.
func cutPreview(rest string) (string, *previewMarker) {
	segs := strings.Split(rest, "/")
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] == "~" && (segs[i+1] == "changes" || segs[i+1] == "revisions") && segs[i+2] != "" {
			m := &previewMarker{kind: segs[i+1], id: segs[i+2]}
			return strings.Join(append(append([]string{}, segs[:i]...), segs[i+3:]...), "/"), m
		}
	}
	return rest, nil
}

// ResolvePublishedURL answers what a published URL shows, for the
// visitor described by vis (and the caller: a member who can read the site
// is let into protected sites and may resolve preview URLs of change
// requests and revisions it can read), with a site-scoped read token for
// the rest. Anything not published, not visible to the visitor, or not a
// site's address: 404. redirectOnError: a visitor-auth site without a valid
// token answers a redirect to its fallback URL instead of 404.
func (r *Resolver) ResolvePublishedURL(ctx context.Context, raw string, vis URLVisitor, redirectOnError bool) (*model.PublishedContentLookup, error) {
	u, err := parseURL("url", raw)
	if err != nil {
		return nil, err
	}
	notFound := apperr.NotFoundf("no published content at %s", u.Redacted())
	a, err := r.locateSite(ctx, u)
	if err != nil || a == nil {
		return nil, firstErr(err, notFound)
	}
	s := a.site
	if a.slashless {
		// The reader's own redirect: a site's root ends in "/".
		to := a.origin + a.rootPath
		if u.RawQuery != "" {
			to += "?" + u.RawQuery
		}
		return &model.PublishedContentLookup{Redirect: &model.PublishedContentRedirect{Target: "content", Redirect: to}}, nil
	}

	// The gate: who the visitor is, and whether they may read the site.
	key, err := r.SiteAuthKey(s)
	if err != nil {
		return nil, err
	}
	creds := visitor.Credentials{}
	if vis.JWTToken != "" {
		creds.Signed = visitor.VerifyToken(key, vis.JWTToken)
	}
	shareKey := u.Query().Get(visitor.ShareKeyParam)
	if s.Visibility == site.VisibilityShareLink && shareKey != "" {
		if creds.ShareKeyActive, err = r.SiteShareKeyActive(ctx, s.ID, shareKey); err != nil {
			return nil, err
		}
	}
	member := false
	if siteScopeOf(ctx) == nil && auth.ViewerID(ctx) != "" {
		role, _, err := siteRole(ctx, s)
		if err != nil {
			return nil, err
		}
		member = access.CanSeeSite(role)
	}
	switch visitor.Decide(s.Visibility.String(), creds) {
	case visitor.Admitted:
	case visitor.NeedsToken:
		if member {
			break
		}
		if redirectOnError && s.AuthFallbackURL != nil {
			if to, ok := fallbackRedirect(*s.AuthFallbackURL, u); ok {
				id := s.ID
				return &model.PublishedContentLookup{Redirect: &model.PublishedContentRedirect{Target: "external", Redirect: to, SiteID: &id}}, nil
			}
		}
		return nil, notFound
	default:
		if !member {
			return nil, notFound
		}
	}
	creds.Unsigned = visitor.UnsignedFrom(SchemaOf(s), vis.UnsignedClaims)
	v := visitor.VisitorOf(s.Visibility.String(), creds)

	// The place: the reader's view and path resolution.
	rest, preview := cutPreview(a.rest)
	ps, err := r.publishedStructure(ctx, s)
	if err != nil {
		return nil, err
	}
	view := published.NewView(ps, a.rootPath, v.Claims)
	pl, ok := view.Resolve(rest)
	if !ok {
		return nil, notFound
	}
	sc := &SiteScope{OrganizationID: s.OrganizationID, SiteID: s.ID, Claims: v.Claims, ExpiresAt: clock.Now().Add(SiteTokenLifetime)}
	out := &model.PublishedSiteContent{OrganizationID: s.OrganizationID, SiteID: s.ID, SiteSpaceID: pl.SiteSpace.ID,
		SpaceID: pl.SiteSpace.SpaceID, Pathname: pl.PagePath, SiteBasePath: a.rootPath,
		BasePath: view.SpaceURL(pl.Section, pl.SiteSpace), Complete: complete(view, pl, rest)}
	out.CanonicalURL = a.origin + out.BasePath + pl.PagePath
	if pl.Section != nil {
		out.SiteSectionID = &pl.Section.ID
	}
	if preview != nil {
		if err := r.previewOf(ctx, preview, pl.SiteSpace.SpaceID, sc, out); err != nil {
			return nil, err
		}
		out.BasePath += "~/" + preview.kind + "/" + preview.id + "/"
	}
	if creds.ShareKeyActive {
		out.ShareKey = &shareKey
	}
	if creds.Signed != nil {
		out.ContextID = &v.State
	}
	out.APIToken, out.APITokenExpiresAt = r.issueSiteToken(sc), sc.ExpiresAt
	return &model.PublishedContentLookup{Content: out}, nil
}

func firstErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// previewOf checks a preview marker against the caller (a member who can
// read the change request or revision in the space the URL resolved to;
// anyone else: 404) and puts it in the scope and the answer.
func (r *Resolver) previewOf(ctx context.Context, m *previewMarker, spaceID string, sc *SiteScope, out *model.PublishedSiteContent) error {
	if siteScopeOf(ctx) != nil || auth.ViewerID(ctx) == "" {
		return apperr.NotFoundf("%s %s not found", strings.TrimSuffix(m.kind, "s"), m.id)
	}
	sc.SpaceID = spaceID
	out.Preview = true
	if m.kind == "changes" {
		cr, err := r.FindChangeRequest(ctx, spaceID, m.id)
		if err != nil {
			return err
		}
		sc.ChangeRequestID, out.ChangeRequestID = cr.ID, &cr.ID
		return nil
	}
	rev, err := r.SpaceRevisionByID(ctx, spaceID, m.id)
	if err != nil {
		return err
	}
	sc.RevisionID, out.RevisionID = rev.ID, &rev.ID
	return nil
}

// complete says whether no more site segments can follow (GitBook's
// `complete`): the section was named, or there is no other to name, and
// the site space likewise. The renderer trusts a shorter address's answer
// only when it is complete.
func complete(v *published.View, pl published.Place, rest string) bool {
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	named := func(path string) bool {
		for _, s := range segs {
			if s == path {
				return true
			}
		}
		return false
	}
	sectionDone := pl.Section == nil || len(v.Sections()) <= 1 || (segs[0] == pl.Section.Path)
	spaceDone := len(pl.Spaces) <= 1 || named(pl.SiteSpace.Path)
	return sectionDone && spaceDone
}

// fallbackRedirect is a visitor-auth site's fallback URL with the address
// asked for as `location`, as the reader's gate sends visitors there.
func fallbackRedirect(fallback string, asked *url.URL) (string, bool) {
	f, err := url.Parse(fallback)
	if err != nil || (f.Scheme != "http" && f.Scheme != "https") {
		return "", false
	}
	q := f.Query()
	q.Set("location", asked.String())
	f.RawQuery = q.Encode()
	return f.String(), true
}

// ContentLookup is what one of Folio's own app addresses names (GitBook's
// getContentByUrl): a collection, or a space with, possibly, a change
// request and a page.
type ContentLookup struct {
	Collection    *ent.Collection
	Space         *ent.Space
	ChangeRequest *ent.ChangeRequest
	Page          *model.Page
}

// ContentByURL resolves an address Folio hands out as `urls.app` (spaces,
// collections, change requests, revisions and their pages, all below
// FOLIO_BASE_URL/v1/) or a page of a published site, for a caller who can
// see what it names (404 otherwise). An organization's or a site's address
// names no content: 400 naming url.
func (r *Resolver) ContentByURL(ctx context.Context, raw string) (*ContentLookup, error) {
	u, err := parseURL("url", raw)
	if err != nil {
		return nil, err
	}
	notFound := apperr.NotFoundf("no content at %s", u.Redacted())
	base, err := url.Parse(r.BaseURL)
	if err != nil {
		return nil, err
	}
	if a, err := r.locateSite(ctx, u); err != nil || a != nil {
		if err != nil {
			return nil, err
		}
		return r.publishedContentOf(ctx, a, notFound)
	}
	apiPath, ok := strings.CutPrefix(u.Path, strings.TrimRight(base.Path, "/")+"/v1/")
	if !ok || !(strings.EqualFold(u.Host, base.Host) || strings.EqualFold(u.Hostname(), base.Host)) {
		return nil, notFound
	}
	segs := strings.Split(strings.Trim(apiPath, "/"), "/")
	switch {
	case len(segs) == 2 && segs[0] == "collections":
		c, _, err := visibleCollection(ctx, segs[1])
		if err != nil {
			return nil, err
		}
		return &ContentLookup{Collection: c}, nil
	case segs[0] == "orgs" && len(segs) >= 2:
		return nil, apperr.InvalidField("url", "names an organization or a site, which is not content: give a space's, a collection's, a change request's or a page's address")
	case segs[0] != "spaces" || len(segs) < 2:
		return nil, notFound
	}
	s, _, err := visibleSpace(ctx, segs[1])
	if err != nil {
		return nil, err
	}
	out := &ContentLookup{Space: s}
	switch {
	case len(segs) == 2:
		return out, nil
	case len(segs) == 4 && segs[2] == "change-requests":
		out.ChangeRequest, err = r.FindChangeRequest(ctx, s.ID, segs[3])
		return out, err
	case segs[2] == "revisions" && (len(segs) == 4 || (len(segs) == 6 && segs[4] == "page")):
		rev, err := r.SpaceRevisionByID(ctx, s.ID, segs[3])
		if err != nil || len(segs) == 4 {
			return out, err
		}
		out.Page, err = r.RevisionPage(ctx, rev, segs[5])
		return out, err
	}
	return nil, notFound
}

// publishedContentOf is the space and page a published address shows to an
// anonymous visitor, for a caller who can read that space.
func (r *Resolver) publishedContentOf(ctx context.Context, a *siteAddress, notFound error) (*ContentLookup, error) {
	ps, err := r.publishedStructure(ctx, a.site)
	if err != nil {
		return nil, err
	}
	v := visitor.VisitorOf(a.site.Visibility.String(), visitor.Credentials{})
	pl, ok := published.NewView(ps, a.rootPath, v.Claims).Resolve(a.rest)
	if !ok {
		return nil, notFound
	}
	s, _, err := visibleSpace(ctx, pl.SiteSpace.SpaceID)
	if err != nil {
		return nil, err
	}
	rev, err := loadRevision(ctx, pl.SiteSpace.RevisionID)
	if err != nil {
		return nil, err
	}
	out := &ContentLookup{Space: s}
	if pl.PagePath != "" {
		out.Page, err = r.RevisionPageByPath(ctx, rev, pl.PagePath)
	}
	return out, err
}

// apiBuild is the date of this build's commit (vcs.time), or, for a build
// that was not stamped (go run, go test), the moment the process first
// answered: the reference's `build` is a date either way.
var apiBuild = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" && s.Value != "" {
				return s.Value
			}
		}
	}
	return clock.Now().Format("2006-01-02T15:04:05.000Z07:00")
})

// APIInformation is the server's version and build date (GitBook's
// getApiInformation); anyone may ask.
func (r *Resolver) APIInformation(context.Context) *model.APIInformation {
	v := r.APIVersion
	if v == "" {
		v = "(unknown)"
	}
	return &model.APIInformation{Version: v, Build: apiBuild()}
}

// visitorOfInput reads GraphQL's SiteVisitorInput (nil: no visitor).
func visitorOfInput(in *model.SiteVisitorInput) (URLVisitor, error) {
	var v URLVisitor
	if in == nil {
		return v, nil
	}
	if t := in.JwtToken.Value(); t != nil {
		v.JWTToken = *t
	}
	if c := in.UnsignedClaims.Value(); c != nil {
		obj, ok := c.(map[string]any)
		if !ok {
			return v, apperr.InvalidField("visitor.unsignedClaims", "must be an object of claims, such as {isBeta: true}")
		}
		v.UnsignedClaims = obj
	}
	return v, nil
}
