package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/openapiref"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/search"
)

// The published reader (internal/reader) serves sites as HTML to anyone on
// the internet: no token, no membership. These methods are its only way in.
// They read published sites alone; who may read a protected one is decided
// by the access gate (internal/visitor) before any content is read. GraphQL
// reads published sites through the same structure, navigation and
// rendering (sites_published.go): the rules themselves are
// internal/published's and internal/visitor's.

// publishedCaches are what the reader and GraphQL keep of published
// content across requests: revisions' navigation and rendered pages.
// Revisions never change, so nothing in them goes stale but API reference
// blocks, which are checked at every read (PublishedRender).
type publishedCaches struct {
	once  sync.Once
	navs  *published.NavCache
	pages published.RenderCache
}

func (r *Resolver) caches() *publishedCaches {
	c := &r.published
	c.once.Do(func() {
		c.navs = published.NewNavCache()
		c.pages = published.NewRenderCache()
	})
	return c
}

// ReaderContext gives a reader request the loaders of an anonymous caller.
func (r *Resolver) ReaderContext(ctx context.Context) context.Context {
	return loader.With(ctx, loader.New(r.Client, ""))
}

// ReaderSiteNamed is the published site at /s/<name>/: the site whose
// basename is name, or, for a site without a basename, whose id is name.
// Anything else (unknown, unpublished) is not found.
func (r *Resolver) ReaderSiteNamed(ctx context.Context, name string) (*published.Site, error) {
	s, err := r.Client.Site.Query().Where(site.Or(site.Basename(name), site.And(site.ID(name), site.BasenameIsNil()))).First(ctx)
	return r.readerSite(ctx, s, err)
}

// ReaderSiteByID is a published site by id (a host mapped to it).
func (r *Resolver) ReaderSiteByID(ctx context.Context, id string) (*published.Site, error) {
	s, err := r.Client.Site.Get(ctx, id)
	return r.readerSite(ctx, s, err)
}

