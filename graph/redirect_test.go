package graph_test

import (
	"context"
	"testing"

	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// The GraphQL side of site redirects: the same rules and answers as REST.
func TestSiteRedirectsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		rita, _ := s.NewUser(t, "rita@acme.com", "")
		s.AddMember(t, acme, rita, testkit.RoleOf(access.Review))
		bob, _ := s.NewUser(t, "bob@bobs.io", "Bobs")
		space := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Docs"}) { id } }`,
			map[string]any{"org": acme}), "createSpace", "id").(string)
		s.SeedPages(t, space, 2)
		site := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { createSite(organization: $org, input: {title: "Docs"}) { id } }`,
			map[string]any{"org": acme}), "createSite", "id").(string)
		ss := dig(s.MustGraphQL(t, alice.Token, `mutation($site: ID!, $s: ID!) { addSiteSpace(site: $site, space: $s) { id } }`,
			map[string]any{"site": site, "s": space}), "addSiteSpace", "id").(string)
		s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { publishSite(id: $site) { id } }`, map[string]any{"site": site})

		const create = `mutation($site: ID!, $in: CreateSiteRedirectInput!) { createSiteRedirect(site: $site, input: $in) {
			id source permanent draft captureWildcard destination { kind siteSpaceId pageId url } site { id } } }`
		in := map[string]any{"source": "/old/*", "permanent": true, "captureWildcard": true,
			"destination": map[string]any{"kind": "site_space", "siteSpaceId": ss}}
		// Wrong role: FORBIDDEN; a stranger: NOT_FOUND; bad input names the field.
		for _, c := range []struct {
			token string
			in    map[string]any
			code  string
		}{
			{rita.Token, in, "FORBIDDEN"},
			{bob.Token, in, "NOT_FOUND"},
			{alice.Token, map[string]any{"source": "old", "destination": in["destination"]}, "BAD_USER_INPUT"},
		} {
			data, errs := s.GraphQL(t, c.token, create, map[string]any{"site": site, "in": c.in})
			if data["createSiteRedirect"] != nil || len(errs) != 1 || errs[0].Extensions["code"] != c.code {
				t.Fatalf("%v: %v %+v", c.in, data, errs)
			}
		}
		if n := s.Client().SiteRedirect.Query().CountX(ctx); n != 0 {
			t.Fatalf("refused writes stored %d", n)
		}
		rd := s.MustGraphQL(t, alice.Token, create, map[string]any{"site": site, "in": in})["createSiteRedirect"].(map[string]any)
		id := rd["id"].(string)
		if rd["source"] != "/old/*" || rd["permanent"] != true || dig(rd, "destination", "kind") != "site_space" || dig(rd, "site", "id") != site {
			t.Fatalf("created: %v", rd)
		}

		// Site.redirects and Site.redirect(source:), node(id:).
		got := s.MustGraphQL(t, rita.Token, `query($site: ID!, $id: ID!) { site(id: $site) {
			redirects(orderBy: source) { totalCount edges { node { id source } } }
			redirect(source: "/old/page-0") { target redirect { id } }
			none: redirect(source: "/nothing") { target } }
			node(id: $id) { ... on SiteRedirect { source } } }`, map[string]any{"site": site, "id": id})
		if dig(got, "site", "redirects", "totalCount") != 1.0 || dig(got, "site", "redirect", "redirect", "id") != id ||
			dig(got, "site", "redirect", "target") != s.URL+"/s/"+site+"/page-0" || dig(got, "site", "none") != nil ||
			dig(got, "node", "source") != "/old/*" {
			t.Fatalf("reads: %v", got)
		}

		// Update, bulk, delete.
		up := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { updateSiteRedirect(id: $id, input: {permanent: false}) { permanent } }`,
			map[string]any{"id": id})
		if dig(up, "updateSiteRedirect", "permanent") != false {
			t.Fatalf("updated: %v", up)
		}
		res := s.MustGraphQL(t, alice.Token, `mutation($site: ID!) { bulkUpsertSiteRedirects(site: $site, redirects: [
			{source: "/a", destination: {kind: external, url: "https://example.com/a"}},
			{source: "/b", destination: {kind: external, url: "not a url"}},
			{source: "/old/*", intent: live, destination: null}]) { status source id field } }`, map[string]any{"site": site})["bulkUpsertSiteRedirects"].([]any)
		if len(res) != 3 || dig(res[0].(map[string]any), "status") != "created" || res[1].(map[string]any)["status"] != "error" ||
			res[1].(map[string]any)["field"] != "destination.url" || res[2].(map[string]any)["status"] != "deleted" {
			t.Fatalf("bulk: %v", res)
		}
		rows := s.Client().SiteRedirect.Query().Where(siteredirect.SiteID(site)).AllX(ctx)
		if len(rows) != 1 || rows[0].Source != "/a" {
			t.Fatalf("stored after bulk: %+v", rows)
		}
		s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { deleteSiteRedirect(id: $id) }`, map[string]any{"id": rows[0].ID})
		if n := s.Client().SiteRedirect.Query().CountX(ctx); n != 0 {
			t.Fatalf("after delete: %d", n)
		}
	})
}
