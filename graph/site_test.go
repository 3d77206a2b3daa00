package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// siteTree is the nested read a front end makes: sites → sections → site
// spaces → space → revision → a three-level page tree, with groups and
// root site spaces.
const siteTree = `query($org: ID!) { organization(id: $org) { sites(first: 1) { totalCount edges { node { id title
	sections { id title path siteSpaces { id path space { id title revision { id pages { title path pages { title path pages { title path } } } } } } }
	sectionGroups { id title sections { title } } siteSpaces { path } } } } } }`

// seedSite makes an organization with one site of sections × perSection
// site spaces, each its own space with a tree of pages.
func seedSite(t testing.TB, s *testkit.Server, email string, sections, perSection, pages int) (testkit.User, string) {
	u, org := s.NewUser(t, email, "Org "+email)
	site := s.Call(t, "createSite", u.Token, "POST", "/v1/orgs/"+org+"/sites", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
	base := "/v1/orgs/" + org + "/sites/" + site
	for i := 0; i < sections; i++ {
		var section string
		for j := 0; j < perSection; j++ {
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("Space %d-%d", i, j)}, 201).JSON(t)["id"].(string)
			s.SeedPages(t, sp, pages)
			if j == 0 {
				section = s.Call(t, "addSectionToSite", u.Token, "POST", base+"/sections", map[string]any{"spaceId": sp, "title": fmt.Sprintf("Section %d", i)}, 201).JSON(t)["id"].(string)
				continue
			}
			s.Call(t, "addSpaceToSite", u.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": sp, "sectionId": section}, 201)
		}
	}
	s.Call(t, "addSectionGroupToSite", u.Token, "POST", base+"/section-groups", map[string]any{"title": "Group"}, 201)
	return u, org
}

// TestSiteTreeStatementCount: the nested site tree costs the same number of
// statements for 20 sections × 5 site spaces × 50-page trees as for 2 × 1,
// at most the query's depth + 2, and passes the cost limit; once the trees
// are kept, fewer, the same again for both.
func TestSiteTreeStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		counts := map[string][]int64{}
		for _, c := range []struct {
			name                       string
			sections, perSection, want int
		}{{"small", 2, 1, 2}, {"large", 20, 5, 100}} {
			u, org := seedSite(t, s, c.name+"@example.com", c.sections, c.perSection, 50)
			for run := 0; run < 3; run++ {
				before := s.Statements()
				data := s.MustGraphQL(t, u.Token, siteTree, map[string]any{"org": org})
				counts[c.name] = append(counts[c.name], s.Statements()-before)
				site := data["organization"].(map[string]any)["sites"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
				trees := 0
				for _, sec := range site["sections"].([]any) {
					for _, ss := range sec.(map[string]any)["siteSpaces"].([]any) {
						roots := ss.(map[string]any)["space"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)
						kids := roots[0].(map[string]any)["pages"].([]any)
						if len(roots) != 5 || len(kids) != 9 {
							t.Fatalf("tree: %d roots, %d children", len(roots), len(kids))
						}
						trees++
					}
				}
				if trees != c.want || len(site["sectionGroups"].([]any)) != 1 || len(site["siteSpaces"].([]any)) != 0 {
					t.Fatalf("%s: %d trees, want %d; site %v", c.name, trees, c.want, site["sectionGroups"])
				}
			}
		}
		// The first run builds the trees; later runs take them from the
		// trees kept across requests (no page statements), the same for
		// both sizes.
		want, warm := counts["small"][0], counts["small"][1]
		for _, n := range []string{"small", "large"} {
			if c := counts[n]; c[0] != want || c[1] != warm || c[2] != warm || warm >= want {
				t.Fatalf("statements for 2×1 %v, for 20×5 %v: want the same for both, fewer once the trees are kept", counts["small"], counts["large"])
			}
		}
		const depth = 11 // organization sites edges node sections siteSpaces space revision pages pages pages
		if want > depth+2 {
			t.Fatalf("%d statements, more than depth + 2 = %d", want, depth+2)
		}
		t.Logf("%d statements (%d with the trees kept) for a site tree of 2×1 and of 20×5 site spaces with 50-page trees", want, warm)
	})
}

