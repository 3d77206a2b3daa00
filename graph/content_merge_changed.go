package graph

import (
	"context"
	"database/sql"
	"slices"
	"sort"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/db"
)

// maxMergeChanged bounds the pages a merge reads in place of whole
// revisions; a larger change reads them whole.
const maxMergeChanged = 1000

// changedSides reads the part of base, ours and theirs a merge needs, so
// that merging a change costs what the change holds, not what the space
// holds: the pages changed on either side since base (compared inside the
// database), the whole sibling groups of pages added, deleted, moved or
// renamed (slug) on a side — the merge places those among their siblings —,
// the children of such pages (orphans), and the ancestors of all of these
// on every side (orphans, cycles). Every other page is the same on the
// three sides and would merge to itself, renumbered with its siblings: when
// ours is canonical (positions 0..n-1, slugs unique among siblings) that is
// ours' row as it is, which the write copies. It answers nil when the
// revisions must be read whole: ours is not canonical, or too much changed.
func (r *Resolver) changedSides(ctx context.Context, base, ours, theirs string) (*mergeSides, error) {
	l := loader.For(ctx)
	revs := []string{base, ours, theirs}
	revRows, errs := l.RevisionByID.LoadMany(ctx, revs)()
	buckets := map[string]int{}
	for i, rev := range revs {
		if errs != nil && errs[i] != nil {
			return nil, errs[i]
		}
		buckets[rev] = revRows[i].Buckets
	}
	oursRev := revRows[1]
	// Revisions the application writes record their shape; others (made
	// before it was recorded, seeded) are checked whole once per merge.
	count := 0
	if oursRev.Canonical && oursRev.PageCount != nil {
		count = *oursRev.PageCount
	} else {
		var odd int
		q, args := db.TreeShape(r.Dialect, ours)
		if err := r.scanRow(ctx, q, args, &count, &odd); err != nil {
			return nil, err
		}
		if odd > 0 {
			return nil, nil
		}
	}
	maps, err := r.chunkMaps(ctx, base, ours, theirs)
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for _, side := range []string{ours, theirs} {
		if side == base {
			continue
		}
		q, args := db.ChangedPages(r.Dialect, onlyIn(maps[base], maps[side]), onlyIn(maps[side], maps[base]))
		ids, err := r.scanStrings(ctx, q, args)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			changed[id] = true
		}
		if len(changed) > maxMergeChanged {
			return nil, nil
		}
	}

	oursFiles, theirsFiles := l.RevisionFiles.Load(ctx, ours), l.RevisionFiles.Load(ctx, theirs)
	sides, err := readAround(revs, setKeys(changed), func(byParent bool, keys []string) (map[string][]*ent.Page, error) {
		if byParent {
			return loader.RevisionPages(ctx, r.Client, revs, page.ParentPageIDIn(keys...))
		}
		return r.pagesByID(ctx, maps, buckets, keys)
	})
	if err != nil || sides == nil {
		return nil, err
	}
	sides.oursCount = count
	files, err := oursFiles()
	if err != nil {
		return nil, err
	}
	sides.o.setSourceFiles(files)
	sides.o.sourceBuckets = oursRev.Buckets
	if files, err = theirsFiles(); err != nil {
		return nil, err
	}
	sides.t.files = draftFilesOf(files)
	return sides, nil
}

// pageReader reads the page rows of the revisions of a merge whose page_id
// (or parent_page_id, byParent) is one of keys, by revision.
type pageReader func(byParent bool, keys []string) (map[string][]*ent.Page, error)

