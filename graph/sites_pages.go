package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/published"
)

// Pages of published sites in GraphQL (PublishedPage): the reader's
// navigation (published.Nav, kept across requests by revision) and the
// reader's renderer (PublishedRender, kept by revision, page and address),
// so a page answers the same in both and neither costs a statement per
// page: a site space's navigation is read with its site's other site
// spaces' (their revisions are read together), and the bodies of pages
// inside a list with their revisions' (one statement for all).

// MaxOutlineHeadings bounds PublishedPage.outline: a page's "On this
// page" (its level-2 and level-3 headings); the rest are left out.
const MaxOutlineHeadings = 200

// SiteSpacePages are the listed root pages of the revision a site space
// shows: empty when its space has no content.
func (r *Resolver) SiteSpacePages(ctx context.Context, ss *ent.SiteSpace) ([]*model.PublishedPage, error) {
	at, err := r.publishedPlace(ctx, ss)
	if at == nil || err != nil {
		return []*model.PublishedPage{}, err
	}
	return pagesAt(at, at.Nav.ListedOf(at.Nav.Roots)), nil
}

// SiteSpacePage is the page at path in the revision a site space shows
// (empty: the page it opens on); nil when there is none.
func (r *Resolver) SiteSpacePage(ctx context.Context, ss *ent.SiteSpace, path string) (*model.PublishedPage, error) {
	at, err := r.publishedPlace(ctx, ss)
	if at == nil || err != nil {
		return nil, err
	}
	return at.At(at.Nav.PageAt(path)), nil
}

// SitePage is the page at a path below a site's root, read as the reader
// reads its addresses; nil when nothing the caller sees is there.
func (r *Resolver) SitePage(ctx context.Context, s *ent.Site, path string) (*model.PublishedPage, error) {
	v, err := r.siteView(ctx, s)
	if err != nil {
		return nil, err
	}
	pl, ok := v.Resolve(path)
	if !ok {
		return nil, nil
	}
	st, err := loader.For(ctx).SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return nil, err
	}
	var ss *ent.SiteSpace
	for _, row := range st.SiteSpaces {
		if row.ID == pl.SiteSpace.ID {
			ss = row
		}
	}
	if ss == nil {
		return nil, nil
	}
	if !loader.For(ctx).ReadsAsAudience(s.ID) {
		if ok, err := memberReadsSpace(ctx, st, ss.SpaceID); !ok || err != nil {
			return nil, err
		}
	}
	n, err := r.PublishedNav(ctx, pl.SiteSpace.RevisionID)
	if err != nil {
		return nil, err
	}
	at := &model.PublishedPage{Site: s, SiteSpace: ss, View: v, Section: pl.Section, Space: pl.SiteSpace, Nav: n}
	return at.At(n.PageAt(pl.PagePath)), nil
}

// publishedPlace is a site space's place in its site's published view,
// with its navigation, as a page without its page; nil when its space has
// no content.
func (r *Resolver) publishedPlace(ctx context.Context, ss *ent.SiteSpace) (*model.PublishedPage, error) {
	s, v, sec, pss, ok, err := r.publishedSiteSpace(ctx, ss)
	if !ok || err != nil {
		return nil, err
	}
	n, err := r.PublishedNav(ctx, pss.RevisionID)
	if err != nil {
		return nil, err
	}
	return &model.PublishedPage{Site: s, SiteSpace: ss, View: v, Section: sec, Space: pss, Nav: n}, nil
}

func pagesAt(at *model.PublishedPage, ps []*published.Page) []*model.PublishedPage {
	out := make([]*model.PublishedPage, len(ps))
	for i, p := range ps {
		out[i] = at.At(p)
	}
	return out
}

// PublishedPageContent is the content of a published page (its Page).
func (r *Resolver) PublishedPageContent(ctx context.Context, p *model.PublishedPage) (*model.Page, error) {
	t, err := loader.For(ctx).RevisionTree.Load(ctx, p.Nav.RevisionID)()
	if err != nil {
		return nil, err
	}
	row, ok := t.ByID[p.Page.ID]
	if !ok {
		return nil, apperr.NotFoundf("page %s not found", p.Page.ID)
	}
	return &model.Page{Page: row, Tree: t, SpaceID: p.Space.SpaceID, InTree: underList(ctx)}, nil
}

// PublishedPageURL is where a published page is read; nil while its site
// is unpublished (members preview it).
func (r *Resolver) PublishedPageURL(p *model.PublishedPage) *string {
	if !p.Site.Published {
		return nil
	}
	u := p.Base() + p.Page.Path
	return &u
}

