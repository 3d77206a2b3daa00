package graph

import (
	"context"
	"slices"
	"unicode/utf8"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// manageableGroup is a section group of a site the caller may change.
func (r *Resolver) manageableGroup(ctx context.Context, orgID, siteID, groupID string) (*ent.Site, *ent.SiteSectionGroup, error) {
	return manageableSitePart(ctx, orgID, siteID, groupID, "site section group", r.Client.SiteSectionGroup.Get,
		func(g *ent.SiteSectionGroup) string { return g.SiteID })
}

// SiteSectionGroups pages through a site's section groups in order.
func (r *Resolver) SiteSectionGroups(ctx context.Context, orgID, siteID string, args paging.Args) (paging.Page[*ent.SiteSectionGroup], error) {
	s, _, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return paging.Page[*ent.SiteSectionGroup]{}, err
	}
	all, err := r.SiteGroupsOf(ctx, s)
	if err != nil {
		return paging.Page[*ent.SiteSectionGroup]{}, err
	}
	return paging.Slice(args, all, orderCursor(all, groupID)), nil
}

// SiteGroupsOf are a site's section groups in order.
func (r *Resolver) SiteGroupsOf(ctx context.Context, s *ent.Site) ([]*ent.SiteSectionGroup, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return nil, err
	}
	v, err := r.audienceView(ctx, s.ID)
	if v == nil || err != nil {
		return append([]*ent.SiteSectionGroup{}, st.Groups...), err
	}
	out := []*ent.SiteSectionGroup{}
	for _, g := range st.Groups {
		// Its audience sees a group when they see one of its sections.
		for _, sec := range groupSections(st.Sections, g.ID) {
			if v.ShowsSection(sec.ID) {
				out = append(out, g)
				break
			}
		}
	}
	return out, nil
}

// GroupSections are a group's sections in order.
func (r *Resolver) GroupSections(ctx context.Context, g *ent.SiteSectionGroup) ([]*ent.SiteSection, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, g.SiteID)()
	if err != nil {
		return nil, err
	}
	out := groupSections(st.Sections, g.ID)
	if out == nil {
		out = []*ent.SiteSection{}
	}
	return r.shownSections(ctx, g.SiteID, out)
}

func groupTitle(v string) error {
	if n := utf8.RuneCountInString(v); n < 1 || n > 100 {
		return apperr.InvalidField("title", "must be 1 to 100 characters (got %d)", n)
	}
	return nil
}

// AddSiteSectionGroup adds a group at the end of the site's top level, with
// sections (taken from where they were) in order.
func (r *Resolver) AddSiteSectionGroup(ctx context.Context, orgID, siteID, title string, icon *string, sections []string) (*ent.SiteSectionGroup, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if err := groupTitle(title); err != nil {
		return nil, err
	}
	if err := checkIcon(icon); err != nil {
		return nil, err
	}
	var created *ent.SiteSectionGroup
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		if len(st.groups) >= MaxGroupsPerSite {
			return apperr.Conflictf("a site has at most %d section groups", MaxGroupsPerSite)
		}
		var order []string
		for _, id := range sections {
			if st.section(id) == nil {
				return apperr.InvalidField("sections", "%s is not a section of the site", id)
			}
			if slices.Contains(order, id) {
				return apperr.InvalidField("sections", "%s is named twice", id)
			}
			order = append(order, id)
		}
		created, err = tx.SiteSectionGroup.Create().SetSiteID(s.ID).SetTitle(title).SetNillableIcon(icon).
			SetPosition(len(topLevel(st.sections, st.groups))).Save(ctx)
		if err != nil {
			return entError(err)
		}
		record(ctx, groupEvent(events.SiteSectionGroupCreated, s, created, map[string]any{"title": created.Title, "sectionIds": order}))
		return writeGroup(ctx, tx, st, created.ID, order)
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return created, nil
}

// UpdateSiteSectionGroup changes a group's title and icon.
func (r *Resolver) UpdateSiteSectionGroup(ctx context.Context, orgID, siteID, groupID string, in model.UpdateSiteSectionGroupInput) (*ent.SiteSectionGroup, error) {
	s, g, err := r.manageableGroup(ctx, orgID, siteID, groupID)
	if err != nil {
		return nil, err
	}
	// Prepared here, saved on the write's tx (replay).
	up := r.Client.SiteSectionGroup.UpdateOneID(g.ID)
	if in.Title.IsSet() {
		v := in.Title.Value()
		if v == nil {
			return nil, apperr.InvalidField("title", "must be 1 to 100 characters, not null")
		}
		if err := groupTitle(*v); err != nil {
			return nil, err
		}
		up.SetTitle(*v)
	}
	if in.Icon.IsSet() {
		v := in.Icon.Value()
		if err := checkIcon(v); err != nil {
			return nil, err
		}
		up.SetNillableIcon(v)
		if v == nil {
			up.ClearIcon()
		}
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.SiteSectionGroup.UpdateOneID(g.ID)
		if err := replay(u.Mutation(), up.Mutation()); err != nil {
			return err
		}
		if g, err = u.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, groupEvent(events.SiteSectionGroupUpdated, s, g, map[string]any{"fields": changedFields(up.Mutation())}))
		return nil
	})
	r.forgetStructure(ctx, s.ID)
	return g, err
}

