package graph

import (
	"context"
	"slices"
	"strconv"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/markdown"
)

// A site's order: ungrouped sections and section groups share one top-level
// order (their `position`), a grouped section's position is its place in
// its group, and a site space's position is its place among the site spaces
// of its section (or of the site's root). Writes renumber the siblings they
// change from 0, so positions stay small and exact.

// siteTree is a site's structure as a write sees it, inside its transaction.
type siteTree struct {
	siteID     string
	sections   []*ent.SiteSection
	groups     []*ent.SiteSectionGroup
	siteSpaces []*ent.SiteSpace
}

// readSite reads a site's structure (every site space, whatever its
// space's state) in order, inside a write's transaction. It first touches
// the site's row, so that writes to one site's structure take turns (the
// row lock on PostgreSQL, the write lock on SQLite): two first sections
// added at once cannot both become the default, nor two moves interleave.
func readSite(ctx context.Context, c *ent.Client, siteID string) (*siteTree, error) {
	t := &siteTree{siteID: siteID}
	if err := c.Site.Update().Where(site.ID(siteID)).SetUpdatedAt(clock.Now()).Exec(ctx); err != nil {
		return nil, err
	}
	var err error
	if t.sections, err = c.SiteSection.Query().Where(sitesection.SiteID(siteID)).
		Order(ent.Asc(sitesection.FieldPosition), ent.Asc(sitesection.FieldID)).All(ctx); err != nil {
		return nil, err
	}
	if t.groups, err = c.SiteSectionGroup.Query().Where(sitesectiongroup.SiteID(siteID)).
		Order(ent.Asc(sitesectiongroup.FieldPosition), ent.Asc(sitesectiongroup.FieldID)).All(ctx); err != nil {
		return nil, err
	}
	if t.siteSpaces, err = c.SiteSpace.Query().Where(sitespace.SiteID(siteID)).
		Order(ent.Asc(sitespace.FieldPosition), ent.Asc(sitespace.FieldID)).All(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *siteTree) section(id string) *ent.SiteSection {
	for _, s := range t.sections {
		if s.ID == id {
			return s
		}
	}
	return nil
}

func (t *siteTree) group(id string) *ent.SiteSectionGroup {
	for _, g := range t.groups {
		if g.ID == id {
			return g
		}
	}
	return nil
}

func (t *siteTree) siteSpace(id string) *ent.SiteSpace {
	for _, s := range t.siteSpaces {
		if s.ID == id {
			return s
		}
	}
	return nil
}

func (t *siteTree) defaultSection() *ent.SiteSection {
	for _, s := range t.sections {
		if s.IsDefault {
			return s
		}
	}
	return nil
}

// spacesIn are the site spaces of a section (nil: the root), in order.
func (t *siteTree) spacesIn(section *string) []*ent.SiteSpace {
	var out []*ent.SiteSpace
	for _, s := range t.siteSpaces {
		if sameContainer(s.SectionID, section) {
			out = append(out, s)
		}
	}
	return out
}

// groupSections are the sections of a group, in order.
func groupSections(sections []*ent.SiteSection, groupID string) []*ent.SiteSection {
	var out []*ent.SiteSection
	for _, s := range sections {
		if s.GroupID != nil && *s.GroupID == groupID {
			out = append(out, s)
		}
	}
	return out
}

func sameContainer(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// slot is an item of the top level: an ungrouped section or a group.
type slot struct {
	id    string
	group bool
	pos   int
}

// topLevel is the site's top-level order.
func topLevel(sections []*ent.SiteSection, groups []*ent.SiteSectionGroup) []slot {
	var out []slot
	for _, s := range sections {
		if s.GroupID == nil {
			out = append(out, slot{id: s.ID, pos: s.Position})
		}
	}
	for _, g := range groups {
		out = append(out, slot{id: g.ID, group: true, pos: g.Position})
	}
	slices.SortStableFunc(out, func(a, b slot) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		if a.id < b.id {
			return -1
		}
		if a.id > b.id {
			return 1
		}
		return 0
	})
	return out
}

// flattenSections is the sections in the site's reading order: the top
// level, with each group's sections in its place.
func flattenSections(sections []*ent.SiteSection, groups []*ent.SiteSectionGroup) []*ent.SiteSection {
	byID := make(map[string]*ent.SiteSection, len(sections))
	for _, s := range sections {
		byID[s.ID] = s
	}
	out := make([]*ent.SiteSection, 0, len(sections))
	for _, it := range topLevel(sections, groups) {
		if it.group {
			out = append(out, groupSections(sections, it.id)...)
		} else {
			out = append(out, byID[it.id])
		}
	}
	return out
}

// insertAt puts id into order before or after target (when target is not
// empty), or at the end; id is first taken out of order if it is there.
func insertAt(order []string, id, target string, after bool) []string {
	out := make([]string, 0, len(order)+1)
	for _, o := range order {
		if o != id {
			out = append(out, o)
		}
	}
	if target == "" {
		return append(out, id)
	}
	i := slices.Index(out, target)
	if after {
		i++
	}
	return slices.Insert(out, i, id)
}

// writeTopLevel numbers the top level in order: sections (leaving any
// group) and groups.
func writeTopLevel(ctx context.Context, tx *ent.Client, t *siteTree, order []string) error {
	for i, id := range order {
		if g := t.group(id); g != nil {
			if g.Position != i {
				if err := tx.SiteSectionGroup.UpdateOneID(id).SetPosition(i).Exec(ctx); err != nil {
					return err
				}
			}
			continue
		}
		if s := t.section(id); s != nil && (s.Position != i || s.GroupID != nil) {
			if err := tx.SiteSection.UpdateOneID(id).SetPosition(i).ClearGroupID().Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeGroup numbers a group's sections in order, putting them in it.
func writeGroup(ctx context.Context, tx *ent.Client, t *siteTree, groupID string, order []string) error {
	for i, id := range order {
		s := t.section(id)
		if s.Position != i || s.GroupID == nil || *s.GroupID != groupID {
			if err := tx.SiteSection.UpdateOneID(id).SetPosition(i).SetGroupID(groupID).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeSpaces numbers the site spaces of a section (nil: the root) in
// order, putting them in it.
func writeSpaces(ctx context.Context, tx *ent.Client, t *siteTree, section *string, order []string) error {
	for i, id := range order {
		s := t.siteSpace(id)
		if s.Position != i || !sameContainer(s.SectionID, section) {
			if err := tx.SiteSpace.UpdateOneID(id).SetPosition(i).SetNillableSectionID(section).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func idsOf[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

func secID(s *ent.SiteSection) string        { return s.ID }
func ssID(s *ent.SiteSpace) string           { return s.ID }
func slotID(s slot) string                   { return s.id }
func groupID(g *ent.SiteSectionGroup) string { return g.ID }

// setDefaultSection makes sec the site's default section.
func setDefaultSection(ctx context.Context, tx *ent.Client, t *siteTree, sec *ent.SiteSection) error {
	if err := tx.SiteSection.Update().Where(sitesection.SiteID(t.siteID), sitesection.IDNEQ(sec.ID), sitesection.IsDefault(true)).
		SetIsDefault(false).Exec(ctx); err != nil {
		return err
	}
	for _, s := range t.sections {
		s.IsDefault = s.ID == sec.ID
	}
	return tx.SiteSection.UpdateOneID(sec.ID).SetIsDefault(true).Exec(ctx)
}

// setDefaultSiteSpace makes ss the default of its section (or root).
func setDefaultSiteSpace(ctx context.Context, tx *ent.Client, t *siteTree, ss *ent.SiteSpace) error {
	for _, o := range t.spacesIn(ss.SectionID) {
		want := o.ID == ss.ID
		if o.IsDefault != want {
			if err := tx.SiteSpace.UpdateOneID(o.ID).SetIsDefault(want).Exec(ctx); err != nil {
				return err
			}
			o.IsDefault = want
		}
	}
	return nil
}

// ensureDefaultSpace gives a section (or the root) a default site space
// when it has site spaces and none is the default: its first.
func ensureDefaultSpace(ctx context.Context, tx *ent.Client, c *ent.Client, siteID string, section *string) error {
	t, err := readSite(ctx, c, siteID)
	if err != nil {
		return err
	}
	in := t.spacesIn(section)
	if len(in) == 0 {
		return nil
	}
	defaults := 0
	for _, s := range in {
		if s.IsDefault {
			defaults++
		}
	}
	if defaults == 1 {
		return nil
	}
	return setDefaultSiteSpace(ctx, tx, t, in[0])
}

// slugOr is a path made from a title, or fallback when it gives none.
func slugOr(title, fallback string) string {
	s := markdown.Slug(title)
	if s == "" {
		return fallback
	}
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}

// freePath is base, or base-2, base-3… the first not in taken.
func freePath(base string, taken []string) string {
	p := base
	for n := 2; slices.Contains(taken, p); n++ {
		p = base + "-" + strconv.Itoa(n)
	}
	return p
}
