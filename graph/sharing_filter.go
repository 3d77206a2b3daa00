package graph

import (
	"context"
	"sort"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/auth"
)

// Lists filter by access in SQL (design.md, Access): a contentScope is
// access.Effective turned into a predicate for one user in one
// organization. What depends on the collection tree (which collections a
// default level of "inherit" leads nowhere through, which collections lie
// under which) is worked out in Go from the organization's collections,
// loaded once and few; what depends on rows that can be many (spaces, the
// user's grants) stays in SQL, so that a list costs the same statements
// whatever the number of spaces and grants, and pages by keyset.
//
// A space (or collection) is visible when:
//   - the user administers the organization; or
//   - the user is a member with a role and the default levels give one: its
//     own level is a role, or it is "inherit" and its parent is not a
//     collection whose chain ends in no access (blocked); or
//   - a grant to the user or their teams is on it, or on a collection at
//     or above its parent (closure: every collection with those above it).
type contentScope struct {
	orgID  string
	userID string
	// admin: every space and collection of the organization; member false:
	// none (a stranger).
	admin, member bool
	// levels: the user has an organization role, so default levels apply.
	levels bool
	// blocked are the collections through which "inherit" gives a member no
	// access (access.EffectiveRole is nil).
	blocked []any
	// closure pairs every collection (descendant) with itself and each
	// collection above it (ancestor).
	closure [][2]string
}

// contentScopes are the viewer's scopes in orgs, with one load of the
// collections of every organization that needs them (those the viewer is
// a member without the admin role of).
func contentScopes(ctx context.Context, orgs []string) (map[string]contentScope, error) {
	ms := make(map[string]access.Membership, len(orgs))
	for _, org := range orgs {
		m, _, err := membership(ctx, org)
		if err != nil {
			return nil, err
		}
		ms[org] = m
	}
	return scopesFor(ctx, auth.ViewerID(ctx), ms)
}

// siteScopes are the viewer's scopes in orgs for docs sites, which do not
// depend on the collection tree: nothing is loaded.
func siteScopes(ctx context.Context, orgs []string) (map[string]contentScope, error) {
	out := make(map[string]contentScope, len(orgs))
	for _, org := range orgs {
		m, _, err := membership(ctx, org)
		if err != nil {
			return nil, err
		}
		out[org] = contentScope{orgID: org, userID: auth.ViewerID(ctx), member: m.Member,
			admin: access.AtLeast(m.Role, access.Admin), levels: m.Role != nil}
	}
	return out, nil
}

// scopesFor are the scopes of userID, whose memberships are ms (by
// organization).
func scopesFor(ctx context.Context, userID string, ms map[string]access.Membership) (map[string]contentScope, error) {
	var need []string
	for org, m := range ms {
		if m.Member && !access.AtLeast(m.Role, access.Admin) {
			need = append(need, org)
		}
	}
	if len(need) > 0 {
		if _, errs := loader.For(ctx).OrgCollections.LoadMany(ctx, need)(); len(errs) > 0 {
			for _, err := range errs {
				if err != nil {
					return nil, err
				}
			}
		}
	}
	out := make(map[string]contentScope, len(ms))
	for org, m := range ms {
		sc, err := scopeOf(ctx, org, userID, m)
		if err != nil {
			return nil, err
		}
		out[org] = sc
	}
	return out, nil
}

// scopeOf is userID's scope in orgID, m being their membership.
func scopeOf(ctx context.Context, orgID, userID string, m access.Membership) (contentScope, error) {
	sc := contentScope{orgID: orgID, userID: userID, member: m.Member, admin: access.AtLeast(m.Role, access.Admin)}
	if !m.Member || sc.admin {
		return sc, nil
	}
	sc.levels = m.Role != nil
	colls, err := loader.For(ctx).OrgCollections.Load(ctx, orgID)()
	if err != nil {
		return sc, err
	}
	inherit := space.DefaultLevelInherit.String()
	for _, c := range colls {
		// The chain a content of level "inherit" directly in c walks: the
		// same walk (levelChain) and rule (access) as a single read.
		chain, objects, err := levelChain(ctx, orgID, "", &inherit, &c.ID)
		if err != nil {
			return sc, err
		}
		if sc.levels && access.EffectiveRole(m, chain) == nil {
			sc.blocked = append(sc.blocked, c.ID)
		}
		for _, anc := range objects[1:] {
			sc.closure = append(sc.closure, [2]string{anc, c.ID})
		}
	}
	return sc, nil
}

// grantsTo selects the ids of the objects of kind in the scope's
// organization granted to the scope's user or their teams.
func (sc contentScope) grantsTo(kind grant.ObjectKind) *sql.Selector {
	t := sql.Table(grant.Table)
	sel := sql.Select(t.C(grant.FieldObjectID)).From(t)
	sel.Where(sql.And(sql.EQ(t.C(grant.FieldOrganizationID), sc.orgID), sql.EQ(t.C(grant.FieldObjectKind), kind)))
	loader.ToViewer(sc.userID)(sel)
	return sel
}

