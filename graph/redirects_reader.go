package graph

import (
	"context"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/published"
)

// How a path finds its redirect: the live redirect whose source is the
// path (decoded, without a trailing slash) first; else the wildcard one
// with the longest fixed part that covers it — `/a/*` covers /a and every
// path below it, `/a*` every path starting with /a. With captureWildcard,
// what the wildcard covered is appended to the destination.

// redirectRules are a site's live redirects, ready to match.
type redirectRules struct {
	exact  map[string]*ent.SiteRedirect
	wild   []wildRedirect // longest base first
	digest string         // the published site's digest they were read for
	gen    uint64
	at     time.Time
}

type wildRedirect struct {
	base  string // the source without its * (and without the / before it for /*)
	slash bool   // `/a/*`: covers base itself and base/…
	rd    *ent.SiteRedirect
}

// The reader's redirects are kept per site (redirectCacheSites at most) and
// read again when the site's published digest changes (a merge moves its
// content, which is when redirects are written automatically), when this
// instance writes the site's redirects (forgetRedirects), or after
// redirectCacheTTL (a write on another instance).
const (
	redirectCacheSites = 1024
	redirectCacheTTL   = time.Minute
)

var redirectCache = struct {
	sync.Mutex
	sites map[string]*redirectRules
	gens  map[string]uint64
}{sites: map[string]*redirectRules{}, gens: map[string]uint64{}}

// forgetRedirects drops what the cache holds of a site's redirects after a
// write; a read under way when it happened does not store its rows.
func forgetRedirects(siteID string) {
	redirectCache.Lock()
	defer redirectCache.Unlock()
	redirectCache.gens[siteID]++
	delete(redirectCache.sites, siteID)
}

// liveRedirects are a site's live redirects (one statement on a miss).
func (r *Resolver) liveRedirects(ctx context.Context, siteID, digest string) (*redirectRules, error) {
	redirectCache.Lock()
	gen := redirectCache.gens[siteID]
	if e := redirectCache.sites[siteID]; e != nil && e.gen == gen && e.digest == digest && time.Since(e.at) < redirectCacheTTL {
		redirectCache.Unlock()
		return e, nil
	}
	redirectCache.Unlock()
	rows, err := r.Client.SiteRedirect.Query().Where(siteredirect.SiteID(siteID), siteredirect.Draft(false)).All(ctx)
	if err != nil {
		return nil, err
	}
	e := &redirectRules{exact: map[string]*ent.SiteRedirect{}, digest: digest, gen: gen, at: time.Now()}
	for _, rd := range rows {
		src := rd.Source
		if d, err := url.PathUnescape(src); err == nil {
			src = d
		}
		switch {
		case strings.HasSuffix(src, "/*"):
			e.wild = append(e.wild, wildRedirect{base: strings.TrimSuffix(src, "/*"), slash: true, rd: rd})
		case strings.HasSuffix(src, "*"):
			e.wild = append(e.wild, wildRedirect{base: strings.TrimSuffix(src, "*"), rd: rd})
		default:
			e.exact[src] = rd
		}
	}
	sort.SliceStable(e.wild, func(i, j int) bool {
		if len(e.wild[i].base) != len(e.wild[j].base) {
			return len(e.wild[i].base) > len(e.wild[j].base)
		}
		return e.wild[i].rd.Source < e.wild[j].rd.Source
	})
	redirectCache.Lock()
	defer redirectCache.Unlock()
	if redirectCache.gens[siteID] == gen {
		if len(redirectCache.sites) >= redirectCacheSites {
			for k := range redirectCache.sites { // any one: a bound, not an LRU
				delete(redirectCache.sites, k)
				break
			}
		}
		redirectCache.sites[siteID] = e
	}
	return e, nil
}

// match is the redirect that applies to path, and the part its wildcard
// covered.
func (e *redirectRules) match(path string) (*ent.SiteRedirect, string, bool) {
	if rd, ok := e.exact[path]; ok {
		return rd, "", true
	}
	for _, w := range e.wild {
		switch {
		case w.slash && (path == w.base || strings.HasPrefix(path, w.base+"/")):
			return w.rd, path[len(w.base):], true
		case !w.slash && strings.HasPrefix(path, w.base):
			return w.rd, path[len(w.base):], true
		}
	}
	return nil, "", false
}

// normalPath is a request path as sources are matched: one leading slash,
// no trailing one.
func normalPath(p string) string { return "/" + strings.Trim(p, "/") }

