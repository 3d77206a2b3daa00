package loader

import (
	"context"
	"sort"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/file"
	"github.com/folio/folio/ent/pagecontent"
	"github.com/folio/folio/ent/revision"
)

// RevisionLoaders batch the reads of revisions: a revision's pages and files
// load in one statement each, whatever their number, and page bodies in one
// statement per batch of pages. Revisions that one list shows together
// (ShowTogether) are read together: their rows, trees, bodies and documents
// in one statement each, however their resolution falls into batches.
type RevisionLoaders struct {
	RevisionByID *Loader[*ent.Revision]
	// RevisionPages reads the page rows of revisions, for RevisionTree: a
	// revision whose tree is kept (tree_cache.go) answers the tree's rows,
	// shared with every request, which nobody may change.
	RevisionPages *Loader[[]*ent.Page]
	RevisionFiles *Loader[[]*ent.File]
	// PageMarkdown reads page bodies by content hash.
	PageMarkdown *Loader[string]
	// PageDerived reads the derived data of bodies (document, text, links,
	// anchors, sections) by content hash, computing it on first read; an
	// empty or unknown hash gives that of an empty body.
	PageDerived *Loader[*Derived]
	// RevisionTree arranges a revision's pages as a tree, once per request,
	// or takes it from the trees kept across requests (tree_cache.go). A
	// tree and its rows are shared: read them, never change them.
	RevisionTree *Loader[*Tree]
	// RevisionBodies loads the bodies of every page of a revision in one
	// statement, for reads that walk a tree and ask each page its body; the
	// map, by content hash, may hold other revisions' bodies too.
	RevisionBodies *Loader[map[string]string]
	// RevisionDerived is RevisionBodies for derived data (documents): by
	// content hash, nil for a page without a stored body.
	RevisionDerived *Loader[map[string]*Derived]

	together together
}

// ShowTogether records that one list shows these revisions side by side:
// the first read of any of them reads all of them (together.go).
func (rl *RevisionLoaders) ShowTogether(revisionIDs []string) { rl.together.add(revisionIDs) }

func newRevisionLoaders(b batching, client *ent.Client) *RevisionLoaders {
	rl := &RevisionLoaders{}
	revisions := byLevel(&rl.together, "revision", func(ctx context.Context, ids []string) (map[string]*ent.Revision, error) {
		rows, err := client.Revision.Query().Where(revision.IDIn(ids...)).All(ctx)
		out := make(map[string]*ent.Revision, len(rows))
		for _, r := range rows {
			out[r.ID] = r
		}
		return out, err
	})
	pages := byLevel(&rl.together, "pages", func(ctx context.Context, revs []string) (map[string][]*ent.Page, error) {
		// A level's revisions whose trees are kept are not read again.
		kept := map[string][]*ent.Page{}
		read := revs[:0:0]
		for _, rev := range revs {
			if t := trees.peek(rev); t != nil {
				kept[rev] = t.Pages
			} else {
				read = append(read, rev)
			}
		}
		out, err := RevisionPages(ctx, client, read)
		for rev, ps := range kept {
			out[rev] = ps
		}
		return out, err
	})
	// Files by level too: revisions one list shows (a list of change
	// requests' diffs, a site's navigation, a resolver per site space) read
	// their files in one statement.
	files := byLevel(&rl.together, "files", func(ctx context.Context, revs []string) (map[string][]*ent.File, error) {
		rows, err := client.File.Query().Where(file.RevisionIDIn(revs...)).
			Order(ent.Asc(file.FieldCreatedAt), ent.Asc(file.FieldFileID)).All(ctx)
		out := make(map[string][]*ent.File, len(revs))
		for _, f := range rows {
			out[f.RevisionID] = append(out[f.RevisionID], f)
		}
		return out, err
	})
	bodies := byLevel(&rl.together, "bodies", func(ctx context.Context, revs []string) (map[string]map[string]string, error) {
		hashes, err := rl.treeHashes(ctx, revs)
		if err != nil {
			return nil, err
		}
		text := make(map[string]string, len(hashes))
		if len(hashes) > 0 {
			rows, err := client.PageContent.Query().Where(pagecontent.IDIn(hashes...)).All(ctx)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				text[r.ID] = r.Markdown
			}
		}
		return sameFor(revs, text), nil
	})
	derived := byLevel(&rl.together, "derived", func(ctx context.Context, revs []string) (map[string]map[string]*Derived, error) {
		hashes, err := rl.treeHashes(ctx, revs)
		if err != nil {
			return nil, err
		}
		byHash := map[string]*Derived{}
		if len(hashes) > 0 {
			if byHash, err = loadDerived(ctx, client, hashes); err != nil {
				return nil, err
			}
		}
		return sameFor(revs, byHash), nil
	})
	*rl = RevisionLoaders{
		RevisionByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Revision, error) {
			m, err := revisions(ctx, ids)
			rows := make([]*ent.Revision, 0, len(m))
			for _, r := range m {
				rows = append(rows, r)
			}
			return rows, err
		}, func(r *ent.Revision) string { return r.ID }, "revision"),
		RevisionPages: mapLoader(b, pages),
		RevisionFiles: mapLoader(b, files),
		PageMarkdown: batched(b, func(ctx context.Context, hashes []string) []*dataloader.Result[string] {
			rows, err := client.PageContent.Query().Where(pagecontent.IDIn(hashes...)).All(ctx)
			text := make(map[string]string, len(rows))
			for _, r := range rows {
				text[r.ID] = r.Markdown
			}
			results := make([]*dataloader.Result[string], len(hashes))
			for i, h := range hashes {
				results[i] = &dataloader.Result[string]{Data: text[h], Error: err}
			}
			return results
		}),
		PageDerived: newDerivedLoader(b, client),
		RevisionTree: batched(b.now(), func(ctx context.Context, revs []string) []*dataloader.Result[*Tree] {
			results := make([]*dataloader.Result[*Tree], len(revs))
			var missed []string
			var at []int
			for i, rev := range revs {
				if t := trees.get(rev); t != nil {
					results[i] = &dataloader.Result[*Tree]{Data: t}
				} else {
					missed = append(missed, rev)
					at = append(at, i)
				}
			}
			if len(missed) == 0 {
				return results
			}
			pages, errs := rl.RevisionPages.LoadMany(ctx, missed)()
			for j, rev := range missed {
				var err error
				if errs != nil {
					err = errs[j]
				}
				t := NewTree(pages[j])
				t.RevisionID = rev
				if err == nil {
					trees.put(t)
				}
				results[at[j]] = &dataloader.Result[*Tree]{Data: t, Error: err}
			}
			return results
		}),
		RevisionBodies:  mapLoader(b, bodies),
		RevisionDerived: mapLoader(b, derived),
	}
	return rl
}

