package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/paging"
)

// The aggregate lists (REST: permissions/aggregate; GraphQL: Space.access,
// Collection.access, Site.access) answer "every user with access" to an
// object: the members of its organization the rule (access.Effective,
// access.SiteRole) gives a role, each with that role and its origin.
//
// Who is listed, and the role filter, are SQL derived from the same rule:
// for a given object the rule's part that depends on the membership alone
// (the organization role through the default levels) is computed in Go by
// access.Effective for each organization role, and becomes a set of
// member roles; the part that depends on grants is an EXISTS over the
// grants on the object and the collections above it, to the member or a
// team of theirs. The effective role is the highest of the two (grants
// only raise a role), so "effective = R" is: the membership gives at most
// R, no grant gives more, and one of them gives R. The listed members'
// roles and origins are then computed by access.Effective itself, from
// their grants read for the page in one statement.

// AccessFilter narrows an aggregate list. Role is the effective role on
// the object; on a site it may also be "guest", the organization's guests
// (whose access comes from grants alone). Search, Sort and Team are the
// site list's (GitBook's content aggregate has only the role filter).
type AccessFilter struct {
	Role   *string
	Search *string
	Sort   *model.AccessSort
	Team   *string
}

// accessObjectKind is the table of the objects a list is about.
type accessObjectKind string

const (
	accessSpaces      accessObjectKind = "spaces"
	accessCollections accessObjectKind = "collections"
	accessSites       accessObjectKind = "sites"
)

// accessTarget is one object whose users are listed, with what the rule
// needs of it: its chain of default levels and the objects (it and the
// collections above it) whose grants apply.
type accessTarget struct {
	id      string
	org     string
	site    bool
	chain   []access.Level
	objects []string
}

// orgRoles are the memberships a member can have: guest (nil) and every
// role.
func orgRoles() []*access.Role {
	out := []*access.Role{nil}
	for _, v := range access.Role("").Values() {
		r := access.Role(v)
		out = append(out, &r)
	}
	return out
}

// rule is the effective role on t of a member with role m and grants g.
func (t accessTarget) rule(m *access.Role, grants []access.Grant) (*access.Role, access.Origin) {
	ms := access.Membership{Member: true, Role: m}
	if t.site {
		return access.SiteRole(ms, t.id, grants)
	}
	return access.Effective(ms, t.chain, t.objects, grants)
}

// higher tells whether role a is above role b (nil: no role).
func higher(a, b *access.Role) bool {
	if a == nil {
		return false
	}
	if b == nil {
		return true
	}
	return access.AtLeast(a, *b) && *a != *b
}

// sqlq is a statement under construction: its text with ? marks and its
// arguments.
type sqlq struct {
	b    strings.Builder
	args []any
}

func (q *sqlq) w(s string, args ...any) *sqlq {
	q.b.WriteString(s)
	q.args = append(q.args, args...)
	return q
}

// literals writes "('a', 'b', …)" for names of the roles enum, which are
// letters only: constants rather than arguments, so that a statement over
// many objects stays well under the databases' argument limits.
func (q *sqlq) literals(names []string) *sqlq {
	q.b.WriteString("(")
	for i, v := range names {
		if i > 0 {
			q.b.WriteString(", ")
		}
		if !access.Role(v).Valid() {
			panic("aggregate: not a role: " + v)
		}
		q.b.WriteString("'" + v + "'")
	}
	q.b.WriteString(")")
	return q
}

// in writes "(?, ?, …)" for values.
func (q *sqlq) in(values []string) *sqlq {
	q.b.WriteString("(")
	for i, v := range values {
		if i > 0 {
			q.b.WriteString(", ")
		}
		q.w("?", v)
	}
	q.b.WriteString(")")
	return q
}

// roleIn writes whether m.role is one of roles (nil: guest); false when
// roles is empty.
func (q *sqlq) roleIn(roles []*access.Role) *sqlq {
	var names []string
	guest := false
	for _, r := range roles {
		if r == nil {
			guest = true
		} else {
			names = append(names, string(*r))
		}
	}
	q.b.WriteString("(")
	wrote := false
	if len(names) > 0 {
		q.w("m.role IN ").literals(names)
		wrote = true
	}
	if guest {
		if wrote {
			q.w(" OR ")
		}
		q.w("m.role IS NULL")
		wrote = true
	}
	if !wrote {
		q.w("1 = 0")
	}
	q.b.WriteString(")")
	return q
}

