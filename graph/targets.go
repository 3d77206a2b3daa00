package graph

import (
	"context"

	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/internal/apperr"
)

// Target names the objects a request's path points at; empty fields are
// absent from the path.
type Target struct {
	OrganizationID  string
	TeamID          string
	SpaceID         string
	ShareKey        *string // a space's share key, for the readers it lets in
	ChangeRequestID string  // an id or a number, within SpaceID
	CollectionID    string
	SiteID          string // a docs site of OrganizationID
	SiteChildID     string // a section, group, site space or share link of SiteID
}

// SeeTarget is the 404 the caller gets for the first object of t they may
// not see, or nil when they may see them all. REST asks it before telling a
// caller that their request was malformed, so that a stranger learns
// nothing about a path's objects, not even that a body was bad. It runs the
// guards every resolver runs, through the same per-request loaders.
func (r *Resolver) SeeTarget(ctx context.Context, t Target) error {
	if t.OrganizationID != "" {
		if _, _, err := visibleOrganization(ctx, t.OrganizationID); err != nil {
			return err
		}
		if t.TeamID != "" {
			if _, _, err := visibleTeam(ctx, t.OrganizationID, t.TeamID); err != nil {
				return err
			}
		}
	}
	if t.SpaceID != "" {
		if t.ChangeRequestID != "" {
			if _, err := r.FindChangeRequest(ctx, t.SpaceID, t.ChangeRequestID); err != nil {
				return err
			}
		} else if _, err := r.ReadSpace(ctx, t.SpaceID, t.ShareKey); err != nil {
			return err
		}
	}
	if t.CollectionID != "" {
		if _, _, err := visibleCollection(ctx, t.CollectionID); err != nil {
			return err
		}
	}
	if t.SiteID != "" {
		if _, _, err := visibleSite(ctx, t.OrganizationID, t.SiteID); err != nil {
			return err
		}
		if t.SiteChildID != "" {
			return r.siteChild(ctx, t.SiteID, t.SiteChildID)
		}
	}
	return nil
}

// siteChild is a 404 unless id is a section, group, site space or share
// link of the site.
func (r *Resolver) siteChild(ctx context.Context, siteID, id string) error {
	c := r.Client
	for _, exists := range []func() (bool, error){
		func() (bool, error) {
			return c.SiteSection.Query().Where(sitesection.ID(id), sitesection.SiteID(siteID)).Exist(ctx)
		},
		func() (bool, error) {
			return c.SiteSectionGroup.Query().Where(sitesectiongroup.ID(id), sitesectiongroup.SiteID(siteID)).Exist(ctx)
		},
		func() (bool, error) {
			return c.SiteSpace.Query().Where(sitespace.ID(id), sitespace.SiteID(siteID)).Exist(ctx)
		},
		func() (bool, error) {
			return c.SiteShareLink.Query().Where(sitesharelink.ID(id), sitesharelink.SiteID(siteID)).Exist(ctx)
		},
	} {
		ok, err := exists()
		if err != nil || ok {
			return err
		}
	}
	return apperr.NotFoundf("%s not found in site %s", id, siteID)
}
