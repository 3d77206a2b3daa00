package rest_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// sharedOrg is an organization whose guest has three spaces shared with
// them, each another way, among many spaces they cannot see.
type sharedOrg struct {
	s            *testkit.Server
	admin, guest testkit.User
	org, team    string
	coll         string
	shared       []string // the guest's spaces: user grant, team grant, in a granted collection
	hidden       []string // spaces with content the guest cannot see
	spaces       int
	others       int // grants to other users so far
}

func newSharedOrg(t *testing.T, s *testkit.Server) *sharedOrg {
	t.Helper()
	ctx := testkit.Fixture(context.Background())
	c := s.Client()
	o := &sharedOrg{s: s}
	o.admin, o.org = s.NewUser(t, "admin@acme.com", "Acme")
	o.guest, _ = s.NewUser(t, "guest@contractor.org", "")
	s.AddMember(t, o.org, o.guest, nil)
	o.team = c.Team.Create().SetOrganizationID(o.org).SetTitle("Contractors").SaveX(ctx).ID
	c.TeamMember.Create().SetTeamID(o.team).SetUserID(o.guest.ID).ExecX(ctx)
	o.coll = c.Collection.Create().SetOrganizationID(o.org).SetTitle("Shared").SetPosition(1).
		SetDefaultLevel("inherit").SaveX(ctx).ID
	// An ungranted collection, under the granted one's sibling, whose
	// space stays hidden.
	other := c.Collection.Create().SetOrganizationID(o.org).SetTitle("Other").SetPosition(2).
		SetDefaultLevel("inherit").SaveX(ctx).ID
	byUser := o.addSpaces(t, 1, nil)[0]
	byTeam := o.addSpaces(t, 1, nil)[0]
	inColl := o.addSpaces(t, 1, &o.coll)[0]
	o.shared = []string{byUser, byTeam, inColl}
	o.hidden = append(o.addSpaces(t, 1, &other), o.addSpaces(t, 1, nil)...)
	o.grant(t, grant.ObjectKindSpace, byUser, grant.PrincipalKindUser, o.guest.ID)
	o.grant(t, grant.ObjectKindSpace, byTeam, grant.PrincipalKindTeam, o.team)
	o.grant(t, grant.ObjectKindCollection, o.coll, grant.PrincipalKindUser, o.guest.ID)
	return o
}

// addSpaces inserts n spaces straight through ent (fast), in parent.
func (o *sharedOrg) addSpaces(t *testing.T, n int, parent *string) []string {
	t.Helper()
	ctx := testkit.Fixture(context.Background())
	c := o.s.Client()
	var ids []string
	for start := 0; start < n; start += 400 {
		var creates []*ent.SpaceCreate
		for i := start; i < min(n, start+400); i++ {
			creates = append(creates, c.Space.Create().SetOrganizationID(o.org).SetNillableParentID(parent).
				SetTitle(fmt.Sprintf("Space %d", o.spaces+i)).SetPosition(float64(o.spaces+i)).
				SetShareKeySealed("unused").SetDefaultLevel(space.DefaultLevelInherit))
		}
		for _, sp := range c.Space.CreateBulk(creates...).SaveX(ctx) {
			ids = append(ids, sp.ID)
		}
	}
	o.spaces += n
	return ids
}

func (o *sharedOrg) grant(t *testing.T, kind grant.ObjectKind, object string, pk grant.PrincipalKind, principal string) {
	t.Helper()
	o.s.Client().Grant.Create().SetOrganizationID(o.org).SetObjectKind(kind).SetObjectID(object).
		SetPrincipalKind(pk).SetPrincipalID(principal).SetRole(access.Read).ExecX(testkit.Fixture(context.Background()))
}

