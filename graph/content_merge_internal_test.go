package graph

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/loader"
)

// TestMergeOfChangesIsWholeMerge checks, over random trees and random edits
// on both sides, that merging from the pages read around the changes
// (readAround) gives the whole merge: the same pages, places, fields and
// times, or the same conflicts.
func TestMergeOfChangesIsWholeMerge(t *testing.T) {
	old := mergeTestTime
	partialRuns, conflicts := 0, 0
	for seed := int64(0); seed < 6000; seed++ {
		rng := rand.New(rand.NewSource(seed))
		base := randomTree(rng, old)
		ours := editTree(rng, base, "o", 1+rng.Intn(4), false)
		if rng.Intn(3) == 0 {
			ours = cloneDraft(base) // main has not moved since the change request started
		}
		theirs := editTree(rng, base, "t", 1+rng.Intn(4), true)
		revs := []string{"b", "o", "t"}
		if reflect.DeepEqual(ours.pages, base.pages) && rng.Intn(2) == 0 {
			revs[1] = "b"
		}
		if compareMerges(t, fmt.Sprint("seed ", seed), revs, base, ours, theirs) {
			partialRuns++
		} else {
			conflicts++
		}
	}
	t.Logf("%d merged, %d in conflict", partialRuns, conflicts)
	if partialRuns < 1000 || conflicts < 100 {
		t.Fatalf("too few cases: %d merged, %d in conflict", partialRuns, conflicts)
	}
}

// randomTree is a canonical tree of 3 to 30 pages (positions 0..n-1 and
// unique slugs among siblings), as the application writes them.
func randomTree(rng *rand.Rand, at time.Time) *draft {
	d := &draft{pages: map[string]*draftPage{}, bodies: map[string]string{}, sourcePages: map[string]draftPage{}}
	n := 3 + rng.Intn(28)
	var ids []string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("p%02d", i)
		parent := ""
		if len(ids) > 0 && rng.Intn(4) != 0 {
			parent = ids[len(ids)-1-rng.Intn(min(len(ids), 3))] // deep chains as well as wide groups
		}
		p := &draftPage{ID: id, Kind: page.KindDocument, Title: "T" + id, Hash: "h" + id,
			CreatedAt: at.Add(time.Duration(i) * time.Minute), UpdatedAt: at.Add(time.Duration(i) * time.Minute)}
		d.pages[id] = p
		d.place(p, parent, rng.Intn(len(d.children(parent))+1))
		p.Slug = d.uniqueSlug(p, parent, []string{"a", "b", "a-2"}[rng.Intn(3)]) // a, a-2, a-3…: renames collide
		ids = append(ids, id)
	}
	for id, p := range d.pages {
		d.sourcePages[id] = *p
	}
	return d
}

// editTree makes n random edits to a copy of base, as the application's
// edits make them (moves, deletes, adds, renames, fields), and now and then
// a delete that leaves orphans; bodies change only when bodies is set, so
// that no body is merged line by line.
func editTree(rng *rand.Rand, base *draft, side string, n int, bodies bool) *draft {
	d := cloneDraft(base)
	pick := func() *draftPage {
		ids := make([]string, 0, len(d.pages))
		for id := range d.pages {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return nil
		}
		slices.Sort(ids)
		return d.pages[ids[rng.Intn(len(ids))]]
	}
	parentFor := func(p *draftPage) string {
		for range 5 {
			q := pick()
			if q == nil || rng.Intn(4) == 0 {
				return ""
			}
			if p == nil || !slices.Contains(d.descendants(p.ID), q.ID) {
				return q.ID
			}
		}
		return ""
	}
	for i := 0; i < n; i++ {
		p := pick()
		switch op := rng.Intn(9); {
		case p == nil || op == 0:
			id := fmt.Sprintf("n%d", rng.Intn(3)) // sometimes added alike on both sides
			if _, ok := d.pages[id]; ok {
				continue
			}
			np := &draftPage{ID: id, Kind: page.KindDocument, Title: "T" + id, Hash: "h" + id, CreatedAt: time.Now(), UpdatedAt: time.Now()}
			parent := parentFor(nil)
			np.Slug = d.uniqueSlug(np, parent, "s"+id)
			d.pages[id] = np
			d.place(np, parent, rng.Intn(len(d.children(parent))+1))
		case op == 1 || op == 8:
			gone := d.descendants(p.ID)
			if op == 8 && rng.Intn(3) == 0 {
				gone = gone[:1] // leaves orphans: not the application's edits, but data a merge must refuse alike
			}
			for _, id := range gone {
				delete(d.pages, id)
			}
			for i, s := range d.children(p.Parent) {
				s.Position = i
			}
		case op == 2 || op == 3:
			parent := p.Parent
			if op == 2 {
				parent = parentFor(p)
			}
			from := p.Parent
			p.Slug = d.uniqueSlug(p, parent, p.Slug)
			d.place(p, parent, rng.Intn(len(d.children(parent))+1))
			for i, s := range d.children(from) {
				s.Position = i
			}
			p.touch()
		case op == 4:
			p.Slug = d.uniqueSlug(p, p.Parent, []string{"a", "b"}[rng.Intn(2)])
			p.touch()
		case op == 5 && bodies:
			p.Hash = side + p.ID + fmt.Sprint(rng.Intn(2))
			p.touch()
		case op == 6:
			p.Title = []string{"X", "Y"}[rng.Intn(2)]
			p.touch()
		default:
			p.Emoji = side
			p.touch()
		}
	}
	return d
}

