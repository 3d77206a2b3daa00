package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/ent"
	entpage "github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// Nested connections other than the dashboard's: each costs the same
// statements whatever the number of parents, on every run (assertFlat).

// teamsTree is organization → teams → team members → member → teams, with
// every field of each that reads something.
const teamsTree = `query($org: ID!) { organization(id: $org) { teams(first: 50) { totalCount edges { role node {
	id title members spaces organization { id } permissions { admin view }
	teamMembers(first: 5) { totalCount pageInfo { hasNextPage } edges { node { role user { id displayName } team { id } permissions { view }
		member { id role spaces user { id } teams(first: 3) { totalCount edges { node { id title } } }
			titled: teams(first: 3, title: "team") { totalCount edges { node { id members } } } } } } } } } } } }`

// seedTeams makes an organization of n teams, each of three of its members
// (one the owner), every member in two teams.
func seedTeams(t *testing.T, s *testkit.Server, n int) (testkit.User, string) {
	t.Helper()
	ctx := context.Background()
	admin, org := s.NewUser(t, fmt.Sprintf("teams-%d@example.com", n), fmt.Sprintf("Teams %d", n))
	users := s.AddUsers(t, org, fmt.Sprintf("TeamUser%d-", n), n+2, testkit.RoleOf(access.Edit))
	for i := range n {
		tm := s.Client().Team.Create().SetOrganizationID(org).SetTitle(fmt.Sprintf("Team %d", i)).SaveX(testkit.Fixture(ctx))
		var rows []*ent.TeamMemberCreate
		for j := range 3 {
			role := "member"
			if j == 0 {
				role = "owner"
			}
			rows = append(rows, s.Client().TeamMember.Create().SetTeamID(tm.ID).SetUserID(users[i+j].ID).SetRole(teammember.Role(role)))
		}
		s.Client().TeamMember.CreateBulk(rows...).ExecX(testkit.Fixture(ctx))
	}
	return admin, org
}

// TestTeamsTreeStatements: teams → members → their teams cost the same for
// 1, 10 and 30 teams.
func TestTeamsTreeStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		type org struct {
			token, id string
		}
		orgs := map[int]org{}
		for _, n := range []int{1, 10, 30} {
			u, id := seedTeams(t, s, n)
			orgs[n] = org{u.Token, id}
		}
		assertFlat(t, s, []int{1, 10, 30}, 10, func(n int) {
			data := s.MustGraphQL(t, orgs[n].token, teamsTree, map[string]any{"org": orgs[n].id})
			edges := dig(data, "organization", "teams", "edges").([]any)
			if len(edges) != n {
				t.Fatalf("%d teams, want %d", len(edges), n)
			}
			for _, e := range edges {
				tms := dig(e, "node", "teamMembers", "edges").([]any)
				if len(tms) != 3 || dig(e, "node", "members") != 3.0 {
					t.Fatalf("team: %v", dig(e, "node"))
				}
				for _, tm := range tms {
					m := dig(tm, "node", "member")
					if dig(m, "teams", "totalCount").(float64) < 1 || dig(m, "teams", "totalCount") != dig(m, "titled", "totalCount") {
						t.Fatalf("member: %v", m)
					}
				}
			}
		})
	})
}

// spaceFields is every field of a space and of its change requests and
// comments that reads something, under a list of spaces (the dashboard
// asks for the lists and counts; this asks for the rest).
const spaceFields = `query($org: ID!) { organization(id: $org) { spaces(first: 50) { edges { node {
	organization { id title } parent { id } revision { id } permissions { edit admin } urls { location published }
	revisions(first: 3) { totalCount edges { node { id type } } }
	commenters(first: 5) { totalCount edges { node { role user { id } } } }
	customFields { value }
	comments(first: 2) { edges { node { target { space changeRequest page { id title } } permissions { edit delete reply } } } }
	changeRequests(first: 5, status: open) { edges { node {
		revision { id } space { id } urls { location } contributors { user { id } count actionType }
		commenters(first: 5) { totalCount edges { node { user { id } } } }
		comments(first: 2) { edges { node { target { space changeRequest page { id } } permissions { edit delete }
			replies(first: 2) { edges { node { permissions { edit delete } } } } } } } } } } } } } } }`

// spaceFieldsFlat: spaceFields costs the same for every size of
// organization (TestDashboardStatements' boards).
func spaceFieldsFlat(t *testing.T, s *testkit.Server, sizes []int, boards map[int]dashboard) {
	assertFlat(t, s, sizes, 5, func(n int) {
		data := s.MustGraphQL(t, boards[n].token, spaceFields, map[string]any{"org": boards[n].org})
		for _, e := range dig(data, "organization", "spaces", "edges").([]any) {
			sp := dig(e, "node")
			if dig(sp, "commenters", "totalCount") != 3.0 ||
				len(dig(sp, "changeRequests", "edges", 0, "node", "contributors").([]any)) == 0 {
				t.Fatalf("space: %v", sp)
			}
		}
	})
}