// grantOthers gives n other users read on n of the hidden spaces, in bulk.
func (o *sharedOrg) grantOthers(t *testing.T, n int, spaces []string) {
	t.Helper()
	ctx := testkit.Fixture(context.Background())
	c := o.s.Client()
	for start := 0; start < n; start += 400 {
		var creates []*ent.GrantCreate
		for i := start; i < min(n, start+400); i++ {
			creates = append(creates, c.Grant.Create().SetOrganizationID(o.org).SetObjectKind(grant.ObjectKindSpace).
				SetObjectID(spaces[i%len(spaces)]).SetPrincipalKind(grant.PrincipalKindUser).
				SetPrincipalID(fmt.Sprintf("someone-%d", o.others+i)).SetRole(access.Edit))
		}
		c.Grant.CreateBulk(creates...).ExecX(ctx)
	}
	o.others += n
}

// list is the ids the guest lists (every page of limit), and the
// statements the first page took.
func (o *sharedOrg) list(t *testing.T, token string, limit int) ([]string, int64) {
	t.Helper()
	var ids []string
	var first int64
	page := ""
	for {
		var env struct {
			Items []struct{ ID string }
			Count int
			Next  *struct{ Page string }
		}
		before := o.s.Statements()
		o.s.Call(t, "listSpacesInOrganizationById", token, "GET", fmt.Sprintf("/v1/orgs/%s/spaces?limit=%d%s", o.org, limit, page), nil, 200).Decode(t, &env)
		if first == 0 {
			first = o.s.Statements() - before
		}
		for _, it := range env.Items {
			ids = append(ids, it.ID)
		}
		if env.Next == nil {
			return ids, first
		}
		page = "&page=" + env.Next.Page
	}
}

