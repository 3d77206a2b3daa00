// Package merge is the three-way merge engine of change requests: page trees
// (Trees) and markdown bodies (Lines), plus Changed, which tells which pages
// differ between two trees. Base is the last revision both sides share, ours
// is main, theirs is the change request. Everything here is a pure function
// of its arguments: no I/O, no clock, no randomness, and deterministic output.
package merge

import (
	"slices"
	"strconv"
	"strings"
)

// Page is the state of one page in a revision, as the merge sees it. Pages
// are identified by a stable ID across revisions.
type Page struct {
	ID          string
	Parent      string // parent page ID, "" for a root page
	Position    int    // order among siblings (ascending; only relative order matters)
	Title       string
	Emoji       string
	Description string
	Slug        string
	Kind        string // "document", "group", "link"
	Hidden      bool
	Href        string // target of link pages
	Body        string // markdown body
}

// Conflict names a page that could not be merged and why. A page with
// several problems has one Conflict whose Reason lists them, separated by
// "; ". Reasons never say which side did what, so swapping ours and theirs
// gives the same conflicts.
type Conflict struct {
	PageID string
	Reason string
}

// Conflict reasons.
const (
	ReasonBody           = "both sides changed the same lines of the body"
	ReasonDeleteChange   = "deleted on one side, changed on the other"
	ReasonParents        = "moved to different parents"
	ReasonPositions      = "moved to different places among the same siblings"
	ReasonAddedDifferent = "added on both sides with different content"
	ReasonAddedPlaces    = "added on both sides in different places"
	ReasonOrphan         = "its parent was deleted on one side while the other side added or moved it there"
	ReasonCycle          = "moves on the two sides make it its own ancestor"
)

// Placement. Position only carries order: a page's place is its parent and
// its order relative to the siblings it had in base. Each tree's siblings are
// ordered by (Position, ID). A page has moved on a side when its parent
// changed, or when it is not part of a longest common subsequence of the
// order of the siblings that stayed under the same parent on that side
// (so inserting, deleting or renumbering siblings moves nobody, and swapping
// two siblings moves one of them). A page that moved on neither side is an
// anchor: anchors keep their common order. Every other page is placed by the
// side that put it there, right after the nearest anchor that precedes it on
// that side; pages placed in the same gap come ours first, then theirs, each
// in its own side's order. Moves on both sides agree when they name the same
// parent and the same preceding anchor.

// Trees merges three page trees, each a map from page ID to page (the map
// key is authoritative; Page.ID is copied through). Rules:
//   - a page unchanged on one side takes the other side's version (including
//     deletion); added on one side only: added; deleted on both: deleted;
//     added on both sides: kept when both added it alike, else a conflict;
//   - deleted on one side and changed (in any field, or moved) on the other:
//     conflict;
//   - changed on both: each field merges on its own — a field changed on one
//     side takes that side, changed identically on both takes it, changed
//     differently on both is a conflict, except Body, which is merged with
//     Lines (conflict when Lines fails); Parent and Position move together as
//     the page's place (see Placement above): a move on one side wins, moves
//     to different places on both sides are a conflict;
//   - after merging, a page whose parent no longer exists is a conflict
//     naming the child (a parent that is itself in conflict counts as
//     existing, so one problem is reported once), and so is every page of a
//     parent cycle made by moves on both sides;
//   - positions of the merged tree are renumbered 0..n-1 per parent, in the
//     merged order, so callers can store them as they are;
//   - when siblings end up with the same non-empty slug, one keeps it — the
//     first, in merged order, that had that slug under that parent in ours,
//     or else the first in merged order — and the others get the smallest
//     free "-2", "-3"... suffix, so paths stay unique.
//
// It returns the merged tree and nil, or nil and every conflicting page,
// sorted by PageID.
func Trees(base, ours, theirs map[string]Page) (map[string]Page, []Conflict) {
	b, o, t := index(base), index(ours), index(theirs)
	m := &treeMerge{
		b: b, o: o, t: t,
		movedO:  moved(b, o),
		movedT:  moved(b, t),
		merged:  map[string]Page{},
		source:  map[string]int{},
		reasons: map[string][]string{},
	}
	for _, id := range unionIDs(base, ours, theirs) {
		m.page(id)
	}
	m.checkParents()
	if len(m.reasons) > 0 {
		out := make([]Conflict, 0, len(m.reasons))
		for id, rs := range m.reasons {
			out = append(out, Conflict{PageID: id, Reason: strings.Join(rs, "; ")})
		}
		slices.SortFunc(out, func(x, y Conflict) int { return strings.Compare(x.PageID, y.PageID) })
		return nil, out
	}
	m.order()
	return m.merged, nil
}