// changeRequestByNumberFlat: the same change request (number 1) of every
// space of a list, with what it shows, costs the same for every size of
// organization. (An object two lists of one query show, such as a space's
// change request 1 beside its list of change requests, belongs to the list
// that showed it first; reads under it are read for that list's level, so
// such a query may cost a statement more or less from run to run: this and
// spaceFields ask for them apart.)
func changeRequestByNumberFlat(t *testing.T, s *testkit.Server, sizes []int, boards map[int]dashboard) {
	const query = `query($org: ID!) { organization(id: $org) { spaces(first: 50) { edges { node {
			changeRequest(id: "1") { id number createdBy { id } openComments outdated contributors { user { id } }
				comments(first: 2) { totalCount edges { node { postedBy { id } replies(first: 2) { totalCount } } } } } } } } } }`
	assertFlat(t, s, sizes, 5, func(n int) {
		data := s.MustGraphQL(t, boards[n].token, query, map[string]any{"org": boards[n].org})
		for _, e := range dig(data, "organization", "spaces", "edges").([]any) {
			if cr := dig(e, "node", "changeRequest"); dig(cr, "number") != 1.0 || dig(cr, "comments", "totalCount") != 2.0 {
				t.Fatalf("change request 1: %v", cr)
			}
		}
	})
}

// viewerOrganizations is every organization of the viewer with what is
// read under each: lists of spaces (and under them change requests and
// comments), members, teams, settings. Collections and sites are asked apart
// (viewerCollections): their spaces are spaces organization.spaces shows
// too, and an object two lists of one query show belongs to the list that
// showed it first (see changeRequestByNumberFlat).
const viewerOrganizations = `{ viewer { organizations { id title permissions { admin } urls { location }
	spaces(first: 5) { totalCount edges { node { id openComments parent { id }
		changeRequests(first: 2) { totalCount edges { node { id createdBy { id } comments(first: 2) { totalCount } } } } } } }
	changeRequests(first: 5) { totalCount edges { node { id number space { id } } } }
	members(first: 5) { totalCount edges { node { role user { id } teams(first: 2) { totalCount edges { node { id } } } } } }
	teams(first: 5) { totalCount edges { node { id members teamMembers(first: 2) { totalCount edges { node { user { id } } } } } } }
	customFields(first: 5) { totalCount edges { node { name } } }
	inviteLinksConnection(first: 5) { totalCount edges { node { id role } } }
	translations(first: 5) { totalCount edges { node { id title } } }
	samlProviders(first: 5) { totalCount edges { node { id label } } }
	ssoProviders { id }
	openAPISpecs(first: 5) { totalCount edges { node { id versions(first: 2) { totalCount } lastVersion { id } } } }
	} } }`

// viewerCollections is the viewer's organizations' collection trees and
// sites.
const viewerCollections = `{ viewer { organizations { id
	collections(first: 5) { totalCount edges { node { id parent { id } permissions { view } organization { id }
		spaces(first: 5) { totalCount edges { node { id parent { id } revision { id } openComments
			changeRequests(first: 2) { totalCount } } } }
		collections(first: 5) { totalCount } } } }
	sites(first: 5) { totalCount edges { node { id sections { id siteSpaces { id space { id openComments } } } siteSpaces { id } } } } } } }`

