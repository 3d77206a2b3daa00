// Package model holds the GraphQL types that are not ent entities.
package model

import (
	"slices"

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
// path and subpages. Its GraphQL fields are plain methods (no resolver per
// page): pages are read by the thousand.
type Page struct {
	*ent.Page
	Tree    *loader.Tree
	SpaceID string
	// InTree is true for pages reached by walking a tree: their bodies load
	// with the whole revision's, in one statement. A page read alone loads
	// only its own body.
	InTree bool
}

// NodeID is the page's GraphQL id: the page as this revision holds it (the same
// page in a change request's revision is another node). PageID is the
// GitBook id, the same in every revision.
func (p *Page) NodeID() string { return PageNodeID(p.Tree.RevisionID, p.PageID) }

// Type is the page's kind.
func (p *Page) Type() page.Kind { return p.Kind }

// EmojiOrNull, DescriptionOrNull and HrefOrNull are GraphQL's emoji,
// description and href: null when empty.
func (p *Page) EmojiOrNull() *string       { return optional(p.Emoji) }
func (p *Page) DescriptionOrNull() *string { return optional(p.Description) }
func (p *Page) HrefOrNull() *string        { return optional(p.Href) }

// Path is the slugs from the root of the revision, joined with "/".
func (p *Page) Path() string { return p.Tree.Path(p.Page) }

// Pages are the page's subpages, in order.
func (p *Page) Pages() []*Page { return PagesOf(p.Tree, p.Tree.Children[p.PageID], p.SpaceID) }

// Parent is the parent page; nil for a root page.
func (p *Page) Parent() *Page {
	parent, ok := p.Tree.ByID[p.ParentPageID]
	if !ok {
		return nil
	}
	return &Page{Page: parent, Tree: p.Tree, SpaceID: p.SpaceID, InTree: p.InTree}
}

// Ancestors are the pages from the root down to the parent (breadcrumbs).
func (p *Page) Ancestors() []*Page {
	var out []*Page
	for a := p.Parent(); a != nil; a = a.Parent() {
		out = append(out, a)
	}
	slices.Reverse(out)
	return out
}

// PagesOf wraps rows of tree t (of space spaceID) as pages reached by
// walking the tree.
func PagesOf(t *loader.Tree, ps []*ent.Page, spaceID string) []*Page {
	out := make([]*Page, len(ps))
	for i, p := range ps {
		out[i] = &Page{Page: p, Tree: t, SpaceID: spaceID, InTree: true}
	}
	return out
}

// IsDocument, IsGroup and IsLink tell a page's kind, so that presenters
// need not know ent's constants.
func (p *Page) IsDocument() bool { return p.Kind == page.KindDocument }
func (p *Page) IsGroup() bool    { return p.Kind == page.KindGroup }
func (p *Page) IsLink() bool     { return p.Kind == page.KindLink }

// File is a file of a revision as GraphQL shows it.
type File struct{ *ent.File }

// NodeID is the file's GraphQL id: the file as this revision holds it. FileID is
// the GitBook id, the same in every revision.
func (f *File) NodeID() string { return NodeID(FileNode, f.RevisionID, f.FileID) }

// Files wraps a revision's file rows for GraphQL.
func Files(rows []*ent.File) []*File {
	out := make([]*File, len(rows))
	for i, f := range rows {
		out[i] = &File{f}
	}
	return out
}

// FilesResult is Files for a read that may fail.
func FilesResult(rows []*ent.File, err error) ([]*File, error) { return Files(rows), err }

// FileOf wraps one file row; nil stays nil.
func FileOf(f *ent.File) *File {
	if f == nil {
		return nil
	}
	return &File{f}
}

// Member is a user's membership of an organization as GraphQL shows it.
type Member struct{ *ent.Member }

// NodeID is the membership's GraphQL id: the user in this organization (the
// user's own id is user { id }).
func (m *Member) NodeID() string { return NodeID(MemberNode, m.OrganizationID, m.UserID) }

// Members wraps membership rows for GraphQL.
func Members(rows []*ent.Member) []*Member {
	out := make([]*Member, len(rows))
	for i, m := range rows {
		out[i] = &Member{m}
	}
	return out
}

// MemberOf wraps one membership row; nil stays nil.
func MemberOf(m *ent.Member) *Member {
	if m == nil {
		return nil
	}
	return &Member{m}
}

// MemberResult is MemberOf for a read or write that may fail.
func MemberResult(m *ent.Member, err error) (*Member, error) { return MemberOf(m), err }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

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
	// RevisionID, PageID and Query name the hit: the excerpt depends on
	// the query, so two searches' hits of one section are two nodes.
	RevisionID, PageID, Query string
}

// ID is the hit's node id.
func (s *SearchSection) ID() string {
	return NodeID(SearchSectionNode, s.RevisionID, s.PageID, s.Section.ID, s.Query)
}

// Anchor is the heading's anchor; empty for the text before the first
// heading.
func (s *SearchSection) Anchor() string { return s.Section.ID }

// Title is the heading's text; empty for the text before the first heading.
func (s *SearchSection) Title() string { return s.Section.Title }

// Body is the excerpt around the match.
func (s *SearchSection) Body() string { return s.Excerpt }

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

// CommentPageTarget is the page a comment is on. REST writes it as it is
// (GitBook's shape: id is the page's id); GraphQL's id is NodeID.
type CommentPageTarget struct {
	SpaceID   string `json:"-"`
	CommentID string `json:"-"`
	PageID    string `json:"id"`
	Title     string `json:"title"`
	Path      string `json:"path"`
	Outdated  bool   `json:"outdated"`
}

// NodeID is the target's GraphQL id: this comment's target, not the page.
func (t *CommentPageTarget) NodeID() string {
	return NodeID(CommentPageTargetNode, t.SpaceID, t.CommentID, t.PageID)
}

// CommentNodeTarget is the block of a page a comment is on. REST writes it
// as it is (GitBook's shape: id is the block's key); GraphQL's id is
// NodeID.
type CommentNodeTarget struct {
	SpaceID   string `json:"-"`
	CommentID string `json:"-"`
	Key       string `json:"id"`
	Preview   string `json:"preview"`
}

// NodeID is the target's GraphQL id: this comment's target, not the block.
func (t *CommentNodeTarget) NodeID() string {
	return NodeID(CommentNodeTargetNode, t.SpaceID, t.CommentID, t.Key)
}

// SSOProviderLogin is an active SAML provider's sign-in entry. REST writes
// it as it is (GitBook's shape: id is the provider's id); GraphQL's id is
// NodeID, since the provider is a node of its own.
type SSOProviderLogin struct {
	OrganizationID string `json:"-"`
	ProviderID     string `json:"id"`
	Label          string `json:"label"`
	StartURL       string `json:"startURL"`
}

// NodeID is the entry's GraphQL id.
func (l *SSOProviderLogin) NodeID() string {
	return NodeID(SSOProviderLoginNode, l.OrganizationID, l.ProviderID)
}
