package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
)

// The Prime methods below read, for a whole page of a REST list, what
// presenting its items asks the loaders for, one batch per loader
// (LoadMany): the list then presents its items one after another and
// every load finds its answer cached, so the page costs the statements
// concurrent presentation cost, without a batch wait per item. What a
// batch answers, errors included, stays cached for the presenter, which
// reports it as it did.

// PrimeTeams primes a page of teams: their member counts and the
// viewer's membership of each (TeamMemberCount, TeamPermissions); their
// space counts are read by level (TeamSpaceCount).
func (r *Resolver) PrimeTeams(ctx context.Context, teams []*ent.Team) error {
	ids := make([]string, len(teams))
	for i, t := range teams {
		ids[i] = t.ID
	}
	l := loader.For(ctx)
	counts := l.TeamMemberCount.LoadMany(ctx, ids)
	own := l.ViewerTeamMembership.LoadMany(ctx, ids)
	counts()
	own()
	return nil
}

// PrimeMembers primes a page of members: their users and team counts
// (MemberUser, MemberTeamCount); their space counts are read by level
// (MemberSpaceCount).
func (r *Resolver) PrimeMembers(ctx context.Context, members []*ent.Member) error {
	users := make([]string, len(members))
	keys := make([]string, len(members))
	for i, m := range members {
		users[i] = m.UserID
		keys[i] = loader.MemberKey(m.OrganizationID, m.UserID)
	}
	l := loader.For(ctx)
	u := l.UserByID.LoadMany(ctx, users)
	teams := l.MemberTeamCount.LoadMany(ctx, keys)
	u()
	teams()
	return nil
}
