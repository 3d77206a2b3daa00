package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// levelChain lists the default levels from a content (own, whose id is
// id) up through its parent collections, from the organization's
// collections loaded at once, with the ids of the content and of those
// collections in the same order (where grants may apply).
func levelChain(ctx context.Context, orgID, id string, own *string, parentID *string) ([]access.Level, []string, error) {
	chain := []access.Level{access.ParseLevel(own)}
	objects := []string{id}
	if parentID == nil {
		// At the root of the organization: no collection to walk, so no
		// load and no round for a read to wait on.
		return chain, objects, nil
	}
	colls, err := loader.For(ctx).OrgCollections.Load(ctx, orgID)()
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for parentID != nil {
		c, ok := colls[*parentID]
		if !ok || seen[c.ID] {
			break
		}
		seen[c.ID] = true
		chain = append(chain, access.ParseLevel(enumString(c.DefaultLevel)))
		objects = append(objects, c.ID)
		parentID = c.ParentID
	}
	return chain, objects, nil
}

// viewerGrants are the grants to the caller and the caller's teams in
// orgID, read when the rule needs them: an organization admin's role does
// not depend on grants, and a stranger has none.
func viewerGrants(ctx context.Context, orgID string, m access.Membership) ([]access.Grant, error) {
	if !m.Member || access.AtLeast(m.Role, access.Admin) {
		return nil, nil
	}
	return loader.For(ctx).ViewerGrants.Load(ctx, orgID)()
}

// roleOn is the caller's effective role on the content id of orgID, and
// where it comes from (access.Effective).
func roleOn(ctx context.Context, orgID, id string, own *string, parentID *string) (*access.Role, access.Origin, error) {
	m, _, err := membership(ctx, orgID)
	if err != nil || !m.Member {
		return nil, access.Origin{}, err
	}
	grants, err := viewerGrants(ctx, orgID, m)
	if err != nil {
		return nil, access.Origin{}, err
	}
	chain, objects, err := levelChain(ctx, orgID, id, own, parentID)
	if err != nil {
		return nil, access.Origin{}, err
	}
	r, o := access.Effective(m, chain, objects, grants)
	return r, o, nil
}

// siteRole is the caller's role on a docs site (access.SiteRole).
func siteRole(ctx context.Context, s *ent.Site) (*access.Role, access.Membership, error) {
	r, _, m, err := siteRoleOrigin(ctx, s)
	return r, m, err
}

// siteRoleOrigin is siteRole with where the role comes from.
func siteRoleOrigin(ctx context.Context, s *ent.Site) (*access.Role, access.Origin, access.Membership, error) {
	if sc := siteScopeOf(ctx); sc != nil { // a site-scoped read token (urls_token.go)
		return scopeSiteRole(ctx, sc, s), access.Origin{}, access.Membership{}, nil
	}
	m, _, err := membership(ctx, s.OrganizationID)
	if err != nil || !m.Member {
		return nil, access.Origin{}, m, err
	}
	grants, err := viewerGrants(ctx, s.OrganizationID, m)
	if err != nil {
		return nil, access.Origin{}, m, err
	}
	r, o := access.SiteRole(m, s.ID, grants)
	return r, o, m, nil
}

func spaceRole(ctx context.Context, s *ent.Space) (*access.Role, error) {
	if sc := siteScopeOf(ctx); sc != nil { // a site-scoped read token (urls_token.go)
		return scopeSpaceRole(ctx, sc, s)
	}
	r, _, err := roleOn(ctx, s.OrganizationID, s.ID, enumString(s.DefaultLevel), s.ParentID)
	return r, err
}

func collectionRole(ctx context.Context, c *ent.Collection) (*access.Role, error) {
	r, _, err := roleOn(ctx, c.OrganizationID, c.ID, enumString(c.DefaultLevel), c.ParentID)
	return r, err
}

// checkDefaultLevel accepts a role name or "inherit" (nil clears). Spaces and
// collections share ent/schema's DefaultLevels, so space's constant serves both.
func checkDefaultLevel(v *string) error {
	if v == nil || *v == space.DefaultLevelInherit.String() {
		return nil
	}
	if _, err := access.ParseRole(*v); err != nil {
		return apperr.InvalidField("defaultLevel", "must be a role, \"inherit\" or null")
	}
	return nil
}
