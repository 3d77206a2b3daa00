package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// visibleTeam loads a team of orgID the caller may see: any other id, a team
// of another organization, or a caller who is a stranger or a guest of the
// organization, answers 404.
func visibleTeam(ctx context.Context, orgID, teamID string) (*ent.Team, access.Membership, error) {
	teamThunk := loader.For(ctx).TeamByID.Load(ctx, teamID)
	m, _, err := membership(ctx, orgID)
	if err != nil {
		return nil, m, err
	}
	t, terr := teamThunk()
	if !m.CanSeeTeams() || terr != nil || t.OrganizationID != orgID {
		if _, ok := apperr.As(terr); terr != nil && !ok {
			return nil, m, terr
		}
		return nil, m, apperr.NotFoundf("team %s not found", teamID)
	}
	return t, m, nil
}

// teamPermissions computes the caller's permissions on a team.
func teamPermissions(ctx context.Context, t *ent.Team) (access.TeamPermissions, error) {
	l := loader.For(ctx)
	ownThunk := l.ViewerTeamMembership.Load(ctx, t.ID)
	m, _, err := membership(ctx, t.OrganizationID)
	if err != nil {
		return access.TeamPermissions{}, err
	}
	own, err := ownThunk()
	if err != nil {
		return access.TeamPermissions{}, err
	}
	return access.TeamPermissionsFor(m, own != nil && own.Role == "owner"), nil
}
