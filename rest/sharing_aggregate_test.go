package rest_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// sharingFixture is an organization with a collection, a space in it and
// a site, people of every kind, a team, and grants inserted directly (the
// grant operations are elsewhere): the aggregate lists read them.
type sharingFixture struct {
	spaceFixture
	coll, space, site, team                 string
	editor, reader2, guestA, guestB, guestC testkit.User
}

func newSharingFixture(t *testing.T, s *testkit.Server) sharingFixture {
	t.Helper()
	f := sharingFixture{spaceFixture: newSpaceFixture(t, s)}
	f.coll = f.createCollection(t, map[string]any{"title": "Plans"})["id"].(string)
	s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+f.coll, map[string]any{"defaultLevel": "comment"}, 200)
	f.space = f.createSpace(t, map[string]any{"title": "Handbook", "parent": f.coll})["id"].(string)
	f.site = s.Call(t, "createSite", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/sites", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
	add := func(email string, role *access.Role) testkit.User {
		u, _ := s.NewUser(t, email, "")
		s.AddMember(t, f.org, u, role)
		return u
	}
	f.editor = add("editor@acme.com", testkit.RoleOf(access.Edit))
	f.reader2 = add("reader2@acme.com", testkit.RoleOf(access.Read))
	f.guestA = add("guesta@acme.com", nil)
	f.guestB = add("guestb@acme.com", nil)
	f.guestC = add("guestc@acme.com", nil)
	ctx := testkit.Fixture(context.Background())
	c := s.Client()
	tm := c.Team.Create().SetOrganizationID(f.org).SetTitle("Writers").SaveX(ctx)
	f.team = tm.ID
	c.TeamMember.Create().SetTeamID(tm.ID).SetUserID(f.guestB.ID).ExecX(ctx)
	f.grant(t, grant.ObjectKindSpace, f.space, grant.PrincipalKindUser, f.reader2.ID, access.Admin)
	f.grant(t, grant.ObjectKindSpace, f.space, grant.PrincipalKindUser, f.guestA.ID, access.Edit)
	f.grant(t, grant.ObjectKindCollection, f.coll, grant.PrincipalKindTeam, f.team, access.Comment)
	f.grant(t, grant.ObjectKindSite, f.site, grant.PrincipalKindUser, f.guestA.ID, access.Read)
	f.grant(t, grant.ObjectKindSite, f.site, grant.PrincipalKindTeam, f.team, access.Edit)
	return f
}

func (f sharingFixture) grant(t *testing.T, kind grant.ObjectKind, object string, pk grant.PrincipalKind, principal string, role access.Role) *ent.Grant {
	t.Helper()
	return f.s.Client().Grant.Create().SetOrganizationID(f.org).SetObjectKind(kind).SetObjectID(object).
		SetPrincipalKind(pk).SetPrincipalID(principal).SetRole(role).SaveX(testkit.Fixture(context.Background()))
}

// accessRows reads every page of an aggregate list (limit 2, following
// next) as "email role origin" lines, in the list's order.
func accessRows(t *testing.T, s *testkit.Server, op, token, path string) []string {
	t.Helper()
	var out []string
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	next := ""
	for pages := 0; pages < 20; pages++ {
		p := path + sep + "limit=2"
		if next != "" {
			p += "&page=" + next
		}
		body := s.Call(t, op, token, "GET", p, nil, 200).JSON(t)
		for _, it := range body["items"].([]any) {
			m := it.(map[string]any)
			o := m["origin"].(map[string]any)
			keys := make([]string, 0, len(o))
			for k := range o {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s=%v", k, o[k]))
			}
			out = append(out, fmt.Sprintf("%s %s %s", m["user"].(map[string]any)["email"], m["permission"], strings.Join(parts, ",")))
		}
		n, ok := body["next"].(map[string]any)
		if !ok {
			if int(body["count"].(float64)) != len(out) {
				t.Fatalf("%s: count %v, %d items", path, body["count"], len(out))
			}
			return out
		}
		next = n["page"].(string)
	}
	t.Fatalf("%s: too many pages", path)
	return nil
}