// readAround reads, with read, the pages of revisions revs (base, ours,
// theirs) a merge of the pages changed needs (see changedSides). It answers
// nil when that is too many pages to write a partial draft.
func readAround(revs, changed []string, read pageReader) (*mergeSides, error) {
	var drafts [3]*draft
	for i, rev := range revs {
		drafts[i] = &draft{pages: map[string]*draftPage{}, bodies: map[string]string{}, source: rev,
			sourcePages: map[string]draftPage{}}
	}
	seen := map[string]bool{}
	readPages := func(byParent bool, keys []string) error {
		sort.Strings(keys)
		for start := 0; start < len(keys); start += pageChunk {
			rows, err := read(byParent, keys[start:min(len(keys), start+pageChunk)])
			if err != nil {
				return err
			}
			for i, rev := range revs {
				for _, p := range rows[rev] {
					seen[p.PageID] = true
					dp := draftPageOf(p)
					drafts[i].pages[p.PageID] = dp
					drafts[i].sourcePages[p.PageID] = *dp
				}
			}
		}
		return nil
	}
	if err := readPages(false, changed); err != nil {
		return nil, err
	}
	full := map[string]bool{}
	for _, id := range changed {
		ps := []*draftPage{drafts[0].pages[id], drafts[1].pages[id], drafts[2].pages[id]}
		if !placeChanged(ps) {
			continue
		}
		full[id] = true
		for _, p := range ps {
			if p != nil {
				full[p.Parent] = true
			}
		}
	}
	if err := readPages(true, setKeys(full)); err != nil {
		return nil, err
	}
	for {
		var missing []string
		for _, d := range drafts {
			for _, p := range d.pages {
				if p.Parent != "" && !seen[p.Parent] {
					seen[p.Parent] = true
					missing = append(missing, p.Parent)
				}
			}
		}
		if len(missing) == 0 {
			break
		}
		if err := readPages(false, missing); err != nil {
			return nil, err
		}
	}
	if len(drafts[1].pages) > maxExcluded {
		return nil, nil
	}
	return &mergeSides{b: drafts[0], o: drafts[1], t: drafts[2], full: full}, nil
}

// placeChanged tells whether a page's place differs between sides (nil:
// the side does not hold it): held by some only, another parent, position
// or slug.
func placeChanged(ps []*draftPage) bool {
	for _, p := range ps {
		if p == nil {
			return true
		}
		if q := ps[0]; p.Parent != q.Parent || p.Position != q.Position || p.Slug != q.Slug {
			return true
		}
	}
	return false
}

func setKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}

// chunkMaps reads the chunk maps of revisions (bucket → chunk id), in one
// statement.
func (r *Resolver) chunkMaps(ctx context.Context, revs ...string) (map[string]map[int]string, error) {
	q, args := db.RevisionChunks(r.Dialect, revs)
	rows, err := r.Client.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[int]string{}
	for _, rev := range revs {
		out[rev] = map[int]string{}
	}
	for rows.Next() {
		var rev, chunk string
		var bucket int
		if err := rows.Scan(&rev, &bucket, &chunk); err != nil {
			return nil, err
		}
		out[rev][bucket] = chunk
	}
	return out, rows.Err()
}

// pagesByID reads the rows of pages keys in revisions (by revision), from
// the one chunk of each revision that can hold each: its bucket is known
// from the page id, so the read costs what it finds.
func (r *Resolver) pagesByID(ctx context.Context, maps map[string]map[int]string, buckets map[string]int, keys []string) (map[string][]*ent.Page, error) {
	owners := map[string][]string{} // chunk → revisions naming it
	for rev, m := range maps {
		for _, k := range keys {
			c, ok := m[db.Bucket(k, buckets[rev])]
			if ok && !slices.Contains(owners[c], rev) {
				owners[c] = append(owners[c], rev)
			}
		}
	}
	out := map[string][]*ent.Page{}
	if len(owners) == 0 {
		return out, nil
	}
	rows, err := r.Client.Page.Query().Where(page.ChunkIDIn(setKeys(boolSet(owners))...), page.PageIDIn(keys...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range rows {
		for _, rev := range owners[p.ChunkID] {
			out[rev] = append(out[rev], p)
		}
	}
	return out, nil
}

func boolSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// onlyIn lists the chunks of map a that map b does not name: the rows of
// two revisions differ only there (a chunk belongs to one bucket of one
// bucket count, and both revisions hold the same rows of a chunk both name).
func onlyIn(a, b map[int]string) []string {
	named := make(map[string]bool, len(b))
	for _, c := range b {
		named[c] = true
	}
	var out []string
	for _, c := range a {
		if !named[c] {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// scanRow runs a query of one row into dest.
func (r *Resolver) scanRow(ctx context.Context, q string, args []any, dest ...any) error {
	rows, err := r.Client.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// scanStrings runs a query of one text column.
func (r *Resolver) scanStrings(ctx context.Context, q string, args []any) ([]string, error) {
	rows, err := r.Client.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