// DeleteSiteSectionGroup deletes a group; its sections stay, ungrouped, in
// the group's place.
func (r *Resolver) DeleteSiteSectionGroup(ctx context.Context, orgID, siteID, groupID string) error {
	s, g, err := r.manageableGroup(ctx, orgID, siteID, groupID)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		record(ctx, groupEvent(events.SiteSectionGroupDeleted, s, g, nil))
		var order []string
		for _, it := range topLevel(st.sections, st.groups) {
			if it.id == g.ID {
				order = append(order, idsOf(groupSections(st.sections, g.ID), secID)...)
				continue
			}
			order = append(order, it.id)
		}
		if err := tx.SiteSectionGroup.DeleteOneID(g.ID).Exec(ctx); err != nil {
			return err
		}
		return writeTopLevel(ctx, tx, st, order)
	})
	r.forgetStructure(ctx, s.ID)
	return err
}

// AddSectionToGroup puts a section of the site at the end of a group.
func (r *Resolver) AddSectionToGroup(ctx context.Context, orgID, siteID, groupID, sectionID string) (*ent.SiteSectionGroup, error) {
	s, g, err := r.manageableGroup(ctx, orgID, siteID, groupID)
	if err != nil {
		return nil, err
	}
	if sectionID == "" {
		return nil, apperr.InvalidField("sectionId", "is required")
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		sec := st.section(sectionID)
		if sec == nil {
			return apperr.NotFoundf("site section %s not found in the site", sectionID)
		}
		// readSite touched the site (its lock): the write records even
		// when the section is already in the group.
		record(ctx, groupEvent(events.SiteSectionGroupUpdated, s, g, map[string]any{"fields": []string{"sections"}, "sectionId": sec.ID}))
		if sec.GroupID != nil && *sec.GroupID == g.ID {
			return nil
		}
		if sec.GroupID == nil {
			// It leaves the top level: renumber what stays there.
			var rest []string
			for _, it := range topLevel(st.sections, st.groups) {
				if it.id != sec.ID {
					rest = append(rest, it.id)
				}
			}
			if err := writeTopLevel(ctx, tx, st, rest); err != nil {
				return err
			}
		}
		return writeGroup(ctx, tx, st, g.ID, append(idsOf(groupSections(st.sections, g.ID), secID), sec.ID))
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return g, nil
}

// RemoveSectionFromGroup puts a section of a group on the top level, just
// after the group.
func (r *Resolver) RemoveSectionFromGroup(ctx context.Context, orgID, siteID, groupID, sectionID string) error {
	s, g, err := r.manageableGroup(ctx, orgID, siteID, groupID)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		sec := st.section(sectionID)
		if sec == nil || sec.GroupID == nil || *sec.GroupID != g.ID {
			return apperr.NotFoundf("site section %s is not in the group", sectionID)
		}
		record(ctx, groupEvent(events.SiteSectionGroupUpdated, s, g, map[string]any{"fields": []string{"sections"}, "sectionId": sec.ID}))
		return writeTopLevel(ctx, tx, st, insertAt(idsOf(topLevel(st.sections, st.groups), slotID), sec.ID, g.ID, true))
	})
	r.forgetStructure(ctx, s.ID)
	return err
}

// MoveSiteSectionGroup places a group before or after a top-level section or
// group, or at the end of the top level.
func (r *Resolver) MoveSiteSectionGroup(ctx context.Context, orgID, siteID, groupID string, pos *model.SiteMoveInput) (*ent.SiteSectionGroup, error) {
	s, g, err := r.manageableGroup(ctx, orgID, siteID, groupID)
	if err != nil {
		return nil, err
	}
	target, after, err := moveTarget(pos, g.ID, "position")
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		record(ctx, groupEvent(events.SiteSectionGroupMoved, s, g, nil))
		if target != "" {
			if ts := st.section(target); ts != nil && ts.GroupID != nil {
				return apperr.InvalidField("position", "section %s is in a group: groups do not nest", target)
			} else if ts == nil && st.group(target) == nil {
				return apperr.InvalidField("position", "%s is not a section or group of the site", target)
			}
		}
		return writeTopLevel(ctx, tx, st, insertAt(idsOf(topLevel(st.sections, st.groups), slotID), g.ID, target, after))
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return r.Client.SiteSectionGroup.Get(ctx, g.ID)
}

// visibleGroup is a section group of a site the caller may read.
func (r *Resolver) visibleGroup(ctx context.Context, groupID string) (*ent.SiteSectionGroup, error) {
	g, err := r.Client.SiteSectionGroup.Get(ctx, groupID)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("site section group %s not found", groupID)
	}
	if err != nil {
		return nil, err
	}
	if _, _, err := visibleSite(ctx, "", g.SiteID); err != nil {
		return nil, apperr.NotFoundf("site section group %s not found", groupID)
	}
	return g, nil
}

// groupEvent is an event whose target is section group g of site s.
func groupEvent(action string, s *ent.Site, g *ent.SiteSectionGroup, payload map[string]any) events.Event {
	return siteItemEvent(action, s, "site-section-group", g.ID, g.Title, payload)
}
