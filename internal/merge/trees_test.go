package merge

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// pg is a document page whose title and slug are its ID.
func pg(id, parent string, pos int) Page {
	return Page{ID: id, Parent: parent, Position: pos, Title: id, Slug: id, Kind: "document", Body: l("# "+id, "", "one", "two", "three", "four")}
}

func mktree(pages ...Page) map[string]Page {
	t := make(map[string]Page, len(pages))
	for _, p := range pages {
		t[p.ID] = p
	}
	return t
}

// edit returns a copy of t with f applied to page id.
func edit(t map[string]Page, id string, f func(*Page)) map[string]Page {
	out := maps.Clone(t)
	p := out[id]
	f(&p)
	out[id] = p
	return out
}

func without(t map[string]Page, ids ...string) map[string]Page {
	out := maps.Clone(t)
	for _, id := range ids {
		delete(out, id)
	}
	return out
}

func with(t map[string]Page, pages ...Page) map[string]Page {
	out := maps.Clone(t)
	for _, p := range pages {
		out[p.ID] = p
	}
	return out
}

// normalize renumbers positions 0..n-1 per parent by (Position, ID), the
// form Trees returns.
func normalize(t map[string]Page) map[string]Page {
	out := maps.Clone(t)
	ix := index(t)
	for _, kids := range ix.children {
		for i, id := range kids {
			p := out[id]
			p.Position = i
			out[id] = p
		}
	}
	return out
}

// kids lists the children of parent in order.
func kids(t map[string]Page, parent string) []string {
	return index(t).children[parent]
}

// base3: roots A, B, C (B has children B1, B2, B3; B2 has child B2a).
func base3() map[string]Page {
	return mktree(
		pg("A", "", 0), pg("B", "", 1), pg("C", "", 2),
		pg("B1", "B", 0), pg("B2", "B", 1), pg("B3", "B", 2),
		pg("B2a", "B2", 0),
	)
}

func mustMerge(t *testing.T, base, ours, theirs map[string]Page) map[string]Page {
	t.Helper()
	got, cs := Trees(base, ours, theirs)
	if cs != nil {
		t.Fatalf("unexpected conflicts: %v", cs)
	}
	checkValid(t, got)
	return got
}

func mustConflict(t *testing.T, base, ours, theirs map[string]Page, want ...Conflict) {
	t.Helper()
	got, cs := Trees(base, ours, theirs)
	if got != nil {
		t.Fatalf("conflicting merge returned a tree: %v", got)
	}
	if !slices.Equal(cs, want) {
		t.Fatalf("conflicts = %v\nwant        %v", cs, want)
	}
	// Symmetry: swapping the sides names the same pages for the same reasons.
	if _, cs2 := Trees(base, theirs, ours); !slices.Equal(cs2, cs) {
		t.Fatalf("conflicts not symmetric: %v vs swapped %v", cs, cs2)
	}
}

// checkValid checks what every merged tree guarantees: IDs match keys,
// parents exist, positions are 0..n-1 per parent, sibling slugs are unique.
func checkValid(t *testing.T, m map[string]Page) {
	t.Helper()
	for id, p := range m {
		if p.ID != id {
			t.Fatalf("page under key %q has ID %q", id, p.ID)
		}
		if _, ok := m[p.Parent]; p.Parent != "" && !ok {
			t.Fatalf("page %q has missing parent %q", id, p.Parent)
		}
	}
	for parent, ids := range index(m).children {
		slugs := map[string]bool{}
		for i, id := range ids {
			if m[id].Position != i {
				t.Fatalf("children of %q not numbered 0..n-1: %q at %d", parent, id, m[id].Position)
			}
			if s := m[id].Slug; s != "" {
				if slugs[s] {
					t.Fatalf("slug %q twice under %q", s, parent)
				}
				slugs[s] = true
			}
		}
	}
}

