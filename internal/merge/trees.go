package merge

import (
	"sort"
	"strconv"
)

// Page is the state of one page in a revision, as the merge sees it; pages
// keep their ID across revisions.
type Page struct {
	ID          string
	Parent      string // "" for a root page
	Position    int    // order among siblings (only the relative order matters)
	Title       string
	Emoji       string
	Description string
	Slug        string
	Kind        string
	Hidden      bool
	Href        string
	Body        string
}

// Conflict names a page that could not be merged, and why.
type Conflict struct {
	PageID string
	Reason string
}

// Trees merges three page trees (maps from page ID to page):
//   - a page unchanged on one side takes the other side's version, deletion
//     included; added on one side only: added; deleted on both: deleted;
//   - deleted on one side and changed on the other: conflict;
//   - changed on both: each field merges on its own (one side changed it:
//     that side; both the same way: that value; differently: conflict),
//     except Body, merged line by line (Lines), and Parent with Position,
//     which move together (a move on one side wins; different moves on both
//     sides conflict);
//   - a page left under a parent that no longer exists is a conflict;
//   - positions are renumbered 0..n-1 per parent, keeping the merged order
//     (ties broken by ID);
//   - two siblings with the same slug: the one that did not have it in ours
//     gets "-2", "-3"...
//
// It returns the merged tree, or every conflict sorted by page ID and nil.
func Trees(base, ours, theirs map[string]Page) (map[string]Page, []Conflict) {
	ids := map[string]bool{}
	for _, m := range []map[string]Page{base, ours, theirs} {
		for id := range m {
			ids[id] = true
		}
	}
	merged := make(map[string]Page, len(ours))
	var conflicts []Conflict
	for id := range ids {
		b, inB := base[id]
		o, inO := ours[id]
		t, inT := theirs[id]
		switch {
		case !inB && inO && inT:
			if o == t {
				merged[id] = o
			} else {
				conflicts = append(conflicts, Conflict{id, "added on both sides differently"})
			}
		case !inB && inO:
			merged[id] = o
		case !inB && inT:
			merged[id] = t
		case !inO && !inT:
			// deleted on both sides
		case !inO:
			if t != b {
				conflicts = append(conflicts, Conflict{id, "deleted on one side, changed on the other"})
			}
		case !inT:
			if o != b {
				conflicts = append(conflicts, Conflict{id, "deleted on one side, changed on the other"})
			}
		default:
			p, reason := mergePage(b, o, t)
			if reason != "" {
				conflicts = append(conflicts, Conflict{id, reason})
			} else {
				merged[id] = p
			}
		}
	}
	// Orphans: a page under a parent that is gone.
	for id, p := range merged {
		if p.Parent != "" {
			// (A parent that is itself in conflict is reported alone.)
			if _, ok := merged[p.Parent]; !ok && !conflicted(conflicts, p.Parent) {
				conflicts = append(conflicts, Conflict{id, "its parent page was deleted on the other side"})
			}
		}
	}
	if cycle := findCycle(merged); cycle != "" {
		conflicts = append(conflicts, Conflict{cycle, "the moves on both sides put the page inside itself"})
	}
	if len(conflicts) > 0 {
		sort.Slice(conflicts, func(i, j int) bool {
			if conflicts[i].PageID != conflicts[j].PageID {
				return conflicts[i].PageID < conflicts[j].PageID
			}
			return conflicts[i].Reason < conflicts[j].Reason
		})
		return nil, conflicts
	}
	renumber(merged, ours)
	return merged, nil
}

func conflicted(cs []Conflict, id string) bool {
	for _, c := range cs {
		if c.PageID == id {
			return true
		}
	}
	return false
}

// mergePage merges a page changed on both sides; reason is "" when clean.
func mergePage(b, o, t Page) (Page, string) {
	if o == b {
		return t, ""
	}
	if t == b || o == t {
		return o, ""
	}
	p := o
	var reason string
	field := func(name string, bv, ov, tv string, set *string) {
		switch {
		case ov == bv:
			*set = tv
		case tv == bv, ov == tv:
			*set = ov
		default:
			if reason == "" {
				reason = "both sides changed the " + name
			}
		}
	}
	field("title", b.Title, o.Title, t.Title, &p.Title)
	field("emoji", b.Emoji, o.Emoji, t.Emoji, &p.Emoji)
	field("description", b.Description, o.Description, t.Description, &p.Description)
	field("slug", b.Slug, o.Slug, t.Slug, &p.Slug)
	field("type", b.Kind, o.Kind, t.Kind, &p.Kind)
	field("link target", b.Href, o.Href, t.Href, &p.Href)
	switch {
	case o.Hidden == b.Hidden:
		p.Hidden = t.Hidden
	default:
		p.Hidden = o.Hidden
	}
	// Parent and position move together.
	oMoved := o.Parent != b.Parent || o.Position != b.Position
	tMoved := t.Parent != b.Parent || t.Position != b.Position
	switch {
	case oMoved && tMoved && (o.Parent != t.Parent || o.Position != t.Position):
		if reason == "" {
			reason = "moved to different places on both sides"
		}
	case tMoved:
		p.Parent, p.Position = t.Parent, t.Position
	}
	if body, ok := Lines(b.Body, o.Body, t.Body); ok {
		p.Body = body
	} else if reason == "" {
		reason = "both sides changed the same lines"
	}
	return p, reason
}

// findCycle returns a page that is its own ancestor, or "".
func findCycle(pages map[string]Page) string {
	ids := make([]string, 0, len(pages))
	for id := range pages {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		seen := map[string]bool{}
		for at := id; at != ""; at = pages[at].Parent {
			if seen[at] {
				return id
			}
			seen[at] = true
		}
	}
	return ""
}

// renumber gives siblings positions 0..n-1 in merged order and makes their
// slugs unique, the page that had the slug in ours keeping it.
func renumber(pages map[string]Page, ours map[string]Page) {
	byParent := map[string][]string{}
	for id, p := range pages {
		byParent[p.Parent] = append(byParent[p.Parent], id)
	}
	for _, kids := range byParent {
		sort.Slice(kids, func(i, j int) bool {
			a, b := pages[kids[i]], pages[kids[j]]
			if a.Position != b.Position {
				return a.Position < b.Position
			}
			return a.ID < b.ID
		})
		// Slug owners first: pages that had their slug under this parent in ours.
		owners := map[string]string{}
		for _, id := range kids {
			p := pages[id]
			if o, ok := ours[id]; ok && o.Slug == p.Slug && o.Parent == p.Parent {
				if _, taken := owners[p.Slug]; !taken {
					owners[p.Slug] = id
				}
			}
		}
		taken := map[string]bool{}
		for slug := range owners {
			taken[slug] = true
		}
		for i, id := range kids {
			p := pages[id]
			p.Position = i
			if owners[p.Slug] != id {
				if taken[p.Slug] {
					for n := 2; ; n++ {
						candidate := p.Slug + "-" + strconv.Itoa(n)
						if !taken[candidate] {
							p.Slug = candidate
							break
						}
					}
				}
				taken[p.Slug] = true
			}
			pages[id] = p
		}
	}
}

// Changed lists the IDs of pages that differ between two trees, sorted.
func Changed(a, b map[string]Page) []string {
	var out []string
	for id, pa := range a {
		if pb, ok := b[id]; !ok || pa != pb {
			out = append(out, id)
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
