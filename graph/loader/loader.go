// Package loader batches the lookups that can fan out. A fresh set of
// loaders is made per request (Middleware) so nothing is cached across
// callers; a batch waits about a millisecond, since the wait is paid at every
// level of nesting.
package loader

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/ent/webhook"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
)

// batchWait is how long a batch waits for more keys: long enough for the
// goroutines gqlgen (and LoadMany) starts together to queue
// theirs on a loaded machine, so statement counts do not vary run to run.
const batchWait = time.Millisecond

// Loaders are the per-request dataloaders.
type Loaders struct {
	*ContentLoaders
	*RevisionLoaders
	*CommentLoaders
	*SiteLoaders
	*OpenAPILoaders
	*HostnameLoaders

	client     *ent.Client
	viewerID   string
	stats      *Stats
	memberOrgs orgSet
	viewer     *viewerMemberships   // read at authentication (Authenticated)
	reads      *ReadLoaders         // Reads
	levels     [numParents]together // objects lists show together (levels.go)

	UserByID         *Loader[*ent.User]
	OrganizationByID *Loader[*ent.Organization]
	// ViewerMembership finds the authenticated user's membership in an
	// organization, keyed by organization id; nil when not a member.
	ViewerMembership *Loader[*ent.Member]
	// ViewerGrants are the grants to the viewer and the viewer's teams in
	// an organization, keyed by organization id (grants.go).
	ViewerGrants *Loader[[]access.Grant]

	TeamByID *Loader[*ent.Team]
	// ViewerTeamMembership finds the authenticated user's membership in a
	// team, keyed by team id; nil when not in the team.
	ViewerTeamMembership *Loader[*ent.TeamMember]
	// TeamMemberCount counts the members of a team, keyed by team id.
	TeamMemberCount *Loader[int]

	// MemberByOrgUser finds a user's membership in an organization, keyed by
	// MemberKey(organization id, user id); nil when not a member.
	MemberByOrgUser *Loader[*ent.Member]
	// MemberTeamCount counts the teams of an organization a user is in,
	// keyed by MemberKey(organization id, user id).
	MemberTeamCount *Loader[int]
	// MemberTeams loads members' team memberships a page of members at a
	// time (member.go).
	MemberTeams *MemberTeams

	// WebhookByID reads the webhooks of a page of deliveries in one
	// statement (WebhookDelivery.webhook); the caller checks access.
	WebhookByID *Loader[*ent.Webhook]
}

// New makes the loaders of one request made by viewerID.
func New(client *ent.Client, viewerID string) *Loaders {
	return build(client, viewerID, batching{stats: &Stats{}, wait: batchWait})
}

// Solo gives the rest of a request loaders that dispatch every load at
// once, without the batch wait, for a read whose loads all come from one
// goroutine: each of its rounds asks each loader for one key (the handler
// queues them all before awaiting any), so there is nothing to wait for.
// Lists may use it when their items' loads are primed by the list's own
// queries, as the REST list of an organization's spaces does (its spaces,
// roles and counts come with the list's one statement): REST lists present
// their items one after another (rest.writeList), and each load then finds
// its answer cached. Never for GraphQL, or for code that calls LoadMany
// (a goroutine per key): unprimed concurrent loads would each cost a
// statement. The viewer's user and the request's Stats carry over.
func Solo(ctx context.Context) context.Context {
	if p, ok := ctx.Value(ctxKey{}).(*pending); ok && p.soloIfUnbuilt() {
		return ctx // built without the wait on first use
	}
	l := For(ctx)
	solo := build(l.client, l.viewerID, batching{stats: l.stats})
	solo.UserByID = l.UserByID
	solo.viewer = l.viewer
	solo.primeViewer(ctx)
	return context.WithValue(ctx, ctxKey{}, solo)
}