func sameIDSet(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// A guest with three spaces shared with them among 1,000 lists, searches
// and sees the change requests of exactly those three, at a cost that does
// not grow with the spaces or the grants, paging by keyset.
func TestSharingListsGuestSeesGranted(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		o := newSharedOrg(t, s)
		// Content and a change request in the shared spaces and in two
		// hidden ones, all matching one search.
		ctx := testkit.Fixture(context.Background())
		for _, id := range append(append([]string(nil), o.shared...), o.hidden...) {
			s.SeedPagesWith(t, id, 2, func(i int) string { return fmt.Sprintf("# Zebra %d\n\nStripes.\n", i) })
			if err := s.App.Resolver.ReindexSpace(ctx, id); err != nil {
				t.Fatal(err)
			}
			s.Call(t, "createChangeRequest", o.admin.Token, "POST", "/v1/spaces/"+id+"/change-requests", map[string]any{}, 201)
		}
		o.addSpaces(t, 95, nil)
		o.grantOthers(t, 10, o.hidden)
		ids, n100 := o.list(t, o.guest.Token, 50)
		if !sameIDSet(ids, o.shared) || len(ids) != 3 {
			t.Fatalf("guest lists %v, want %v", ids, o.shared)
		}
		// One at a time: each shared space once, by keyset.
		paged, _ := o.list(t, o.guest.Token, 1)
		if !sameIDSet(paged, o.shared) || len(paged) != 3 {
			t.Fatalf("guest pages through %v, want %v", paged, o.shared)
		}
		o.addSpaces(t, 900, nil)
		_, n1000 := o.list(t, o.guest.Token, 50)
		o.grantOthers(t, 990, o.hidden) // 1,000 grants in the organization
		ids, g1000 := o.list(t, o.guest.Token, 50)
		t.Logf("statements: 100 spaces %d, 1,000 spaces %d, 1,000 grants %d", n100, n1000, g1000)
		if n100 != n1000 || n1000 != g1000 {
			t.Fatalf("statements: 100 spaces %d, 1,000 spaces %d, 1,000 grants %d: want equal", n100, n1000, g1000)
		}
		if !sameIDSet(ids, o.shared) {
			t.Fatalf("guest lists %v with more grants, want %v", ids, o.shared)
		}
		// The admin sees them all, over pages.
		if all, _ := o.list(t, o.admin.Token, 1000); len(all) != o.spaces {
			t.Fatalf("admin lists %d spaces, want %d", len(all), o.spaces)
		}

		// Search: the shared spaces only.
		var found struct {
			Items []struct{ ID string }
			Count int
		}
		s.Call(t, "searchOrganizationContent", o.guest.Token, "GET", "/v1/orgs/"+o.org+"/search?query=zebra", nil, 200).Decode(t, &found)
		var got []string
		for _, it := range found.Items {
			got = append(got, it.ID)
		}
		if !sameIDSet(got, o.shared) {
			t.Fatalf("guest's search finds %v, want %v", got, o.shared)
		}
		s.Call(t, "searchOrganizationContent", o.admin.Token, "GET", "/v1/orgs/"+o.org+"/search?query=zebra", nil, 200).Decode(t, &found)
		if len(found.Items) != 5 {
			t.Fatalf("admin's search finds %d spaces, want 5", len(found.Items))
		}

		// Collections: the guest lists the one shared with them, and in it
		// its spaces, one page at a time.
		var colls struct {
			Items []struct{ ID string }
			Count int
		}
		s.Call(t, "listCollectionsInOrganizationById", o.guest.Token, "GET", "/v1/orgs/"+o.org+"/collections", nil, 200).Decode(t, &colls)
		if colls.Count != 1 || len(colls.Items) != 1 || colls.Items[0].ID != o.coll {
			t.Fatalf("guest's collections: %+v, want %s", colls, o.coll)
		}
		more := o.addSpaces(t, 4, &o.coll)
		var inColl []string
		page := ""
		for {
			var env struct {
				Items []struct{ ID string }
				Count int
				Next  *struct{ Page string }
			}
			s.Call(t, "listSpacesInCollectionById", o.guest.Token, "GET", "/v1/collections/"+o.coll+"/spaces?limit=2"+page, nil, 200).Decode(t, &env)
			if env.Count != 5 {
				t.Fatalf("collection's spaces count %d, want 5", env.Count)
			}
			for _, it := range env.Items {
				inColl = append(inColl, it.ID)
			}
			if env.Next == nil {
				break
			}
			page = "&page=" + env.Next.Page
		}
		if want := append([]string{o.shared[2]}, more...); strings.Join(inColl, ",") != strings.Join(want, ",") {
			t.Fatalf("guest pages through the collection's spaces as %v, want %v in position order", inColl, want)
		}

		// Sites: the guest lists the one shared with them (directly or
		// through their team), not the others.
		sites := "/v1/orgs/" + o.org + "/sites"
		var siteIDs []string
		for i := range 3 {
			siteIDs = append(siteIDs, s.Call(t, "createSite", o.admin.Token, "POST", sites, map[string]any{"title": fmt.Sprintf("Site %d", i)}, 201).JSON(t)["id"].(string))
		}
		o.grant(t, grant.ObjectKindSite, siteIDs[1], grant.PrincipalKindTeam, o.team)
		var listed struct {
			Items []struct{ ID string }
			Count int
		}
		s.Call(t, "listSites", o.guest.Token, "GET", sites, nil, 200).Decode(t, &listed)
		if listed.Count != 1 || len(listed.Items) != 1 || listed.Items[0].ID != siteIDs[1] {
			t.Fatalf("guest's sites: %+v, want %s", listed, siteIDs[1])
		}
		s.Call(t, "listSites", o.admin.Token, "GET", sites, nil, 200).Decode(t, &listed)
		if listed.Count != 3 {
			t.Fatalf("admin's sites: %+v", listed)
		}

		// Change requests: those of the shared spaces only.
		var crs struct {
			Items []struct {
				Space string `json:"space"`
			}
			Count int
		}
		s.Call(t, "listChangeRequestsForOrganization", o.guest.Token, "GET", "/v1/orgs/"+o.org+"/change-requests", nil, 200).Decode(t, &crs)
		got = nil
		for _, it := range crs.Items {
			got = append(got, it.Space)
		}
		if !sameIDSet(got, o.shared) || crs.Count != 3 {
			t.Fatalf("guest's change requests are in %v (count %d), want %v", got, crs.Count, o.shared)
		}
	})
}

