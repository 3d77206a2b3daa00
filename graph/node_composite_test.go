package graph_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/testkit"
)

// compositeFixtures are objects of the Node types added with global ids:
// those that live inside a parent (composite ids) and the two whose own ids
// were already unique (OpenAPISpecVersion, SiteShareLink). Each comes with
// the query by which its own area shows it, and the id that query answers.
func compositeFixtures(t *testing.T, s *testkit.Server, alice testkit.User, acme string) []nodeFixture {
	t.Helper()
	must := func(query string, vars map[string]any) map[string]any {
		t.Helper()
		return s.MustGraphQL(t, alice.Token, query, vars)
	}
	space := dig(must(`mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook", editMode: live}) { id } }`,
		map[string]any{"org": acme}), "createSpace", "id").(string)
	edited := must(`mutation($s: ID!, $c: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $s, changes: $c) { revision { id pages { id pageId } files { id fileId } } } }`,
		map[string]any{"s": space, "c": []any{
			map[string]any{"operation": "insert_page", "title": "Install", "markdown": "# Install\n\nRun the zebra installer.\n\n## Upgrade\n\nThe zebra upgrade."},
			map[string]any{"operation": "insert_files", "files": []any{map[string]any{"name": "a.txt", "contentType": "text/plain", "base64": "aGVsbG8="}}},
		}})
	rev := dig(edited, "updateSpaceContent", "revision", "id").(string)
	page := dig(edited, "updateSpaceContent", "revision", "pages", 0).(map[string]any)
	file := dig(edited, "updateSpaceContent", "revision", "files", 0).(map[string]any)
	revVars := map[string]any{"s": space, "r": rev, "p": page["pageId"]}

	search := dig(must(`query($s: ID!) { space(id: $s) { search(query: "zebra") { edges { node { sections { id } } } } } }`,
		map[string]any{"s": space}), "space", "search", "edges", 0, "node", "sections", 0, "id").(string)

	doc := must(`query($s: ID!, $p: ID!) { space(id: $s) { revision { page(id: $p) { document } } } }`, revVars)
	key := dig(doc, "space", "revision", "page", "document", "nodes", 1, "key").(string)
	target := dig(must(`mutation($s: ID!, $p: ID!, $k: String!) { postComment(spaceId: $s, input: {markdown: "Hi", page: $p, node: $k}) { id target { page { id } node { id } } } }`,
		map[string]any{"s": space, "p": page["pageId"], "k": key}), "postComment").(map[string]any)
	comment := target["id"].(string)

	saml := dig(must(`mutation($org: ID!, $cert: String!) { createSAMLProvider(organizationId: $org, input: {label: "Okta", ssoURL: "https://idp.example.com/sso", entityID: "idp", certificate: $cert}) { id } }`,
		map[string]any{"org": acme, "cert": selfSignedCertificate(t)}), "createSAMLProvider", "id").(string)
	login := dig(must(`query($org: ID!) { organization(id: $org) { ssoProviders { id providerId } } }`, map[string]any{"org": acme}),
		"organization", "ssoProviders", 0).(map[string]any)
	if login["providerId"] != saml {
		t.Fatalf("ssoProviders: %v, want provider %s", login, saml)
	}

	spec := dig(must(`mutation($org: ID!) { createOpenAPISpec(organizationId: $org, slug: "pets", source: {text: "openapi: 3.0.0"}) { id } }`,
		map[string]any{"org": acme}), "createOpenAPISpec", "id").(string)
	// Versions come from background processing, which these servers do not
	// run: one is written as the processing would.
	version := s.Client().OpenAPISpecVersion.Create().SetSpecID(spec).SetHash("h").SetRoot("spec.yaml").SetFormat("yaml").
		SetFiles(map[string]string{"spec.yaml": "openapi: 3.0.0"}).SetPublicKey(fmt.Sprint("k", spec)).SaveX(testkit.Fixture(context.Background()))
	s.Client().OpenAPISpec.UpdateOneID(spec).SetLastVersionID(version.ID).ExecX(testkit.Fixture(context.Background()))

	site := dig(must(`mutation($org: ID!, $s: ID!) { createSite(organization: $org, input: {title: "Docs", visibility: share_link, spaces: [$s]}) { id } }`,
		map[string]any{"org": acme, "s": space}), "createSite", "id").(string)
	siteVars := map[string]any{"site": site}
	publishedPage := dig(must(`query($site: ID!) { site(id: $site) { siteSpaces { page { id } } } }`, siteVars),
		"site", "siteSpaces", 0, "page", "id").(string)
	link := dig(must(`mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { id } }`,
		map[string]any{"site": site}), "createSiteShareLink", "id").(string)
	redirect := dig(must(`mutation($site: ID!) { createSiteRedirect(site: $site, input: {source: "/old", destination: {kind: external, url: "https://example.com/"}}) { id } }`,
		siteVars), "createSiteRedirect", "id").(string)

	return []nodeFixture{
		{"Page", page["id"].(string), `query($s: ID!, $p: ID!) { space(id: $s) { revision { page(id: $p) { id } } } }`, revVars},
		{"File", file["id"].(string), `query($s: ID!) { space(id: $s) { revision { files { id } } } }`, revVars},
		{"Member", model.NodeID(model.MemberNode, acme, alice.ID), `query($org: ID!) { organization(id: $org) { members { edges { node { id } } } } }`, map[string]any{"org": acme}},
		{"SearchSection", search, `query($s: ID!) { space(id: $s) { search(query: "zebra") { edges { node { sections { id } } } } } }`, revVars},
		{"SSOProviderLogin", login["id"].(string), `query($org: ID!) { organization(id: $org) { ssoProviders { id } } }`, map[string]any{"org": acme}},
		{"CommentPageTarget", dig(target, "target", "page", "id").(string), `query($s: ID!, $c: ID!) { space(id: $s) { comment(id: $c) { target { page { id } } } } }`, map[string]any{"s": space, "c": comment}},
		{"CommentNodeTarget", dig(target, "target", "node", "id").(string), `query($s: ID!, $c: ID!) { space(id: $s) { comment(id: $c) { target { node { id } } } } }`, map[string]any{"s": space, "c": comment}},
		{"OpenAPISpecVersion", version.ID, `query($org: ID!) { openAPISpec(organizationId: $org, slug: "pets") { lastVersion { id } } }`, map[string]any{"org": acme}},
		{"SiteShareLink", link, `query($site: ID!) { site(id: $site) { shareLinks { id } } }`, map[string]any{"site": site}},
		{"SiteRedirect", redirect, `query($site: ID!) { site(id: $site) { redirects { edges { node { id } } } } }`, siteVars},
		{"PublishedPage", publishedPage, `query($site: ID!) { site(id: $site) { siteSpaces { page { id } } } }`, siteVars},
	}
}