// redirectTarget is where rd leads in site s: a path below the site's root
// starting with / (the root itself is "/"), or an external URL; ok is
// false when its destination no longer exists in the published site.
func (r *Resolver) redirectTarget(ctx context.Context, s *published.Site, rd *ent.SiteRedirect, suffix string) (string, bool, error) {
	if !rd.CaptureWildcard {
		suffix = ""
	}
	if rd.DestinationKind == siteredirect.DestinationKindExternal {
		if rd.DestinationURL == nil {
			return "", false, nil
		}
		u := *rd.DestinationURL
		if strings.HasPrefix(suffix, "/") {
			u = strings.TrimSuffix(u, "/")
		}
		return u + suffix, true, nil
	}
	if rd.DestinationID == nil {
		return "", false, nil
	}
	v := published.MemberView(s, "")
	rel, ok := "", false
	switch rd.DestinationKind {
	case siteredirect.DestinationKindSiteSection:
		for _, sec := range s.Sections {
			if sec.ID == *rd.DestinationID {
				rel, ok = v.SectionURL(sec), true
			}
		}
	default:
		sec, ss := findSiteSpace(s, *rd.DestinationID)
		if ss == nil {
			return "", false, nil
		}
		rel, ok = v.SpaceURL(sec, ss), true
		if rd.DestinationKind == siteredirect.DestinationKindSitePage {
			n, err := r.PublishedNav(ctx, ss.RevisionID)
			if err != nil {
				return "", false, err
			}
			p := (*published.Page)(nil)
			if rd.DestinationPageID != nil {
				p = n.ByID[*rd.DestinationPageID]
			}
			if p == nil {
				return "", false, nil
			}
			rel += p.Path
		}
	}
	if !ok {
		return "", false, nil
	}
	if suffix != "" {
		rel = strings.TrimSuffix(rel, "/") + "/" + strings.TrimPrefix(suffix, "/")
	}
	return "/" + strings.TrimPrefix(rel, "/"), true, nil
}

// findSiteSpace finds a site space of a published site, with its section.
func findSiteSpace(s *published.Site, id string) (*published.Section, *published.SiteSpace) {
	for _, ss := range s.Root {
		if ss.ID == id {
			return nil, ss
		}
	}
	for _, sec := range s.Sections {
		for _, ss := range sec.SiteSpaces {
			if ss.ID == id {
				return sec, ss
			}
		}
	}
	return nil, nil
}

// resolveRedirect is the live redirect of site s that applies to path and
// where it leads (see redirectTarget); ok is false when none does, or the
// redirect would lead back to path itself.
func (r *Resolver) resolveRedirect(ctx context.Context, s *published.Site, path string) (*ent.SiteRedirect, string, bool, error) {
	rules, err := r.liveRedirects(ctx, s.ID, s.Digest)
	if err != nil {
		return nil, "", false, err
	}
	path = normalPath(path)
	rd, suffix, ok := rules.match(path)
	if !ok {
		return nil, "", false, nil
	}
	target, ok, err := r.redirectTarget(ctx, s, rd, suffix)
	if err != nil || !ok || (strings.HasPrefix(target, "/") && normalPath(target) == path) {
		return nil, "", false, err
	}
	return rd, target, true, nil
}

// ReaderRedirect is where the reader sends a path of published site s that
// has no page: a path below the site's root starting with / or an external
// URL, and whether the redirect is permanent; ok is false when no live
// redirect applies. Draft redirects never apply.
func (r *Resolver) ReaderRedirect(ctx context.Context, s *published.Site, path string) (target string, permanent bool, ok bool, err error) {
	rd, target, ok, err := r.resolveRedirect(ctx, s, path)
	if err != nil || !ok {
		return "", false, false, err
	}
	return target, rd.Permanent, true, nil
}

// SiteRedirectBySource is the live redirect that applies to source in a
// site the caller may read (a member, or the audience with a share key),
// and the absolute URL it leads to; 404 when none applies.
func (r *Resolver) SiteRedirectBySource(ctx context.Context, orgID, siteID, source string, shareKey *string) (*ent.SiteRedirect, string, error) {
	s, err := r.readableSite(ctx, orgID, siteID, shareKey)
	if err != nil {
		return nil, "", err
	}
	return r.siteRedirectFor(ctx, s, source)
}

// siteRedirectFor is SiteRedirectBySource of a site already read.
func (r *Resolver) siteRedirectFor(ctx context.Context, s *ent.Site, source string) (*ent.SiteRedirect, string, error) {
	if !strings.HasPrefix(source, "/") || len(source) > maxRedirectSource {
		return nil, "", apperr.InvalidField("source", "must be a path starting with /, at most %d characters", maxRedirectSource)
	}
	ps, err := r.publishedStructure(ctx, s)
	if err != nil {
		return nil, "", err
	}
	rd, target, ok, err := r.resolveRedirect(ctx, ps, source)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", apperr.NotFoundf("no redirect of the site applies to %s", source)
	}
	if strings.HasPrefix(target, "/") {
		target = r.sitePath(siteName(s)) + strings.TrimPrefix(target, "/")
	}
	return rd, target, nil
}

// SiteRedirectMatch is GraphQL's Site.redirect: nil when none applies.
func (r *Resolver) SiteRedirectMatch(ctx context.Context, s *ent.Site, source string) (*ent.SiteRedirect, string, error) {
	if _, _, err := visibleSite(ctx, "", s.ID); err != nil {
		return nil, "", err
	}
	rd, target, err := r.siteRedirectFor(ctx, s, source)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return nil, "", nil
	}
	return rd, target, err
}