func TestTreesOneSide(t *testing.T) {
	b := base3()
	retitled := edit(b, "B2", func(p *Page) { p.Title = "New" })
	for name, c := range map[string]struct{ ours, theirs, want map[string]Page }{
		"changed in theirs":      {b, retitled, retitled},
		"changed in ours":        {retitled, b, retitled},
		"deleted in theirs":      {b, without(b, "C"), without(b, "C")},
		"deleted in ours":        {without(b, "A"), b, normalize(without(b, "A"))},
		"deleted on both":        {without(b, "A"), without(b, "A"), normalize(without(b, "A"))},
		"added in ours":          {with(b, pg("N", "B", 3)), b, with(b, pg("N", "B", 3))},
		"added in theirs":        {b, with(b, pg("N", "B2", 1)), with(b, pg("N", "B2", 1))},
		"added alike on both":    {with(b, pg("N", "", 3)), with(b, pg("N", "", 3)), with(b, pg("N", "", 3))},
		"changes on both sides":  {retitled, without(b, "C"), without(retitled, "C")},
		"subtree deleted":        {without(b, "B", "B1", "B2", "B3", "B2a"), b, normalize(without(b, "B", "B1", "B2", "B3", "B2a"))},
		"subtree deleted theirs": {retitled, without(b, "B2", "B2a"), normalize(without(b, "B2", "B2a"))},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "subtree deleted theirs" {
				// B2 was retitled in ours and deleted in theirs: conflict.
				mustConflict(t, b, c.ours, c.theirs, Conflict{"B2", ReasonDeleteChange})
				return
			}
			if got := mustMerge(t, b, c.ours, c.theirs); !maps.Equal(got, c.want) {
				t.Fatalf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

func TestTreesDeletedAndChanged(t *testing.T) {
	b := base3()
	mustConflict(t, b, without(b, "C"), edit(b, "C", func(p *Page) { p.Body += "more\n" }), Conflict{"C", ReasonDeleteChange})
	mustConflict(t, b, without(b, "C"), edit(b, "C", func(p *Page) { p.Hidden = true }), Conflict{"C", ReasonDeleteChange})
	// Moved is changed too.
	mustConflict(t, b, without(b, "C"), edit(b, "C", func(p *Page) { p.Parent = "A" }), Conflict{"C", ReasonDeleteChange})
	// Subtree deleted in ours while theirs edited a grandchild: only the
	// grandchild conflicts (its ancestors merge to deleted, and a conflicting
	// page's subtree is not reported again).
	mustConflict(t, b, without(b, "B", "B1", "B2", "B3", "B2a"), edit(b, "B2a", func(p *Page) { p.Title = "x" }),
		Conflict{"B2a", ReasonDeleteChange})
	// But renumbering siblings is no change: ours inserts a first child of B
	// (so B1..B3 get new positions), theirs deletes B3.
	ours := with(b, pg("N", "B", 0))
	for i, id := range []string{"B1", "B2", "B3"} {
		ours = edit(ours, id, func(p *Page) { p.Position = i + 1 })
	}
	got := mustMerge(t, b, ours, without(b, "B3"))
	if k := kids(got, "B"); !slices.Equal(k, []string{"N", "B1", "B2"}) {
		t.Fatalf("children of B = %v", k)
	}
}

func TestTreesAddedOnBoth(t *testing.T) {
	b := base3()
	n := pg("N", "", 3)
	other := n
	other.Title = "Other"
	mustConflict(t, b, with(b, n), with(b, other), Conflict{"N", ReasonAddedDifferent})
	elsewhere := n
	elsewhere.Parent = "A"
	mustConflict(t, b, with(b, n), with(b, elsewhere), Conflict{"N", ReasonAddedPlaces})
}

func TestTreesFields(t *testing.T) {
	b := base3()
	set := func(f func(*Page)) map[string]Page { return edit(b, "B1", f) }
	for _, c := range []struct {
		name         string
		ours, theirs func(*Page)
		want         func(*Page) // nil: conflict
		reason       string
	}{
		{"different fields", func(p *Page) { p.Title = "T" }, func(p *Page) { p.Emoji = "🙂" }, func(p *Page) { p.Title, p.Emoji = "T", "🙂" }, ""},
		{"same title", func(p *Page) { p.Title = "T"; p.Hidden = true }, func(p *Page) { p.Title = "T" }, func(p *Page) { p.Title, p.Hidden = "T", true }, ""},
		{"title", func(p *Page) { p.Title = "T1" }, func(p *Page) { p.Title = "T2" }, nil, "both sides changed the title"},
		{"emoji", func(p *Page) { p.Emoji = "a" }, func(p *Page) { p.Emoji = "b" }, nil, "both sides changed the emoji"},
		{"description", func(p *Page) { p.Description = "a" }, func(p *Page) { p.Description = "b" }, nil, "both sides changed the description"},
		{"slug", func(p *Page) { p.Slug = "a" }, func(p *Page) { p.Slug = "b" }, nil, "both sides changed the slug"},
		{"kind", func(p *Page) { p.Kind = "link"; p.Href = "https://a" }, func(p *Page) { p.Kind = "group" }, nil, "both sides changed the kind"},
		{"href", func(p *Page) { p.Kind = "link"; p.Href = "https://a" }, func(p *Page) { p.Kind = "link"; p.Href = "https://b" }, nil, "both sides changed the href"},
		{"body merged line by line",
			func(p *Page) { p.Body = strings.Replace(p.Body, "one", "ONE", 1) },
			func(p *Page) { p.Body = strings.Replace(p.Body, "four", "FOUR", 1) },
			func(p *Page) { p.Body = strings.Replace(strings.Replace(p.Body, "one", "ONE", 1), "four", "FOUR", 1) }, ""},
		{"body",
			func(p *Page) { p.Body = strings.Replace(p.Body, "two", "2", 1) },
			func(p *Page) { p.Body = strings.Replace(p.Body, "two", "II", 1) }, nil, ReasonBody},
		{"title and body",
			func(p *Page) { p.Title = "T1"; p.Body = strings.Replace(p.Body, "two", "2", 1) },
			func(p *Page) { p.Title = "T2"; p.Body = strings.Replace(p.Body, "two", "II", 1) }, nil,
			"both sides changed the title; " + ReasonBody},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				mustConflict(t, b, set(c.ours), set(c.theirs), Conflict{"B1", c.reason})
				return
			}
			if got := mustMerge(t, b, set(c.ours), set(c.theirs)); !maps.Equal(got, set(c.want)) {
				t.Fatalf("got %v\nwant %v", got["B1"], set(c.want)["B1"])
			}
		})
	}
}