// grantExists writes whether a grant on objects, with one of roles (any
// role when roles is nil), is to the member m or a team of theirs.
func (q *sqlq) grantExists(objects []string, roles []string) *sqlq {
	q.w("EXISTS (SELECT 1 FROM grants g WHERE g.object_id IN ").in(objects)
	if roles != nil {
		if len(roles) == 0 {
			return q.w(" AND 1 = 0)")
		}
		q.w(" AND g.role IN ").literals(roles)
	}
	return q.w(" AND ((g.principal_kind = 'user' AND g.principal_id = m.user_id) OR " +
		"(g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.user_id = m.user_id))))")
}

// accessCondition writes who of t's organization is listed for t: anyone
// with a role on it, or with exactly role when role is set.
func (q *sqlq) accessCondition(t accessTarget, role *access.Role) *sqlq {
	var base, atMost, equal []*access.Role
	for _, m := range orgRoles() {
		r, _ := t.rule(m, nil)
		if r != nil {
			base = append(base, m)
		}
		if role != nil && !higher(r, role) {
			atMost = append(atMost, m)
		}
		if role != nil && r != nil && *r == *role {
			equal = append(equal, m)
		}
	}
	if role == nil {
		return q.w("(").roleIn(base).w(" OR ").grantExists(t.objects, nil).w(")")
	}
	above := []string{}
	for _, v := range access.Role("").Values() {
		if r := access.Role(v); higher(&r, role) {
			above = append(above, v)
		}
	}
	q.w("(").roleIn(atMost).w(" AND NOT ").grantExists(t.objects, above)
	return q.w(" AND (").roleIn(equal).w(" OR ").grantExists(t.objects, []string{string(*role)}).w("))")
}

// accessSortColumn is the column a list is sorted by, and whether the
// cursor's key is a string (names) rather than a time.
func accessSortColumn(s *model.AccessSort) (string, bool, error) {
	if s == nil {
		return "m.joined_at", false, nil
	}
	switch *s {
	case model.AccessSortJoinedAt:
		return "m.joined_at", false, nil
	case model.AccessSortLastSeenAt:
		return "m.last_seen_at", false, nil
	case model.AccessSortName:
		return "u.display_name", true, nil
	}
	return "", false, apperr.InvalidField("sort", "must be joinedAt, lastSeenAt or name")
}

// accessFilterRole reads the role filter: a role, or "guest" where guests
// is true (sites).
func accessFilterRole(v *string, guests bool) (*access.Role, bool, error) {
	if v == nil {
		return nil, false, nil
	}
	if guests && *v == "guest" {
		return nil, true, nil
	}
	r, err := access.ParseRole(*v)
	if err != nil {
		if guests {
			return nil, false, apperr.InvalidField("role", "must be a role (admin, create, review, edit, comment, read) or guest")
		}
		return nil, false, apperr.InvalidField("role", "must be a role (admin, create, review, edit, comment, read)")
	}
	return &r, false, nil
}