func sameSet(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	g := append([]string(nil), got...)
	sort.Strings(g)
	sort.Strings(want)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got  %s\n want %s", what, strings.Join(g, "\n      "), strings.Join(want, "\n      "))
	}
}

// TestSpaceCollectionAggregate lists everyone with access to a space and
// to its collection, with their effective role and its origin, filtered
// by role in SQL and paged by keyset, and who may list it.
func TestSpaceCollectionAggregate(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSharingFixture(t, s)
		org := "organization=" + f.org
		coll := "collection=" + f.coll
		spacePath := "/v1/spaces/" + f.space + "/permissions/aggregate"
		rows := accessRows(t, s, "listPermissionsAggregateInSpace", f.admin.Token, spacePath)
		sameSet(t, "space", rows,
			"admin@acme.com admin "+org+",type=organization",
			// The collection's default level (comment) is what members with a role get.
			"reader@acme.com comment "+org+",type=organization",
			"editor@acme.com comment "+org+",type=organization",
			"reader2@acme.com admin type=direct",
			"guesta@acme.com edit type=direct",
			"guestb@acme.com comment "+coll+",team="+f.team+",type=collection",
		)
		for role, want := range map[string]int{"admin": 2, "comment": 3, "edit": 1, "read": 0, "create": 0} {
			got := accessRows(t, s, "listPermissionsAggregateInSpace", f.admin.Token, spacePath+"?role="+role)
			if len(got) != want {
				t.Errorf("role=%s: %v", role, got)
			}
			for _, g := range got {
				if strings.Fields(g)[1] != role {
					t.Errorf("role=%s lists %s", role, g)
				}
			}
		}
		if msg := s.Fail(t, "listPermissionsAggregateInSpace", f.admin.Token, "GET", spacePath+"?role=owner", nil, 400); !strings.Contains(msg, "role") {
			t.Errorf("bad role: %s", msg)
		}
		collPath := "/v1/collections/" + f.coll + "/permissions/aggregate"
		sameSet(t, "collection", accessRows(t, s, "listPermissionsAggregateInCollection", f.admin.Token, collPath),
			"admin@acme.com admin "+org+",type=organization",
			"reader@acme.com comment "+org+",type=organization",
			"editor@acme.com comment "+org+",type=organization",
			"reader2@acme.com comment "+org+",type=organization",
			"guestb@acme.com comment team="+f.team+",type=team",
		)

		// GraphQL says the same of the collection, with the origin's team.
		gql := s.MustGraphQL(t, f.admin.Token, `query($id: ID!) { collection(id: $id) { viewerRole viewerRoleOrigin { type }
			access(first: 10, role: comment) { totalCount edges { node { role user { email } origin { type team { title } } } } } } }`,
			map[string]any{"id": f.coll})["collection"].(map[string]any)
		if gql["viewerRole"] != "admin" || gql["access"].(map[string]any)["totalCount"] != float64(4) {
			t.Fatalf("collection in GraphQL: %v", gql)
		}
		for _, e := range gql["access"].(map[string]any)["edges"].([]any) {
			n := e.(map[string]any)["node"].(map[string]any)
			o := n["origin"].(map[string]any)
			if n["user"].(map[string]any)["email"] == "guestb@acme.com" && (o["type"] != "team" || o["team"].(map[string]any)["title"] != "Writers") {
				t.Fatalf("guestb's origin in GraphQL: %v", n)
			}
		}
		// guestB's own view of the space: a role through the collection.
		gql = s.MustGraphQL(t, f.guestB.Token, `query($id: ID!) { space(id: $id) { viewerRole viewerRoleOrigin { type team { id } collection { id } } } }`,
			map[string]any{"id": f.space})["space"].(map[string]any)
		if fmt.Sprint(gql) != fmt.Sprintf("map[viewerRole:comment viewerRoleOrigin:map[collection:map[id:%s] team:map[id:%s] type:collection]]", f.coll, f.team) {
			t.Fatalf("guestb's role on the space: %v", gql)
		}

		// Who may list: members with a role who see it, and admins of it;
		// strangers and guests without access do not see it; a guest
		// with a lesser role sees it but may not list its people.
		accessRows(t, s, "listPermissionsAggregateInSpace", f.reader.Token, spacePath)
		s.Fail(t, "listPermissionsAggregateInSpace", f.stranger.Token, "GET", spacePath, nil, 404)
		s.Fail(t, "listPermissionsAggregateInSpace", f.guestC.Token, "GET", spacePath, nil, 404)
		s.Fail(t, "listPermissionsAggregateInSpace", f.guestB.Token, "GET", spacePath, nil, 403)
		s.Fail(t, "listPermissionsAggregateInCollection", f.guestA.Token, "GET", collPath, nil, 404)
		s.Fail(t, "listPermissionsAggregateInCollection", f.guestB.Token, "GET", collPath, nil, 403)
		// A guest shared the space as admin may list it.
		f.grant(t, grant.ObjectKindSpace, f.space, grant.PrincipalKindUser, f.guestB.ID, access.Admin)
		rows = accessRows(t, s, "listPermissionsAggregateInSpace", f.guestB.Token, spacePath+"?role=admin")
		sameSet(t, "admins", rows, "admin@acme.com admin "+org+",type=organization", "reader2@acme.com admin type=direct", "guestb@acme.com admin type=direct")

		// A space with no default access: only admins and grants.
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"defaultLevel": nil}, 200)
		sameSet(t, "private space", accessRows(t, s, "listPermissionsAggregateInSpace", f.admin.Token, spacePath),
			"admin@acme.com admin "+org+",type=organization",
			"reader2@acme.com admin type=direct",
			"guesta@acme.com edit type=direct",
			"guestb@acme.com admin type=direct",
		)
	})
}