func TestTreesMoves(t *testing.T) {
	b := base3()
	moveB3toA := edit(b, "B3", func(p *Page) { p.Parent, p.Position = "A", 0 })
	retitleB3 := edit(b, "B3", func(p *Page) { p.Title = "T" })

	// A move on one side wins, and the other side's edits come along.
	got := mustMerge(t, b, retitleB3, moveB3toA)
	if p := got["B3"]; p.Parent != "A" || p.Title != "T" {
		t.Fatalf("B3 = %+v", p)
	}
	// The same move on both sides.
	mustMerge(t, b, moveB3toA, edit(moveB3toA, "B3", func(p *Page) { p.Title = "T" }))
	// Different parents.
	mustConflict(t, b, moveB3toA, edit(retitleB3, "B3", func(p *Page) { p.Parent = "C" }), Conflict{"B3", ReasonParents})
	// Same parent, different places: ours puts E first, theirs between A and B.
	five := mktree(pg("A", "", 0), pg("B", "", 1), pg("C", "", 2), pg("D", "", 3), pg("E", "", 4))
	first := edit(five, "E", func(p *Page) { p.Position = -1 })
	middle := edit(five, "E", func(p *Page) { p.Position = 0; p.Title = "T" }) // tie with A, after it by ID
	mustConflict(t, five, first, middle, Conflict{"E", ReasonPositions})
	// Same parent, same place, even though ours also inserted a page there.
	got = mustMerge(t, five, with(first, pg("N", "", -2)), edit(first, "E", func(p *Page) { p.Title = "T" }))
	if k := kids(got, ""); !slices.Equal(k, []string{"N", "E", "A", "B", "C", "D"}) {
		t.Fatalf("order = %v", k)
	}
	// The ambiguous swap of two neighbours counts as one move, on either side.
	swap := edit(five, "B", func(p *Page) { p.Position = 2; p.Title = "T" })
	swap = edit(swap, "C", func(p *Page) { p.Position = 1 })
	got = mustMerge(t, five, swap, edit(five, "D", func(p *Page) { p.Body = "" }))
	if k := kids(got, ""); !slices.Equal(k, []string{"A", "C", "B", "D", "E"}) {
		t.Fatalf("order = %v", k)
	}
	// Cycle: ours moves A under B, theirs moves B under A.
	aUnderB := edit(b, "A", func(p *Page) { p.Parent = "B" })
	bUnderA := edit(b, "B", func(p *Page) { p.Parent = "A" })
	mustConflict(t, b, aUnderB, bUnderA, Conflict{"A", ReasonCycle}, Conflict{"B", ReasonCycle})
}