// accessPages reads a page of every target's users with the same
// arguments and filters, in a fixed number of statements whatever the
// number of targets (all of one kind): one counts each target's users, one
// reads each target's first Limit+1 after the cursor (ROW_NUMBER per
// target), one (two with their users) reads those members, one their
// grants on the targets' chains.
func (r *Resolver) accessPages(ctx context.Context, kind accessObjectKind, targets []accessTarget, args paging.Args, f AccessFilter) (map[string]paging.Page[*model.UserAccess], error) {
	role, guests, err := accessFilterRole(f.Role, kind == accessSites)
	if err != nil {
		return nil, err
	}
	column, named, err := accessSortColumn(f.Sort)
	if err != nil {
		return nil, err
	}
	out := make(map[string]paging.Page[*model.UserAccess], len(targets))
	if len(targets) == 0 {
		return out, nil
	}
	ids := make([]string, len(targets))
	byID := make(map[string]accessTarget, len(targets))
	for i, t := range targets {
		ids[i], byID[t.id] = t.id, t
	}
	// from is the rows listed: (target, member) pairs, the member in the
	// target's organization and with access to it.
	from := func(q *sqlq) {
		q.w(fmt.Sprintf(" FROM members m JOIN users u ON u.id = m.user_id JOIN %s o ON o.organization_id = m.organization_id WHERE o.id IN ", kind)).in(ids)
		q.w(" AND (")
		for i, t := range targets {
			if i > 0 {
				q.w(" OR ")
			}
			q.w("(o.id = ? AND ", t.id).accessCondition(t, role).w(")")
		}
		q.w(")")
		if guests {
			q.w(" AND m.role IS NULL")
		}
		if f.Search != nil {
			if s := strings.TrimSpace(*f.Search); s != "" {
				like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(s)) + "%"
				q.w(` AND (LOWER(u.display_name) LIKE ? ESCAPE '\' OR LOWER(u.email) LIKE ? ESCAPE '\')`, like, like)
			}
		}
		if f.Team != nil {
			q.w(" AND m.user_id IN (SELECT tm.user_id FROM team_members tm WHERE tm.team_id = ?)", *f.Team)
		}
		if column == "m.last_seen_at" {
			// Sorted by a nullable column: those never seen are left out,
			// as in the members list.
			q.w(" AND m.last_seen_at IS NOT NULL")
		}
	}
	count := &sqlq{}
	count.w("SELECT o.id, COUNT(*)")
	from(count)
	count.w(" GROUP BY o.id")
	totals := map[string]int{}
	if err := r.scanRows(ctx, count, func(scan func(...any) error) error {
		var id string
		var n int
		if err := scan(&id, &n); err != nil {
			return err
		}
		totals[id] = n
		return nil
	}); err != nil {
		return nil, err
	}
	var some []string
	for _, id := range ids {
		if totals[id] > 0 {
			some = append(some, id)
		}
	}
	pageIDs := map[string][]string{}
	var memberIDs []string
	if len(some) > 0 {
		dir := "ASC"
		op := ">"
		if args.Order == paging.Desc {
			dir, op = "DESC", "<"
		}
		q := &sqlq{}
		q.w(fmt.Sprintf("SELECT target, id FROM (SELECT o.id AS target, m.id AS id, %s AS k, ROW_NUMBER() OVER (PARTITION BY o.id ORDER BY %s %s, m.id %s) AS page_row", column, column, dir, dir))
		from(q)
		if a := args.After; a != nil {
			var key any = a.Time
			if named {
				key = a.Key
			}
			q.w(fmt.Sprintf(" AND (%s, m.id) %s (?, ?)", column, op), key, a.ID)
		}
		q.w(fmt.Sprintf(") AS p WHERE page_row <= ? ORDER BY target, k %s, id %s", dir, dir), args.Limit+1)
		if err := r.scanRows(ctx, q, func(scan func(...any) error) error {
			var target, id string
			if err := scan(&target, &id); err != nil {
				return err
			}
			pageIDs[target] = append(pageIDs[target], id)
			memberIDs = append(memberIDs, id)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	entries, err := r.accessEntries(ctx, byID, pageIDs, memberIDs)
	if err != nil {
		return nil, err
	}
	key := func(e *model.UserAccess) paging.Cursor {
		switch {
		case named:
			return paging.Cursor{Key: e.Member.Edges.User.DisplayName, ID: e.Member.ID}
		case column == "m.last_seen_at":
			return paging.Cursor{Time: *e.Member.LastSeenAt, ID: e.Member.ID}
		}
		return paging.Cursor{Time: e.Member.JoinedAt, ID: e.Member.ID}
	}
	for _, id := range ids {
		out[id] = paging.Cut(args, entries[id], totals[id], key)
	}
	return out, nil
}

// accessEntries reads the members of each target's page (with their
// users) and their grants on the targets' chains, and computes each
// one's role and origin with the rule.
func (r *Resolver) accessEntries(ctx context.Context, targets map[string]accessTarget, pageIDs map[string][]string, memberIDs []string) (out map[string][]*model.UserAccess, err error) {
	out = map[string][]*model.UserAccess{}
	if len(memberIDs) == 0 {
		return out, nil
	}
	rows, err := r.Client.Member.Query().Where(member.IDIn(dedupe(memberIDs)...)).WithUser().All(ctx)
	if err != nil {
		return nil, err
	}
	members := make(map[string]*ent.Member, len(rows))
	var users, objects []string
	for _, m := range rows {
		members[m.ID] = m
		users = append(users, m.UserID)
	}
	for id := range pageIDs {
		objects = append(objects, targets[id].objects...)
	}
	grants, err := r.usersGrants(ctx, dedupe(objects), dedupe(users))
	if err != nil {
		return nil, err
	}
	l := loader.For(ctx)
	teams := map[string]bool{}
	defer func() {
		// The teams origins name are read with the page, always (one
		// statement), rather than by a loader whose cache a sibling list
		// of teams may or may not have filled yet.
		if len(teams) > 0 && err == nil {
			var rows []*ent.Team
			if rows, err = r.Client.Team.Query().Where(team.IDIn(setKeys(teams)...)).All(ctx); err == nil {
				for _, t := range rows {
					l.TeamByID.Prime(ctx, t.ID, t)
				}
			}
		}
	}()
	for id, mids := range pageIDs {
		t := targets[id]
		for _, mid := range mids {
			m := members[mid]
			if m == nil {
				continue
			}
			l.UserByID.Prime(ctx, m.UserID, m.Edges.User)
			role, origin := t.rule(m.Role, grants[m.UserID])
			if role == nil {
				// Listed by SQL but given nothing by the rule: the two
				// definitions disagree, which the tests hold against.
				return nil, fmt.Errorf("aggregate: member %s listed on %s without a role", m.UserID, id)
			}
			if origin.Team != "" {
				teams[origin.Team] = true
			}
			out[id] = append(out[id], &model.UserAccess{Object: id, Member: m, Role: *role, Origin: model.AccessOriginOf(t.org, origin)})
		}
	}
	return out, nil
}

// usersGrants reads, in one statement, the grants on objects to users or
// to their teams, by user (a team's grant once for each member of it).
func (r *Resolver) usersGrants(ctx context.Context, objects, users []string) (map[string][]access.Grant, error) {
	q := &sqlq{}
	q.w("SELECT g.object_id, g.principal_kind, g.principal_id, g.role, COALESCE(tm.user_id, g.principal_id) " +
		"FROM grants g LEFT JOIN team_members tm ON g.principal_kind = 'team' AND tm.team_id = g.principal_id " +
		"WHERE g.object_id IN ").in(objects)
	q.w(" AND ((g.principal_kind = 'user' AND g.principal_id IN ").in(users)
	q.w(") OR (g.principal_kind = 'team' AND tm.user_id IN ").in(users).w("))")
	out := map[string][]access.Grant{}
	err := r.scanRows(ctx, q, func(scan func(...any) error) error {
		var object, kind, principal, role, user string
		if err := scan(&object, &kind, &principal, &role, &user); err != nil {
			return err
		}
		g := access.Grant{Role: access.Role(role), Object: object}
		if kind == "team" {
			g.Team = principal
		}
		out[user] = append(out[user], g)
		return nil
	})
	return out, err
}

// scanRows runs q and calls row for each row it answers.
func (r *Resolver) scanRows(ctx context.Context, q *sqlq, row func(scan func(...any) error) error) error {
	rows, err := r.Client.QueryContext(ctx, db.Numbered(r.Dialect, q.b.String()), q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// canListAccess answers whether the caller, with role on an object of
// orgID (what: "space", "collection", "site"), may see who has access to
// it (access.CanListPermissions): 403 otherwise, the object being visible.
func canListAccess(ctx context.Context, orgID string, role *access.Role, what string) error {
	m, _, err := membership(ctx, orgID)
	if err != nil {
		return err
	}
	if !access.CanListPermissions(m, role) {
		return apperr.Forbiddenf("seeing who has access to this %s needs its admin role, or a role in the organization", what)
	}
	return nil
}

// accessKind names an aggregate read and its filters for pageUnder.
func accessKind(f AccessFilter) string {
	sort := "-"
	if f.Sort != nil {
		sort = string(*f.Sort)
	}
	return fmt.Sprintf("access|%s|%s|%s|%s", optionKey(f.Role), optionKey(f.Search), sort, optionKey(f.Team))
}

// SpaceAccess pages through the users with access to a space (Space.access,
// listPermissionsAggregateInSpace), most recently joined first unless
// asked otherwise. The spaces a list shows are read together.
func (r *Resolver) SpaceAccess(ctx context.Context, spaceID string, args paging.Args, f AccessFilter) (paging.Page[*model.UserAccess], error) {
	var none paging.Page[*model.UserAccess]
	s, role, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return none, err
	}
	if err := canListAccess(ctx, s.OrganizationID, role, "space"); err != nil {
		return none, err
	}
	if _, _, err := accessFilterRole(f.Role, false); err != nil {
		return none, err
	}
	return pageUnder(ctx, loader.Spaces, accessKind(f), s.ID, args, func(ctx context.Context, ids []string) (map[string]paging.Page[*model.UserAccess], error) {
		l := loader.For(ctx)
		thunks := make([]func() (*ent.Space, error), len(ids))
		for i, id := range ids {
			thunks[i] = l.SpaceByID.Load(ctx, id)
		}
		var targets []accessTarget
		for _, th := range thunks {
			sp, err := th()
			if err != nil {
				continue // deleted since the list read it: no page
			}
			chain, objects, err := levelChain(ctx, sp.OrganizationID, sp.ID, enumString(sp.DefaultLevel), sp.ParentID)
			if err != nil {
				return nil, err
			}
			targets = append(targets, accessTarget{id: sp.ID, org: sp.OrganizationID, chain: chain, objects: objects})
		}
		return r.accessPages(ctx, accessSpaces, targets, args, f)
	})
}

// CollectionAccess is SpaceAccess for a collection (Collection.access,
// listPermissionsAggregateInCollection).
func (r *Resolver) CollectionAccess(ctx context.Context, collectionID string, args paging.Args, f AccessFilter) (paging.Page[*model.UserAccess], error) {
	var none paging.Page[*model.UserAccess]
	c, role, err := visibleCollection(ctx, collectionID)
	if err != nil {
		return none, err
	}
	if err := canListAccess(ctx, c.OrganizationID, role, "collection"); err != nil {
		return none, err
	}
	if _, _, err := accessFilterRole(f.Role, false); err != nil {
		return none, err
	}
	return pageUnder(ctx, loader.Collections, accessKind(f), c.ID, args, func(ctx context.Context, ids []string) (map[string]paging.Page[*model.UserAccess], error) {
		l := loader.For(ctx)
		thunks := make([]func() (*ent.Collection, error), len(ids))
		for i, id := range ids {
			thunks[i] = l.CollectionByID.Load(ctx, id)
		}
		var targets []accessTarget
		for _, th := range thunks {
			col, err := th()
			if err != nil {
				continue // deleted since the list read it: no page
			}
			chain, objects, err := levelChain(ctx, col.OrganizationID, col.ID, enumString(col.DefaultLevel), col.ParentID)
			if err != nil {
				return nil, err
			}
			targets = append(targets, accessTarget{id: col.ID, org: col.OrganizationID, chain: chain, objects: objects})
		}
		return r.accessPages(ctx, accessCollections, targets, args, f)
	})
}

// SiteAccess pages through the users with access to a docs site
// (Site.access, listPermissionsAggregateInSite). orgID "" takes the site's
// own organization (GraphQL).
func (r *Resolver) SiteAccess(ctx context.Context, orgID, siteID string, args paging.Args, f AccessFilter) (paging.Page[*model.UserAccess], error) {
	var none paging.Page[*model.UserAccess]
	s, role, _, err := visibleSiteRole(ctx, orgID, siteID)
	if err != nil {
		return none, err
	}
	if err := canListAccess(ctx, s.OrganizationID, role, "site"); err != nil {
		return none, err
	}
	if _, _, err := accessFilterRole(f.Role, true); err != nil {
		return none, err
	}
	if _, _, err := accessSortColumn(f.Sort); err != nil {
		return none, err
	}
	return pageUnder(ctx, loader.Sites, accessKind(f), s.ID, args, func(ctx context.Context, ids []string) (map[string]paging.Page[*model.UserAccess], error) {
		l := loader.For(ctx)
		thunks := make([]func() (*ent.Site, error), len(ids))
		for i, id := range ids {
			thunks[i] = l.SiteByID.Load(ctx, id)
		}
		var targets []accessTarget
		for _, th := range thunks {
			st, err := th()
			if err != nil {
				continue // deleted since the list read it: no page
			}
			targets = append(targets, accessTarget{id: st.ID, org: st.OrganizationID, site: true, objects: []string{st.ID}})
		}
		return r.accessPages(ctx, accessSites, targets, args, f)
	})
}

// SpaceViewerRole is the caller's effective role on a space and its
// origin (Space.viewerRole, viewerRoleOrigin); nil when they have none.
func (r *Resolver) SpaceViewerRole(ctx context.Context, s *ent.Space) (*access.Role, *model.AccessOrigin, error) {
	role, o, err := roleOn(ctx, s.OrganizationID, s.ID, enumString(s.DefaultLevel), s.ParentID)
	if err != nil || role == nil {
		return nil, nil, err
	}
	return role, model.AccessOriginOf(s.OrganizationID, o), nil
}

// CollectionViewerRole is SpaceViewerRole for a collection.
func (r *Resolver) CollectionViewerRole(ctx context.Context, c *ent.Collection) (*access.Role, *model.AccessOrigin, error) {
	role, o, err := roleOn(ctx, c.OrganizationID, c.ID, enumString(c.DefaultLevel), c.ParentID)
	if err != nil || role == nil {
		return nil, nil, err
	}
	return role, model.AccessOriginOf(c.OrganizationID, o), nil
}

// SiteViewerRole is the caller's role on a docs site and its origin
// (access.SiteRole); nil for those without one (the published audience).
func (r *Resolver) SiteViewerRole(ctx context.Context, s *ent.Site) (*access.Role, *model.AccessOrigin, error) {
	role, o, _, err := siteRoleOrigin(ctx, s)
	if err != nil || role == nil {
		return nil, nil, err
	}
	return role, model.AccessOriginOf(s.OrganizationID, o), nil
}

// SitePermissions is what the caller may do with a docs site
// (access.SitePermissionsFor), in REST and GraphQL alike.
func (r *Resolver) SitePermissions(ctx context.Context, s *ent.Site) (*access.SitePermissions, error) {
	role, _, err := siteRole(ctx, s)
	if err != nil {
		return nil, err
	}
	p := access.SitePermissionsFor(role)
	return &p, nil
}

// AccessOriginTeam is the team of a team origin; nil for others, and for
// a team deleted since.
func (r *Resolver) AccessOriginTeam(ctx context.Context, o *model.AccessOrigin) (*ent.Team, error) {
	if o.TeamID == "" {
		return nil, nil
	}
	t, err := loader.For(ctx).TeamByID.Load(ctx, o.TeamID)()
	if _, ok := apperr.As(err); ok {
		return nil, nil
	}
	return t, err
}

// AccessOriginCollection is the collection of a collection origin, when
// the caller can see it.
func (r *Resolver) AccessOriginCollection(ctx context.Context, o *model.AccessOrigin) (*ent.Collection, error) {
	if o.CollectionID == "" {
		return nil, nil
	}
	// From the organization's collections, which the rule read already.
	cols, err := loader.For(ctx).OrgCollections.Load(ctx, o.Organization)()
	if err != nil {
		return nil, err
	}
	c := cols[o.CollectionID]
	if c == nil {
		return nil, nil
	}
	role, err := collectionRole(ctx, c)
	if err != nil || role == nil {
		return nil, err
	}
	return c, nil
}

// AccessOriginOrganization is the organization of an organization origin.
func (r *Resolver) AccessOriginOrganization(ctx context.Context, o *model.AccessOrigin) (*ent.Organization, error) {
	if o.Type != model.AccessOriginTypeOrganization {
		return nil, nil
	}
	return loader.For(ctx).OrganizationByID.Load(ctx, o.Organization)()
}

// userAccessConnection is a page of an aggregate list as GraphQL's
// UserAccessConnection.
func userAccessConnection(page paging.Page[*model.UserAccess]) *model.UserAccessConnection {
	return connectionOf[model.UserAccessConnection](page)
}

// indexed is a page of items as the page of their positions, for edges
// built from several slices in the page's order.
func indexed[T any](page paging.Page[T]) paging.Page[int] {
	out := paging.Page[int]{Cursors: page.Cursors, Next: page.Next, HasPrevious: page.HasPrevious, Total: page.Total, Items: make([]int, len(page.Items))}
	for i := range page.Items {
		out.Items[i] = i
	}
	return out
}
