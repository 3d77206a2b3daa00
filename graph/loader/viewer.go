package loader

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/internal/access"
)

// viewerMembershipsLimit bounds the memberships authentication brings
// along. A viewer in more organizations than that (an automation account,
// say) has the rest read on demand, as before.
const viewerMembershipsLimit = 50

// viewerMembershipsColumn is the column the authentication query adds.
const viewerMembershipsColumn = "viewer_memberships"

// WithViewerMemberships adds to a query of users (authentication's) their
// memberships, up to viewerMembershipsLimit+1, as one JSON array column:
// nearly every read asks for the caller's role in some organization, and
// bringing the roles with the user saves each read a statement.
func WithViewerMemberships(s *sql.Selector) {
	agg, row := "json_agg", "json_build_array"
	if s.Dialect() == dialect.SQLite {
		agg, row = "json_group_array", "json_array"
	}
	sub := fmt.Sprintf("(SELECT %[1]s(%[2]s(m.%[3]s, m.%[4]s, m.%[5]s, m.%[6]s, m.%[7]s, m.%[8]s, m.%[9]s))"+
		" FROM (SELECT * FROM %[10]s WHERE %[10]s.%[11]s = %[12]s ORDER BY %[10]s.%[4]s LIMIT %[13]d) m)",
		agg, row, member.FieldID, member.FieldOrganizationID, member.FieldRole, member.FieldJoinedAt,
		member.FieldLastSeenAt, member.FieldSSO, member.FieldDisabled,
		member.Table, member.FieldUserID, s.C("id"), viewerMembershipsLimit+1)
	s.AppendSelectExprAs(sql.Raw(sub), viewerMembershipsColumn)
	// The grants to the user and the user's teams come the same way: every
	// role a member without the admin role has depends on them.
	grants := fmt.Sprintf("(SELECT %[1]s(%[2]s(g.%[3]s, g.%[4]s, g.%[5]s, g.%[6]s, g.%[7]s))"+
		" FROM (SELECT * FROM %[8]s WHERE (%[8]s.%[5]s = 'user' AND %[8]s.%[6]s = %[9]s)"+
		" OR (%[8]s.%[5]s = 'team' AND %[8]s.%[6]s IN (SELECT %[10]s FROM %[11]s WHERE %[11]s.%[12]s = %[9]s))"+
		" ORDER BY %[8]s.%[13]s LIMIT %[14]d) g)",
		agg, row, grant.FieldOrganizationID, grant.FieldObjectID, grant.FieldPrincipalKind, grant.FieldPrincipalID,
		grant.FieldRole, grant.Table, s.C("id"), teammember.FieldTeamID, teammember.Table, teammember.FieldUserID,
		grant.FieldID, viewerGrantsLimit+1)
	s.AppendSelectExprAs(sql.Raw(grants), viewerGrantsColumn)
}

// viewerGrantsLimit bounds the grants authentication brings along; a
// viewer with more has them read on demand (ViewerGrants).
const viewerGrantsLimit = 200

// viewerGrantsColumn is the column of grants the authentication query adds.
const viewerGrantsColumn = "viewer_grants"

// viewerMemberships are the viewer's memberships read at authentication.
// When complete, an organization missing from members is one the viewer
// is not in, and no statement needs to ask.
type viewerMemberships struct {
	members  map[string]*ent.Member // by organization id
	complete bool
	// grants are the grants to the viewer and the viewer's teams, by
	// organization id; when grantsComplete, an organization missing has
	// none.
	grants         map[string][]access.Grant
	grantsComplete bool
}

// Authenticated gives a request made by u (read with
// WithViewerMemberships) its loaders. They are built on first use, so a
// read that asks for Solo loaders before any load (the REST reads that
// cannot batch) builds one set, not two, and they start primed with u and
// u's memberships.
func Authenticated(ctx context.Context, client *ent.Client, u *ent.User) (context.Context, error) {
	vm, err := viewerMembershipsOf(u)
	if err != nil {
		return ctx, err
	}
	p := &pending{client: client, user: u, viewer: vm}
	p.seen, _ = ctx.Value(observerKey{}).(func(*Loaders))
	return context.WithValue(ctx, ctxKey{}, p), nil
}

// pending are a request's loaders until first used.
type pending struct {
	mu     sync.Mutex
	built  *Loaders
	solo   bool
	client *ent.Client
	user   *ent.User
	viewer *viewerMemberships
	seen   func(*Loaders) // tests' observer (Observe)
}

// get builds the loaders on first use.
func (p *pending) get() *Loaders {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built == nil {
		b := batching{stats: &Stats{}, wait: batchWait}
		if p.solo {
			b.wait = 0
		}
		l := build(p.client, p.user.ID, b)
		ctx := context.Background()
		l.UserByID.Prime(ctx, p.user.ID, p.user)
		l.viewer = p.viewer
		l.primeViewer(ctx)
		if p.seen != nil {
			p.seen(l)
		}
		p.built = l
	}
	return p.built
}