// PublishedPageRendered is a published page's body rendered by the
// reader's renderer, for the address of its site space.
func (r *Resolver) PublishedPageRendered(ctx context.Context, p *model.PublishedPage) (*published.Rendered, error) {
	inList := underList(ctx)
	return r.PublishedRender(ctx, p.Site.OrganizationID, p.Nav, p.Page, p.Base(), func(ctx context.Context) (string, error) {
		hash := p.Page.ContentHash
		if hash == "" {
			return "", nil
		}
		l := loader.For(ctx)
		if inList {
			// Pages inside a list render together: every body of their
			// revisions in one statement, whatever their number.
			bodies, err := l.RevisionBodies.Load(ctx, p.Nav.RevisionID)()
			return bodies[hash], err
		}
		return l.PageMarkdown.Load(ctx, hash)()
	})
}

// PublishedPageOutline is a published page's level-2 and level-3
// headings, at most MaxOutlineHeadings.
func (r *Resolver) PublishedPageOutline(ctx context.Context, p *model.PublishedPage) ([]*model.PublishedHeading, error) {
	rp, err := r.PublishedPageRendered(ctx, p)
	if err != nil {
		return nil, err
	}
	items := rp.Outline[:min(len(rp.Outline), MaxOutlineHeadings)]
	out := make([]*model.PublishedHeading, len(items))
	for i, it := range items {
		out[i] = &model.PublishedHeading{Level: it.Level, Title: it.Text, Anchor: it.ID}
	}
	return out, nil
}

// PublishedPageNoIndex says whether robots should leave a published page
// out: its frontmatter says so, or its site is not public (the reader's
// robots meta).
func (r *Resolver) PublishedPageNoIndex(ctx context.Context, p *model.PublishedPage) (bool, error) {
	if p.Site.Visibility.String() != "public" {
		return true, nil
	}
	rp, err := r.PublishedPageRendered(ctx, p)
	if err != nil {
		return false, err
	}
	return rp.NoIndex, nil
}

// PublishedPageNeighbour is the listed document before (or after) a page
// in reading order.
func (r *Resolver) PublishedPageNeighbour(p *model.PublishedPage, next bool) *model.PublishedPage {
	prev, nxt := p.Nav.Neighbours(p.Page)
	if next {
		return p.At(nxt)
	}
	return p.At(prev)
}

// PublishedPageChildren are a page's listed subpages.
func (r *Resolver) PublishedPageChildren(p *model.PublishedPage) []*model.PublishedPage {
	return pagesAt(p, p.Nav.ListedOf(p.Page.Children))
}

// PublishedPageAncestors are the pages above a page, root first.
func (r *Resolver) PublishedPageAncestors(p *model.PublishedPage) []*model.PublishedPage {
	return pagesAt(p, p.Nav.Ancestors(p.Page))
}

// publishedPageNode reads a published page by its node id's parts under
// the published site's rules: as a member, as the audience publishedSite
// let in, or as an anonymous visitor. A page of a revision the site space
// no longer shows is not found: it is no longer published.
func (r *Resolver) publishedPageNode(ctx context.Context, siteID, siteSpaceID, revisionID, pageID string) (*model.PublishedPage, error) {
	notFound := apperr.NotFoundf("published page not found")
	l := loader.For(ctx)
	s, err := l.SiteByID.Load(ctx, siteID)()
	if err != nil {
		return nil, err
	}
	if err := r.readAnonymously(ctx, s); err != nil {
		return nil, err
	}
	st, err := l.SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return nil, err
	}
	var ss *ent.SiteSpace
	for _, row := range st.SiteSpaces {
		if row.ID == siteSpaceID {
			ss = row
		}
	}
	if ss == nil {
		return nil, notFound
	}
	at, err := r.publishedPlace(ctx, ss)
	if err != nil {
		return nil, err
	}
	if at == nil || at.Nav.RevisionID != revisionID {
		return nil, notFound
	}
	p := at.At(at.Nav.ByID[pageID])
	if p == nil {
		return nil, notFound
	}
	return p, nil
}

// underList says whether the field being resolved is inside a list (its
// path has an index): its siblings are resolved side by side, so reads
// that would otherwise be one per item are made for the whole level.
func underList(ctx context.Context) bool {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if fc.Index != nil {
			return true
		}
	}
	return false
}

// pathArg is an optional path argument as the reader reads a path.
func pathArg(path *string) string {
	if path == nil {
		return ""
	}
	return strings.Trim(*path, "/")
}
