package graph

import (
	"context"
	"unicode/utf8"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// manageableSection is a section of a site the caller may change.
func (r *Resolver) manageableSection(ctx context.Context, orgID, siteID, sectionID string) (*ent.Site, *ent.SiteSection, error) {
	return manageableSitePart(ctx, orgID, siteID, sectionID, "site section", r.Client.SiteSection.Get,
		func(sec *ent.SiteSection) string { return sec.SiteID })
}

// visibleSection is a section of a site the caller may read.
func (r *Resolver) visibleSection(ctx context.Context, sectionID string) (*ent.SiteSection, error) {
	sec, err := r.Client.SiteSection.Get(ctx, sectionID)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("site section %s not found", sectionID)
	}
	if err != nil {
		return nil, err
	}
	if _, _, err := visibleSite(ctx, "", sec.SiteID); err != nil {
		return nil, apperr.NotFoundf("site section %s not found", sectionID)
	}
	return sec, nil
}

// SiteSections pages through a site's sections in the site's order.
func (r *Resolver) SiteSections(ctx context.Context, orgID, siteID string, args paging.Args, shareKey *string) (paging.Page[*ent.SiteSection], error) {
	s, err := r.readableSite(ctx, orgID, siteID, shareKey)
	if err != nil {
		return paging.Page[*ent.SiteSection]{}, err
	}
	all, err := r.SiteSectionsOf(ctx, s)
	if err != nil {
		return paging.Page[*ent.SiteSection]{}, err
	}
	return paging.Slice(args, all, orderCursor(all, secID)), nil
}

// readableSite is a site the caller may read: as a member, or, with a
// shareKey, as the published site's audience (PublishedSite's rules).
func (r *Resolver) readableSite(ctx context.Context, orgID, siteID string, shareKey *string) (*ent.Site, error) {
	if shareKey != nil {
		return r.PublishedSite(ctx, orgID, siteID, VisitorArgs{ShareKey: shareKey})
	}
	s, _, err := visibleSite(ctx, orgID, siteID)
	return s, err
}

// orderCursor is the cursor of items listed in a chosen order: their place
// in it, and their id.
func orderCursor[T any](all []T, id func(T) string) func(T) paging.Cursor {
	place := make(map[string]int, len(all))
	for i, it := range all {
		place[id(it)] = i
	}
	return func(it T) paging.Cursor { return paging.Cursor{Pos: float64(place[id(it)]), ID: id(it)} }
}

// SiteSectionsOf are a site's sections in its reading order.
func (r *Resolver) SiteSectionsOf(ctx context.Context, s *ent.Site) ([]*ent.SiteSection, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return nil, err
	}
	return r.shownSections(ctx, s.ID, flattenSections(st.Sections, st.Groups))
}

// SectionSiteSpaces are a section's live site spaces, in order.
func (r *Resolver) SectionSiteSpaces(ctx context.Context, sec *ent.SiteSection) ([]*ent.SiteSpace, error) {
	return r.siteSpacesIn(ctx, sec.SiteID, &sec.ID)
}

// RootSiteSpaces are the live site spaces at a site's root, in order.
func (r *Resolver) RootSiteSpaces(ctx context.Context, s *ent.Site) ([]*ent.SiteSpace, error) {
	return r.siteSpacesIn(ctx, s.ID, nil)
}

func (r *Resolver) siteSpacesIn(ctx context.Context, siteID string, section *string) ([]*ent.SiteSpace, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, siteID)()
	if err != nil {
		return nil, err
	}
	out := []*ent.SiteSpace{}
	for _, ss := range st.SiteSpaces {
		if sameContainer(ss.SectionID, section) {
			out = append(out, ss)
		}
	}
	return r.shownSiteSpaces(ctx, siteID, out)
}

// SectionGroup is the group of a section, or nil.
func (r *Resolver) SectionGroup(ctx context.Context, sec *ent.SiteSection) (*ent.SiteSectionGroup, error) {
	if sec.GroupID == nil {
		return nil, nil
	}
	st, err := loader.For(ctx).SiteStructure.Load(ctx, sec.SiteID)()
	if err != nil {
		return nil, err
	}
	for _, g := range st.Groups {
		if g.ID == *sec.GroupID {
			return g, nil
		}
	}
	return nil, nil
}

// sectionTitle checks a section's title: 2 to 128 characters.
func sectionTitle(v string) error {
	if n := utf8.RuneCountInString(v); n < 2 || n > 128 {
		return apperr.InvalidField("title", "must be 2 to 128 characters (got %d)", n)
	}
	return nil
}

// checkIcon: an icon name of at most 50 characters.
func checkIcon(v *string) error {
	if v != nil && (utf8.RuneCountInString(*v) > 50 || *v == "") {
		return apperr.InvalidField("icon", "must be 1 to 50 characters or null")
	}
	return nil
}

// checkPath: a site path, 1 to 100 characters of a slug.
func checkPath(v string) error {
	if len(v) < 1 || len(v) > 100 || !basenamePattern.MatchString(v) {
		return apperr.InvalidField("path", "must be 1 to 100 lower-case letters, digits and inner hyphens")
	}
	return nil
}