// build makes a request's loaders, batching as b says.
func build(client *ent.Client, viewerID string, b batching) *Loaders {
	l := &Loaders{}
	*l = Loaders{
		client:          client,
		viewerID:        viewerID,
		stats:           b.stats,
		ContentLoaders:  newContentLoaders(b, client, &l.levels[ChangeRequests], &l.levels[Organizations]),
		RevisionLoaders: newRevisionLoaders(b, client),
		MemberTeams:     newMemberTeams(client),
		UserByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.User, error) {
			return client.User.Query().Where(user.IDIn(ids...)).All(ctx)
		}, func(u *ent.User) string { return u.ID }, "user"),
		OrganizationByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Organization, error) {
			return client.Organization.Query().Where(organization.IDIn(ids...)).All(ctx)
		}, func(o *ent.Organization) string { return o.ID }, "organization"),
		ViewerMembership: newLoader(b, func(ctx context.Context, orgIDs []string) ([]*ent.Member, error) {
			l.memberOrgs.add(orgIDs)
			// Organizations authentication's complete list left out are
			// ones the viewer is not in.
			orgIDs = l.memberOrgs.unknown(orgIDs)
			if len(orgIDs) == 0 {
				return nil, nil
			}
			return client.Member.Query().
				Where(member.UserID(viewerID), member.OrganizationIDIn(orgIDs...)).All(ctx)
		}, func(m *ent.Member) string { return m.OrganizationID }, ""),
		ViewerGrants: newViewerGrants(b, client, viewerID),
		WebhookByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Webhook, error) {
			return client.Webhook.Query().Where(webhook.IDIn(ids...)).All(ctx)
		}, func(w *ent.Webhook) string { return w.ID }, "webhook"),
		TeamByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Team, error) {
			return client.Team.Query().Where(team.IDIn(ids...)).All(ctx)
		}, func(t *ent.Team) string { return t.ID }, "team"),
		ViewerTeamMembership: newLoader(b, func(ctx context.Context, teamIDs []string) ([]*ent.TeamMember, error) {
			return client.TeamMember.Query().
				Where(teammember.UserID(viewerID), teammember.TeamIDIn(teamIDs...)).All(ctx)
		}, func(m *ent.TeamMember) string { return m.TeamID }, ""),
		TeamMemberCount: newCountLoader(b, func(ctx context.Context, teamIDs []string) (map[string]int, error) {
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
		MemberByOrgUser: newLoader(b, func(ctx context.Context, keys []string) ([]*ent.Member, error) {
			var out []*ent.Member
			for org, users := range SplitMemberKeys(keys) {
				rows, err := client.Member.Query().
					Where(member.OrganizationID(org), member.UserIDIn(users...)).All(ctx)
				if err != nil {
					return nil, err
				}
				out = append(out, rows...)
			}
			return out, nil
		}, func(m *ent.Member) string { return MemberKey(m.OrganizationID, m.UserID) }, ""),
		MemberTeamCount: newCountLoader(b, func(ctx context.Context, keys []string) (map[string]int, error) {
			return CountMembersTeams(ctx, client, SplitMemberKeys(keys))
		}),
	}
	l.CommentLoaders = newCommentLoaders(b, client, l)
	l.SpaceByID = newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Space, error) {
		q := client.Space.Query().Where(space.IDIn(ids...), space.DeletedAtIsNil())
		counts := l.wantCounts.take(ids)
		if counts {
			q.Modify(withSpaceCounts)
		}
		rows, err := q.All(ctx)
		if err == nil && counts {
			err = l.primeSpaceCounts(ctx, rows)
		}
		if err == nil && viewerID != "" {
			err = l.primeViewerMemberships(ctx, client, viewerID, rows)
		}
		return rows, err
	}, func(s *ent.Space) string { return s.ID }, "space")
	l.SiteLoaders = newSiteLoaders(b, client, l)
	l.OpenAPILoaders = newOpenAPILoaders(b, client)
	l.HostnameLoaders = newHostnameLoaders(b, client)
	l.reads = newReadLoaders(b, client, &l.ContentLoaders.spacesTogether, &l.levels[ChangeRequests])
	return l
}

// Stats are the batches this request's loaders ran.
func (l *Loaders) Stats() *Stats { return l.stats }

// primeViewerMemberships loads, in one statement, the viewer's memberships
// in the organizations of spaces just loaded, and primes ViewerMembership
// with them (nil: not a member). Every space read is followed by the
// viewer's role on it, which needs that membership: loading it with the
// space saves the read a round of loads, and with it the batch wait.
// Organizations whose membership this request already asked for are left
// out.
func (l *Loaders) primeViewerMemberships(ctx context.Context, client *ent.Client, viewerID string, spaces []*ent.Space) error {
	var orgs []string
	for _, s := range spaces {
		if !slices.Contains(orgs, s.OrganizationID) {
			orgs = append(orgs, s.OrganizationID)
		}
	}
	orgs = l.memberOrgs.add(orgs)
	if l.memberOrgs.complete {
		// Authentication brought every membership: the viewer is in none of
		// these organizations (those it is in were primed then).
		reread := l.memberOrgs.unknown(orgs)
		for _, org := range orgs {
			if !slices.Contains(reread, org) {
				l.ViewerMembership.Prime(ctx, org, nil)
			}
		}
		orgs = reread
	}
	if len(orgs) == 0 {
		return nil
	}
	rows, err := client.Member.Query().Where(member.UserID(viewerID), member.OrganizationIDIn(orgs...)).All(ctx)
	if err != nil {
		return err
	}
	for _, org := range orgs {
		var m *ent.Member
		for _, r := range rows {
			if r.OrganizationID == org {
				m = r
			}
		}
		l.ViewerMembership.Prime(ctx, org, m)
	}
	return nil
}

// orgSet is the organizations whose viewer membership a request has
// loaded or is loading. When complete, authentication read every
// membership of the viewer, so only organizations forgotten since (the
// viewer joined or left them) need a statement.
type orgSet struct {
	mu       sync.Mutex
	seen     map[string]bool
	complete bool
	reread   map[string]bool
}

