// Package model holds the GraphQL types that are not ent entities.
package model

import (
	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/markdown"
)

// Node is any object with an ID. ent entities satisfy it as they are, so the
// generated code needs no marker methods on ent types.
type Node interface{}

// Viewer is the authenticated user.
type Viewer struct {
	User *ent.User
}

// OrganizationURLs are the `urls` of an organization.
type OrganizationURLs struct {
	Location string  `json:"location"`
	App      string  `json:"app"`
	Logo     *string `json:"logo,omitempty"`
}

// SpaceURLs are the `urls` of a space.
type SpaceURLs struct {
	Location  string  `json:"location"`
	App       string  `json:"app"`
	Published *string `json:"published,omitempty"`
	Public    *string `json:"public,omitempty"`
}

// CollectionURLs are the `urls` of a collection.
type CollectionURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
}

// MemberSpace is a space a member can access, with the member's role.
type MemberSpace struct {
	Permission access.Role `json:"permission"`
	Space      *ent.Space  `json:"space"`
}

// SpaceCustomFieldValue is a custom field with a space's value (nil: unset).
type SpaceCustomFieldValue struct {
	CustomField *ent.CustomField `json:"customField"`
	Value       any              `json:"value,omitempty"`
}

// Page is a page of a revision with the revision's tree, which gives its
// path and subpages.
type Page struct {
	*ent.Page
	Tree    *loader.Tree
	SpaceID string
	// InTree is true for pages reached by walking a tree: their bodies load
	// with the whole revision's, in one statement. A page read alone loads
	// only its own body.
	InTree bool
}

// IsDocument, IsGroup and IsLink tell a page's kind, so that presenters
// need not know ent's constants.
func (p *Page) IsDocument() bool { return p.Kind == page.KindDocument }
func (p *Page) IsGroup() bool    { return p.Kind == page.KindGroup }
func (p *Page) IsLink() bool     { return p.Kind == page.KindLink }

// SearchPage is a page that matches a search, with its matching sections.
type SearchPage struct {
	Page     *Page
	Space    *ent.Space
	Sections []*SearchSection
}

// SearchSection is a matching section of a page and an excerpt of it.
type SearchSection struct {
	Section markdown.Section
	Excerpt string
	// Path is the page's path with the section's anchor.
	Path string
}

// SearchSpace is a space with its pages that match a search.
type SearchSpace struct {
	Space *ent.Space
	Pages []*SearchPage
}

// LinkTarget is where a link points and whether that exists.
type LinkTarget struct {
	Status string // ok, broken or in-app
	Kind   string // url, page, file or anchor
	URL    string // the link as written
	PageID string
	FileID string
	File   *ent.File // the file, for links to files that exist
	Anchor string
}

// LinkUsage is a link target and the pages that link to it.
type LinkUsage struct {
	Target    LinkTarget
	Locations []*ent.Page
	Tree      *loader.Tree
	SpaceID   string
}

// ImportResult is the outcome of an import.
type ImportResult struct {
	Revision          string `json:"revision"`
	ImportedResources int    `json:"importedResources"`
	TotalResources    int    `json:"totalResources"`
}

// LinksPage is the links of some content with the stats of all of them.
type LinksPage struct {
	Items          []*LinkUsage
	Total, Broken  int
	BrokenInChange int
	// More is how many items GraphQL's capped answer left out
	// (graph.CappedLinks); REST pages through them all instead.
	More int
}

// SitePublishingAuth is a site's visitor-auth signing key and fallback URL.
type SitePublishingAuth struct {
	PrivateKey  string  `json:"privateKey"`
	FallbackURL *string `json:"fallbackURL,omitempty"`
}