func TestTreesOrphans(t *testing.T) {
	b := base3()
	delB2 := without(b, "B2", "B2a")
	// Theirs adds a child under the page ours deleted.
	mustConflict(t, b, delB2, with(b, pg("N", "B2", 1)), Conflict{"N", ReasonOrphan})
	// Theirs moves an existing page under it.
	mustConflict(t, b, delB2, edit(b, "C", func(p *Page) { p.Parent = "B2a" }), Conflict{"C", ReasonOrphan})
	// A whole new subtree under it names only its top.
	mustConflict(t, b, delB2, with(b, pg("N", "B2", 1), pg("N1", "N", 0)), Conflict{"N", ReasonOrphan})
	// A parent that itself conflicts is reported once, not its new children.
	mustConflict(t, b, delB2, with(edit(b, "B2", func(p *Page) { p.Title = "x" }), pg("N", "B2", 1)),
		Conflict{"B2", ReasonDeleteChange})
}

func TestTreesOrderAndRenumbering(t *testing.T) {
	// Base positions are sparse; results are 0..n-1.
	b := mktree(pg("A", "", 10), pg("B", "", 20), pg("C", "", 30), pg("D", "", 40))
	cases := []struct {
		name         string
		ours, theirs map[string]Page
		want         []string
	}{
		{"nothing", b, b, []string{"A", "B", "C", "D"}},
		{"insert front ours, end theirs, delete theirs",
			with(b, pg("N", "", 0)), with(without(b, "B"), pg("M", "", 50)), []string{"N", "A", "C", "D", "M"}},
		{"insertions in the same gap: ours first, each in its own order",
			with(b, pg("O2", "", 16), pg("O1", "", 15)), with(b, pg("T1", "", 11), pg("T2", "", 12)),
			[]string{"A", "O1", "O2", "T1", "T2", "B", "C", "D"}},
		{"reorder on one side, insert on the other",
			edit(b, "D", func(p *Page) { p.Position = 0 }), with(b, pg("N", "", 25)), []string{"D", "A", "B", "N", "C"}},
		{"insertion after a page the other side moved away",
			edit(b, "B", func(p *Page) { p.Position = 99 }), with(b, pg("N", "", 21)), []string{"A", "N", "C", "D", "B"}},
		{"insertion after a page the other side deleted",
			without(b, "B"), with(b, pg("N", "", 21)), []string{"A", "N", "C", "D"}},
		{"positions tie: ID breaks the tie",
			with(b, pg("N2", "", 10), pg("N1", "", 10)), b, []string{"A", "N1", "N2", "B", "C", "D"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mustMerge(t, b, c.ours, c.theirs)
			if k := kids(got, ""); !slices.Equal(k, c.want) {
				t.Fatalf("order = %v, want %v", k, c.want)
			}
		})
	}
}

