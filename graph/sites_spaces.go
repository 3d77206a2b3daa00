package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// manageableSiteSpace is a site space of a site the caller may change.
func (r *Resolver) manageableSiteSpace(ctx context.Context, orgID, siteID, siteSpaceID string) (*ent.Site, *ent.SiteSpace, error) {
	get := func(ctx context.Context, id string) (*ent.SiteSpace, error) {
		ss, err := r.Client.SiteSpace.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if _, err := loader.For(ctx).SpaceByID.Load(ctx, ss.SpaceID)(); err != nil {
			// Its space is in the trash: the site space is not there either.
			return nil, apperr.NotFoundf("site space %s not found", id)
		}
		return ss, nil
	}
	return manageableSitePart(ctx, orgID, siteID, siteSpaceID, "site space", get,
		func(ss *ent.SiteSpace) string { return ss.SiteID })
}

// SiteSpaces pages through a site's live site spaces in the site's order
// (by section, then within each); def keeps the default ones (true) or the
// others (false).
func (r *Resolver) SiteSpaces(ctx context.Context, orgID, siteID string, args paging.Args, def *bool, shareKey *string) (paging.Page[*ent.SiteSpace], error) {
	s, err := r.readableSite(ctx, orgID, siteID, shareKey)
	if err != nil {
		return paging.Page[*ent.SiteSpace]{}, err
	}
	st, err := loader.For(ctx).SiteStructure.Load(ctx, s.ID)()
	if err != nil {
		return paging.Page[*ent.SiteSpace]{}, err
	}
	containers := []*string{nil}
	for _, sec := range flattenSections(st.Sections, st.Groups) {
		containers = append(containers, &sec.ID)
	}
	var all []*ent.SiteSpace
	for _, c := range containers {
		for _, ss := range st.SiteSpaces {
			if sameContainer(ss.SectionID, c) && (def == nil || *def == ss.IsDefault) {
				all = append(all, ss)
			}
		}
	}
	if all, err = r.shownSiteSpaces(ctx, s.ID, all); err != nil {
		return paging.Page[*ent.SiteSpace]{}, err
	}
	return paging.Slice(args, all, orderCursor(all, ssID)), nil
}

// SiteSpaceSpace is the space of a site space, or nil when the caller may
// not read it.
func (r *Resolver) SiteSpaceSpace(ctx context.Context, ss *ent.SiteSpace) (*ent.Space, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, ss.SiteID)()
	if err != nil {
		return nil, err
	}
	sp := st.Spaces[ss.SpaceID]
	if sp == nil {
		if sp, err = loader.For(ctx).SpaceByID.Load(ctx, ss.SpaceID)(); err != nil {
			return nil, nil
		}
	}
	role, err := spaceRole(ctx, sp)
	if err != nil {
		return nil, err
	}
	if access.AtLeast(role, access.Read) {
		return sp, nil
	}
	if l := loader.For(ctx); l.ReadsAsAudience(ss.SiteID) {
		// The site's audience reads the space as published content: its
		// pages through the site space (SiteSpace.pages), not its
		// activity (SpaceCounts) nor anything its own guards keep.
		l.ShowSpaceToAudience(sp.ID)
		return sp, nil
	}
	return nil, nil
}

// SiteSpaceTitle is the title of a site space's space ("" when the caller
// may not read it).
func (r *Resolver) SiteSpaceTitle(ctx context.Context, ss *ent.SiteSpace) (string, error) {
	sp, err := r.SiteSpaceSpace(ctx, ss)
	if sp == nil || err != nil {
		return "", err
	}
	return sp.Title, nil
}

// SiteSpaceSection is the section of a site space, or nil at the root.
func (r *Resolver) SiteSpaceSection(ctx context.Context, ss *ent.SiteSpace) (*ent.SiteSection, error) {
	if ss.SectionID == nil {
		return nil, nil
	}
	st, err := loader.For(ctx).SiteStructure.Load(ctx, ss.SiteID)()
	if err != nil {
		return nil, err
	}
	for _, s := range st.Sections {
		if s.ID == *ss.SectionID {
			return s, nil
		}
	}
	return nil, nil
}