func cloneDraft(d *draft) *draft {
	c := &draft{pages: map[string]*draftPage{}, bodies: map[string]string{}, sourcePages: map[string]draftPage{}}
	for id, p := range d.pages {
		q := *p
		c.pages[id] = &q
		c.sourcePages[id] = q
	}
	return c
}

func pageRows(d *draft) []*ent.Page {
	var out []*ent.Page
	for _, p := range d.pages {
		out = append(out, &ent.Page{PageID: p.ID, ParentPageID: p.Parent, Position: p.Position,
			Kind: p.Kind, Title: p.Title, Emoji: p.Emoji, Slug: p.Slug, Description: p.Description, Hidden: p.Hidden,
			Href: p.Href, ContentHash: p.Hash, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt})
	}
	return out
}

// changedIDs is what db.ChangedPages answers: pages whose fields differ
// (times aside) or that one side only holds.
func changedIDs(base, side *draft) []string {
	var out []string
	fields := func(p *draftPage) draftPage {
		q := *p
		q.CreatedAt, q.UpdatedAt = time.Time{}, time.Time{}
		return q
	}
	for id, p := range side.pages {
		if b, ok := base.pages[id]; !ok || fields(b) != fields(p) {
			out = append(out, id)
		}
	}
	for id := range base.pages {
		if _, ok := side.pages[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// memReader reads rows as the database would for readAround.
func memReader(rows map[string][]*ent.Page) pageReader {
	return func(byParent bool, keys []string) (map[string][]*ent.Page, error) {
		out := map[string][]*ent.Page{}
		for rev, revRows := range rows {
			for _, r := range revRows {
				key := r.PageID
				if byParent {
					key = r.ParentPageID
				}
				if slices.Contains(keys, key) {
					out[rev] = append(out[rev], r)
				}
			}
		}
		return out, nil
	}
}

// compareMerges merges base, ours and theirs (revisions revs) whole and from
// the pages read around the changes, fails the test where they differ, and
// tells whether they merged.
func compareMerges(t *testing.T, name string, revs []string, base, ours, theirs *draft) bool {
	t.Helper()
	ctx := loader.With(context.Background(), loader.New(nil, ""))
	whole, wholeErr := mergeDrafts(ctx, &mergeSides{b: cloneDraft(base), o: cloneDraft(ours), t: cloneDraft(theirs)})

	rows := map[string][]*ent.Page{revs[0]: pageRows(base), revs[2]: pageRows(theirs)}
	if revs[1] != revs[0] {
		rows[revs[1]] = pageRows(ours)
	}
	changed := map[string]bool{}
	for _, side := range []*draft{ours, theirs} {
		for _, id := range changedIDs(base, side) {
			changed[id] = true
		}
	}
	sides, err := readAround(revs, setKeys(changed), memReader(rows))
	if err != nil || sides == nil {
		t.Fatalf("%s: readAround: %v %v", name, sides, err)
	}
	sides.oursCount = len(ours.pages)
	part, partErr := mergeDrafts(ctx, sides)

	if fmt.Sprint(wholeErr) != fmt.Sprint(partErr) {
		t.Fatalf("%s: whole merge: %v; merge of changes: %v", name, wholeErr, partErr)
	}
	if wholeErr != nil {
		return false
	}
	got := map[string]draftPage{}
	for id, p := range ours.pages {
		if _, read := part.sourcePages[id]; !read {
			got[id] = *p // not read: the write copies ours' row
		}
	}
	for id, p := range part.pages {
		got[id] = *p
	}
	want := map[string]draftPage{}
	for id, p := range whole.pages {
		want[id] = *p
	}
	for _, m := range []map[string]draftPage{got, want} {
		for id, p := range m {
			if p.UpdatedAt.After(mergeTestTime.Add(time.Hour)) {
				p.UpdatedAt = time.Time{} // stamped by the merge
				m[id] = p
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		for id := range want {
			if got[id] != want[id] {
				t.Errorf("%s: page %s: merge of changes %+v, whole merge %+v", name, id, got[id], want[id])
			}
		}
		t.Fatalf("%s: %d pages vs %d", name, len(got), len(want))
	}
	if part.pageCount() != len(whole.pages) {
		t.Fatalf("%s: pageCount %d, whole merge holds %d", name, part.pageCount(), len(whole.pages))
	}
	return true
}

// mergeTestTime is when the test trees' pages were written.
var mergeTestTime = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// TestMergeOfChangesRenamesLikeWholeMerge: siblings renamed to the same slug
// on the two sides take the suffix the whole group leaves free, which only
// a read of the whole group knows.
func TestMergeOfChangesRenamesLikeWholeMerge(t *testing.T) {
	base := &draft{pages: map[string]*draftPage{}}
	for i, slug := range []string{"x", "y", "a-2"} {
		id := fmt.Sprintf("p%d", i)
		base.pages[id] = &draftPage{ID: id, Position: i, Kind: page.KindDocument, Title: id, Slug: slug,
			CreatedAt: mergeTestTime, UpdatedAt: mergeTestTime}
	}
	ours, theirs := cloneDraft(base), cloneDraft(base)
	ours.pages["p0"].Slug = "a"
	theirs.pages["p1"].Slug = "a"
	compareMerges(t, "renames", []string{"b", "o", "t"}, base, ours, theirs)
}
