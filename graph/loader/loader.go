// Package loader batches the lookups that can fan out. A fresh set of
// loaders is made per request (Middleware) so nothing is cached across
// callers; a batch waits about a millisecond, since the wait is paid at every
// level of nesting.
package loader

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
)

const batchWait = time.Millisecond

// Loaders are the per-request dataloaders.
type Loaders struct {
	*ContentLoaders
	*RevisionLoaders

	UserByID         *dataloader.Loader[string, *ent.User]
	OrganizationByID *dataloader.Loader[string, *ent.Organization]
	// ViewerMembership finds the authenticated user's membership in an
	// organization, keyed by organization id; nil when not a member.
	ViewerMembership *dataloader.Loader[string, *ent.Member]

	TeamByID *dataloader.Loader[string, *ent.Team]
	// ViewerTeamMembership finds the authenticated user's membership in a
	// team, keyed by team id; nil when not in the team.
	ViewerTeamMembership *dataloader.Loader[string, *ent.TeamMember]
	// TeamMemberCount counts the members of a team, keyed by team id.
	TeamMemberCount *dataloader.Loader[string, int]

	// MemberByOrgUser finds a user's membership in an organization, keyed by
	// MemberKey(organization id, user id); nil when not a member.
	MemberByOrgUser *dataloader.Loader[string, *ent.Member]
	// MemberTeamCount counts the teams of an organization a user is in,
	// keyed by MemberKey(organization id, user id).
	MemberTeamCount *dataloader.Loader[string, int]
	// MemberTeams loads members' team memberships a page of members at a
	// time (member.go).
	MemberTeams *MemberTeams
}

// New makes the loaders of one request made by viewerID.
func New(client *ent.Client, viewerID string) *Loaders {
	return &Loaders{
		ContentLoaders:  newContentLoaders(client),
		RevisionLoaders: newRevisionLoaders(client),
		MemberTeams:     newMemberTeams(client),
		UserByID: newLoader(func(ctx context.Context, ids []string) ([]*ent.User, error) {
			return client.User.Query().Where(user.IDIn(ids...)).All(ctx)
		}, func(u *ent.User) string { return u.ID }, "user"),
		OrganizationByID: newLoader(func(ctx context.Context, ids []string) ([]*ent.Organization, error) {
			return client.Organization.Query().Where(organization.IDIn(ids...)).All(ctx)
		}, func(o *ent.Organization) string { return o.ID }, "organization"),
		ViewerMembership: newLoader(func(ctx context.Context, orgIDs []string) ([]*ent.Member, error) {
			return client.Member.Query().
				Where(member.UserID(viewerID), member.OrganizationIDIn(orgIDs...)).All(ctx)
		}, func(m *ent.Member) string { return m.OrganizationID }, ""),
		TeamByID: newLoader(func(ctx context.Context, ids []string) ([]*ent.Team, error) {
			return client.Team.Query().Where(team.IDIn(ids...)).All(ctx)
		}, func(t *ent.Team) string { return t.ID }, "team"),
		ViewerTeamMembership: newLoader(func(ctx context.Context, teamIDs []string) ([]*ent.TeamMember, error) {
			return client.TeamMember.Query().
				Where(teammember.UserID(viewerID), teammember.TeamIDIn(teamIDs...)).All(ctx)
		}, func(m *ent.TeamMember) string { return m.TeamID }, ""),
		TeamMemberCount: newCountLoader(func(ctx context.Context, teamIDs []string) (map[string]int, error) {
			var rows []struct {
				TeamID string `json:"team_id"`
				Count  int    `json:"count"`
			}
			err := client.TeamMember.Query().Where(teammember.TeamIDIn(teamIDs...)).
				GroupBy(teammember.FieldTeamID).Aggregate(ent.Count()).Scan(ctx, &rows)
			counts := make(map[string]int, len(rows))
			for _, r := range rows {
				counts[r.TeamID] = r.Count
			}
			return counts, err
		}),
		MemberByOrgUser: newLoader(func(ctx context.Context, keys []string) ([]*ent.Member, error) {
			var out []*ent.Member
			for org, users := range splitMemberKeys(keys) {
				rows, err := client.Member.Query().
					Where(member.OrganizationID(org), member.UserIDIn(users...)).All(ctx)
				if err != nil {
					return nil, err
				}
				out = append(out, rows...)
			}
			return out, nil
		}, func(m *ent.Member) string { return MemberKey(m.OrganizationID, m.UserID) }, ""),
		MemberTeamCount: newCountLoader(func(ctx context.Context, keys []string) (map[string]int, error) {
			counts := map[string]int{}
			for org, users := range splitMemberKeys(keys) {
				byUser, err := CountMemberTeams(ctx, client, org, users)
				if err != nil {
					return nil, err
				}
				for u, n := range byUser {
					counts[MemberKey(org, u)] = n
				}
			}
			return counts, nil
		}),
	}
}

