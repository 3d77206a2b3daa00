package loader

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/internal/auth"
)

// MemberTeams loads the team memberships of organization members, with
// their teams, by organization and user. A page of members announces its
// members (Expect) when it is loaded; the first Load of any of them then
// loads the memberships of all of them in one go, and the rest answer from
// memory. The members → teams tree thus costs the same statements for 100
// members as for 200, every run: unlike a dataloader batch it does not
// depend on how many resolvers arrive within the batch wait.
type MemberTeams struct {
	client *ent.Client

	mu sync.Mutex
	// expected holds, by organization, the users announced and not loaded yet.
	expected map[string][]string
	// loaded holds, by MemberKey, a member's team memberships in keyset
	// order (created_at, id), ascending.
	loaded map[string][]*ent.TeamMember
}

func newMemberTeams(client *ent.Client) *MemberTeams {
	return &MemberTeams{client: client, expected: map[string][]string{}, loaded: map[string][]*ent.TeamMember{}}
}

// Expect announces members of orgID whose teams may be asked for.
func (m *MemberTeams) Expect(orgID string, userIDs ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range userIDs {
		if _, ok := m.loaded[MemberKey(orgID, u)]; !ok {
			m.expected[orgID] = append(m.expected[orgID], u)
		}
	}
}

// Load returns the team memberships of userID in orgID's teams, each with
// its team, ascending by (created_at, id). The first Load loads those of
// every member announced (Expect), of every organization, in one
// statement: members of several organizations' lists (viewer →
// organizations → members → teams) cost what one organization's do. The
// teams loaded are primed in the request's loaders (PrimeTeams) before any
// caller sees them.
func (m *MemberTeams) Load(ctx context.Context, orgID, userID string) ([]*ent.TeamMember, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := MemberKey(orgID, userID)
	if rows, ok := m.loaded[key]; ok {
		return rows, nil
	}
	if err := requestStopped(ctx); err != nil { // the request stopped: no statement for nobody
		return nil, err
	}
	m.expected[orgID] = append(m.expected[orgID], userID)
	want := map[string]bool{}
	var orgs, users []string
	for org, us := range m.expected {
		orgs = append(orgs, org)
		for _, u := range us {
			want[MemberKey(org, u)] = true
			users = append(users, u)
		}
	}
	m.expected = map[string][]string{}
	rows, err := m.client.TeamMember.Query().
		Where(teammember.UserIDIn(users...), teammember.HasTeamWith(team.OrganizationIDIn(orgs...))).
		WithTeam().All(ctx)
	if err != nil {
		return nil, err
	}
	// Sorted here by the cursor's own order (paging.Cursor.Less), so that
	// pages cut in memory agree with the cursors they hand out.
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	for k := range want {
		m.loaded[k] = []*ent.TeamMember{}
	}
	seen := map[string]bool{}
	var teams []*ent.Team
	for _, tm := range rows {
		k := MemberKey(tm.Edges.Team.OrganizationID, tm.UserID)
		if !want[k] {
			continue // the user's membership in another announced organization
		}
		m.loaded[k] = append(m.loaded[k], tm)
		if !seen[tm.TeamID] {
			seen[tm.TeamID] = true
			teams = append(teams, tm.Edges.Team)
		}
	}
	if err := PrimeTeams(ctx, m.client, teams); err != nil {
		return nil, err
	}
	return m.loaded[key], nil
}

// ForgetOrganization drops what is known of the team memberships in orgID,
// after a change to its teams or their members.
func (m *MemberTeams) ForgetOrganization(orgID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.expected, orgID)
	for k := range m.loaded {
		if org, _, _ := strings.Cut(k, "/"); org == orgID {
			delete(m.loaded, k)
		}
	}
}

// PrimeTeams fills the loaders behind a set of teams a list shows: the
// teams, the caller's membership of each and their member counts, in two
// statements whatever the number of teams, and records them as shown
// together (their members are read for all of them at once).
func PrimeTeams(ctx context.Context, client *ent.Client, teams []*ent.Team) error {
	if len(teams) == 0 {
		return nil
	}
	l := For(ctx)
	ids := make([]string, len(teams))
	for i, t := range teams {
		ids[i] = t.ID
		l.TeamByID.Prime(ctx, t.ID, t)
	}
	l.ShowParents(Teams, ids)
	own, err := client.TeamMember.Query().
		Where(teammember.UserID(auth.ViewerID(ctx)), teammember.TeamIDIn(ids...)).All(ctx)
	if err != nil {
		return err
	}
	byTeam := make(map[string]*ent.TeamMember, len(own))
	for _, tm := range own {
		byTeam[tm.TeamID] = tm
	}
	var counts []struct {
		TeamID string `json:"team_id"`
		Count  int    `json:"count"`
	}
	if err := client.TeamMember.Query().Where(teammember.TeamIDIn(ids...)).
		GroupBy(teammember.FieldTeamID).Aggregate(ent.Count()).Scan(ctx, &counts); err != nil {
		return err
	}
	byCount := make(map[string]int, len(counts))
	for _, c := range counts {
		byCount[c.TeamID] = c.Count
	}
	for _, id := range ids {
		l.ViewerTeamMembership.Prime(ctx, id, byTeam[id])
		l.TeamMemberCount.Prime(ctx, id, byCount[id])
	}
	return nil
}
