package loader

import (
	"container/list"
	"sync"

	"github.com/folio/folio/internal/metrics"
)

// Built trees are kept across requests by revision id. A revision's pages
// never change once it is committed (a change writes a new revision, with
// a new id, and moves the space or change request to it; chunks are never
// rewritten: internal/db/chunks.go) and ids are never reused, so an entry
// is never stale and needs no invalidation, on this instance or another.
// Only trees with pages are kept: a revision read before its transaction
// commits (or after its space is purged) shows no pages, and an empty tree
// costs one small statement anyway. A kept tree is shared by every request
// that reads it, concurrently: it is complete when stored (NewTree
// computes everything, paths included), and nobody changes a tree or its
// rows (draft.go copies them into draftPages before editing).
//
// The cache is bounded by the pages its trees hold (FOLIO_TREE_CACHE_PAGES;
// 0 keeps none): the least recently read trees go first, and a tree larger
// than the bound is not kept.
type treeCache struct {
	mu    sync.Mutex
	limit int // pages
	pages int // pages held
	order list.List
	byRev map[string]*list.Element // of *Tree
}

// DefaultTreeCachePages is the default bound of the tree cache, in pages
// (about 75 MB at ~750 bytes a page: row, maps and path): the current
// revisions of ten spaces at the 10,000-page limit.
const DefaultTreeCachePages = 100000

// trees is the process's cache of built trees (one server a process, as
// for the metrics); LimitTreeCache sets its bound at start.
var trees = &treeCache{limit: DefaultTreeCachePages, byRev: map[string]*list.Element{}}

// LimitTreeCache bounds the trees kept across requests to pages pages in
// all (0: none kept), dropping the least recently read ones beyond it.
func LimitTreeCache(pages int) {
	trees.mu.Lock()
	defer trees.mu.Unlock()
	trees.limit = max(pages, 0)
	trees.evict()
}

// ForgetTrees drops the kept trees of revisions, after their rows are
// deleted (a purged space): only to free the memory sooner, since nothing
// reads a purged revision.
func ForgetTrees(revs []string) {
	trees.mu.Lock()
	defer trees.mu.Unlock()
	for _, rev := range revs {
		if e := trees.byRev[rev]; e != nil {
			trees.remove(e)
		}
	}
	trees.report()
}

// get is the kept tree of rev, counted as a hit or a miss.
func (c *treeCache) get(rev string) *Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byRev[rev]
	if e == nil {
		metrics.TreeCacheMisses.Inc()
		return nil
	}
	metrics.TreeCacheHits.Inc()
	c.order.MoveToFront(e)
	return e.Value.(*Tree)
}

// peek is the kept tree of rev, if any, without counting or reordering:
// for a read of a level of revisions whose trees are partly kept.
func (c *treeCache) peek(rev string) *Tree {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byRev[rev]; e != nil {
		return e.Value.(*Tree)
	}
	return nil
}

// put keeps t, a complete tree of t.RevisionID.
func (c *treeCache) put(t *Tree) {
	n := len(t.Pages)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n == 0 || n > c.limit || c.byRev[t.RevisionID] != nil {
		return
	}
	c.byRev[t.RevisionID] = c.order.PushFront(t)
	c.pages += n
	c.evict()
}

// evict drops the least recently read trees until the pages fit.
func (c *treeCache) evict() {
	for c.pages > c.limit {
		c.remove(c.order.Back())
	}
	c.report()
}

func (c *treeCache) remove(e *list.Element) {
	t := c.order.Remove(e).(*Tree)
	delete(c.byRev, t.RevisionID)
	c.pages -= len(t.Pages)
}

func (c *treeCache) report() {
	metrics.TreeCachePages.Set(float64(c.pages))
	metrics.TreeCacheTrees.Set(float64(c.order.Len()))
}