// TestNodeCompositeTypes: node(id:) finds every object of the types above
// by the id its own query answers, for a member who can see it, and
// nothing for a stranger; a composite id costs no lookup statement, so node
// costs no more than the object's own query.
func TestNodeCompositeTypes(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, _ := s.NewUser(t, "bob@bobs.io", "Bobs")
		const node = `query($id: ID!) { node(id: $id) { __typename id } }`
		for _, f := range compositeFixtures(t, s, alice, acme) {
			t.Run(f.typename, func(t *testing.T) {
				got := s.MustGraphQL(t, alice.Token, node, map[string]any{"id": f.id})["node"].(map[string]any)
				if got["__typename"] != f.typename || got["id"] != f.id {
					t.Fatalf("node(%s): %v", f.id, got)
				}
				data, errs := s.GraphQL(t, bob.Token, node, map[string]any{"id": f.id})
				if data["node"] != nil || len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
					t.Errorf("node(%s) for a stranger: %v %+v", f.id, data, errs)
				}
				if _, _, composite := model.ParseNodeID(f.id); !composite {
					return
				}
				before := s.Statements()
				s.MustGraphQL(t, alice.Token, f.own, f.vars)
				own := s.Statements() - before
				before = s.Statements()
				s.MustGraphQL(t, alice.Token, node, map[string]any{"id": f.id})
				if viaNode := s.Statements() - before; viaNode > own {
					t.Errorf("node(%s) cost %d statements, its own query %d", f.typename, viaNode, own)
				}
			})
		}
	})
}

// TestNodesMixedIDs: nodes(ids:) answers in order, stored and composite ids
// alike, with null and a NOT_FOUND error at the index of each id the
// caller cannot see, and the rest of the answer intact. One statement
// finds the types of all stored ids: asking for ten spaces costs what
// asking for one does.
func TestNodesMixedIDs(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
		var spaces []any
		for i := range 10 {
			id := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $t: String!) { createSpace(organizationId: $org, input: {title: $t}) { id } }`,
				map[string]any{"org": acme, "t": fmt.Sprint("Space ", i)}), "createSpace", "id").(string)
			spaces = append(spaces, id)
		}
		member := model.NodeID(model.MemberNode, acme, alice.ID)
		hidden := model.NodeID(model.MemberNode, bobs, bob.ID)
		const query = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Space { title } ... on Member { role } } }`
		data, errs := s.GraphQL(t, alice.Token, query, map[string]any{"ids": []any{spaces[0], "no-such-id", member, hidden, acme}})
		got := data["nodes"].([]any)
		if len(got) != 5 || dig(got, 0, "title") != "Space 0" || got[1] != nil || dig(got, 2, "role") != "admin" || got[3] != nil ||
			dig(got, 4, "__typename") != "Organization" {
			t.Fatalf("nodes: %v", got)
		}
		if len(errs) != 2 || errs[0].Extensions["code"] != "NOT_FOUND" || fmt.Sprint(errs[0].Path) != "[nodes 1]" || fmt.Sprint(errs[1].Path) != "[nodes 3]" {
			t.Fatalf("errors: %+v", errs)
		}

		// Statements beyond authentication's.
		base := s.Statements()
		s.MustGraphQL(t, alice.Token, `{ __typename }`, nil)
		auth := s.Statements() - base
		cost := func(ids []any) int64 {
			before := s.Statements() + auth
			s.MustGraphQL(t, alice.Token, `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Space { title } } }`, map[string]any{"ids": ids})
			return s.Statements() - before
		}
		one, ten := cost(spaces[:1]), cost(spaces)
		t.Logf("nodes of 1 space: %d statements; of 10: %d", one, ten)
		if one != ten || one > 2 {
			t.Errorf("nodes cost %d statements for 1 space and %d for 10: want the same, at most 2 (the lookup and the spaces)", one, ten)
		}

		tooMany := make([]any, 101)
		for i := range tooMany {
			tooMany[i] = spaces[0]
		}
		if _, errs := s.GraphQL(t, alice.Token, query, map[string]any{"ids": tooMany}); len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Errorf("101 ids: %+v", errs)
		}
	})
}