// TestSitesGraphQL: the site workflow through GraphQL mutations, node(id:),
// the space of a site space the caller cannot read, and refusals.
func TestSitesGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		bob, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))
		mk := func(tok, org, title string) string {
			return s.Call(t, "createSpace", tok, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
		}
		guides, api := mk(alice.Token, acme, "Guides"), mk(alice.Token, acme, "API")
		bobsSpace := mk(bob.Token, bobs, "Bobs")

		data := s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $spaces: [ID!]) { createSite(organization: $org, input: {title: "Docs", spaces: $spaces, visibility: share_link}) {
			id type visibility published siteSpaceCount siteSpaces { path default title space { id } } } }`, map[string]any{"org": acme, "spaces": []string{guides, api}})
		site := data["createSite"].(map[string]any)
		id := site["id"].(string)
		if site["type"] != "basic" || site["visibility"] != "share_link" || site["siteSpaceCount"] != 2.0 ||
			len(site["siteSpaces"].([]any)) != 2 || site["siteSpaces"].([]any)[0].(map[string]any)["default"] != true {
			t.Fatalf("created: %v", site)
		}
		sec := s.MustGraphQL(t, alice.Token, `mutation($site: ID!, $space: ID!) { addSiteSection(site: $site, space: $space, title: "Reference") { id default path siteSpaces { path } } }`,
			map[string]any{"site": id, "space": api})["addSiteSection"].(map[string]any)
		if sec["default"] != true || len(sec["siteSpaces"].([]any)) != 3 {
			t.Fatalf("section: %v", sec)
		}
		secID := sec["id"].(string)
		grp := s.MustGraphQL(t, alice.Token, `mutation($site: ID!, $sec: ID!) { addSiteSectionGroup(site: $site, title: "All", sections: [$sec]) { id sections { id } } }`,
			map[string]any{"site": id, "sec": secID})["addSiteSectionGroup"].(map[string]any)
		if len(grp["sections"].([]any)) != 1 {
			t.Fatalf("group: %v", grp)
		}
		s.MustGraphQL(t, alice.Token, `mutation($site: ID!, $schema: Any!) { updateSiteAdaptiveSchema(site: $site, jsonSchema: $schema) }`,
			map[string]any{"site": id, "schema": map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"beta": map[string]any{"type": "boolean", "description": "Beta"}}}})
		if _, errs := s.GraphQL(t, alice.Token, `mutation($id: ID!) { updateSiteSection(id: $id, input: {condition: "visitor.claims.gamma"}) { id } }`,
			map[string]any{"id": secID}); len(errs) == 0 || !strings.Contains(errs[0].Message, "column") {
			t.Fatalf("unknown claim: %v", errs)
		}
		upd := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { updateSiteSection(id: $id, input: {condition: "visitor.claims.beta", icon: "book"}) { condition icon sectionGroup { title } } }`,
			map[string]any{"id": secID})["updateSiteSection"].(map[string]any)
		if upd["condition"] != "visitor.claims.beta" || upd["sectionGroup"].(map[string]any)["title"] != "All" {
			t.Fatalf("updated section: %v", upd)
		}
		pub := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { publishSite(id: $id) { published } }`, map[string]any{"id": id})
		if pub["publishSite"].(map[string]any)["published"] != true {
			t.Fatalf("publish: %v", pub)
		}
		// node(id:) for each type; carol reads, bob does not.
		for _, typ := range []string{"Site", "SiteSection", "SiteSectionGroup"} {
			nid := id
			switch typ {
			case "SiteSection":
				nid = secID
			case "SiteSectionGroup":
				nid = grp["id"].(string)
			}
			n := s.MustGraphQL(t, carol.Token, `query($id: ID!) { node(id: $id) { __typename } }`, map[string]any{"id": nid})
			if n["node"].(map[string]any)["__typename"] != typ {
				t.Fatalf("node %s: %v", typ, n)
			}
			if _, errs := s.GraphQL(t, bob.Token, `query($id: ID!) { node(id: $id) { __typename } }`, map[string]any{"id": nid}); len(errs) == 0 {
				t.Fatalf("bob read %s", typ)
			}
		}
		// Refusals: a reader may not change, a stranger does not see, a space of another organization is not found.
		for _, c := range []struct {
			token, query, code string
		}{
			{carol.Token, `mutation { publishSite(id: "` + id + `") { id } }`, "FORBIDDEN"},
			{bob.Token, `mutation { publishSite(id: "` + id + `") { id } }`, "NOT_FOUND"},
			{bob.Token, `{ site(id: "` + id + `") { id } }`, "NOT_FOUND"},
			{alice.Token, `mutation { addSiteSpace(site: "` + id + `", space: "` + bobsSpace + `") { id } }`, "NOT_FOUND"},
			{alice.Token, `mutation { updateSite(id: "` + id + `", input: {basename: "Not A Slug"}) { id } }`, "BAD_USER_INPUT"},
			{alice.Token, `mutation { deleteSiteSection(id: "` + secID + `") { __typename } }`, ""},
		} {
			_, errs := s.GraphQL(t, c.token, c.query, nil)
			if c.code == "" {
				continue
			}
			if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs[0]), c.code) {
				t.Errorf("%s: errors %v, want %s", c.query, errs, c.code)
			}
		}
		// Share links, the published view, the signing key and customization.
		link := s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { id key active } }`,
			map[string]any{"site": id})["createSiteShareLink"].(map[string]any)
		if link["active"] != true {
			t.Fatalf("link: %v", link)
		}
		const published = `query($id: ID!, $key: String) { publishedSite(id: $id, shareKey: $key) { id sections { title } } }`
		if got := s.MustGraphQL(t, bob.Token, published, map[string]any{"id": id, "key": link["key"]}); got["publishedSite"].(map[string]any)["id"] != id {
			t.Fatalf("published with the key: %v", got)
		}
		// The audience sees the site's spaces as published content.
		tree := s.MustGraphQL(t, bob.Token, `query($id: ID!, $key: String) { publishedSite(id: $id, shareKey: $key) { sections { siteSpaces { title space { id } } } } }`,
			map[string]any{"id": id, "key": link["key"]})["publishedSite"].(map[string]any)
		for _, sec := range tree["sections"].([]any) {
			for _, ss := range sec.(map[string]any)["siteSpaces"].([]any) {
				if ss.(map[string]any)["space"] == nil {
					t.Fatalf("the audience does not see a space: %v", tree)
				}
			}
		}
		if _, errs := s.GraphQL(t, bob.Token, published, map[string]any{"id": id, "key": "wrong"}); len(errs) == 0 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("wrong key: %v", errs)
		}
		s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { updateSiteShareLink(id: $id, active: false) { active } }`, map[string]any{"id": link["id"]})
		if _, errs := s.GraphQL(t, bob.Token, published, map[string]any{"id": id, "key": link["key"]}); len(errs) == 0 {
			t.Fatal("an inactive link opened the site")
		}
		if _, errs := s.GraphQL(t, carol.Token, `query($id: ID!) { site(id: $id) { shareLinks { id } } }`, map[string]any{"id": id}); len(errs) == 0 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("a reader listed share links: %v", errs)
		}
		auth := s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { updateSitePublishingAuth(site: $site, fallbackURL: "https://acme.com/in") { privateKey fallbackURL } }`,
			map[string]any{"site": id})["updateSitePublishingAuth"].(map[string]any)
		again := s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { regenerateSitePublishingAuth(site: $site) { privateKey fallbackURL } }`,
			map[string]any{"site": id})["regenerateSitePublishingAuth"].(map[string]any)
		if auth["fallbackURL"] != "https://acme.com/in" || again["privateKey"] == auth["privateKey"] || again["fallbackURL"] != auth["fallbackURL"] {
			t.Fatalf("auth %v, regenerated %v", auth, again)
		}
		// A partial customization merges onto the stored one (GitBook 0.202.0's input).
		if c := s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { updateSiteCustomization(site: $site, customization: {title: "Only"}) }`,
			map[string]any{"site": id})["updateSiteCustomization"].(map[string]any); c["title"] != "Only" || c["styling"] == nil {
			t.Fatalf("partial customization: %v", c)
		}
		if _, errs := s.GraphQL(t, alice.Token, `mutation($site: ID!) { updateSiteCustomization(site: $site, customization: {themes: {default: "sepia"}}) }`,
			map[string]any{"site": id}); len(errs) == 0 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(errs[0].Message, "themes.default") {
			t.Fatalf("bad customization: %v", errs)
		}
		cust := s.MustGraphQL(t, carol.Token, `query($id: ID!) { site(id: $id) { customization adaptiveSchema } }`, map[string]any{"id": id})["site"].(map[string]any)
		if cust["customization"].(map[string]any)["styling"] == nil || cust["adaptiveSchema"].(map[string]any)["properties"].(map[string]any)["beta"] == nil {
			t.Fatalf("customization and schema: %v", cust)
		}

		// Moves, group membership and site spaces through GraphQL.
		sec2 := s.MustGraphQL(t, alice.Token, `mutation($site: ID!, $space: ID!) { addSiteSection(site: $site, space: $space, title: "Guides") { id } }`,
			map[string]any{"site": id, "space": guides})["addSiteSection"].(map[string]any)["id"].(string)
		s.MustGraphQL(t, alice.Token, `mutation($g: ID!, $sec: ID!) { addSectionToGroup(group: $g, section: $sec) { id } }`, map[string]any{"g": grp["id"], "sec": sec2})
		s.MustGraphQL(t, alice.Token, `mutation($id: ID!, $other: ID!) { moveSiteSection(id: $id, position: {before: $other}) { id } }`, map[string]any{"id": sec2, "other": secID})
		order := s.MustGraphQL(t, carol.Token, `query($id: ID!) { site(id: $id) { sections { id } sectionGroups { sections { id } } } }`, map[string]any{"id": id})["site"].(map[string]any)
		if got := order["sectionGroups"].([]any)[0].(map[string]any)["sections"].([]any); len(got) != 2 || got[0].(map[string]any)["id"] != sec2 {
			t.Fatalf("group order after the move: %v", got)
		}
		if done := s.MustGraphQL(t, alice.Token, `mutation($g: ID!, $sec: ID!) { removeSectionFromGroup(group: $g, section: $sec) }`,
			map[string]any{"g": grp["id"], "sec": sec2}); done["removeSectionFromGroup"] != true {
			t.Fatalf("remove: %v", done)
		}
		s.MustGraphQL(t, alice.Token, `mutation($g: ID!) { moveSiteSectionGroup(id: $g, position: {}) { id } }`, map[string]any{"g": grp["id"]})
		order = s.MustGraphQL(t, carol.Token, `query($id: ID!) { site(id: $id) { sections { id } } }`, map[string]any{"id": id})["site"].(map[string]any)
		if got := order["sections"].([]any); len(got) != 2 || got[0].(map[string]any)["id"] != sec2 || got[1].(map[string]any)["id"] != secID {
			t.Fatalf("sections after moving the group to the end: %v", got)
		}
		ss := s.MustGraphQL(t, alice.Token, `mutation($site: ID!, $space: ID!, $sec: ID) { addSiteSpace(site: $site, space: $space, section: $sec) { id path default section { id } } }`,
			map[string]any{"site": id, "space": api, "sec": secID})["addSiteSpace"].(map[string]any)
		if ss["section"].(map[string]any)["id"] != secID || ss["default"] != false {
			t.Fatalf("site space: %v", ss)
		}
		s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { updateSiteSpace(id: $id, input: {path: "api-again", condition: "visitor.claims.beta"}) { path } }`, map[string]any{"id": ss["id"]})
		first := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { moveSiteSpace(id: $id, position: {}) { id } }`, map[string]any{"id": ss["id"]})
		if first["moveSiteSpace"].(map[string]any)["id"] != ss["id"] {
			t.Fatalf("move: %v", first)
		}
		if done := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { deleteSiteSpace(id: $id) }`, map[string]any{"id": ss["id"]}); done["deleteSiteSpace"] != true {
			t.Fatalf("delete site space: %v", done)
		}
		// A space the caller cannot read: its site space shows with space null.
		s.Call(t, "updateSpaceById", alice.Token, "PATCH", "/v1/spaces/"+guides, map[string]any{"defaultLevel": nil}, 200)
		hidden := s.MustGraphQL(t, carol.Token, `query($id: ID!) { site(id: $id) { sections { siteSpaces { title space { id } } } } }`, map[string]any{"id": id})
		nulls := 0
		for _, sec := range hidden["site"].(map[string]any)["sections"].([]any) {
			for _, ss := range sec.(map[string]any)["siteSpaces"].([]any) {
				if m := ss.(map[string]any); m["space"] == nil && m["title"] == "" {
					nulls++
				}
			}
		}
		if nulls != 2 { // guides is in both sections
			t.Fatalf("%d hidden site spaces, want 2: %v", nulls, hidden)
		}
		// Unpublished: the audience gets NOT_FOUND.
		s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { updateSite(id: $id, input: {visibility: public}) { id } }`, map[string]any{"id": id})
		s.MustGraphQL(t, bob.Token, published, map[string]any{"id": id})
		s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { unpublishSite(id: $id) { published } }`, map[string]any{"id": id})
		if _, errs := s.GraphQL(t, bob.Token, published, map[string]any{"id": id}); len(errs) == 0 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("unpublished: %v", errs)
		}

		del := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { deleteSite(id: $id) }`, map[string]any{"id": id})
		if del["deleteSite"] != true {
			t.Fatalf("delete: %v", del)
		}
		if _, errs := s.GraphQL(t, alice.Token, `query($id: ID!) { site(id: $id) { id } }`, map[string]any{"id": id}); len(errs) == 0 {
			t.Fatal("deleted site still read")
		}
	})
}
