package graph

import (
	"context"
	"net/url"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/internal/events"
)

// Automatic redirects: when new content of a space moves or renames a page
// (its path, the slugs from the root, changes) while a published site
// shows the space, the page's old address keeps working. Each site space
// showing the space gets a live, permanent redirect from the page's old
// address to the page itself (site-page): the redirect follows the page
// wherever it moves later, so chains never form (A→B then B→C leaves A
// and B both leading to the page at C).

// MovedPage is a page of a space whose path changed: slugs from the root
// joined with "/", before and after.
type MovedPage struct {
	PageID, OldPath, NewPath string
}

// redirectMovedPages writes, in tx (the write that changes the space's
// content), the redirects of pages moved in space spaceID, for every
// published site that shows it, each with its event. Callers leave out
// pages whose old path another page of the new content takes: a redirect
// never shadows a live page (the reader only redirects where it would
// answer 404). A redirect from a page's new path to itself (it moved back)
// is deleted. Unpublished sites get none: they have no published address.
// The Git import calls it too.
func (r *Resolver) redirectMovedPages(ctx context.Context, tx *ent.Client, spaceID string, moved []MovedPage) error {
	if len(moved) == 0 {
		return nil
	}
	shown, err := tx.SiteSpace.Query().Where(sitespace.SpaceID(spaceID)).All(ctx)
	if err != nil || len(shown) == 0 {
		return err
	}
	bySite := map[string][]*ent.SiteSpace{}
	var siteIDs []string
	for _, ss := range shown {
		if bySite[ss.SiteID] == nil {
			siteIDs = append(siteIDs, ss.SiteID)
		}
		bySite[ss.SiteID] = append(bySite[ss.SiteID], ss)
	}
	sites, err := tx.Site.Query().Where(site.IDIn(siteIDs...), site.Published(true)).All(ctx)
	if err != nil {
		return err
	}
	for _, s := range sites {
		sections, err := tx.SiteSection.Query().Where(sitesection.SiteID(s.ID)).All(ctx)
		if err != nil {
			return err
		}
		count, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(s.ID)).Count(ctx)
		if err != nil {
			return err
		}
		for _, ss := range bySite[s.ID] {
			base := siteSpaceBase(sections, ss)
			for _, m := range moved {
				if err := r.redirectMoved(ctx, tx, s, ss, base, m, &count); err != nil {
					return err
				}
			}
		}
		forgetRedirects(s.ID)
	}
	return nil
}

// siteSpaceBase is a site space's address below its site's root, as the
// reader builds it (published.View.SpaceURL): the default section and the
// default site space are left out.
func siteSpaceBase(sections []*ent.SiteSection, ss *ent.SiteSpace) string {
	p := "/"
	if ss.SectionID != nil {
		for _, sec := range sections {
			if sec.ID == *ss.SectionID && !sec.IsDefault {
				p += url.PathEscape(sec.Path) + "/"
			}
		}
	}
	if !ss.IsDefault {
		p += url.PathEscape(ss.Path) + "/"
	}
	return p
}