// unknown are those of orgs whose membership only the database can tell.
func (s *orgSet) unknown(orgs []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.complete {
		return orgs
	}
	var out []string
	for _, o := range orgs {
		if s.reread[o] {
			out = append(out, o)
		}
	}
	return out
}

// forget makes org's membership unknown again.
func (s *orgSet) forget(org string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, org)
	if s.reread == nil {
		s.reread = map[string]bool{}
	}
	s.reread[org] = true
}

// add adds orgs and returns those that were not in the set.
func (s *orgSet) add(orgs []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	var fresh []string
	for _, o := range orgs {
		if !s.seen[o] {
			s.seen[o] = true
			fresh = append(fresh, o)
		}
	}
	return fresh
}

// newCountLoader builds a loader of counts from a query that counts many
// keys at once (GROUP BY). Keys it does not return count 0.
func newCountLoader(b batching, count func(ctx context.Context, keys []string) (map[string]int, error)) *Loader[int] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[int] {
		counts, err := count(ctx, keys)
		results := make([]*dataloader.Result[int], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[int]{Data: counts[k], Error: err}
		}
		return results
	}
	return batched(b, batch)
}

// newLoader builds a loader from a query of many keys. Keys the query did not
// return answer a not-found error naming what, or nil when what is "" (the
// absence is an answer, as for memberships).
func newLoader[V any](b batching, fetch func(context.Context, []string) ([]V, error), keyOf func(V) string, what string) *Loader[V] {
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
	return batched(b, batch)
}

type ctxKey struct{}

// Current holds the loaders of an operation that outlives a request's
// reads (a subscription): each of its events is answered with the loaders
// Set gives it, read afresh, so no event shows what an earlier one cached.
type Current struct{ ctx atomic.Value }

// WithCurrent gives ctx loaders that Set replaces; they start as ctx's.
func WithCurrent(ctx context.Context) (context.Context, *Current) {
	c := &Current{}
	c.ctx.Store(ctx)
	return context.WithValue(ctx, ctxKey{}, c), c
}

// Set makes the loaders of from (a context with loaders) the current ones.
func (c *Current) Set(from context.Context) { c.ctx.Store(from) }

// For returns the request's loaders.
func For(ctx context.Context) *Loaders {
	switch l := ctx.Value(ctxKey{}).(type) {
	case *Loaders:
		return l
	case *pending:
		return l.get()
	case *Current:
		return For(l.ctx.Load().(context.Context))
	}
	panic("loader: no loaders in context (Middleware not mounted)")
}

// With attaches loaders to ctx.
func With(ctx context.Context, l *Loaders) context.Context {
	if seen, ok := ctx.Value(observerKey{}).(func(*Loaders)); ok {
		seen(l)
	}
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

// SplitMemberKeys groups MemberKeys by organization, so a batch runs one
// query per organization (one, in practice).
func SplitMemberKeys(keys []string) map[string][]string {
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
	counts, err := CountMembersTeams(ctx, client, map[string][]string{orgID: userIDs})
	out := make(map[string]int, len(counts))
	for k, n := range counts {
		_, u, _ := strings.Cut(k, "/")
		out[u] = n
	}
	return out, err
}

// CountMembersTeams counts, in one statement, the teams of its
// organization each member is in, for members of any number of
// organizations (users by organization); the map is keyed by MemberKey and
// members in no team are absent from it.
func CountMembersTeams(ctx context.Context, client *ent.Client, users map[string][]string) (map[string]int, error) {
	var orgs, ids []string
	want := map[string]bool{}
	for org, us := range users {
		orgs = append(orgs, org)
		ids = append(ids, us...)
		for _, u := range us {
			want[MemberKey(org, u)] = true
		}
	}
	if len(ids) == 0 {
		return map[string]int{}, nil
	}
	var rows []struct {
		OrgID  string `json:"org"`
		UserID string `json:"user_id"`
		Count  int    `json:"count"`
	}
	err := client.TeamMember.Query().
		Where(teammember.UserIDIn(ids...)).
		Modify(func(s *sql.Selector) {
			t := sql.Table(team.Table)
			s.Join(t).On(s.C(teammember.FieldTeamID), t.C(team.FieldID)).
				Where(sql.In(t.C(team.FieldOrganizationID), anys(orgs)...)).
				Select(sql.As(t.C(team.FieldOrganizationID), "org"), s.C(teammember.FieldUserID), sql.As(sql.Count("*"), "count")).
				GroupBy(t.C(team.FieldOrganizationID), s.C(teammember.FieldUserID))
		}).Scan(ctx, &rows)
	counts := make(map[string]int, len(rows))
	for _, r := range rows {
		if k := MemberKey(r.OrgID, r.UserID); want[k] {
			counts[k] = r.Count
		}
	}
	return counts, err
}

func anys(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