// soloIfUnbuilt makes loaders not yet built Solo ones, and reports whether
// it could.
func (p *pending) soloIfUnbuilt() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built != nil {
		return false
	}
	p.solo = true
	return true
}

// viewerMembershipsOf reads the memberships WithViewerMemberships brought
// with the authenticated user u.
func viewerMembershipsOf(u *ent.User) (*viewerMemberships, error) {
	v, err := u.Value(viewerMembershipsColumn)
	if err != nil {
		return nil, err
	}
	var raw []byte
	switch v := v.(type) {
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	case nil: // PostgreSQL's json_agg of no rows
	default:
		return nil, fmt.Errorf("loader: viewer memberships of type %T", v)
	}
	var rows [][7]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &rows); err != nil {
			return nil, fmt.Errorf("loader: viewer memberships: %w", err)
		}
	}
	vm := &viewerMemberships{members: make(map[string]*ent.Member, len(rows)), complete: len(rows) <= viewerMembershipsLimit}
	for i, r := range rows {
		if i == viewerMembershipsLimit {
			break
		}
		m, err := memberFromRow(u.ID, r)
		if err != nil {
			return nil, err
		}
		vm.members[m.OrganizationID] = m
	}
	return vm, viewerGrantsOf(u, vm)
}

// viewerGrantsOf reads the grants WithViewerMemberships brought with u.
func viewerGrantsOf(u *ent.User, vm *viewerMemberships) error {
	v, err := u.Value(viewerGrantsColumn)
	if err != nil {
		return err
	}
	var raw []byte
	switch v := v.(type) {
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	case nil:
	default:
		return fmt.Errorf("loader: viewer grants of type %T", v)
	}
	var rows [][5]string
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &rows); err != nil {
			return fmt.Errorf("loader: viewer grants: %w", err)
		}
	}
	vm.grants = map[string][]access.Grant{}
	vm.grantsComplete = len(rows) <= viewerGrantsLimit
	for i, r := range rows {
		if i == viewerGrantsLimit {
			break
		}
		g := access.Grant{Object: r[1], Role: access.Role(r[4])}
		if r[2] == grant.PrincipalKindTeam.String() {
			g.Team = r[3]
		}
		vm.grants[r[0]] = append(vm.grants[r[0]], g)
	}
	return nil
}

// primeViewer primes ViewerMembership with the memberships read at
// authentication and records their organizations as loaded.
func (l *Loaders) primeViewer(ctx context.Context) {
	if l.viewer == nil {
		return
	}
	l.memberOrgs.complete = l.viewer.complete
	orgs := make([]string, 0, len(l.viewer.members))
	for org, m := range l.viewer.members {
		l.ViewerMembership.Prime(ctx, org, m)
		if l.viewer.grantsComplete {
			l.ViewerGrants.Prime(ctx, org, l.viewer.grants[org])
		}
		orgs = append(orgs, org)
	}
	l.memberOrgs.add(orgs)
}

// ForgetViewerMembership drops what the request knows of the viewer's
// membership of orgID (the viewer joined or left it), so the next ask reads
// it from the database.
func (l *Loaders) ForgetViewerMembership(ctx context.Context, orgID string) {
	l.memberOrgs.forget(orgID)
	l.ViewerMembership.Clear(ctx, orgID)
}

// memberFromRow builds the membership of userID from one element of the
// JSON array: id, organization, role, joined, last seen, sso, disabled.
func memberFromRow(userID string, r [7]any) (*ent.Member, error) {
	m := &ent.Member{UserID: userID}
	var ok bool
	if m.ID, ok = r[0].(string); !ok {
		return nil, fmt.Errorf("loader: viewer membership without id")
	}
	if m.OrganizationID, ok = r[1].(string); !ok {
		return nil, fmt.Errorf("loader: viewer membership without organization")
	}
	if role, ok := r[2].(string); ok {
		rr := access.Role(role)
		m.Role = &rr
	}
	joined, err := jsonTime(r[3])
	if err != nil || joined == nil {
		return nil, fmt.Errorf("loader: viewer membership joined_at %v: %v", r[3], err)
	}
	m.JoinedAt = *joined
	if m.LastSeenAt, err = jsonTime(r[4]); err != nil {
		return nil, fmt.Errorf("loader: viewer membership last_seen_at: %w", err)
	}
	m.SSO, m.Disabled = jsonBool(r[5]), jsonBool(r[6])
	return m, nil
}

// timeLayouts are how timestamps come out of JSON: PostgreSQL's
// timestamptz, and the text SQLite stores.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00"}

func jsonTime(v any) (*time.Time, error) {
	s, ok := v.(string)
	if !ok {
		if v == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("not a time: %v", v)
	}
	var err error
	for _, layout := range timeLayouts {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, err
}

// jsonBool reads a boolean as PostgreSQL (true/false) and SQLite (1/0)
// write it.
func jsonBool(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case float64:
		return v != 0
	}
	return false
}