// ReaderPublishedSites lists the published sites, for robots.txt: id,
// basename and visibility only.
func (r *Resolver) ReaderPublishedSites(ctx context.Context) ([]*published.Site, error) {
	rows, err := r.Client.Site.Query().Where(site.Published(true)).
		Select(site.FieldID, site.FieldBasename, site.FieldVisibility).Order(ent.Asc(site.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*published.Site, len(rows))
	for i, s := range rows {
		out[i] = &published.Site{ID: s.ID, Visibility: s.Visibility.String()}
		if s.Basename != nil {
			out[i].Basename = *s.Basename
		}
	}
	return out, nil
}

func (r *Resolver) readerSite(ctx context.Context, s *ent.Site, err error) (*published.Site, error) {
	if ent.IsNotFound(err) || (err == nil && !s.Published) {
		return nil, apperr.NotFoundf("site not found")
	}
	if err != nil {
		return nil, err
	}
	return r.publishedStructure(ctx, s)
}

// publishedStructure is a site as published: its settings and structure,
// with its conditions compiled and the site spaces that have content (4
// statements, shared with the structure loaders' other readers).
func (r *Resolver) publishedStructure(ctx context.Context, s *ent.Site) (*published.Site, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return nil, err
	}
	key, err := r.SiteAuthKey(s)
	if err != nil {
		return nil, err
	}
	out := &published.Site{ID: s.ID, OrganizationID: s.OrganizationID, Title: s.Title, Visibility: s.Visibility.String(),
		Customization: CustomizationOf(s), VisitorKey: key, Schema: SchemaOf(s)}
	if s.Basename != nil {
		out.Basename = *s.Basename
	}
	if s.AuthFallbackURL != nil {
		out.FallbackURL = *s.AuthFallbackURL
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", s.ID, s.Title, s.Visibility, out.Basename, out.Customization)
	if s.AdaptiveSchema != nil {
		io.WriteString(h, *s.AdaptiveSchema)
	}
	cond := func(src *string) *adaptive.Condition {
		if src == nil {
			return nil
		}
		fmt.Fprintf(h, "cond %s\x00", *src)
		c, err := compiledCondition(*src, out.Schema, s)
		if err != nil {
			// A condition that no longer compiles shows nothing rather than
			// everything: it was written to hide.
			c = &adaptive.Condition{}
		}
		return c
	}
	siteSpace := func(ss *ent.SiteSpace) *published.SiteSpace {
		sp := st.Spaces[ss.SpaceID]
		if sp == nil || sp.RevisionID == "" {
			return nil // a space the trash took, or one without content
		}
		fmt.Fprintf(h, "ss %s %s %s %s %t\x00", ss.ID, ss.Path, sp.Title, sp.RevisionID, ss.IsDefault)
		rs := &published.SiteSpace{ID: ss.ID, Title: sp.Title, Path: ss.Path, SpaceID: sp.ID, RevisionID: sp.RevisionID,
			Default: ss.IsDefault, Condition: cond(ss.Condition)}
		if rs.Title == "" {
			rs.Title = "Untitled"
		}
		return rs
	}
	spacesOf := func(section *string) []*published.SiteSpace {
		var out []*published.SiteSpace
		for _, ss := range st.SiteSpaces {
			if sameContainer(ss.SectionID, section) {
				if rs := siteSpace(ss); rs != nil {
					out = append(out, rs)
				}
			}
		}
		return out
	}
	sections := map[string]*published.Section{}
	for _, sec := range flattenSections(st.Sections, st.Groups) {
		fmt.Fprintf(h, "sec %s %s %s %t %v\x00", sec.ID, sec.Title, sec.Path, sec.IsDefault, sec.GroupID)
		rs := &published.Section{ID: sec.ID, Title: sec.Title, Path: sec.Path, Default: sec.IsDefault, Condition: cond(sec.Condition)}
		if sec.Description != nil {
			rs.Description = *sec.Description
		}
		id := sec.ID
		rs.SiteSpaces = spacesOf(&id)
		sections[sec.ID] = rs
		out.Sections = append(out.Sections, rs)
	}
	groups := map[string]*ent.SiteSectionGroup{}
	for _, g := range st.Groups {
		groups[g.ID] = g
	}
	for _, it := range topLevel(st.Sections, st.Groups) {
		if !it.group {
			out.Top = append(out.Top, published.Item{Section: sections[it.id]})
			continue
		}
		g := groups[it.id]
		fmt.Fprintf(h, "group %s %s\x00", g.ID, g.Title)
		rg := &published.Group{ID: g.ID, Title: g.Title}
		for _, sec := range groupSections(st.Sections, g.ID) {
			rg.Sections = append(rg.Sections, sections[sec.ID])
		}
		out.Top = append(out.Top, published.Item{Group: rg})
	}
	if len(st.Sections) == 0 {
		out.Root = spacesOf(nil)
	}
	out.Digest = hex.EncodeToString(h.Sum(nil))[:32]
	return out, nil
}

// ReaderRevision reads a published revision's pages and files (two
// statements, whatever the number of pages).
func (r *Resolver) ReaderRevision(ctx context.Context, revisionID string) (*published.Content, error) {
	l := loader.For(ctx)
	treeThunk := l.RevisionTree.Load(ctx, revisionID)
	filesThunk := l.RevisionFiles.Load(ctx, revisionID)
	t, err := treeThunk()
	if err != nil {
		return nil, err
	}
	files, err := filesThunk()
	if err != nil {
		return nil, err
	}
	c := &published.Content{RevisionID: revisionID, ByID: make(map[string]*published.Page, len(t.Pages)),
		ByPath: make(map[string]*published.Page, len(t.Pages)), Files: make(map[string]string, len(files))}
	var walk func(parent *published.Page, id string, depth int) []*published.Page
	walk = func(parent *published.Page, id string, depth int) []*published.Page {
		var out []*published.Page
		for _, p := range t.Children[id] {
			rp := &published.Page{ID: p.PageID, Kind: p.Kind.String(), Title: p.Title, Emoji: p.Emoji,
				Slug: p.Slug, Description: p.Description, Href: p.Href, ContentHash: p.ContentHash,
				Path: t.Path(p), Hidden: p.Hidden, Depth: depth}
			if parent != nil {
				rp.ParentID = parent.ID
			}
			c.Pages = append(c.Pages, rp)
			c.ByID[rp.ID] = rp
			c.ByPath[rp.Path] = rp
			rp.Children = walk(rp, p.PageID, depth+1)
			out = append(out, rp)
		}
		return out
	}
	c.Roots = walk(nil, "", 0)
	for _, f := range files {
		c.Files[f.FileID] = r.BaseURL + "/files/" + f.BlobKey + "/" + url.PathEscape(f.Name)
	}
	return c, nil
}

// ReaderMarkdown is the markdown body stored under a content hash.
func (r *Resolver) ReaderMarkdown(ctx context.Context, hash string) (string, error) {
	if hash == "" {
		return "", nil
	}
	return loader.For(ctx).PageMarkdown.Load(ctx, hash)()
}

// PublishedNav is the navigation of a published revision, kept across
// requests (internal/published.NavCache): a miss reads the revision's
// pages and files, two statements shared by the revisions shown together.
func (r *Resolver) PublishedNav(ctx context.Context, revisionID string) (*published.Nav, error) {
	return r.caches().navs.Get(ctx, revisionID, r.ReaderRevision)
}

// PublishedRender is page p of nav's revision rendered with its links
// below base (the address of the site space showing it), for the reader
// and GraphQL alike: kept by revision, page and base, and rendered again
// when a spec that its API reference blocks show (organization orgID's)
// has a new version. body reads the page's markdown on a miss.
func (r *Resolver) PublishedRender(ctx context.Context, orgID string, n *published.Nav, p *published.Page, base string,
	body func(context.Context) (string, error)) (*published.Rendered, error) {
	pages := r.caches().pages
	key := published.RenderKey(n.RevisionID, p, base)
	if rp, ok := pages.Get(key); ok {
		if len(rp.Specs) == 0 {
			return rp, nil
		}
		versions, err := r.ReaderSpecVersions(ctx, orgID, rp.Specs)
		if err != nil || versions == rp.SpecVersions {
			return rp, err
		}
	}
	src, err := body(ctx)
	if err != nil {
		return nil, err
	}
	versions := ""
	if specs := published.SpecSlugs(src); len(specs) > 0 {
		// Read before rendering: a version landing meanwhile renders
		// again at the next read instead of being missed.
		if versions, err = r.ReaderSpecVersions(ctx, orgID, specs); err != nil {
			return nil, err
		}
	}
	rp, err := published.Render(src, n, p, base, r.ReaderSpecBlocks(ctx, orgID))
	if err != nil {
		return nil, err
	}
	rp.SpecVersions = versions
	pages.Add(key, rp)
	return rp, nil
}

// ReaderHit is a page found by a reader's search, with the excerpts that
// match (anchor: the heading's id, "" for the page's top).
type ReaderHit struct {
	SpaceID, PageID string
	Sections        []ReaderHitSection
}

// ReaderHitSection is an excerpt of a found page.
type ReaderHitSection struct{ Anchor, Title, Excerpt string }

// ReaderSearch ranks the pages of the current revisions of spaceIDs
// (spaces a published site shows) matching query, best first. An empty or
// oversize query finds nothing.
func (r *Resolver) ReaderSearch(ctx context.Context, spaceIDs []string, query string, limit int) ([]ReaderHit, error) {
	hits, _, err := r.searchPages(ctx, query, spaceIDs)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Invalid {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	pages, err := r.searchResults(ctx, query, hits, false)
	if err != nil {
		return nil, err
	}
	out := make([]ReaderHit, 0, len(pages))
	for _, p := range pages {
		h := ReaderHit{SpaceID: p.Space.ID, PageID: p.Page.PageID}
		for _, s := range p.Sections {
			h.Sections = append(h.Sections, ReaderHitSection{Anchor: s.Section.ID, Title: s.Section.Title, Excerpt: s.Excerpt})
		}
		out = append(out, h)
	}
	return out, nil
}

// ReaderSearchTerms are the words of a query as the search matches them,
// for highlighting excerpts.
func ReaderSearchTerms(query string) []string { return search.Terms(query) }

// ReaderBodies are the markdown bodies of a revision's pages, by content
// hash (one statement), for reads over every page (the sitemap).
func (r *Resolver) ReaderBodies(ctx context.Context, revisionID string) (map[string]string, error) {
	return loader.For(ctx).RevisionBodies.Load(ctx, revisionID)()
}

// ReaderSpecVersions is what a published page's API reference blocks show:
// the latest version of each spec of organization orgID they name, as one
// string that changes when any of them does (for the reader's cache and
// ETags).
func (r *Resolver) ReaderSpecVersions(ctx context.Context, orgID string, slugs []string) (string, error) {
	versions, err := r.SpecVersionsOf(ctx, orgID, slugs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, slug := range slugs {
		b.WriteString(slug + "=" + versions[slug] + ";")
	}
	return b.String(), nil
}

// ReaderSpecBlocks renders a published page's API reference blocks from the
// latest versions of organization orgID's specs: a site's readers are not
// members, so no caller's access is checked.
func (r *Resolver) ReaderSpecBlocks(ctx context.Context, orgID string) map[string]markdown.BlockRenderer {
	return openapiref.Blocks(ctx, r.PublishedSpecLookup(orgID))
}
