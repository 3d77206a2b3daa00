package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// siteWorld: Acme (alice admin, carol read, gina guest, erin create), Bobs
// (bob admin) and spaces in each.
type siteWorld struct {
	memberWorld
	erin             testkit.User
	guides, api, ops string // Acme's spaces
	bobsSpace        string
}

func newSiteWorld(t *testing.T, s *testkit.Server) siteWorld {
	w := siteWorld{memberWorld: newMemberWorld(t, s)}
	w.erin, _ = s.NewUser(t, "erin@acme.com", "")
	s.AddMember(t, w.acme, w.erin, testkit.RoleOf(access.Create))
	mk := func(tok, org, title string) string {
		return s.Call(t, "createSpace", tok, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
	}
	w.guides = mk(w.alice.Token, w.acme, "Guides")
	w.api = mk(w.alice.Token, w.acme, "API Reference")
	w.ops = mk(w.alice.Token, w.acme, "Ops")
	w.bobsSpace = mk(w.bob.Token, w.bobs, "Bobs docs")
	return w
}

type siteList struct {
	Items []map[string]any
	Count int
	Next  *struct{ Page string }
}

func ids(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it["id"].(string)
	}
	return out
}

func TestSitesCRUD(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newSiteWorld(t, s)
		sites := "/v1/orgs/" + w.acme + "/sites"

		// Create with two spaces: defaults basic / public, unpublished.
		resp := s.Call(t, "createSite", w.erin.Token, "POST", sites,
			map[string]any{"title": "Docs", "spaces": []string{w.guides, w.api}}, 201)
		st := resp.JSON(t)
		docs := st["id"].(string)
		if st["object"] != "site" || st["type"] != "basic" || st["visibility"] != "public" || st["published"] != false ||
			st["siteSpaces"] != 2.0 || st["title"] != "Docs" {
			t.Fatalf("created: %v", st)
		}
		if resp.Header.Get("Location") != s.URL+sites+"/"+docs {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		root := s.Client().SiteSpace.Query().Where(sitespace.SiteID(docs)).Order(sitespace.ByPosition()).AllX(ctx)
		if len(root) != 2 || root[0].SpaceID != w.guides || !root[0].IsDefault || root[1].IsDefault || root[1].Path != "api-reference" ||
			root[0].SectionID != nil {
			t.Fatalf("stored site spaces: %+v", root)
		}
		// spaces "new" makes a space titled after the site.
		fresh := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Handbook", "spaces": "new",
			"visibility": "unlisted", "type": "premium"}, 201).JSON(t)
		if fresh["siteSpaces"] != 1.0 || fresh["visibility"] != "unlisted" || fresh["type"] != "premium" {
			t.Fatalf("new-space site: %v", fresh)
		}
		ss := s.Client().SiteSpace.Query().Where(sitespace.SiteID(fresh["id"].(string))).OnlyX(ctx)
		if sp := s.Client().Space.GetX(ctx, ss.SpaceID); sp.Title != "Handbook" || sp.OrganizationID != w.acme {
			t.Fatalf("new space: %+v", sp)
		}
		bobsSite := s.Call(t, "createSite", w.bob.Token, "POST", "/v1/orgs/"+w.bobs+"/sites", map[string]any{"title": "Bobs"}, 201).JSON(t)["id"].(string)

		// Bad input, wrong role, strangers: nothing changes.
		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"title": "x"}, "title"},
			{map[string]any{"title": strings.Repeat("a", 129)}, "title"},
			{map[string]any{"title": 5}, "title"},
			{map[string]any{"title": "Fine", "type": "gold"}, "type"},
			{map[string]any{"title": "Fine", "visibility": "private"}, "visibility"},
			{map[string]any{"title": "Fine", "spaces": "old"}, "spaces"},
			{map[string]any{"title": "Fine", "spaces": []any{1}}, "spaces"},
			{`["Docs"]`, "object"},
		} {
			msg := s.Fail(t, "createSite", w.alice.Token, "POST", sites, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		fine := map[string]any{"title": "Fine"}
		s.Fail(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Fine", "spaces": []string{w.bobsSpace}}, 404)
		s.Fail(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Fine", "spaces": []string{"nosuchspace0000000"}}, 404)
		s.Fail(t, "createSite", w.carol.Token, "POST", sites, fine, 403)
		s.Fail(t, "createSite", w.gina.Token, "POST", sites, fine, 403)
		s.Fail(t, "createSite", w.bob.Token, "POST", sites, fine, 404)
		s.Fail(t, "createSite", "", "POST", sites, fine, 401)
		s.Unchanged(t, before)

		// Read: members with a role; guests and strangers 404.
		got := s.Call(t, "getSiteById", w.carol.Token, "GET", sites+"/"+docs, nil, 200).JSON(t)
		if got["id"] != docs || got["siteSpaces"] != 2.0 {
			t.Fatalf("carol's read: %v", got)
		}
		s.Fail(t, "getSiteById", w.gina.Token, "GET", sites+"/"+docs, nil, 404)
		s.Fail(t, "getSiteById", w.bob.Token, "GET", sites+"/"+docs, nil, 404)
		s.Fail(t, "getSiteById", w.alice.Token, "GET", sites+"/"+bobsSite, nil, 404)
		s.Fail(t, "getSiteById", w.bob.Token, "GET", "/v1/orgs/"+w.bobs+"/sites/"+docs, nil, 404)

		// List with filters.
		var env siteList
		s.Call(t, "listSites", w.carol.Token, "GET", sites, nil, 200).Decode(t, &env)
		if env.Count != 2 || len(env.Items) != 2 {
			t.Fatalf("list: %+v", env)
		}
		s.Call(t, "listSites", w.carol.Token, "GET", sites+"?space="+w.api, nil, 200).Decode(t, &env)
		if env.Count != 1 || env.Items[0]["id"] != docs {
			t.Fatalf("space filter: %+v", env)
		}
		s.Call(t, "listSites", w.carol.Token, "GET", sites+"?title=hand", nil, 200).Decode(t, &env)
		if env.Count != 1 || env.Items[0]["title"] != "Handbook" {
			t.Fatalf("title filter: %+v", env)
		}
		s.Call(t, "listSites", w.carol.Token, "GET", sites+"?published=true", nil, 200).Decode(t, &env)
		if env.Count != 0 {
			t.Fatalf("published filter: %+v", env)
		}
		s.Call(t, "listSites", w.carol.Token, "GET", sites+"?limit=1&order=asc", nil, 200).Decode(t, &env)
		if len(env.Items) != 1 || env.Next == nil || env.Items[0]["id"] != docs {
			t.Fatalf("page 1: %+v", env)
		}
		s.Call(t, "listSites", w.carol.Token, "GET", sites+"?limit=1&order=asc&page="+env.Next.Page, nil, 200).Decode(t, &env)
		if len(env.Items) != 1 || env.Items[0]["title"] != "Handbook" {
			t.Fatalf("page 2: %+v", env)
		}
		s.Fail(t, "listSites", w.alice.Token, "GET", sites+"?published=maybe", nil, 400)
		// A guest lists the sites shared with them: none yet.
		s.Call(t, "listSites", w.gina.Token, "GET", sites, nil, 200).Decode(t, &env)
		if env.Count != 0 || len(env.Items) != 0 {
			t.Fatalf("guest without grants: %+v", env)
		}
		s.Fail(t, "listSites", w.bob.Token, "GET", sites, nil, 404)

		// Update: basename rules, proxy, adaptive content.
		up := s.Call(t, "updateSiteById", w.erin.Token, "PATCH", sites+"/"+docs, map[string]any{
			"title": "Docs site", "basename": "docs", "visibility": "share-link", "proxy": "example.com/docs",
			"adaptiveContent": map[string]any{"enabled": true}}, 200).JSON(t)
		if up["basename"] != "docs" || up["visibility"] != "share-link" || up["title"] != "Docs site" ||
			up["adaptiveContent"].(map[string]any)["enabled"] != true || up["proxy"].(map[string]any)["origin"] != "example.com/docs" {
			t.Fatalf("updated: %v", up)
		}
		if stored := s.Client().Site.GetX(ctx, docs); stored.Basename == nil || *stored.Basename != "docs" || stored.Visibility != site.VisibilityShareLink {
			t.Fatalf("stored: %+v", stored)
		}
		up = s.Call(t, "updateSiteById", w.erin.Token, "PATCH", sites+"/"+docs, map[string]any{"proxy": nil}, 200).JSON(t)
		if _, ok := up["proxy"]; ok {
			t.Fatalf("proxy not removed: %v", up)
		}
		before = s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"basename": "Docs"}, "basename"},
			{map[string]any{"basename": "-docs"}, "basename"},
			{map[string]any{"basename": "a--"}, "basename"},
			{map[string]any{"basename": "graphql"}, "basename"},
			{map[string]any{"basename": strings.Repeat("a", 101)}, "basename"},
			{map[string]any{"title": "x"}, "title"},
			{map[string]any{"title": nil}, "title"},
			{map[string]any{"visibility": "secret"}, "visibility"},
			{map[string]any{"proxy": "not a domain"}, "proxy"},
			{map[string]any{"adaptiveContent": map[string]any{}}, "adaptiveContent"},
			{map[string]any{"defaultSiteSpace": "nosuch"}, "defaultSiteSpace"},
			{map[string]any{"defaultSiteSection": "nosuch"}, "defaultSiteSection"},
		} {
			msg := s.Fail(t, "updateSiteById", w.alice.Token, "PATCH", sites+"/"+docs, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Fail(t, "updateSiteById", w.bob.Token, "PATCH", "/v1/orgs/"+w.bobs+"/sites/"+bobsSite, map[string]any{"basename": "docs"}, 409)
		s.Fail(t, "updateSiteById", w.carol.Token, "PATCH", sites+"/"+docs, map[string]any{"title": "Mine"}, 403)
		s.Fail(t, "updateSiteById", w.bob.Token, "PATCH", sites+"/"+docs, map[string]any{"title": "Mine"}, 404)
		s.Unchanged(t, before)

		// Default site space at the root.
		up = s.Call(t, "updateSiteById", w.alice.Token, "PATCH", sites+"/"+docs, map[string]any{"defaultSiteSpace": root[1].ID}, 200).JSON(t)
		if !s.Client().SiteSpace.GetX(ctx, root[1].ID).IsDefault || s.Client().SiteSpace.GetX(ctx, root[0].ID).IsDefault {
			t.Fatal("default site space not moved")
		}

		// Publish and unpublish.
		if p := s.Call(t, "publishSite", w.erin.Token, "POST", sites+"/"+docs+"/publish", nil, 200).JSON(t); p["published"] != true {
			t.Fatalf("published: %v", p)
		}
		s.Call(t, "listSites", w.carol.Token, "GET", sites+"?published=true", nil, 200).Decode(t, &env)
		if env.Count != 1 || env.Items[0]["id"] != docs {
			t.Fatalf("published filter: %+v", env)
		}
		s.Fail(t, "publishSite", w.carol.Token, "POST", sites+"/"+docs+"/publish", nil, 403)
		if p := s.Call(t, "unpublishSite", w.erin.Token, "POST", sites+"/"+docs+"/unpublish", nil, 200).JSON(t); p["published"] != false {
			t.Fatalf("unpublished: %v", p)
		}
		s.Fail(t, "unpublishSite", w.bob.Token, "POST", sites+"/"+docs+"/unpublish", nil, 404)

		// Delete: 205, with everything below it.
		s.Fail(t, "deleteSiteById", w.carol.Token, "DELETE", sites+"/"+docs, nil, 403)
		s.Fail(t, "deleteSiteById", w.bob.Token, "DELETE", sites+"/"+docs, nil, 404)
		s.Call(t, "addSectionToSite", w.alice.Token, "POST", sites+"/"+docs+"/sections", map[string]any{"spaceId": w.ops}, 201)
		s.Call(t, "deleteSiteById", w.alice.Token, "DELETE", sites+"/"+docs, nil, 205)
		s.Fail(t, "getSiteById", w.alice.Token, "GET", sites+"/"+docs, nil, 404)
		if n := s.Client().SiteSpace.Query().Where(sitespace.SiteID(docs)).CountX(ctx) +
			s.Client().SiteSection.Query().Where(sitesection.SiteID(docs)).CountX(ctx); n != 0 {
			t.Fatalf("%d rows left of the deleted site", n)
		}
	})
}