// seedViewerOrganization adds an organization administered by admin, with
// two spaces (one in a collection), a change request, a comment, a member,
// a team, a custom field, an invite, a translation, a SAML provider and a
// site.
func seedViewerOrganization(t *testing.T, s *testkit.Server, admin testkit.User, i int) {
	t.Helper()
	ctx := context.Background()
	org := s.Client().Organization.Create().SetTitle(fmt.Sprintf("Viewer org %d", i)).SaveX(testkit.Fixture(ctx))
	s.AddMember(t, org.ID, admin, testkit.RoleOf(access.Admin))
	other := s.AddUsers(t, org.ID, fmt.Sprintf("Other%d-", i), 1, testkit.RoleOf(access.Edit))[0]
	vars := map[string]any{"org": org.ID}
	gql := func(q string) map[string]any { return s.MustGraphQL(t, admin.Token, q, vars) }
	col := dig(gql(`mutation($org: ID!) { createCollection(organizationId: $org, input: {title: "C"}) { id } }`), "createCollection", "id")
	sp := dig(gql(`mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "S"}) { id } }`), "createSpace", "id").(string)
	vars["col"] = col
	gql(`mutation($org: ID!, $col: ID!) { createSpace(organizationId: $org, input: {title: "In C", parent: $col}) { id } }`)
	cr := s.Call(t, "createChangeRequest", admin.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
	s.Call(t, "postCommentInChangeRequest", admin.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/comments", map[string]any{"body": map[string]any{"markdown": "Hi"}}, 200)
	vars["u"] = other.ID
	gql(`mutation($org: ID!, $u: String!) { createTeam(organizationId: $org, title: "Team", members: [$u]) { id } }`)
	gql(`mutation($org: ID!) { createCustomField(organizationId: $org, input: {name: "owner", type: text}) { id } }`)
	gql(`mutation($org: ID!) { createOrganizationInvite(organizationId: $org, input: {role: read}) { id } }`)
	gql(`mutation($org: ID!) { createTranslation(organizationId: $org, input: {title: "French"}) { id } }`)
	gql(`mutation($org: ID!) { createSAMLProvider(organizationId: $org, input: {label: "Okta"}) { id } }`)
	vars["sp"] = sp
	gql(`mutation($org: ID!, $sp: ID!) { createSite(organization: $org, input: {title: "Docs", spaces: [$sp]}) { id } }`)
}

// TestViewerOrganizationsStatements: what is read under each of the
// viewer's organizations costs the same for 1, 3 and 6 organizations.
func TestViewerOrganizationsStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		viewers := map[int]testkit.User{}
		for _, n := range []int{1, 3, 6} {
			admin, _ := s.NewUser(t, fmt.Sprintf("viewer-%d@example.com", n), "")
			for i := range n {
				seedViewerOrganization(t, s, admin, 10*n+i)
			}
			viewers[n] = admin
		}
		assertFlat(t, s, []int{1, 3, 6}, 5, func(n int) {
			trees := s.MustGraphQL(t, viewers[n].Token, viewerCollections, nil)
			for _, o := range dig(trees, "viewer", "organizations").([]any) {
				if dig(o, "collections", "edges", 0, "node", "spaces", "totalCount") != 1.0 || dig(o, "sites", "totalCount") != 1.0 {
					t.Fatalf("collections: %v", o)
				}
			}
			data := s.MustGraphQL(t, viewers[n].Token, viewerOrganizations, nil)
			orgs := dig(data, "viewer", "organizations").([]any)
			if len(orgs) != n {
				t.Fatalf("%d organizations, want %d", len(orgs), n)
			}
			for _, o := range orgs {
				if dig(o, "spaces", "totalCount") != 2.0 || dig(o, "changeRequests", "totalCount") != 1.0 || dig(o, "members", "totalCount") != 2.0 ||
					dig(o, "teams", "edges", 0, "node", "teamMembers", "totalCount") != 1.0 {
					t.Fatalf("organization: %v", o)
				}
			}
		})
	})
}

// TestPageCommentsStatements: the comments of a page of every space cost
// the same for 1, 5 and 20 spaces.
func TestPageCommentsStatements(t *testing.T) {
	// Every run reads its trees afresh: kept trees would save the first
	// run's page statements on the later ones (tree_cache_test.go).
	t.Setenv("FOLIO_TREE_CACHE_PAGES", "0")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		// Page.comments is not read inside page trees (their marshaller
		// writes plain fields); a page by path of each space is.
		const query = `query($org: ID!) { organization(id: $org) { spaces(first: 50) { edges { node { id
			first: page(path: "page-0") { id title comments(first: 2) { totalCount edges { node { body postedBy { id } replies(first: 1) { totalCount } } } } }
			second: page(path: "page-0/page-1") { id comments(first: 2, status: open) { totalCount } } } } } } }`
		tokens, orgs := map[int]string{}, map[int]string{}
		for _, n := range []int{1, 5, 20} {
			u, org := s.NewUser(t, fmt.Sprintf("pages-%d@example.com", n), fmt.Sprintf("Pages %d", n))
			tokens[n], orgs[n] = u.Token, org
			for i := range n {
				sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("S", i)}, 201).JSON(t)["id"].(string)
				rev := s.SeedPages(t, sp, 12)
				for _, p := range s.Client().Page.Query().Where(entpage.ChunkID(rev.ID), entpage.SlugIn("page-0", "page-1")).AllX(ctx) {
					s.Client().Comment.Create().SetSpaceID(sp).SetBody("On " + p.Title).SetPostedBy(u.ID).
						SetRevisionID(rev.ID).SetPageID(p.PageID).SetPageTitle(p.Title).ExecX(testkit.Fixture(ctx))
				}
			}
		}
		assertFlat(t, s, []int{1, 5, 20}, 5, func(n int) {
			data := s.MustGraphQL(t, tokens[n], query, map[string]any{"org": orgs[n]})
			commented := 0
			for _, e := range dig(data, "organization", "spaces", "edges").([]any) {
				commented += int(dig(e, "node", "first", "comments", "totalCount").(float64)) + int(dig(e, "node", "second", "comments", "totalCount").(float64))
			}
			if commented != 2*n {
				t.Fatalf("%d comments on pages, want %d", commented, 2*n)
			}
		})
	})
}