// underGrant holds when col (a collection id) is a collection granted to
// the user, or under one: col IN (SELECT descendant FROM (VALUES
// (ancestor, descendant), …) WHERE ancestor IN (granted collections)).
// The pairs come from the collection tree; the grants stay in SQL.
func (sc contentScope) underGrant(col string) *sql.Predicate {
	if len(sc.closure) == 0 {
		return sql.False()
	}
	granted := sc.grantsTo(grant.ObjectKindCollection)
	return sql.P(func(b *sql.Builder) {
		b.Ident(col).WriteOp(sql.OpIn).Wrap(func(b *sql.Builder) {
			b.WriteString("SELECT column2 FROM (VALUES ")
			for i, p := range sc.closure {
				if i > 0 {
					b.Comma()
				}
				b.Wrap(func(b *sql.Builder) { b.Arg(p[0]).Comma().Arg(p[1]) })
			}
			b.WriteString(") AS folio_closure WHERE column1 IN ").Wrap(func(b *sql.Builder) { b.Join(granted) })
		})
	})
}

// byLevels holds when the default levels give a member with a role
// access to a content whose level and parent are these columns.
func (sc contentScope) byLevels(level, parent string) *sql.Predicate {
	if !sc.levels {
		return sql.False()
	}
	inherit := space.DefaultLevelInherit.String()
	return sql.Or(
		sql.And(sql.NotNull(level), sql.NEQ(level, inherit)),
		sql.And(sql.EQ(level, inherit), sql.Or(sql.IsNull(parent), sql.NotIn(parent, sc.blocked...))),
	)
}

// spaces is the predicate of the scope's visible spaces, on a selector of
// the spaces table.
func (sc contentScope) spaces(s *sql.Selector) *sql.Predicate {
	in := sql.EQ(s.C(space.FieldOrganizationID), sc.orgID)
	switch {
	case !sc.member:
		return sql.False()
	case sc.admin:
		return in
	}
	return sql.And(in, sql.Or(
		sc.byLevels(s.C(space.FieldDefaultLevel), s.C(space.FieldParentID)),
		sql.In(s.C(space.FieldID), sc.grantsTo(grant.ObjectKindSpace)),
		sc.underGrant(s.C(space.FieldParentID)),
	))
}

// collections is the predicate of the scope's visible collections, on a
// selector of the collections table.
func (sc contentScope) collections(s *sql.Selector) *sql.Predicate {
	in := sql.EQ(s.C(collection.FieldOrganizationID), sc.orgID)
	switch {
	case !sc.member:
		return sql.False()
	case sc.admin:
		return in
	}
	return sql.And(in, sql.Or(
		sc.byLevels(s.C(collection.FieldDefaultLevel), s.C(collection.FieldParentID)),
		sc.underGrant(s.C(collection.FieldID)),
	))
}

// sites is the predicate of the scope's visible docs sites
// (access.SiteRole): members with a role see all of them, guests those
// granted to them or their teams.
func (sc contentScope) sites(s *sql.Selector) *sql.Predicate {
	in := sql.EQ(s.C(site.FieldOrganizationID), sc.orgID)
	switch {
	case !sc.member:
		return sql.False()
	case sc.admin || sc.levels:
		return in
	}
	return sql.And(in, sql.In(s.C(site.FieldID), sc.grantsTo(grant.ObjectKindSite)))
}

// anyScope is the predicate of what any of scopes sees (one statement for
// a list of many organizations): pred gives one scope's.
func anyScope(scopes map[string]contentScope, pred func(contentScope, *sql.Selector) *sql.Predicate) func(*sql.Selector) {
	return func(s *sql.Selector) {
		// In organization order: the same list is the same statement.
		orgs := make([]string, 0, len(scopes))
		for org := range scopes {
			orgs = append(orgs, org)
		}
		sort.Strings(orgs)
		ps := make([]*sql.Predicate, 0, len(scopes))
		for _, org := range orgs {
			if sc := scopes[org]; sc.member {
				ps = append(ps, pred(sc, s))
			}
		}
		if len(ps) == 0 {
			s.Where(sql.False())
			return
		}
		s.Where(sql.Or(ps...))
	}
}

// memberSpaceCounts counts, by member key (loader.MemberKey), the live
// spaces each member can access: one statement for all of them (a count
// per member, UNION ALL), each with the member's own scope.
func (r *Resolver) memberSpaceCounts(ctx context.Context, keys []string) (map[string]int, error) {
	members, errs := loader.For(ctx).MemberByOrgUser.LoadMany(ctx, keys)()
	var union *sql.Selector
	for i, key := range keys {
		if len(errs) > i && errs[i] != nil {
			return nil, errs[i]
		}
		m := members[i]
		if m == nil {
			continue
		}
		scopes, err := scopesFor(ctx, m.UserID, map[string]access.Membership{m.OrganizationID: {Member: true, Role: m.Role}})
		if err != nil {
			return nil, err
		}
		t := sql.Dialect(r.Dialect).Table(space.Table)
		sel := sql.Dialect(r.Dialect).Select().From(t)
		// The key as a typed parameter: PostgreSQL cannot type a bare one.
		sel.AppendSelectExprAs(sql.ExprFunc(func(b *sql.Builder) {
			b.WriteString("CAST(").Arg(key).WriteString(" AS TEXT)")
		}), "member")
		sel.AppendSelect(sql.As(sql.Count("*"), "n"))
		sel.Where(sql.IsNull(t.C(space.FieldDeletedAt)))
		anyScope(scopes, contentScope.spaces)(sel)
		if union == nil {
			union = sel
		} else {
			union.UnionAll(sel)
		}
	}
	out := make(map[string]int, len(keys))
	if union == nil {
		return out, nil
	}
	query, args := union.Query()
	rows, err := r.Client.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			return nil, err
		}
		out[key] = n
	}
	return out, rows.Err()
}