// escapedPath is a page path with each slug escaped, as sources store it.
func escapedPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// redirectMoved writes the redirect of one moved page in one site space.
func (r *Resolver) redirectMoved(ctx context.Context, tx *ent.Client, s *ent.Site, ss *ent.SiteSpace, base string, m MovedPage, count *int) error {
	auto := map[string]any{"automatic": true}
	// A redirect from where the page now is, to the page, would loop.
	back, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(s.ID), siteredirect.Draft(false),
		siteredirect.Source(base+escapedPath(m.NewPath)), siteredirect.DestinationKindEQ(siteredirect.DestinationKindSitePage),
		siteredirect.DestinationPageID(m.PageID)).All(ctx)
	if err != nil {
		return err
	}
	for _, b := range back {
		if err := tx.SiteRedirect.DeleteOneID(b.ID).Exec(ctx); err != nil {
			return err
		}
		*count--
		record(ctx, redirectEvent(events.SiteRedirectDeleted, s, b, map[string]any{"automatic": true}))
	}
	source := base + escapedPath(m.OldPath)
	if m.OldPath == "" || m.OldPath == m.NewPath || checkRedirectSource("source", source) != nil {
		return nil // a path no redirect can name
	}
	dest := redirectDest{kind: siteredirect.DestinationKindSitePage, id: &ss.ID, pageID: &m.PageID}
	old, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(s.ID), siteredirect.Draft(false), siteredirect.Source(source)).Only(ctx)
	switch {
	case err == nil:
		// The old address had a redirect (the page lived there before, or
		// someone sent it elsewhere while the page answered): it now leads
		// to the page that left it.
		u := tx.SiteRedirect.UpdateOneID(old.ID).SetPermanent(true)
		setDest(u, dest)
		clearDest(u, dest)
		fields := redirectFields(u.Mutation().Fields())
		up, err := u.Save(ctx)
		if err != nil {
			return err
		}
		record(ctx, redirectEvent(events.SiteRedirectUpdated, s, up, map[string]any{"fields": fields, "automatic": true}))
		return nil
	case !ent.IsNotFound(err):
		return err
	}
	if *count >= MaxRedirectsPerSite {
		return nil // the site is full: the old address answers 404
	}
	c := tx.SiteRedirect.Create().SetSiteID(s.ID).SetSource(source).SetPermanent(true)
	setDest(c, dest)
	created, err := c.Save(ctx)
	if err != nil {
		return err
	}
	*count++
	auto["destination"] = string(dest.kind)
	record(ctx, redirectEvent(events.SiteRedirectCreated, s, created, auto))
	return nil
}

// mergeMovedPages are the pages of space spaceID whose path the merged
// draft changes from revision oldRev (the draft's source), leaving out
// those whose old path the new content still holds. It reads nothing more
// than whether a published site shows the space unless one does; then the
// old revision's navigation (kept across requests) and the draft suffice.
func (r *Resolver) mergeMovedPages(ctx context.Context, spaceID, oldRev string, merged *draft) ([]MovedPage, error) {
	if oldRev == "" || merged == nil {
		return nil, nil
	}
	siteIDs, err := r.Client.SiteSpace.Query().Where(sitespace.SpaceID(spaceID)).Select(sitespace.FieldSiteID).Strings(ctx)
	if err != nil || len(siteIDs) == 0 {
		return nil, err
	}
	if ok, err := r.Client.Site.Query().Where(site.IDIn(siteIDs...), site.Published(true)).Exist(ctx); err != nil || !ok {
		return nil, err
	}
	n, err := r.PublishedNav(ctx, oldRev)
	if err != nil {
		return nil, err
	}
	type node struct{ parent, slug string }
	tree := map[string]node{}
	if merged.partial {
		for _, p := range n.Pages {
			tree[p.ID] = node{p.ParentID, p.Slug}
		}
		for id := range merged.sourcePages {
			delete(tree, id)
		}
	}
	for id, p := range merged.pages {
		tree[id] = node{p.Parent, p.Slug}
	}
	paths := make(map[string]string, len(tree))
	var pathOf func(id string, depth int) string
	pathOf = func(id string, depth int) string {
		if p, ok := paths[id]; ok {
			return p
		}
		nd, ok := tree[id]
		if !ok || depth > len(tree) {
			return ""
		}
		p := nd.slug
		if nd.parent != "" {
			p = pathOf(nd.parent, depth+1) + "/" + nd.slug
		}
		paths[id] = p
		return p
	}
	taken := make(map[string]bool, len(tree))
	for id := range tree {
		taken[pathOf(id, 0)] = true
	}
	var out []MovedPage
	for _, p := range n.Pages {
		if p.Kind == "link" {
			continue
		}
		if _, ok := tree[p.ID]; !ok {
			continue
		}
		if np := paths[p.ID]; np != p.Path && !taken[p.Path] {
			out = append(out, MovedPage{PageID: p.ID, OldPath: p.Path, NewPath: np})
		}
	}
	return out, nil
}