// Changed reports the IDs of pages that differ between two trees — added,
// deleted, changed in any field, or moved (Position compares by order among
// siblings as in Trees, not by value: renumbering alone changes nothing) —
// sorted.
func Changed(a, b map[string]Page) []string {
	ta, tb := index(a), index(b)
	mv := moved(ta, tb)
	var out []string
	for _, id := range unionIDs(a, b) {
		pa, inA := ta.pages[id]
		pb, inB := tb.pages[id]
		if inA != inB || !sameContent(pa, pb) || mv[id] {
			out = append(out, id)
		}
	}
	return out
}

// tree is a page map with its sibling order.
type tree struct {
	pages    map[string]Page
	children map[string][]string // parent ID -> child IDs by (Position, ID)
	rank     map[string]int      // page ID -> index in its parent's children
}

func index(pages map[string]Page) *tree {
	type entry struct {
		pos int
		id  string
	}
	byParent := map[string][]entry{}
	t := &tree{pages: make(map[string]Page, len(pages)), children: map[string][]string{}, rank: make(map[string]int, len(pages))}
	for id, p := range pages {
		p.ID = id
		t.pages[id] = p
		byParent[p.Parent] = append(byParent[p.Parent], entry{p.Position, id})
	}
	for parent, es := range byParent {
		slices.SortFunc(es, func(x, y entry) int {
			if x.pos != y.pos {
				if x.pos < y.pos {
					return -1
				}
				return 1
			}
			return strings.Compare(x.id, y.id)
		})
		kids := make([]string, len(es))
		for i, e := range es {
			kids[i] = e.id
			t.rank[e.id] = i
		}
		t.children[parent] = kids
	}
	return t
}

// moved reports the pages present in both trees whose place changed from
// base to side: a new parent, or a new order among the siblings that stayed
// under the same parent.
func moved(base, side *tree) map[string]bool {
	out := map[string]bool{}
	for id, bp := range base.pages {
		if sp, ok := side.pages[id]; ok && sp.Parent != bp.Parent {
			out[id] = true
		}
	}
	for parent, kids := range base.children {
		stays := func(id string) bool {
			bp, inB := base.pages[id]
			sp, inS := side.pages[id]
			return inB && inS && bp.Parent == parent && sp.Parent == parent
		}
		var kept []string
		for _, id := range kids {
			if stays(id) {
				kept = append(kept, id)
			}
		}
		if len(kept) < 2 {
			continue
		}
		idx := make(map[string]int, len(kept))
		a := make([]int, len(kept))
		for i, id := range kept {
			idx[id] = i
			a[i] = i
		}
		s := make([]int, 0, len(kept))
		for _, id := range side.children[parent] {
			if stays(id) {
				s = append(s, idx[id])
			}
		}
		if equalInts(a, s) {
			continue
		}
		for i, j := range match(a, s) {
			if j < 0 {
				out[kept[i]] = true
			}
		}
	}
	return out
}

// sameContent compares everything but the place (Parent, Position).
func sameContent(x, y Page) bool {
	x.Parent, x.Position, y.Parent, y.Position = "", 0, "", 0
	return x == y
}

