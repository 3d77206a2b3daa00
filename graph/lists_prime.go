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

// PrimeComments primes a page of comments: their reply counts, their
// reactions, then the users who posted, resolved or reacted (presentComment).
// Their targets and permissions read their space and change request, which
// the list's own read loaded.
func (r *Resolver) PrimeComments(ctx context.Context, comments []*ent.Comment) error {
	ids := make([]string, len(comments))
	var users []string
	for i, c := range comments {
		ids[i] = c.ID
		users = append(users, c.PostedBy)
		if c.ResolvedBy != nil {
			users = append(users, *c.ResolvedBy)
		}
	}
	l := loader.For(ctx)
	replies := l.ReplyCount.LoadMany(ctx, ids)
	replies()
	primeReactions(ctx, ids, users)
	return nil
}

// PrimeReplies primes a page of replies: their reactions and the users
// who posted them or reacted (presentReply).
func (r *Resolver) PrimeReplies(ctx context.Context, replies []*ent.CommentReply) error {
	ids := make([]string, len(replies))
	users := make([]string, len(replies))
	for i, rp := range replies {
		ids[i], users[i] = rp.ID, rp.PostedBy
	}
	primeReactions(ctx, ids, users)
	return nil
}

// primeReactions reads the reactions of subjects, then every user the
// page shows: users, and those who reacted.
func primeReactions(ctx context.Context, subjects, users []string) {
	l := loader.For(ctx)
	reactions, _ := l.Reactions.LoadMany(ctx, subjects)()
	for _, rs := range reactions {
		for _, rc := range rs {
			users = append(users, rc.UserID)
		}
	}
	l.UserByID.LoadMany(ctx, users)()
}

// PrimeSites primes a page of sites: their space counts and hostnames
// (presentSite).
func (r *Resolver) PrimeSites(ctx context.Context, sites []*ent.Site) error {
	ids := make([]string, len(sites))
	for i, s := range sites {
		ids[i] = s.ID
	}
	l := loader.For(ctx)
	counts := l.SiteSpaceCount.LoadMany(ctx, ids)
	hosts := l.HostnameBySite.LoadMany(ctx, ids)
	counts()
	hosts()
	return nil
}

// PrimeSAMLProviders primes a page of SAML providers: their default teams.
func (r *Resolver) PrimeSAMLProviders(ctx context.Context, providers []*ent.SAMLProvider) error {
	var teams []string
	for _, p := range providers {
		if p.DefaultTeamID != nil {
			teams = append(teams, *p.DefaultTeamID)
		}
	}
	if len(teams) > 0 {
		loader.For(ctx).TeamByID.LoadMany(ctx, teams)()
	}
	return nil
}
