package published

import (
	"context"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"
)

// Nav is the navigation of one revision: its tree, the reading order of
// the pages a visitor is shown (hidden pages and those under them left
// out), and each page's place in it. Revisions never change, so a Nav is
// built once and kept (NavCache), not rebuilt per request: a request pays
// a map lookup, not a statement per page.
type Nav struct {
	*Content
	// order is the listed documents in reading order (previous / next).
	order []*Page
	index map[string]int // page id -> place in order
	// unlisted holds hidden pages and every page under one: reachable by
	// URL, absent from the sidebar, previous / next, search and sitemap.
	unlisted map[string]bool
}

// NewNav builds the navigation of a revision.
func NewNav(c *Content) *Nav {
	n := &Nav{Content: c, index: map[string]int{}, unlisted: map[string]bool{}}
	for _, p := range c.Pages { // depth first: parents come before children
		if p.Hidden || (p.ParentID != "" && n.unlisted[p.ParentID]) {
			n.unlisted[p.ID] = true
			continue
		}
		if p.Kind == "document" {
			n.index[p.ID] = len(n.order)
			n.order = append(n.order, p)
		}
	}
	return n
}

// Order is the listed documents in reading order.
func (n *Nav) Order() []*Page { return n.order }

// Listed says whether a page is listed: not hidden, nor under a hidden
// page.
func (n *Nav) Listed(p *Page) bool { return !n.unlisted[p.ID] }

// ListedOf keeps the listed pages of ps, in order.
func (n *Nav) ListedOf(ps []*Page) []*Page {
	out := make([]*Page, 0, len(ps))
	for _, p := range ps {
		if !n.unlisted[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

// First is the page a site space opens on: its first listed document, else
// its first document.
func (n *Nav) First() *Page {
	if len(n.order) > 0 {
		return n.order[0]
	}
	for _, p := range n.Pages {
		if p.Kind == "document" {
			return p
		}
	}
	return nil
}

// PageAt is the page at a path (slugs joined with "/"; hidden pages too),
// or for "" the page a site space opens on (First); nil when none.
func (n *Nav) PageAt(path string) *Page {
	if path == "" {
		return n.First()
	}
	return n.ByPath[strings.TrimSuffix(path, "/")]
}

// Ancestors are the pages above p, root first.
func (n *Nav) Ancestors(p *Page) []*Page {
	var out []*Page
	for id := p.ParentID; id != ""; {
		a := n.ByID[id]
		if a == nil {
			break
		}
		out = append([]*Page{a}, out...)
		id = a.ParentID
	}
	return out
}

// Neighbours are the listed documents before and after p (nil at the ends,
// or when p is not listed).
func (n *Nav) Neighbours(p *Page) (prev, next *Page) {
	i, ok := n.index[p.ID]
	if !ok {
		return nil, nil
	}
	if i > 0 {
		prev = n.order[i-1]
	}
	if i+1 < len(n.order) {
		next = n.order[i+1]
	}
	return prev, next
}

// NavCache keeps the navs of recently read revisions, at most MaxNavs (a
// 5,000-page revision's nav is about a megabyte). Concurrent misses on one
// revision read it once.
type NavCache struct {
	cache *lru.Cache[string, *Nav]
	group singleflight.Group
}

// MaxNavs bounds the navs a NavCache keeps.
const MaxNavs = 64

// NewNavCache makes an empty cache.
func NewNavCache() *NavCache {
	c, _ := lru.New[string, *Nav](MaxNavs)
	return &NavCache{cache: c}
}

// Get is the nav of a revision, read with read on a miss.
func (c *NavCache) Get(ctx context.Context, revisionID string, read func(context.Context, string) (*Content, error)) (*Nav, error) {
	if n, ok := c.cache.Get(revisionID); ok {
		return n, nil
	}
	v, err, _ := c.group.Do(revisionID, func() (any, error) {
		// Shared by every request waiting on this revision: one leaving
		// must not fail the others.
		content, err := read(context.WithoutCancel(ctx), revisionID)
		if err != nil {
			return nil, err
		}
		n := NewNav(content)
		c.cache.Add(revisionID, n)
		return n, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Nav), nil
}