// capOf is the most site spaces a section (or the root) holds.
func capOf(section *string) int {
	if section == nil {
		return MaxRootSiteSpacesPerSite
	}
	return MaxSiteSpacesPerSection
}

// AddSiteSpace adds a space to a section of the site, to its default
// section, or to its root when it has no sections.
func (r *Resolver) AddSiteSpace(ctx context.Context, orgID, siteID, spaceID string, sectionID *string) (*ent.SiteSpace, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if spaceID == "" {
		return nil, apperr.InvalidField("spaceId", "is required")
	}
	sp, err := siteSpaceOf(ctx, s, spaceID)
	if err != nil {
		return nil, err
	}
	var created *ent.SiteSpace
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		var section *string
		switch {
		case sectionID != nil:
			if st.section(*sectionID) == nil {
				return apperr.NotFoundf("site section %s not found in the site", *sectionID)
			}
			section = sectionID
		case st.defaultSection() != nil:
			section = &st.defaultSection().ID
		}
		in := st.spacesIn(section)
		if len(in) >= capOf(section) {
			return apperr.Conflictf("a section (or a site's root) has at most %d site spaces", capOf(section))
		}
		created, err = tx.SiteSpace.Create().SetSiteID(s.ID).SetNillableSectionID(section).SetSpaceID(sp.ID).
			SetPath(freePath(slugOr(sp.Title, "space"), idsOf(in, func(o *ent.SiteSpace) string { return o.Path }))).
			SetPosition(len(in)).SetIsDefault(len(in) == 0).Save(ctx)
		if err != nil {
			return entError(err)
		}
		payload := map[string]any{"spaceId": sp.ID}
		if section != nil {
			payload["sectionId"] = *section
		}
		record(ctx, siteSpaceEvent(events.SiteSpaceCreated, s, created, payload))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return created, nil
}

// UpdateSiteSpace changes a site space's path and condition.
func (r *Resolver) UpdateSiteSpace(ctx context.Context, orgID, siteID, siteSpaceID string, in model.UpdateSiteSpaceInput) (*ent.SiteSpace, error) {
	s, ss, err := r.manageableSiteSpace(ctx, orgID, siteID, siteSpaceID)
	if err != nil {
		return nil, err
	}
	var sets []func(*ent.SiteSpaceUpdateOne)
	var path *string
	if in.Path.IsSet() {
		if path = in.Path.Value(); path == nil {
			return nil, apperr.InvalidField("path", "must be 1 to 100 characters, not null")
		}
		if err := checkPath(*path); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteSpaceUpdateOne) { u.SetPath(*path) })
	}
	if in.Condition.IsSet() {
		v := in.Condition.Value()
		if err := checkSiteCondition(s, v, "condition"); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteSpaceUpdateOne) { u.SetNillableCondition(v) })
		if v == nil {
			sets = append(sets, func(u *ent.SiteSpaceUpdateOne) { u.ClearCondition() })
		}
	}
	var updated *ent.SiteSpace
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		if path != nil {
			for _, o := range st.spacesIn(ss.SectionID) {
				if o.ID != ss.ID && o.Path == *path {
					return apperr.ConflictField("path", "another site space here has the path %q", *path)
				}
			}
		}
		up := tx.SiteSpace.UpdateOneID(ss.ID)
		for _, set := range sets {
			set(up)
		}
		fields := changedFields(up.Mutation())
		if updated, err = up.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, siteSpaceEvent(events.SiteSpaceUpdated, s, updated, map[string]any{"fields": fields}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return updated, nil
}

// DeleteSiteSpace removes a site space; when it was the default of its
// section, the section's first site space takes over.
func (r *Resolver) DeleteSiteSpace(ctx context.Context, orgID, siteID, siteSpaceID string) error {
	s, ss, err := r.manageableSiteSpace(ctx, orgID, siteID, siteSpaceID)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.SiteSpace.DeleteOneID(ss.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, siteSpaceEvent(events.SiteSpaceDeleted, s, ss, map[string]any{"spaceId": ss.SpaceID}))
		return ensureDefaultSpace(ctx, tx, tx, s.ID, ss.SectionID)
	})
	r.forgetStructure(ctx, s.ID)
	return err
}

