package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// levelChain lists the default levels from a content (own) up through its
// parent collections, from the organization's collections loaded at once.
func levelChain(ctx context.Context, orgID string, own *string, parentID *string) ([]access.Level, error) {
	colls, err := loader.For(ctx).OrgCollections.Load(ctx, orgID)()
	if err != nil {
		return nil, err
	}
	chain := []access.Level{access.ParseLevel(own)}
	seen := map[string]bool{}
	for parentID != nil {
		c, ok := colls[*parentID]
		if !ok || seen[c.ID] {
			break
		}
		seen[c.ID] = true
		chain = append(chain, access.ParseLevel(enumString(c.DefaultLevel)))
		parentID = c.ParentID
	}
	return chain, nil
}

// roleOn is the caller's effective role on a content of orgID.
func roleOn(ctx context.Context, orgID string, own *string, parentID *string) (*access.Role, access.Membership, error) {
	m, _, err := membership(ctx, orgID)
	if err != nil || !m.Member {
		return nil, m, err
	}
	chain, err := levelChain(ctx, orgID, own, parentID)
	if err != nil {
		return nil, m, err
	}
	return access.EffectiveRole(m, chain), m, nil
}

func spaceRole(ctx context.Context, s *ent.Space) (*access.Role, error) {
	r, _, err := roleOn(ctx, s.OrganizationID, enumString(s.DefaultLevel), s.ParentID)
	return r, err
}

func collectionRole(ctx context.Context, c *ent.Collection) (*access.Role, error) {
	r, _, err := roleOn(ctx, c.OrganizationID, enumString(c.DefaultLevel), c.ParentID)
	return r, err
}

// visibleSpace loads a live space the caller has a role on; anything else
// answers 404.
func visibleSpace(ctx context.Context, id string) (*ent.Space, *access.Role, error) {
	s, err := loader.For(ctx).SpaceByID.Load(ctx, id)()
	if err != nil {
		return nil, nil, err
	}
	r, err := spaceRole(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, apperr.NotFoundf("space %s not found", id)
	}
	return s, r, nil
}

// spaceWithRole is visibleSpace for actions that need at least min.
func spaceWithRole(ctx context.Context, id string, min access.Role) (*ent.Space, error) {
	s, r, err := visibleSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	if !access.AtLeast(r, min) {
		return nil, apperr.Forbiddenf("this needs the %s role on the space", min)
	}
	return s, nil
}

// visibleCollection loads a collection the caller has a role on.
func visibleCollection(ctx context.Context, id string) (*ent.Collection, *access.Role, error) {
	c, err := loader.For(ctx).CollectionByID.Load(ctx, id)()
	if err != nil {
		return nil, nil, err
	}
	r, err := collectionRole(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, apperr.NotFoundf("collection %s not found", id)
	}
	return c, r, nil
}

// collectionWithRole is visibleCollection for actions that need at least min.
func collectionWithRole(ctx context.Context, id string, min access.Role) (*ent.Collection, error) {
	c, r, err := visibleCollection(ctx, id)
	if err != nil {
		return nil, err
	}
	if !access.AtLeast(r, min) {
		return nil, apperr.Forbiddenf("this needs the %s role on the collection", min)
	}
	return c, nil
}

// createIn checks that the caller may create content in parent (a
// collection of orgID) or, when parent is nil, at the organization's root.
// A parent the caller cannot see, or of another organization, is a 400
// naming field.
func createIn(ctx context.Context, orgID string, parent *string, field string) (*ent.Collection, error) {
	if parent == nil {
		_, m, err := visibleOrganization(ctx, orgID)
		if err != nil {
			return nil, err
		}
		if !access.AtLeast(m.Role, access.Create) {
			return nil, apperr.Forbiddenf("creating content needs the create role in the organization")
		}
		return nil, nil
	}
	c, r, err := visibleCollection(ctx, *parent)
	if _, ok := apperr.As(err); (ok && err != nil) || (err == nil && c.OrganizationID != orgID) {
		return nil, apperr.InvalidField(field, "%s is not a collection of this organization", *parent)
	}
	if err != nil {
		return nil, err
	}
	if !access.AtLeast(r, access.Create) {
		return nil, apperr.Forbiddenf("creating content in collection %s needs the create role on it", c.ID)
	}
	return c, nil
}

// checkDefaultLevel accepts a role name or "inherit" (nil clears).
func checkDefaultLevel(v *string) error {
	if v == nil || *v == "inherit" {
		return nil
	}
	if _, err := access.ParseRole(*v); err != nil {
		return apperr.InvalidField("defaultLevel", "must be a role, \"inherit\" or null")
	}
	return nil
}