// treeHashes are the distinct content hashes of the pages of revisions.
func (rl *RevisionLoaders) treeHashes(ctx context.Context, revs []string) ([]string, error) {
	trees, errs := rl.RevisionTree.LoadMany(ctx, revs)()
	seen := map[string]bool{}
	var hashes []string
	for i, t := range trees {
		if errs != nil && errs[i] != nil {
			return nil, errs[i]
		}
		for _, p := range t.Pages {
			if p.ContentHash != "" && !seen[p.ContentHash] {
				seen[p.ContentHash] = true
				hashes = append(hashes, p.ContentHash)
			}
		}
	}
	return hashes, nil
}

// sameFor hands every key the same value.
func sameFor[V any](keys []string, v V) map[string]V {
	out := make(map[string]V, len(keys))
	for _, k := range keys {
		out[k] = v
	}
	return out
}

// mapLoader builds a loader from a read of many keys at once; keys it does
// not return get the zero value.
func mapLoader[V any](b batching, fetch func(context.Context, []string) (map[string]V, error)) *Loader[V] {
	return batched(b, func(ctx context.Context, keys []string) []*dataloader.Result[V] {
		vals, err := fetch(ctx, keys)
		results := make([]*dataloader.Result[V], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[V]{Data: vals[k], Error: err}
		}
		return results
	})
}

// Tree is a revision's pages arranged as a tree, built once from the
// revision's page rows and then only read, by any number of requests at
// once (tree_cache.go): nothing in it, rows included, may be changed.
type Tree struct {
	// RevisionID is the revision whose pages the tree holds ("" for a
	// tree of rows from nowhere in particular).
	RevisionID string
	Pages      []*ent.Page
	ByID       map[string]*ent.Page
	Children   map[string][]*ent.Page // by parent page id; "" holds the root pages
	paths      map[string]string
}

// NewTree arranges page rows (in any order) as a tree.
func NewTree(pages []*ent.Page) *Tree {
	t := &Tree{Pages: pages, ByID: make(map[string]*ent.Page, len(pages)), Children: map[string][]*ent.Page{}}
	for _, p := range pages {
		t.ByID[p.PageID] = p
	}
	for _, p := range pages {
		parent := p.ParentPageID
		if _, ok := t.ByID[parent]; !ok {
			parent = ""
		}
		t.Children[parent] = append(t.Children[parent], p)
	}
	for _, kids := range t.Children {
		sortPages(kids)
	}
	// Paths are computed here, once: resolvers read the tree concurrently.
	t.paths = make(map[string]string, len(pages))
	var walk func(parent, prefix string)
	walk = func(parent, prefix string) {
		for _, c := range t.Children[parent] {
			path := c.Slug
			if prefix != "" {
				path = prefix + "/" + c.Slug
			}
			t.paths[c.PageID] = path
			walk(c.PageID, path)
		}
	}
	walk("", "")
	return t
}

func sortPages(ps []*ent.Page) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Position != ps[j].Position {
			return ps[i].Position < ps[j].Position
		}
		return ps[i].PageID < ps[j].PageID
	})
}

// Path is the slugs from the root to the page, joined with "/".
func (t *Tree) Path(p *ent.Page) string { return t.paths[p.PageID] }