// The guest's own grants: 300 or 1,000 spaces shared with them cost the
// same statements to list (a page of 5). The list's filter reads no grant
// into memory; the spaces' permissions need the viewer's grants, which
// authentication brings along up to a bound (200) and one statement reads
// beyond it, so 10 grants cost that one statement less.
func TestSharingListsOwnGrantsFlat(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		o := newSharedOrg(t, s)
		many := o.addSpaces(t, 1000, nil)
		granted := 0
		grantGuest := func(n int) {
			ctx := testkit.Fixture(context.Background())
			for start := granted; start < n; start += 400 {
				var creates []*ent.GrantCreate
				for _, id := range many[start:min(n, start+400)] {
					creates = append(creates, s.Client().Grant.Create().SetOrganizationID(o.org).SetObjectKind(grant.ObjectKindSpace).
						SetObjectID(id).SetPrincipalKind(grant.PrincipalKindUser).SetPrincipalID(o.guest.ID).SetRole(access.Read))
				}
				s.Client().Grant.CreateBulk(creates...).ExecX(ctx)
			}
			granted = n
		}
		first := func() int64 {
			before := s.Statements()
			var env struct {
				Items []struct{ ID string }
				Count int
			}
			s.Call(t, "listSpacesInOrganizationById", o.guest.Token, "GET", "/v1/orgs/"+o.org+"/spaces?limit=5", nil, 200).Decode(t, &env)
			if env.Count != 3+granted || len(env.Items) != 5 {
				t.Fatalf("%d grants: count %d, %d items", granted, env.Count, len(env.Items))
			}
			return s.Statements() - before
		}
		grantGuest(10)
		n10 := first()
		grantGuest(300)
		n300 := first()
		grantGuest(1000)
		n1000 := first()
		t.Logf("statements: 10 grants %d, 300 grants %d, 1,000 grants %d", n10, n300, n1000)
		if n300 != n1000 || n10 != n1000-1 {
			t.Fatalf("statements: 10 grants %d, 300 grants %d, 1,000 grants %d: want 300 and 1,000 equal, 10 one less", n10, n300, n1000)
		}
	})
}