func unionIDs(trees ...map[string]Page) []string {
	seen := map[string]bool{}
	var ids []string
	for _, t := range trees {
		for id := range t {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

type treeMerge struct {
	b, o, t        *tree
	movedO, movedT map[string]bool
	merged         map[string]Page
	source         map[string]int // fromBase (an anchor), fromOurs or fromTheirs: whose order places the page
	reasons        map[string][]string
	gaps           map[gapKey][]string
}

func (m *treeMerge) conflict(id, reason string) {
	m.reasons[id] = append(m.reasons[id], reason)
}

func (m *treeMerge) anchored(id string) bool {
	_, inB := m.b.pages[id]
	_, inO := m.o.pages[id]
	_, inT := m.t.pages[id]
	return inB && inO && inT && !m.movedO[id] && !m.movedT[id]
}

type gapKey struct {
	side   int
	parent string
}

// gap is the anchor right before page id in side's order of its siblings,
// "" when no anchor precedes it.
func (m *treeMerge) gap(side int, id string) string {
	s := m.side(side)
	parent := s.pages[id].Parent
	k := gapKey{side, parent}
	g, ok := m.gaps[k]
	if !ok {
		kids := s.children[parent]
		g = make([]string, len(kids))
		last := ""
		for i, kid := range kids {
			g[i] = last
			if m.anchored(kid) {
				last = kid
			}
		}
		if m.gaps == nil {
			m.gaps = map[gapKey][]string{}
		}
		m.gaps[k] = g
	}
	return g[s.rank[id]]
}

func (m *treeMerge) side(s int) *tree {
	switch s {
	case fromOurs:
		return m.o
	case fromTheirs:
		return m.t
	}
	return m.b
}

func (m *treeMerge) take(p Page, source int) {
	m.merged[p.ID] = p
	m.source[p.ID] = source
}

func (m *treeMerge) page(id string) {
	bp, inB := m.b.pages[id]
	op, inO := m.o.pages[id]
	tp, inT := m.t.pages[id]
	changedO := inO && (!sameContent(bp, op) || m.movedO[id])
	changedT := inT && (!sameContent(bp, tp) || m.movedT[id])
	switch {
	case !inB && inO && inT:
		switch {
		case !sameContent(op, tp):
			m.conflict(id, ReasonAddedDifferent)
		case op.Parent != tp.Parent || m.gap(fromOurs, id) != m.gap(fromTheirs, id):
			m.conflict(id, ReasonAddedPlaces)
		default:
			m.take(op, fromOurs)
		}
	case !inB && inO:
		m.take(op, fromOurs)
	case !inB && inT:
		m.take(tp, fromTheirs)
	case !inO && !inT:
		// deleted on both sides
	case !inO || !inT:
		if changedO || changedT {
			m.conflict(id, ReasonDeleteChange)
		}
	case !changedO && !changedT:
		m.take(op, fromBase)
	case !changedO:
		m.take(tp, m.placedBy(id))
	case !changedT:
		m.take(op, m.placedBy(id))
	default:
		m.both(bp, op, tp)
	}
}

// placedBy is the side whose order places a page changed on at most one
// side.
func (m *treeMerge) placedBy(id string) int {
	switch {
	case m.movedO[id]:
		return fromOurs
	case m.movedT[id]:
		return fromTheirs
	}
	return fromBase
}

// both merges a page changed on both sides, field by field.
func (m *treeMerge) both(b, o, t Page) {
	id := b.ID
	p := b
	src := fromBase
	switch mo, mt := m.movedO[id], m.movedT[id]; {
	case mo && mt:
		switch {
		case o.Parent != t.Parent:
			m.conflict(id, ReasonParents)
		case m.gap(fromOurs, id) != m.gap(fromTheirs, id):
			m.conflict(id, ReasonPositions)
		}
		p.Parent, src = o.Parent, fromOurs
	case mo:
		p.Parent, src = o.Parent, fromOurs
	case mt:
		p.Parent, src = t.Parent, fromTheirs
	}
	field3(m, id, "title", &p.Title, b.Title, o.Title, t.Title)
	field3(m, id, "emoji", &p.Emoji, b.Emoji, o.Emoji, t.Emoji)
	field3(m, id, "description", &p.Description, b.Description, o.Description, t.Description)
	field3(m, id, "slug", &p.Slug, b.Slug, o.Slug, t.Slug)
	field3(m, id, "kind", &p.Kind, b.Kind, o.Kind, t.Kind)
	field3(m, id, "hidden", &p.Hidden, b.Hidden, o.Hidden, t.Hidden)
	field3(m, id, "href", &p.Href, b.Href, o.Href, t.Href)
	if body, ok := Lines(b.Body, o.Body, t.Body); ok {
		p.Body = body
	} else {
		m.conflict(id, ReasonBody)
	}
	if m.reasons[id] == nil {
		m.take(p, src)
	}
}

// field3 is the three-way merge of one field: a change on one side wins,
// the same change on both is taken once, different changes conflict.
func field3[T comparable](m *treeMerge, id, name string, dst *T, b, o, t T) {
	switch {
	case o == b || o == t:
		*dst = t
	case t == b:
		*dst = o
	default:
		m.conflict(id, "both sides changed the "+name)
	}
}

// checkParents finds pages left under a deleted parent and parent cycles.
func (m *treeMerge) checkParents() {
	known := func(id string) bool {
		_, inB := m.b.pages[id]
		_, inO := m.o.pages[id]
		_, inT := m.t.pages[id]
		return inB || inO || inT
	}
	ids := make([]string, 0, len(m.merged))
	for id := range m.merged {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		parent := m.merged[id].Parent
		if _, ok := m.merged[parent]; ok || parent == "" || m.reasons[parent] != nil || !known(parent) {
			continue // a parent absent from every input was never there: not the merge's doing
		}
		m.conflict(id, ReasonOrphan)
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	for _, id := range ids {
		var path []string
		cur := id
		for {
			if state[cur] == done {
				break
			}
			if state[cur] == visiting {
				i := slices.Index(path, cur)
				cyc := slices.Clone(path[i:])
				slices.Sort(cyc)
				for _, c := range cyc {
					m.conflict(c, ReasonCycle)
				}
				break
			}
			p, ok := m.merged[cur]
			if !ok {
				break
			}
			state[cur] = visiting
			path = append(path, cur)
			cur = p.Parent
		}
		for _, p := range path {
			state[p] = done
		}
	}
}

// order lays out every parent's children (see Placement), renumbers their
// positions 0..n-1 and makes their slugs unique.
func (m *treeMerge) order() {
	kids := map[string][]string{}
	for id, p := range m.merged {
		kids[p.Parent] = append(kids[p.Parent], id)
	}
	for parent, ids := range kids {
		var anchors, placed []string
		for _, id := range ids {
			if m.source[id] == fromBase {
				anchors = append(anchors, id)
			} else {
				placed = append(placed, id)
			}
		}
		slices.SortFunc(anchors, func(x, y string) int { return m.b.rank[x] - m.b.rank[y] })
		at := make(map[string]int, len(anchors))
		for i, id := range anchors {
			at[id] = i + 1
		}
		gapOf := make(map[string]int, len(placed))
		for _, id := range placed {
			if g := m.gap(m.source[id], id); g != "" {
				gapOf[id] = at[g]
			}
		}
		slices.SortFunc(placed, func(x, y string) int {
			if c := gapOf[x] - gapOf[y]; c != 0 {
				return c
			}
			if c := m.source[x] - m.source[y]; c != 0 {
				return c
			}
			return m.side(m.source[x]).rank[x] - m.side(m.source[y]).rank[y]
		})
		out := ids[:0]
		j := 0
		for g := 0; g <= len(anchors); g++ {
			for j < len(placed) && gapOf[placed[j]] == g {
				out = append(out, placed[j])
				j++
			}
			if g < len(anchors) {
				out = append(out, anchors[g])
			}
		}
		for i, id := range out {
			p := m.merged[id]
			p.Position = i
			m.merged[id] = p
		}
		m.uniqueSlugs(parent, out)
	}
}

func (m *treeMerge) uniqueSlugs(parent string, ids []string) {
	taken := map[string]bool{}
	bySlug := map[string][]string{}
	var slugs []string
	for _, id := range ids {
		s := m.merged[id].Slug
		if s == "" {
			continue
		}
		if !taken[s] {
			slugs = append(slugs, s)
		}
		taken[s] = true
		bySlug[s] = append(bySlug[s], id)
	}
	for _, s := range slugs {
		same := bySlug[s]
		if len(same) < 2 {
			continue
		}
		keep := same[0]
		for _, id := range same {
			if op, ok := m.o.pages[id]; ok && op.Slug == s && op.Parent == parent {
				keep = id
				break
			}
		}
		n := 2
		for _, id := range same {
			if id == keep {
				continue
			}
			for taken[s+"-"+strconv.Itoa(n)] {
				n++
			}
			p := m.merged[id]
			p.Slug = s + "-" + strconv.Itoa(n)
			taken[p.Slug] = true
			m.merged[id] = p
		}
	}
}