// newCountLoader builds a loader of counts from a query that counts many
// keys at once (GROUP BY). Keys it does not return count 0.
func newCountLoader(count func(ctx context.Context, keys []string) (map[string]int, error)) *dataloader.Loader[string, int] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[int] {
		counts, err := count(ctx, keys)
		results := make([]*dataloader.Result[int], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[int]{Data: counts[k], Error: err}
		}
		return results
	}
	return dataloader.NewBatchedLoader(batch, dataloader.WithWait[string, int](batchWait))
}

// newLoader builds a loader from a query of many keys. Keys the query did not
// return answer a not-found error naming what, or nil when what is "" (the
// absence is an answer, as for memberships).
func newLoader[V any](fetch func(context.Context, []string) ([]V, error), keyOf func(V) string, what string) *dataloader.Loader[string, V] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[V] {
		results := make([]*dataloader.Result[V], len(keys))
		rows, err := fetch(ctx, keys)
		if err != nil {
			for i := range results {
				results[i] = &dataloader.Result[V]{Error: err}
			}
			return results
		}
		byKey := make(map[string]V, len(rows))
		for _, r := range rows {
			byKey[keyOf(r)] = r
		}
		for i, k := range keys {
			v, ok := byKey[k]
			switch {
			case ok || what == "":
				results[i] = &dataloader.Result[V]{Data: v}
			default:
				results[i] = &dataloader.Result[V]{Error: apperr.NotFoundf("%s %s not found", what, k)}
			}
		}
		return results
	}
	return dataloader.NewBatchedLoader(batch, dataloader.WithWait[string, V](batchWait))
}

type ctxKey struct{}

// For returns the request's loaders.
func For(ctx context.Context) *Loaders {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	if l == nil {
		panic("loader: no loaders in context (Middleware not mounted)")
	}
	return l
}

// With attaches loaders to ctx.
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// Middleware attaches fresh loaders to every request, for the authenticated
// viewer. Mount it after authentication, for /graphql and /v1 alike.
func Middleware(client *ent.Client) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := With(r.Context(), New(client, auth.ViewerID(r.Context())))
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// MemberKey is the key of a user's membership in an organization, for
// MemberByOrgUser and MemberTeamCount. IDs are URL-safe, so "/" cannot
// occur in either half.
func MemberKey(orgID, userID string) string { return orgID + "/" + userID }

// splitMemberKeys groups MemberKeys by organization, so a batch runs one
// query per organization (one, in practice).
func splitMemberKeys(keys []string) map[string][]string {
	out := map[string][]string{}
	for _, k := range keys {
		org, u, _ := strings.Cut(k, "/")
		out[org] = append(out[org], u)
	}
	return out
}

// CountMemberTeams counts, in one statement, the teams of orgID each of
// userIDs is in. Users in no team are absent from the map.
func CountMemberTeams(ctx context.Context, client *ent.Client, orgID string, userIDs []string) (map[string]int, error) {
	var rows []struct {
		UserID string `json:"user_id"`
		Count  int    `json:"count"`
	}
	err := client.TeamMember.Query().
		Where(teammember.UserIDIn(userIDs...), teammember.HasTeamWith(team.OrganizationID(orgID))).
		GroupBy(teammember.FieldUserID).Aggregate(ent.Count()).Scan(ctx, &rows)
	counts := make(map[string]int, len(rows))
	for _, r := range rows {
		counts[r.UserID] = r.Count
	}
	return counts, err
}