// MoveSiteSpace places a site space before or after another (joining its
// section), or at the end of its own section.
func (r *Resolver) MoveSiteSpace(ctx context.Context, orgID, siteID, siteSpaceID string, pos *model.SiteMoveInput) (*ent.SiteSpace, error) {
	s, ss, err := r.manageableSiteSpace(ctx, orgID, siteID, siteSpaceID)
	if err != nil {
		return nil, err
	}
	target, after, err := moveTarget(pos, ss.ID, "position")
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		section := ss.SectionID
		if target != "" {
			ts := st.siteSpace(target)
			if ts == nil {
				return apperr.InvalidField("position", "%s is not a site space of the site", target)
			}
			section = ts.SectionID
		}
		payload := map[string]any{}
		if section != nil {
			payload["sectionId"] = *section
		}
		record(ctx, siteSpaceEvent(events.SiteSpaceMoved, s, ss, payload))
		into := st.spacesIn(section)
		if !sameContainer(section, ss.SectionID) {
			if len(into) >= capOf(section) {
				return apperr.Conflictf("a section (or a site's root) has at most %d site spaces", capOf(section))
			}
			for _, o := range into {
				if o.Path == ss.Path {
					return apperr.ConflictField("path", "a site space there has the path %q", ss.Path)
				}
			}
			if ss.IsDefault {
				if err := tx.SiteSpace.UpdateOneID(ss.ID).SetIsDefault(false).Exec(ctx); err != nil {
					return err
				}
			}
		}
		if err := writeSpaces(ctx, tx, st, section, insertAt(idsOf(into, ssID), ss.ID, target, after)); err != nil {
			return err
		}
		if err := ensureDefaultSpace(ctx, tx, tx, s.ID, ss.SectionID); err != nil {
			return err
		}
		return ensureDefaultSpace(ctx, tx, tx, s.ID, section)
	})
	if err != nil {
		return nil, err
	}
	r.forgetStructure(ctx, s.ID)
	return r.Client.SiteSpace.Get(ctx, ss.ID)
}

// visibleSiteSpace is a live site space of a site the caller may read.
func (r *Resolver) visibleSiteSpace(ctx context.Context, siteSpaceID string) (*ent.SiteSpace, error) {
	ss, err := r.Client.SiteSpace.Get(ctx, siteSpaceID)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("site space %s not found", siteSpaceID)
	}
	if err != nil {
		return nil, err
	}
	if _, err := loader.For(ctx).SpaceByID.Load(ctx, ss.SpaceID)(); err != nil {
		return nil, apperr.NotFoundf("site space %s not found", siteSpaceID)
	}
	if _, _, err := visibleSite(ctx, "", ss.SiteID); err != nil {
		return nil, apperr.NotFoundf("site space %s not found", siteSpaceID)
	}
	return ss, nil
}

// removeFromSites deletes a space's site spaces (the space leaves its
// organization), in tx; the sections that lose their default site space
// get their first one as the default.
func removeFromSites(ctx context.Context, tx *ent.Client, spaceID string) error {
	rows, err := tx.SiteSpace.Query().Where(sitespace.SpaceID(spaceID)).All(ctx)
	if err != nil || len(rows) == 0 {
		return err
	}
	if _, err := tx.SiteSpace.Delete().Where(sitespace.SpaceID(spaceID)).Exec(ctx); err != nil {
		return err
	}
	for _, ss := range rows {
		if err := ensureDefaultSpace(ctx, tx, tx, ss.SiteID, ss.SectionID); err != nil {
			return err
		}
	}
	return nil
}

// siteSpaceEvent is an event whose target is site space ss of site s
// (labelled by its path: a site space has no title of its own).
func siteSpaceEvent(action string, s *ent.Site, ss *ent.SiteSpace, payload map[string]any) events.Event {
	return siteItemEvent(action, s, "site-space", ss.ID, ss.Path, payload)
}