func TestTreesSlugs(t *testing.T) {
	b := base3()
	withSlug := func(p Page, slug string) Page { p.Slug = slug; return p }
	// Both sides add a page "guide" under B: ours keeps it, theirs is suffixed.
	got := mustMerge(t, b, with(b, withSlug(pg("O", "B", 3), "guide")), with(b, withSlug(pg("T", "B", 3), "guide")))
	if got["O"].Slug != "guide" || got["T"].Slug != "guide-2" {
		t.Fatalf("slugs: O=%q T=%q", got["O"].Slug, got["T"].Slug)
	}
	// The same, seen from the other side: still ours that keeps it.
	got = mustMerge(t, b, with(b, withSlug(pg("T", "B", 3), "guide")), with(b, withSlug(pg("O", "B", 3), "guide")))
	if got["T"].Slug != "guide" || got["O"].Slug != "guide-2" {
		t.Fatalf("slugs: O=%q T=%q", got["O"].Slug, got["T"].Slug)
	}
	// Theirs renames an existing page to a slug ours gave a new page; the
	// suffix skips slugs already taken.
	ours := with(b, withSlug(pg("N", "B", 3), "guide"), withSlug(pg("N2", "B", 4), "guide-2"))
	theirs := edit(b, "B1", func(p *Page) { p.Slug = "guide" })
	got = mustMerge(t, b, ours, theirs)
	if got["N"].Slug != "guide" || got["B1"].Slug != "guide-3" || got["N2"].Slug != "guide-2" {
		t.Fatalf("slugs: N=%q B1=%q N2=%q", got["N"].Slug, got["B1"].Slug, got["N2"].Slug)
	}
	// Three on the same slug, none from ours: first in order keeps it.
	theirs = with(b, withSlug(pg("X", "", 3), "same"), withSlug(pg("Y", "", 4), "same"), withSlug(pg("Z", "", 5), "same"))
	got = mustMerge(t, b, b, theirs)
	if got["X"].Slug != "same" || got["Y"].Slug != "same-2" || got["Z"].Slug != "same-3" {
		t.Fatalf("slugs: %q %q %q", got["X"].Slug, got["Y"].Slug, got["Z"].Slug)
	}
	// Same slugs under different parents are fine; empty slugs are ignored.
	got = mustMerge(t, b, with(b, withSlug(pg("N", "A", 0), "B1")), with(b, withSlug(pg("E1", "", 3), ""), withSlug(pg("E2", "", 4), "")))
	if got["N"].Slug != "B1" || got["E1"].Slug != "" || got["E2"].Slug != "" {
		t.Fatal("slug changed when it did not have to")
	}
}

func TestTreesKeyIsAuthoritative(t *testing.T) {
	b := map[string]Page{"A": {Title: "a"}}
	got := mustMerge(t, b, b, map[string]Page{"A": {Title: "b"}})
	if got["A"].ID != "A" || got["A"].Title != "b" {
		t.Fatalf("got %+v", got["A"])
	}
}

func TestTreesEmpty(t *testing.T) {
	if got := mustMerge(t, nil, nil, nil); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
	got := mustMerge(t, nil, nil, mktree(pg("A", "", 5)))
	if got["A"].Position != 0 {
		t.Fatalf("got %+v", got["A"])
	}
}

// randomTree builds a normalized tree of n pages.
func randomTree(r *rand.Rand, n int) map[string]Page {
	t := map[string]Page{}
	for i := range n {
		id := fmt.Sprintf("p%03d", i)
		parent := ""
		if i > 0 && r.Intn(3) > 0 {
			parent = fmt.Sprintf("p%03d", r.Intn(i))
		}
		t[id] = pg(id, parent, r.Intn(10))
	}
	return normalize(t)
}

var newID int