// checkCondition: an expression of 1 to 1024 characters.
func checkCondition(v *string) error {
	if v != nil && (len(*v) < 1 || utf8.RuneCountInString(*v) > 1024) {
		return apperr.InvalidField("condition", "must be 1 to 1024 characters or null")
	}
	return nil
}

// AddSiteSection adds a section whose first site space is spaceID. The first
// section of a site is its default and takes the site's root site spaces.
func (r *Resolver) AddSiteSection(ctx context.Context, orgID, siteID, spaceID string, title, icon *string) (*ent.SiteSection, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if spaceID == "" {
		return nil, apperr.InvalidField("spaceId", "is required")
	}
	if title != nil {
		if err := sectionTitle(*title); err != nil {
			return nil, err
		}
	}
	if err := checkIcon(icon); err != nil {
		return nil, err
	}
	sp, err := siteSpaceOf(ctx, s, spaceID)
	if err != nil {
		return nil, err
	}
	t := sp.Title
	if title != nil {
		t = *title
	} else if utf8.RuneCountInString(t) < 2 {
		t = "Section"
	}
	var created *ent.SiteSection
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		if len(st.sections) >= MaxSectionsPerSite {
			return apperr.Conflictf("a site has at most %d sections", MaxSectionsPerSite)
		}
		first := len(st.sections) == 0
		paths := idsOf(st.sections, func(s *ent.SiteSection) string { return s.Path })
		created, err = tx.SiteSection.Create().SetSiteID(s.ID).SetTitle(t).SetNillableIcon(icon).
			SetPath(freePath(slugOr(t, "section"), paths)).SetPosition(len(topLevel(st.sections, st.groups))).
			SetIsDefault(first).Save(ctx)
		if err != nil {
			return entError(err)
		}
		var taken []string
		n := 0
		if first {
			// The root's site spaces move into the site's first section.
			for _, ss := range st.spacesIn(nil) {
				taken = append(taken, ss.Path)
				n++
			}
			if _, err := tx.SiteSpace.Update().Where(sitespace.SiteID(s.ID), sitespace.SectionIDIsNil()).
				SetSectionID(created.ID).Save(ctx); err != nil {
				return err
			}
		}
		if n >= MaxSiteSpacesPerSection {
			return apperr.Conflictf("a section has at most %d site spaces", MaxSiteSpacesPerSection)
		}
		if err := tx.SiteSpace.Create().SetSiteID(s.ID).SetSectionID(created.ID).SetSpaceID(sp.ID).
			SetPath(freePath(slugOr(sp.Title, "space"), taken)).SetPosition(n).SetIsDefault(n == 0).Exec(ctx); err != nil {
			return err
		}
		record(ctx, sectionEvent(events.SiteSectionCreated, s, created, map[string]any{"spaceId": sp.ID, "title": created.Title}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return created, nil
}

// UpdateSiteSection changes a section.
func (r *Resolver) UpdateSiteSection(ctx context.Context, orgID, siteID, sectionID string, in model.UpdateSiteSectionInput) (*ent.SiteSection, error) {
	s, sec, err := r.manageableSection(ctx, orgID, siteID, sectionID)
	if err != nil {
		return nil, err
	}
	var sets []func(*ent.SiteSectionUpdateOne)
	if in.Title.IsSet() {
		v := in.Title.Value()
		if v == nil {
			return nil, apperr.InvalidField("title", "must be 2 to 128 characters, not null")
		}
		if err := sectionTitle(*v); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.SetTitle(*v) })
	}
	var path *string
	if in.Path.IsSet() {
		if path = in.Path.Value(); path == nil {
			return nil, apperr.InvalidField("path", "must be 1 to 100 characters, not null")
		}
		if err := checkPath(*path); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.SetPath(*path) })
	}
	if in.Condition.IsSet() {
		v := in.Condition.Value()
		if err := checkSiteCondition(s, v, "condition"); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.SetNillableCondition(v) })
		if v == nil {
			sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.ClearCondition() })
		}
	}
	if in.Icon.IsSet() {
		v := in.Icon.Value()
		if err := checkIcon(v); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.SetNillableIcon(v) })
		if v == nil {
			sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.ClearIcon() })
		}
	}
	if in.Description.IsSet() {
		v := in.Description.Value()
		if v != nil && utf8.RuneCountInString(*v) > 256 {
			return nil, apperr.InvalidField("description", "must be at most 256 characters or null")
		}
		sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.SetNillableDescription(v) })
		if v == nil {
			sets = append(sets, func(u *ent.SiteSectionUpdateOne) { u.ClearDescription() })
		}
	}
	var def *string
	if in.DefaultSiteSpace.IsSet() {
		if def = in.DefaultSiteSpace.Value(); def == nil {
			return nil, apperr.InvalidField("defaultSiteSpace", "must be a site space id")
		}
	}
	var updated *ent.SiteSection
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		if path != nil {
			for _, o := range st.sections {
				if o.ID != sec.ID && o.Path == *path {
					return apperr.ConflictField("path", "another section of the site has the path %q", *path)
				}
			}
		}
		if def != nil {
			ss := st.siteSpace(*def)
			if ss == nil || !sameContainer(ss.SectionID, &sec.ID) {
				return apperr.InvalidField("defaultSiteSpace", "%s is not a site space of the section", *def)
			}
			if err := setDefaultSiteSpace(ctx, tx, st, ss); err != nil {
				return err
			}
		}
		up := tx.SiteSection.UpdateOneID(sec.ID)
		for _, set := range sets {
			set(up)
		}
		fields := changedFields(up.Mutation())
		if def != nil {
			fields = append(fields, "defaultSiteSpace")
		}
		if updated, err = up.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, sectionEvent(events.SiteSectionUpdated, s, updated, map[string]any{"fields": fields}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return updated, nil
}

