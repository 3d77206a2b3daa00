package model

import (
	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/published"
)

// PublishedPage is a page as a published site shows it in one of its site
// spaces. What depends on the site — its address, its HTML (whose links
// point at the site's addresses), previous / next — lives here and not on
// Page: one revision can be shown by several site spaces and sites, and a
// Page's id names only the revision and the page, so a normalized client
// cache would mix two sites' values under it. Its id names the site space
// too.
type PublishedPage struct {
	Site      *ent.Site
	SiteSpace *ent.SiteSpace
	// View is the site as the caller sees it; Section and Space the site
	// space's place in it.
	View    *published.View
	Section *published.Section
	Space   *published.SiteSpace
	Nav     *published.Nav
	Page    *published.Page
}

// NodeID is the page's GraphQL id: site, site space, revision and page
// (the site first, so node(id:) reads it with the site's structure, as
// the page's own query does).
func (p *PublishedPage) NodeID() string {
	return NodeID(PublishedPageNode, p.Site.ID, p.Space.ID, p.Nav.RevisionID, p.Page.ID)
}

// Base is the address of the page's site space: page addresses are it
// plus the page's path.
func (p *PublishedPage) Base() string { return p.View.SpaceURL(p.Section, p.Space) }

// At is page q of the same site space; nil for no page.
func (p *PublishedPage) At(q *published.Page) *PublishedPage {
	if q == nil {
		return nil
	}
	out := *p
	out.Page = q
	return &out
}
