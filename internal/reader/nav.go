package reader

import (
	"context"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/folio/folio/graph"
)

// nav is the navigation of one revision: its tree, the reading order of
// the pages a visitor is shown (hidden pages and those under them left
// out), and each page's place in it. Revisions never change, so a nav is
// built once and kept (navCache), not rebuilt per request: a request pays
// a map lookup, not a statement per page.
type nav struct {
	*graph.ReaderContent
	// order is the listed pages in reading order (previous / next).
	order []*graph.ReaderPage
	index map[string]int // page id -> place in order
	// unlisted holds hidden pages and every page under one: reachable by
	// URL, absent from the sidebar, previous / next, search and sitemap.
	unlisted map[string]bool
}

func newNav(c *graph.ReaderContent) *nav {
	n := &nav{ReaderContent: c, index: map[string]int{}, unlisted: map[string]bool{}}
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

// first is the page a site space opens on: its first listed document, else
// its first page.
func (n *nav) first() *graph.ReaderPage {
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

// ancestors are the pages above p, root first.
func (n *nav) ancestors(p *graph.ReaderPage) []*graph.ReaderPage {
	var out []*graph.ReaderPage
	for id := p.ParentID; id != ""; {
		a := n.ByID[id]
		if a == nil {
			break
		}
		out = append([]*graph.ReaderPage{a}, out...)
		id = a.ParentID
	}
	return out
}

// neighbours are the listed documents before and after p (nil at the ends,
// or when p is not listed).
func (n *nav) neighbours(p *graph.ReaderPage) (prev, next *graph.ReaderPage) {
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

// navCache keeps the navs of recently read revisions, at most maxNavs
// (a 5,000-page revision's nav is about a megabyte). Concurrent misses on
// one revision read it once.
type navCache struct {
	cache *lru.Cache[string, *nav]
	group singleflight.Group
}

const maxNavs = 64

func newNavCache() *navCache {
	c, _ := lru.New[string, *nav](maxNavs)
	return &navCache{cache: c}
}

func (c *navCache) get(ctx context.Context, res *graph.Resolver, revisionID string) (*nav, error) {
	if n, ok := c.cache.Get(revisionID); ok {
		return n, nil
	}
	v, err, _ := c.group.Do(revisionID, func() (any, error) {
		// Shared by every request waiting on this revision: one leaving
		// must not fail the others.
		content, err := res.ReaderRevision(context.WithoutCancel(ctx), revisionID)
		if err != nil {
			return nil, err
		}
		n := newNav(content)
		c.cache.Add(revisionID, n)
		return n, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*nav), nil
}