// randomEdit applies a few random changes and returns a normalized tree.
func randomEdit(r *rand.Rand, t map[string]Page) map[string]Page {
	t = maps.Clone(t)
	ids := slices.Sorted(maps.Keys(t))
	for range 1 + r.Intn(4) {
		if len(ids) == 0 {
			break
		}
		id := ids[r.Intn(len(ids))]
		p, ok := t[id]
		if !ok {
			continue
		}
		switch r.Intn(7) {
		case 0:
			p.Title += "!"
		case 1:
			p.Body = strings.Replace(p.Body, []string{"one", "two", "three", "four"}[r.Intn(4)], "changed", 1)
		case 2:
			p.Hidden = !p.Hidden
		case 3: // delete the subtree
			sub := []string{id}
			for changed := true; changed; {
				changed = false
				for cid, c := range t {
					if slices.Contains(sub, c.Parent) && !slices.Contains(sub, cid) {
						sub = append(sub, cid)
						changed = true
					}
				}
			}
			for _, s := range sub {
				delete(t, s)
			}
			continue
		case 4: // add a child
			newID++
			n := pg(fmt.Sprintf("n%05d", newID), id, r.Intn(10)-5)
			t[n.ID] = n
			continue
		case 5: // move under a page that is not a descendant
			target := ids[r.Intn(len(ids))]
			if _, ok := t[target]; !ok {
				continue
			}
			for a := target; a != ""; a = t[a].Parent {
				if a == id {
					target = ""
					break
				}
			}
			p.Parent = target
			p.Position = r.Intn(10) - 5
		case 6: // reorder
			p.Position = r.Intn(10) - 5
		}
		t[id] = p
	}
	return normalize(t)
}

func TestTreesProperties(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	merged, conflicted := 0, 0
	for range 2000 {
		b := randomTree(r, 1+r.Intn(12))
		x, y := randomEdit(r, b), randomEdit(r, b)
		for _, c := range []struct {
			name               string
			base, ours, theirs map[string]Page
		}{
			{"Trees(b, x, x)", b, x, x},
			{"Trees(b, b, x)", b, b, x},
			{"Trees(b, x, b)", b, x, b},
			{"Trees(x, x, x)", x, x, x},
		} {
			got, cs := Trees(c.base, c.ours, c.theirs)
			if cs != nil || !maps.Equal(got, x) {
				t.Fatalf("%s != x\nb=%v\nx=%v\ngot=%v\nconflicts=%v", c.name, b, x, got, cs)
			}
		}
		m1, c1 := Trees(b, x, y)
		m2, c2 := Trees(b, y, x)
		if !slices.Equal(c1, c2) {
			t.Fatalf("conflicts not symmetric: %v vs %v", c1, c2)
		}
		if (m1 == nil) != (c1 != nil) || (m2 == nil) != (c2 != nil) {
			t.Fatal("a merge returned both or neither of a tree and conflicts")
		}
		if m1 == nil {
			conflicted++
			continue
		}
		merged++
		checkValid(t, m1)
		checkValid(t, m2)
		if !slices.Equal(slices.Sorted(maps.Keys(m1)), slices.Sorted(maps.Keys(m2))) {
			t.Fatal("swapping the sides changed which pages exist")
		}
		// Whatever only one side changed is in the result as that side has it
		// (up to position and slug suffix).
		cx, cy := Changed(b, x), Changed(b, y)
		for _, id := range cx {
			if slices.Contains(cy, id) {
				continue
			}
			want, inX := x[id]
			got, inM := m1[id]
			if inX != inM || (inX && (!sameContent(want, got) || want.Parent != got.Parent)) {
				t.Fatalf("page %s changed only in ours: want %+v (%v), got %+v (%v)", id, want, inX, got, inM)
			}
		}
		// Merging again with the result as one side changes nothing more.
		if again, cs := Trees(b, m1, m1); cs != nil || !maps.Equal(again, m1) {
			t.Fatalf("Trees(b, m, m) != m: %v", cs)
		}
	}
	if merged < 200 || conflicted < 50 {
		t.Fatalf("random cases not varied enough: %d merged, %d conflicted", merged, conflicted)
	}
}