// TestSiteAggregate lists everyone with access to a site with GitBook's
// origins, filters by role, guests, search and team, and sorts by name.
func TestSiteAggregate(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSharingFixture(t, s)
		path := "/v1/orgs/" + f.org + "/sites/" + f.site + "/permissions/aggregate"
		org := "organization=" + f.org + ",type=organization"
		site := "site=" + f.site
		all := accessRows(t, s, "listPermissionsAggregateInSite", f.admin.Token, path)
		sameSet(t, "site", all,
			"admin@acme.com admin "+org,
			"reader@acme.com read "+org,
			"editor@acme.com edit "+org,
			"reader2@acme.com read "+org,
			"guesta@acme.com read reason=member,"+site+",type=site",
			"guestb@acme.com edit reason=team,"+site+",team="+f.team+",type=site",
		)
		sameSet(t, "guests", accessRows(t, s, "listPermissionsAggregateInSite", f.admin.Token, path+"?role=guest"),
			"guesta@acme.com read reason=member,"+site+",type=site",
			"guestb@acme.com edit reason=team,"+site+",team="+f.team+",type=site")
		sameSet(t, "edit", accessRows(t, s, "listPermissionsAggregateInSite", f.admin.Token, path+"?role=edit"),
			"editor@acme.com edit "+org,
			"guestb@acme.com edit reason=team,"+site+",team="+f.team+",type=site")
		sameSet(t, "search", accessRows(t, s, "listPermissionsAggregateInSite", f.admin.Token, path+"?search=GUESTA"),
			"guesta@acme.com read reason=member,"+site+",type=site")
		sameSet(t, "team", accessRows(t, s, "listPermissionsAggregateInSite", f.admin.Token, path+"?team="+f.team),
			"guestb@acme.com edit reason=team,"+site+",team="+f.team+",type=site")
		// By name, both ways, across pages of two.
		var names []string
		for _, u := range []string{"admin", "reader", "editor", "reader2", "guesta", "guestb"} {
			names = append(names, f.displayName(t, u+"@acme.com"))
		}
		sort.Strings(names)
		for _, order := range []string{"asc", "desc"} {
			rows := accessRows(t, s, "listPermissionsAggregateInSite", f.admin.Token, path+"?sort=name&order="+order)
			var got []string
			for _, r := range rows {
				got = append(got, f.displayName(t, strings.Fields(r)[0]))
			}
			want := append([]string(nil), names...)
			if order == "desc" {
				sort.Sort(sort.Reverse(sort.StringSlice(want)))
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("sort=name order=%s: %v, want %v", order, got, want)
			}
		}
		s.Fail(t, "listPermissionsAggregateInSite", f.admin.Token, "GET", path+"?sort=title", nil, 400)
		s.Fail(t, "listPermissionsAggregateInSite", f.admin.Token, "GET", path+"?role=owner", nil, 400)
		s.Fail(t, "listPermissionsAggregateInSite", f.stranger.Token, "GET", path, nil, 404)
		s.Fail(t, "listPermissionsAggregateInSite", f.guestC.Token, "GET", path, nil, 404)
		s.Fail(t, "listPermissionsAggregateInSite", f.guestA.Token, "GET", path, nil, 403)
		accessRows(t, s, "listPermissionsAggregateInSite", f.reader.Token, path)

		// GraphQL: the same list, filters and origins.
		gql := s.MustGraphQL(t, f.admin.Token, `query($id: ID!) { site(id: $id) { permissions { view edit admin } viewerRole
			access(first: 10, role: guest, sort: name, order: asc) { totalCount edges { node { role user { email } origin { type team { id } } } } } } }`,
			map[string]any{"id": f.site})["site"].(map[string]any)
		if gql["viewerRole"] != "admin" || fmt.Sprint(gql["permissions"]) != "map[admin:true edit:true view:true]" || gql["access"].(map[string]any)["totalCount"] != float64(2) {
			t.Fatalf("site in GraphQL: %v", gql)
		}
		gql = s.MustGraphQL(t, f.guestB.Token, `query($id: ID!) { site(id: $id) { viewerRole viewerRoleOrigin { type team { id } } } }`,
			map[string]any{"id": f.site})["site"].(map[string]any)
		if fmt.Sprint(gql) != fmt.Sprintf("map[viewerRole:edit viewerRoleOrigin:map[team:map[id:%s] type:team]]", f.team) {
			t.Fatalf("guestb's role on the site: %v", gql)
		}
		if _, errs := s.GraphQL(t, f.guestA.Token, `query($id: ID!) { site(id: $id) { access { totalCount } } }`, map[string]any{"id": f.site}); len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("guestA lists the site's people: %v", errs)
		}

		// The site's permissions (a Folio extension) follow the site role:
		// changing a site needs create, which the team's edit is not.
		for _, c := range []struct {
			u    testkit.User
			want string
		}{{f.admin, "map[admin:true edit:true view:true]"}, {f.guestB, "map[admin:false edit:false view:true]"}, {f.guestA, "map[admin:false edit:false view:true]"}} {
			got := s.Call(t, "getSiteById", c.u.Token, "GET", "/v1/orgs/"+f.org+"/sites/"+f.site, nil, 200).JSON(t)["permissions"]
			if fmt.Sprint(got) != c.want {
				t.Errorf("%s: site permissions %v, want %s", c.u.Email, got, c.want)
			}
		}
	})
}

func (f sharingFixture) displayName(t *testing.T, email string) string {
	t.Helper()
	u, err := f.s.Client().User.Query().All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range u {
		if x.Email == email {
			return x.DisplayName
		}
	}
	t.Fatalf("no user %s", email)
	return ""
}