// DeleteSiteSection deletes a section and its site spaces. The default
// section goes only when it is the last.
func (r *Resolver) DeleteSiteSection(ctx context.Context, orgID, siteID, sectionID string) error {
	s, sec, err := r.manageableSection(ctx, orgID, siteID, sectionID)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		if cur := st.section(sec.ID); cur != nil && cur.IsDefault && len(st.sections) > 1 {
			return apperr.Conflictf("the default section cannot be deleted while the site has other sections: make another the default first")
		}
		if _, err := tx.SiteSpace.Delete().Where(sitespace.SectionID(sec.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.SiteSection.DeleteOneID(sec.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, sectionEvent(events.SiteSectionDeleted, s, sec, nil))
		return nil
	})
	r.forgetStructure(ctx, s.ID)
	return err
}

// moveTarget reads a move's position: before or after one item (not both,
// not itself), or neither (the end).
func moveTarget(pos *model.SiteMoveInput, self, field string) (string, bool, error) {
	if pos == nil {
		return "", false, nil
	}
	before, after := pos.Before.Value(), pos.After.Value()
	switch {
	case before != nil && after != nil:
		return "", false, apperr.InvalidField(field, "give before or after, not both")
	case before != nil && *before == self, after != nil && *after == self:
		return "", false, apperr.InvalidField(field, "cannot place an item next to itself")
	case before != nil:
		return *before, false, nil
	case after != nil:
		return *after, true, nil
	}
	return "", false, nil
}

// MoveSiteSection places a section before or after another section, in that
// section's group (or the top level), or at the end of the top level.
func (r *Resolver) MoveSiteSection(ctx context.Context, orgID, siteID, sectionID string, pos *model.SiteMoveInput) (*ent.SiteSection, error) {
	s, sec, err := r.manageableSection(ctx, orgID, siteID, sectionID)
	if err != nil {
		return nil, err
	}
	target, after, err := moveTarget(pos, sec.ID, "position")
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		var group *string
		if target != "" {
			ts := st.section(target)
			if ts == nil {
				return apperr.InvalidField("position", "%s is not a section of the site", target)
			}
			group = ts.GroupID
		}
		payload := map[string]any{}
		if group != nil {
			payload["groupId"] = *group
		}
		record(ctx, sectionEvent(events.SiteSectionMoved, s, sec, payload))
		if group != nil {
			return writeGroup(ctx, tx, st, *group, insertAt(idsOf(groupSections(st.sections, *group), secID), sec.ID, target, after))
		}
		return writeTopLevel(ctx, tx, st, insertAt(idsOf(topLevel(st.sections, st.groups), slotID), sec.ID, target, after))
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return r.Client.SiteSection.Get(ctx, sec.ID)
}

// SiteItem is an item of a site's top level: a section or a group.
type SiteItem struct {
	Section *ent.SiteSection
	Group   *ent.SiteSectionGroup
}

// SiteTopLevel is a site's top level in order: ungrouped sections and
// groups (the published view's `sections` structure).
func (r *Resolver) SiteTopLevel(ctx context.Context, s *ent.Site) ([]SiteItem, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return nil, err
	}
	shown, err := r.shownSections(ctx, s.ID, st.Sections)
	if err != nil {
		return nil, err
	}
	var out []SiteItem
	for _, it := range topLevel(st.Sections, st.Groups) {
		if it.group {
			for _, g := range st.Groups {
				// A group none of whose sections is shown is not shown.
				if g.ID == it.id && len(groupSections(shown, g.ID)) > 0 {
					out = append(out, SiteItem{Group: g})
				}
			}
			continue
		}
		for _, sec := range shown {
			if sec.ID == it.id {
				out = append(out, SiteItem{Section: sec})
			}
		}
	}
	return out, nil
}

// sectionEvent is an event whose target is section sec of site s.
func sectionEvent(action string, s *ent.Site, sec *ent.SiteSection, payload map[string]any) events.Event {
	return siteItemEvent(action, s, "site-section", sec.ID, sec.Title, payload)
}
