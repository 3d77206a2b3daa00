// Package published holds the rules of published docs sites that the
// reader (internal/reader: the HTML site at /s/<basename>/) and GraphQL
// (graph: publishedSite, PublishedPage) share, so that each is defined
// once: which sections and site spaces a visitor sees (their conditions
// over the visitor's claims), where a path of a site leads, the address of
// each site space and page, a revision's navigation (reading order, pages
// left out of it, previous / next) and a page's rendered HTML with its
// links pointing at their published addresses.
//
// It knows nothing of HTTP, GraphQL or the database: the sites area
// (graph/sites_reader.go) builds a Site from the stored structure and a
// Content from a revision's pages; who may read a site at all is the
// access gate's (internal/visitor).
package published

import (
	"encoding/json"

	"github.com/folio/folio/internal/adaptive"
)

// Site is a published site: its settings and its whole structure, each
// site space with the revision it shows.
type Site struct {
	ID, OrganizationID, Title, Visibility string
	Basename                              string // "" when the site has none
	Customization                         json.RawMessage
	VisitorKey, FallbackURL               string
	Schema                                *adaptive.Schema
	// Top is the site's top level in order: ungrouped sections and groups.
	Top []Item
	// Sections is every section in reading order (groups flattened).
	Sections []*Section
	// Root holds the site spaces of a site without sections.
	Root []*SiteSpace
	// Digest changes whenever anything above changes (structure, settings,
	// customization, the revision a site space shows): part of ETags.
	Digest string
	// Preview: a signed-in member reads the site (published or not)
	// through the reader: no visitor gate, no shared caching, noindex.
	Preview bool
}

// Item is a top-level item: a section or a group of sections.
type Item struct {
	Section *Section
	Group   *Group
}

// Group is a group of sections, shown as a menu.
type Group struct {
	ID, Title string
	Sections  []*Section
}

// Section is a section (a tab) with its site spaces (its variants).
type Section struct {
	ID, Title, Path, Description string
	Default                      bool
	// Condition decides whether the section exists for a visitor; nil: it
	// always does.
	Condition  *adaptive.Condition
	SiteSpaces []*SiteSpace
}

// SiteSpace is a space published in a site. Site spaces whose space has
// no content (or is in the trash) are not in a Site at all.
type SiteSpace struct {
	ID, Title, Path, SpaceID, RevisionID string
	Default                              bool
	Condition                            *adaptive.Condition
}

// Page is one page of a published revision.
type Page struct {
	ID, ParentID, Kind, Title, Emoji, Slug, Description, Href, ContentHash string
	// Path is the slugs from the root, joined with "/".
	Path   string
	Hidden bool
	Depth  int
	// Children are the page's subpages, in order.
	Children []*Page
}

// Content is a published revision: its page tree and its files.
// Revisions never change, so callers may keep it as long as they like.
type Content struct {
	RevisionID string
	// Roots are the root pages; Pages every page, depth first (the
	// reading order).
	Roots  []*Page
	Pages  []*Page
	ByID   map[string]*Page
	ByPath map[string]*Page
	// Files are the download URLs of the revision's files, by file id.
	// The URL carries the bytes' hash: it cannot be guessed.
	Files map[string]string
}