func TestChanged(t *testing.T) {
	b := base3()
	if got := Changed(b, b); got != nil {
		t.Fatalf("Changed(b, b) = %v", got)
	}
	// Renumbering alone is no change.
	sparse := maps.Clone(b)
	for id, p := range sparse {
		p.Position = p.Position*10 + 7
		sparse[id] = p
	}
	if got := Changed(b, sparse); got != nil {
		t.Fatalf("renumbering: %v", got)
	}
	x := with(without(b, "C"), pg("N", "A", 0))
	x = edit(x, "B1", func(p *Page) { p.Body = "" })
	x = edit(x, "B2a", func(p *Page) { p.Parent = "B"; p.Position = 3 })
	x = edit(x, "A", func(p *Page) { p.Position = 5 }) // A after B: one of them moved
	want := []string{"B", "B1", "B2a", "C", "N"}
	if got := Changed(b, x); !slices.Equal(got, want) && !slices.Equal(got, []string{"A", "B1", "B2a", "C", "N"}) {
		t.Fatalf("Changed = %v, want %v (or with A for B)", got, want)
	}
	// Backwards, the swap of A and B may be blamed on the other one.
	if got, rev := Changed(b, x), Changed(x, b); len(got) != len(rev) {
		t.Fatalf("Changed(b, x) = %v, Changed(x, b) = %v", got, rev)
	}
	for _, f := range []func(*Page){
		func(p *Page) { p.Title = "x" }, func(p *Page) { p.Emoji = "x" }, func(p *Page) { p.Description = "x" },
		func(p *Page) { p.Slug = "x" }, func(p *Page) { p.Kind = "group" }, func(p *Page) { p.Hidden = true },
		func(p *Page) { p.Href = "x" }, func(p *Page) { p.Body = "x" }, func(p *Page) { p.Parent = "C" },
	} {
		if got := Changed(b, edit(b, "A", f)); !slices.Equal(got, []string{"A"}) {
			t.Fatalf("Changed = %v, want [A]", got)
		}
	}
}

// benchTrees builds a 5,000-page tree: 50 sections of 99 pages each.
func benchTrees() (base, ours, theirs map[string]Page) {
	base = map[string]Page{}
	for s := range 50 {
		sid := fmt.Sprintf("s%02d", s)
		base[sid] = pg(sid, "", s)
		for i := range 99 {
			id := fmt.Sprintf("%s-%02d", sid, i)
			base[id] = pg(id, sid, i)
		}
	}
	ours, theirs = maps.Clone(base), maps.Clone(base)
	for i := range 10 {
		// ours: bodies and titles; theirs: bodies elsewhere, a move, adds, a delete.
		oid := fmt.Sprintf("s%02d-%02d", i*5, i)
		ours = edit(ours, oid, func(p *Page) { p.Body = strings.Replace(p.Body, "one", "ONE", 1); p.Title += "!" })
		tid := fmt.Sprintf("s%02d-%02d", i*5+1, i+50)
		switch i % 4 {
		case 0:
			theirs = edit(theirs, tid, func(p *Page) { p.Parent = "s49"; p.Position = 200 })
		case 1:
			theirs = with(theirs, pg(fmt.Sprintf("new%d", i), fmt.Sprintf("s%02d", i), 5))
		case 2:
			theirs = without(theirs, tid)
		default:
			theirs = edit(theirs, tid, func(p *Page) { p.Body = strings.Replace(p.Body, "four", "FOUR", 1) })
		}
	}
	// One page changed on both sides, merged line by line.
	ours = edit(ours, "s10-10", func(p *Page) { p.Body = strings.Replace(p.Body, "one", "1", 1) })
	theirs = edit(theirs, "s10-10", func(p *Page) { p.Body = strings.Replace(p.Body, "four", "4", 1) })
	return base, ours, theirs
}

func BenchmarkTrees5000(b *testing.B) {
	base, ours, theirs := benchTrees()
	if _, cs := Trees(base, ours, theirs); cs != nil {
		b.Fatalf("conflicts: %v", cs)
	}
	for b.Loop() {
		Trees(base, ours, theirs)
	}
}
