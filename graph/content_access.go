package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// levelChain lists the default levels from a content (own) up through its
// parent collections, from the organization's collections loaded at once.
func levelChain(ctx context.Context, orgID string, own *string, parentID *string) ([]access.Level, error) {
	if parentID == nil {
		// At the root of the organization: no collection to walk, so no
		// load and no round for a read to wait on.
		return []access.Level{access.ParseLevel(own)}, nil
	}
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
