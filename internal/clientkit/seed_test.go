package clientkit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// fixture is what the kit reads (kit/server.mjs: loadFixture): where the
// server is, whose session the clients are, and what they run.
type fixture struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	// Runs go through one client each (one cache), in order; then each is
	// read back from that cache.
	Runs      []run `json:"runs"`
	Persisted run   `json:"persisted"`
	Deferred  run   `json:"deferred"`
	// Subscription: the space the subscription checks watch (and change),
	// and its organization (whose latest event they resume after).
	Subscription struct {
		Space        string `json:"space"`
		Organization string `json:"organization"`
	} `json:"subscription"`
}

// run is one operation of queries/ with its variables, named for what a
// front end would be showing.
type run struct {
	Name      string         `json:"name"`
	Operation string         `json:"operation"`
	Variables map[string]any `json:"variables"`
}

// seed builds what the runs read, through the APIs as a team would:
//   - Acme Docs (admin Ada, the kit's viewer) and Beta Labs (Ada reads
//     there), sharing members with other roles in each;
//   - Handbook: pages merged from a first change request, and an open change
//     request that rewrites the install page, with comments on both;
//   - Reference (live edits): ten pages sharing the headings Overview, Setup
//     and Troubleshooting, all matching "widget";
//   - SDKs with an open change request, and a site with sections (Handbook;
//     Reference and SDKs), one of them in a section group.
func seed(t *testing.T, s *testkit.Server) fixture {
	t.Helper()
	ada, acme := s.NewUser(t, "ada@acme.test", "Acme Docs")
	ben, beta := s.NewUser(t, "ben@beta.test", "Beta Labs")
	cara, _ := s.NewUser(t, "cara@acme.test", "")
	s.AddMember(t, beta, ada, testkit.RoleOf(access.Read))
	s.AddMember(t, acme, ben, testkit.RoleOf(access.Edit))
	s.AddMember(t, acme, cara, testkit.RoleOf(access.Review))
	s.AddMember(t, beta, cara, testkit.RoleOf(access.Comment))
	s.AddUsers(t, acme, "Writer", 4, testkit.RoleOf(access.Edit))
	s.AddUsers(t, beta, "Tester", 3, testkit.RoleOf(access.Read))
	g := gql{s: s, t: t}

	// Handbook: first pages through a merged change request.
	handbook := g.do(ada.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook", emoji: "📘"}) { id } }`,
		vars("org", acme), "createSpace", "id")
	first := g.do(ada.Token, `mutation($sp: ID!) { createChangeRequest(spaceId: $sp, subject: "First pages") { id } }`,
		vars("sp", handbook), "createChangeRequest", "id")
	g.do(ada.Token, `mutation($sp: ID!, $cr: String!, $changes: [ContentChangeInput!]!) {
		updateChangeRequestContent(spaceId: $sp, id: $cr, changes: $changes) { id } }`,
		vars("sp", handbook, "cr", first, "changes", []map[string]any{
			page("start", "", "# Getting started\n\nWhat Folio is and how to run it.\n"),
			page("install", "start", "# Install\n\nDownload the binary for your platform and run `folio serve`.\n\n## Requirements\n\nA 64-bit Linux, macOS or Windows.\n"),
			page("configure", "start", "# Configure\n\nSet `FOLIO_ADDR` and `DATABASE_URL`.\n"),
			page("guides", "", "# Guides\n\nHow-tos for writers.\n"),
			page("write", "guides", "# Writing pages\n\nPages are markdown.\n"),
			page("publish", "guides", "# Publishing\n\nPublish a space as a site.\n"),
		}), "updateChangeRequestContent", "id")
	g.do(ada.Token, `mutation($sp: ID!, $cr: String!) { mergeChangeRequest(spaceId: $sp, id: $cr) { result } }`,
		vars("sp", handbook, "cr", first), "mergeChangeRequest", "result")
	install := pageID(t, s, ada.Token, handbook, "getting-started/install")

	// An open change request rewrites the install page (same page id, other text).
	rewrite := g.do(ben.Token, `mutation($sp: ID!) { createChangeRequest(spaceId: $sp, subject: "Rewrite the install guide") { id } }`,
		vars("sp", handbook), "createChangeRequest", "id")
	g.do(ben.Token, `mutation($sp: ID!, $cr: String!, $changes: [ContentChangeInput!]!) {
		updateChangeRequestContent(spaceId: $sp, id: $cr, changes: $changes) { id } }`,
		vars("sp", handbook, "cr", rewrite, "changes", []map[string]any{
			{"operation": "update_page", "page": install, "title": "Installing Folio",
				"markdown": "# Installing Folio\n\nUse the package for your distribution, or the container image.\n\n## Requirements\n\nAny 64-bit system with 512 MB of memory.\n"},
			page("upgrade", "", "# Upgrading\n\nStop the server, replace the binary, start it again.\n"),
		}), "updateChangeRequestContent", "id")
	g.thread(ada.Token, cara.Token, handbook, "", install, "Is this still accurate for Windows?", "Yes, checked last week.")
	g.thread(cara.Token, ada.Token, handbook, rewrite, install, "Much clearer, thanks.", "Agreed; merge when ready.")
	g.thread(ada.Token, ben.Token, handbook, rewrite, "", "Please add the container image tag.", "Added in the requirements.")

	// Reference: ten pages whose sections share their heading anchors.
	reference := g.do(ada.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Reference", editMode: live}) { id } }`,
		vars("org", acme), "createSpace", "id")
	var widgets []map[string]any
	for i := 1; i <= 10; i++ {
		widgets = append(widgets, page(fmt.Sprintf("w%d", i), "", fmt.Sprintf(
			"# Widget %[1]d\n\n## Overview\n\nWidget %[1]d renders the %[2]s block.\n\n## Setup\n\nEnable widget %[1]d in the %[2]s settings.\n\n"+
				"## Troubleshooting\n\nWhen widget %[1]d shows nothing, reload the %[2]s page.\n",
			i, []string{"table", "chart", "map", "list", "card", "form", "menu", "tab", "grid", "feed"}[i-1])))
	}
	g.do(ada.Token, `mutation($sp: ID!, $changes: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $sp, changes: $changes) { id } }`,
		vars("sp", reference, "changes", widgets), "updateSpaceContent", "id")
	limits := g.do(ben.Token, `mutation($sp: ID!) { createChangeRequest(spaceId: $sp, subject: "Document widget limits") { id } }`,
		vars("sp", reference), "createChangeRequest", "id")
	g.thread(ben.Token, ada.Token, reference, limits, "", "Which limits apply to widget 3?", "Those of the map block.")

	// SDKs and the site.
	sdks := g.do(ada.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "SDKs", emoji: "🧰", editMode: live}) { id } }`,
		vars("org", acme), "createSpace", "id")
	g.do(ada.Token, `mutation($sp: ID!, $changes: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $sp, changes: $changes) { id } }`,
		vars("sp", sdks, "changes", []map[string]any{page("js", "", "# JavaScript\n\nnpm install @acme/folio.\n")}), "updateSpaceContent", "id")
	goSDK := g.do(cara.Token, `mutation($sp: ID!) { createChangeRequest(spaceId: $sp, subject: "Add the Go SDK") { id } }`,
		vars("sp", sdks), "createChangeRequest", "id")
	g.thread(ada.Token, cara.Token, sdks, goSDK, "", "Can we keep the examples short?", "Shortened them.")

	site := s.Call(t, "createSite", ada.Token, "POST", "/v1/orgs/"+acme+"/sites", map[string]any{"title": "Acme Docs"}, 201).JSON(t)["id"].(string)
	base := "/v1/orgs/" + acme + "/sites/" + site
	s.Call(t, "addSectionToSite", ada.Token, "POST", base+"/sections", map[string]any{"spaceId": handbook, "title": "Guides"}, 201)
	apiSection := s.Call(t, "addSectionToSite", ada.Token, "POST", base+"/sections", map[string]any{"spaceId": reference, "title": "API"}, 201).JSON(t)["id"].(string)
	s.Call(t, "addSpaceToSite", ada.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": sdks, "sectionId": apiSection}, 201)
	g.do(ada.Token, `mutation($site: ID!, $sections: [ID!]) { addSiteSectionGroup(site: $site, title: "Developers", sections: $sections) { id } }`,
		vars("site", site, "sections", []string{apiSection}), "addSiteSectionGroup", "id")

	pageVars := vars("space", handbook, "page", install)
	f := fixture{
		URL:   s.URL + "/graphql",
		Token: ada.Token,
		Runs: []run{
			{"a space's page tree and its install page", "SpacePageQuery", pageVars},
			{"the install page in the open change request", "ChangeRequestPageQuery", vars("space", handbook, "changeRequest", rewrite, "page", install)},
			{"Acme's members (Ada is an admin there)", "OrganizationMembersQuery", vars("organization", acme)},
			{"Beta's members (Ada reads there)", "OrganizationMembersQuery", vars("organization", beta)},
			{"search results whose sections share heading anchors", "SearchQuery", vars("space", reference, "query", "widget")},
			{"the dashboard: spaces, change requests, comments, replies", "DashboardQuery", vars("organization", acme)},
			{"the site with its sections and site spaces", "SiteQuery", vars("site", site)},
		},
		Persisted: run{"the page view as a persisted query", "SpacePageQuery", pageVars},
		Deferred:  run{"the page view with its body deferred", "DeferredPageQuery", pageVars},
	}
	f.Subscription.Space, f.Subscription.Organization = handbook, acme
	return f
}

// gql runs the seed's GraphQL mutations, failing the test on any error.
type gql struct {
	s *testkit.Server
	t *testing.T
}

// do runs a mutation and returns the string at path in its answer.
func (g gql) do(token, query string, v map[string]any, path ...string) string {
	g.t.Helper()
	var cur any = g.s.MustGraphQL(g.t, token, query, v)
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			g.t.Fatalf("%s: no %s in the answer", query, strings.Join(path, "."))
		}
		cur = m[k]
	}
	out, ok := cur.(string)
	if !ok {
		g.t.Fatalf("%s: %s is %v, want a string", query, strings.Join(path, "."), cur)
	}
	return out
}

// thread posts a comment by one user (on a page when pageID is set, in a
// change request when cr is set) and a reply by another.
func (g gql) thread(author, replier, space, cr, pageID, body, reply string) {
	g.t.Helper()
	input := map[string]any{"markdown": body}
	if pageID != "" {
		input["page"] = pageID
	}
	v := vars("sp", space, "input", input)
	if cr != "" {
		v["cr"] = cr
	}
	comment := g.do(author, `mutation($sp: ID!, $cr: String, $input: PostCommentInput!) {
		postComment(spaceId: $sp, changeRequestId: $cr, input: $input) { id } }`, v, "postComment", "id")
	v = vars("sp", space, "comment", comment, "md", reply)
	if cr != "" {
		v["cr"] = cr
	}
	g.do(replier, `mutation($sp: ID!, $cr: String, $comment: ID!, $md: String!) {
		postCommentReply(spaceId: $sp, changeRequestId: $cr, commentId: $comment, markdown: $md) { id } }`, v, "postCommentReply", "id")
}

// page is an insert_page change named ref, under the page named into
// (root when empty).
func page(ref, into, markdown string) map[string]any {
	c := map[string]any{"operation": "insert_page", "ref": ref, "markdown": markdown}
	if into != "" {
		c["into"] = into
	}
	return c
}

// pageID is the GitBook id of the page at path in the space's current
// content, read through REST: REST ids stay GitBook's whatever GraphQL
// makes of Page.id.
func pageID(t *testing.T, s *testkit.Server, token, space, path string) string {
	t.Helper()
	p := s.Call(t, "getPageByPath", token, "GET", "/v1/spaces/"+space+"/content/path/"+path, nil, 200).JSON(t)
	id, _ := p["id"].(string)
	if id == "" {
		t.Fatalf("page %s: no id in %v", path, p)
	}
	return id
}

func vars(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