// The lists' SQL filter and the rule a single read applies
// (access.Effective) agree: on random trees of collections and spaces with
// random default levels and grants, each user lists exactly the spaces they
// can read, and an admin listing a member's spaces sees the same set.
func TestSharingListsAgreeWithRule(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		levels := []*string{nil, ptr("inherit"), ptr("inherit"), ptr("read"), ptr("edit")}
		for seed := int64(1); seed <= 3; seed++ {
			rnd := rand.New(rand.NewSource(seed))
			ctx := testkit.Fixture(context.Background())
			c := s.Client()
			admin, org := s.NewUser(t, fmt.Sprintf("admin%d@acme.com", seed), "Acme")
			users := map[string]testkit.User{}
			for _, name := range []string{"guest", "reader", "editor"} {
				users[name], _ = s.NewUser(t, fmt.Sprintf("%s%d@acme.com", name, seed), "")
			}
			s.AddMember(t, org, users["guest"], nil)
			s.AddMember(t, org, users["reader"], testkit.RoleOf(access.Read))
			s.AddMember(t, org, users["editor"], testkit.RoleOf(access.Edit))
			team := c.Team.Create().SetOrganizationID(org).SetTitle("T").SaveX(ctx).ID
			c.TeamMember.Create().SetTeamID(team).SetUserID(users["guest"].ID).ExecX(ctx)
			c.TeamMember.Create().SetTeamID(team).SetUserID(users["reader"].ID).ExecX(ctx)
			level := func() *string { return levels[rnd.Intn(len(levels))] }
			var colls []string
			for i := range 7 {
				cr := c.Collection.Create().SetOrganizationID(org).SetTitle(fmt.Sprintf("C%d", i)).SetPosition(float64(i))
				if len(colls) > 0 && rnd.Intn(3) > 0 {
					cr.SetParentID(colls[rnd.Intn(len(colls))])
				}
				if l := level(); l != nil {
					cr.SetDefaultLevel(collectionLevel(*l))
				}
				colls = append(colls, cr.SaveX(ctx).ID)
			}
			var spaces []string
			for i := range 30 {
				sc := c.Space.Create().SetOrganizationID(org).SetTitle(fmt.Sprintf("S%d", i)).SetPosition(float64(i)).SetShareKeySealed("unused")
				if rnd.Intn(4) > 0 {
					sc.SetParentID(colls[rnd.Intn(len(colls))])
				}
				if l := level(); l != nil {
					sc.SetDefaultLevel(space.DefaultLevel(*l))
				}
				spaces = append(spaces, sc.SaveX(ctx).ID)
			}
			principals := []struct {
				kind grant.PrincipalKind
				id   string
			}{{grant.PrincipalKindUser, users["guest"].ID}, {grant.PrincipalKindUser, users["reader"].ID}, {grant.PrincipalKindTeam, team}}
			done := map[string]bool{}
			for range 10 {
				p := principals[rnd.Intn(len(principals))]
				kind, object := grant.ObjectKindSpace, spaces[rnd.Intn(len(spaces))]
				if rnd.Intn(2) == 0 {
					kind, object = grant.ObjectKindCollection, colls[rnd.Intn(len(colls))]
				}
				if done[object+p.id] {
					continue
				}
				done[object+p.id] = true
				c.Grant.Create().SetOrganizationID(org).SetObjectKind(kind).SetObjectID(object).
					SetPrincipalKind(p.kind).SetPrincipalID(p.id).SetRole(access.Read).ExecX(ctx)
			}
			o := &sharedOrg{s: s, org: org}
			counts := map[string]int{}
			for name, u := range users {
				var want []string
				for _, id := range spaces {
					if s.Request(t, u.Token, "GET", "/v1/spaces/"+id, nil).Status == 200 {
						want = append(want, id)
					}
				}
				t.Logf("seed %d: %s reads %d of %d spaces", seed, name, len(want), len(spaces))
				got, _ := o.list(t, u.Token, 7)
				if !sameIDSet(got, want) || len(got) != len(want) {
					t.Fatalf("seed %d, %s lists %v, reads %v", seed, name, got, want)
				}
				var theirs []string
				page := ""
				for {
					var env struct {
						Items []struct {
							Space struct{ ID string }
						}
						Next *struct{ Page string }
					}
					s.Call(t, "listSpacesForOrganizationMember", admin.Token, "GET", "/v1/orgs/"+org+"/members/"+u.ID+"/spaces?limit=7"+page, nil, 200).Decode(t, &env)
					for _, it := range env.Items {
						theirs = append(theirs, it.Space.ID)
					}
					if env.Next == nil {
						break
					}
					page = "&page=" + env.Next.Page
				}
				if !sameIDSet(theirs, want) || len(theirs) != len(want) {
					t.Fatalf("seed %d, admin lists %s's spaces as %v, they read %v", seed, name, theirs, want)
				}
				// The member object counts the same spaces, alone and in
				// the list of members.
				var member struct{ Spaces int }
				s.Call(t, "getMemberInOrganizationById", admin.Token, "GET", "/v1/orgs/"+org+"/members/"+u.ID, nil, 200).Decode(t, &member)
				if member.Spaces != len(want) {
					t.Fatalf("seed %d, %s's member object counts %d spaces, they read %d", seed, name, member.Spaces, len(want))
				}
				counts[u.ID] = len(want)
			}
			var members struct {
				Items []struct {
					ID     string
					Spaces int
				}
			}
			s.Call(t, "listMembersInOrganizationById", admin.Token, "GET", "/v1/orgs/"+org+"/members?limit=100", nil, 200).Decode(t, &members)
			for _, m := range members.Items {
				if want, ok := counts[m.ID]; ok && m.Spaces != want {
					t.Fatalf("seed %d, the list of members counts %d spaces for %s, want %d", seed, m.Spaces, m.ID, want)
				}
				if m.ID == admin.ID && m.Spaces != len(spaces) {
					t.Fatalf("seed %d, the admin counts %d spaces, want %d", seed, m.Spaces, len(spaces))
				}
			}
		}
	})
}

func ptr(s string) *string { return &s }

// collectionLevel is a default level as a collection's.
func collectionLevel(l string) collection.DefaultLevel { return collection.DefaultLevel(l) }
