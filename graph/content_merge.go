package graph

import (
	"context"
	"sort"
	"strings"

	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/merge"
)

// hashMarker stands for a body by its content hash in the merge engine's
// pages. Bodies are loaded as text only for pages changed on both sides,
// the only ones merged line by line.
const hashMarker = "\x00sha256:"

// The sides of a merge: base, ours and theirs as drafts, either whole or
// only the pages the merge needs (see changedSides).
type mergeSides struct {
	b, o, t *draft
	// full lists the parents whose children all three drafts hold; nil when
	// the drafts are whole.
	full map[string]bool
	// oursCount is the number of pages of ours, when its draft is partial.
	oursCount int
}

// threeWay merges the revisions base, ours and theirs (design.md,
// Content). It answers the merged draft, or a 409 naming every conflicting
// page. It reads what changed since base when that is enough, and the three
// revisions whole otherwise.
func (r *Resolver) threeWay(ctx context.Context, base, ours, theirs string) (*draft, error) {
	sides, err := r.changedSides(ctx, base, ours, theirs)
	if err != nil {
		return nil, err
	}
	if sides == nil {
		if sides, err = wholeSides(ctx, base, ours, theirs); err != nil {
			return nil, err
		}
	}
	return mergeDrafts(ctx, sides)
}

// wholeSides reads the three revisions whole, concurrently.
func wholeSides(ctx context.Context, base, ours, theirs string) (*mergeSides, error) {
	thunks := []func() (*draft, error){}
	for _, rev := range []string{base, ours, theirs} {
		rev := rev
		ch := make(chan struct{})
		var d *draft
		var err error
		go func() { d, err = newDraft(ctx, rev); close(ch) }()
		thunks = append(thunks, func() (*draft, error) { <-ch; return d, err })
	}
	drafts := make([]*draft, 3)
	for i, th := range thunks {
		d, err := th()
		if err != nil {
			return nil, err
		}
		drafts[i] = d
	}
	return &mergeSides{b: drafts[0], o: drafts[1], t: drafts[2]}, nil
}

// mergeDrafts merges the sides' pages and files into a draft written
// against ours.
func mergeDrafts(ctx context.Context, sides *mergeSides) (*draft, error) {
	l := loader.For(ctx)
	b, o, t := sides.b, sides.o, sides.t

	// Bodies changed on both sides are merged line by line: load their text.
	var hashes []string
	both := map[string]bool{}
	for id, bp := range b.pages {
		op, ot := o.pages[id], t.pages[id]
		if op != nil && ot != nil && op.Hash != bp.Hash && ot.Hash != bp.Hash && op.Hash != ot.Hash {
			both[id] = true
			hashes = append(hashes, bp.Hash, op.Hash, ot.Hash)
		}
	}
	texts := map[string]string{}
	if len(hashes) > 0 {
		values, errs := l.PageMarkdown.LoadMany(ctx, hashes)()
		for i, h := range hashes {
			if errs != nil && errs[i] != nil {
				return nil, errs[i]
			}
			texts[h] = values[i]
		}
	}
	toMerge := func(d *draft) map[string]merge.Page {
		out := make(map[string]merge.Page, len(d.pages))
		for id, p := range d.pages {
			body := hashMarker + p.Hash
			if both[id] {
				body = texts[p.Hash]
			}
			out[id] = merge.Page{ID: id, Parent: p.Parent, Position: p.Position, Title: p.Title, Emoji: p.Emoji,
				Description: p.Description, Slug: p.Slug, Kind: string(p.Kind), Hidden: p.Hidden, Href: p.Href, Body: body}
		}
		return out
	}
	oursPages := toMerge(o)
	merged, conflicts := merge.Trees(toMerge(b), oursPages, toMerge(t))
	if sides.full != nil {
		// Groups not read whole were not moved in (see changedSides): their
		// pages keep the places they have on every side.
		for id, m := range merged {
			if op, ok := o.pages[id]; ok && !sides.full[m.Parent] {
				m.Position = op.Position
				merged[id] = m
			}
		}
	}
	if len(conflicts) > 0 {
		ids := make([]string, len(conflicts))
		reasons := make([]string, len(conflicts))
		for i, c := range conflicts {
			ids[i] = c.PageID
			reasons[i] = c.PageID + " (" + c.Reason + ")"
		}
		return nil, &mergeConflicts{err: &apperr.Error{Kind: apperr.Conflict, Field: "pages",
			Message: "conflicting pages: " + strings.Join(reasons, ", ")}, conflicts: conflicts}
	}

	// The merge is written against ours: most of its pages are ours as they were.
	out := &draft{pages: make(map[string]*draftPage, len(merged)), bodies: map[string]string{},
		source: o.source, sourcePages: o.sourcePages, partial: sides.full != nil, sourceCount: sides.oursCount,
		sourceBuckets: o.sourceBuckets, sourceFiles: o.sourceFiles}
	for id, m := range merged {
		p := &draftPage{ID: id, Parent: m.Parent, Position: m.Position, Kind: page.Kind(m.Kind), Title: m.Title,
			Emoji: m.Emoji, Slug: m.Slug, Description: m.Description, Href: m.Href, Hidden: m.Hidden}
		if strings.HasPrefix(m.Body, hashMarker) {
			p.Hash = strings.TrimPrefix(m.Body, hashMarker)
		} else {
			out.setBody(p, m.Body)
		}
		// Times follow the page: kept from ours when unchanged there.
		switch src := firstPage(o.pages[id], t.pages[id]); {
		case o.pages[id] != nil && oursPages[id] == m:
			p.CreatedAt, p.UpdatedAt = src.CreatedAt, src.UpdatedAt
		default:
			p.CreatedAt, p.UpdatedAt = src.CreatedAt, clock.Now()
		}
		out.pages[id] = p
	}
	// Files are immutable and never removed: the union of both sides.
	seen := map[string]bool{}
	for _, f := range append(append([]*draftFile{}, o.files...), t.files...) {
		if !seen[f.ID] {
			seen[f.ID] = true
			out.files = append(out.files, f)
		}
	}
	// Oldest first as the revision lists them, the id breaking ties: files
	// added in the same millisecond keep one order whatever side they came from.
	sort.Slice(out.files, func(i, j int) bool {
		a, b := out.files[i], out.files[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	return out, nil
}

// mergeConflicts is a merge's 409 (a *apperr.Error underneath) with its
// conflicts one by one, for callers that list them (Git imports).
type mergeConflicts struct {
	err       *apperr.Error
	conflicts []merge.Conflict
}

func (e *mergeConflicts) Error() string { return e.err.Error() }
func (e *mergeConflicts) Unwrap() error { return e.err }

func firstPage(ps ...*draftPage) *draftPage {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return &draftPage{CreatedAt: clock.Now()}
}
