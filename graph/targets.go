package graph

import (
	"context"

	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
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
	// Change: the request would change something (a write method). A caller
	// who may see the objects but may change nothing there hears 403 before
	// any word about their body.
	Change bool
}

// TargetRefusal is the 404 the caller gets for the first object of t they
// may not see, then, for a change, the 403 of a caller who may change
// nothing there; nil when neither applies. REST asks it before telling a
// caller that their request was malformed, so that a stranger learns
// nothing about a path's objects, not even that a body was bad, and a
// reader learns they may not write before learning how to write. It runs
// the guards every resolver runs, through the same per-request loaders.
//
// The 403 is the one every write at that place shares (changeFloor): an
// operation that needs more (editing a space needs more than commenting)
// still answers its own 403 once the body is valid.
func (r *Resolver) TargetRefusal(ctx context.Context, t Target) error {
	if err := r.seeTarget(ctx, t); err != nil || !t.Change {
		return err
	}
	return changeFloor(ctx, t)
}

func (r *Resolver) seeTarget(ctx context.Context, t Target) error {
	if t.OrganizationID != "" {
		if _, _, err := visibleOrganization(ctx, t.OrganizationID); err != nil {
			return err
		}
		if t.TeamID != "" && t.SiteID == "" {
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
		if t.TeamID != "" {
			// A team the site is shared with: one of the site's
			// organization, whether or not the caller may list teams (a
			// guest who administers the site through a grant).
			return r.principalOf(ctx, t.OrganizationID, grant.PrincipalKindTeam, t.TeamID)
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

// changeFloor is the 403 of a caller who may see t's objects but may change
// nothing at that place, whatever the operation: the least any write there
// needs. Sites: managing sites. Spaces and change requests: commenting.
// Collections: administering them. Organizations: a role, or for a guest
// a collection shared with them to create in (guestCreates).
func changeFloor(ctx context.Context, t Target) error {
	switch {
	case t.SiteID != "":
		_, err := manageableSite(ctx, t.OrganizationID, t.SiteID)
		return err
	case t.SpaceID != "":
		s, err := loader.For(ctx).SpaceByID.Load(ctx, t.SpaceID)()
		if err != nil {
			return err
		}
		role, err := spaceRole(ctx, s)
		if err != nil {
			return err
		}
		if role == nil { // a share key lets them read, nothing more
			return apperr.Forbiddenf("a share key lets its holder read the space, not change it")
		}
		return roleAtLeast(role, access.Comment, "space", t.SpaceID)
	case t.CollectionID != "":
		_, err := adminCollection(ctx, t.CollectionID)
		return err
	case t.OrganizationID != "":
		_, m, err := visibleOrganization(ctx, t.OrganizationID)
		if err != nil || m.Role != nil {
			return err
		}
		can, err := guestCreates(ctx, t.OrganizationID, m)
		if err == nil && !can {
			err = apperr.Forbiddenf("guests cannot change the organization")
		}
		return err
	}
	return nil
}

// guestCreates tells whether guest m may create content somewhere in orgID:
// a grant of create or more on one of its collections (creatableParent's
// rule), the only change a guest can make at the organization's paths. A
// guest whose only grants are on spaces or sites, or lower, changes nothing
// there.
func guestCreates(ctx context.Context, orgID string, m access.Membership) (bool, error) {
	grants, err := viewerGrants(ctx, orgID, m)
	if err != nil || len(grants) == 0 {
		return false, err
	}
	colls, err := loader.For(ctx).OrgCollections.Load(ctx, orgID)()
	if err != nil {
		return false, err
	}
	for _, g := range grants {
		if _, ok := colls[g.Object]; ok && access.AtLeast(&g.Role, access.Create) {
			return true, nil
		}
	}
	return false, nil
}
