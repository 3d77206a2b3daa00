package rest_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/internal/testkit"
)

// redirectClient shows redirects instead of following them.
var redirectClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// readerGet reads a reader URL (optionally with a session cookie) without
// following redirects: status and Location.
func readerGet(t *testing.T, s *testkit.Server, path, session string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if session != "" {
		req.AddCookie(&http.Cookie{Name: "folio_session", Value: session})
	}
	resp, err := redirectClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Location")
}

// sessionOf signs a user in with a password and answers the session cookie.
func sessionOf(t *testing.T, s *testkit.Server, email string) string {
	t.Helper()
	const pw = "correct horse battery"
	if err := s.App.SetPassword(context.Background(), email, pw); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/sign-in", strings.NewReader(url.Values{"email": {email}, "password": {pw}}.Encode()))
	req.Header.Set("Origin", s.URL)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := redirectClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "folio_session" {
			return c.Value
		}
	}
	t.Fatalf("sign-in: %d, no session", resp.StatusCode)
	return ""
}

// redirectSite is a published public site at /s/docs/ showing the guides
// space (pages page-0, page-0/page-1, page-0/page-2) as its default site
// space and the API space beside it.
type redirectSite struct {
	siteWorld
	base, id, guidesSS string
	pages              map[string]string // path -> page id
}

func newRedirectSite(t *testing.T, s *testkit.Server) redirectSite {
	t.Helper()
	w := redirectSite{siteWorld: newSiteWorld(t, s), pages: map[string]string{}}
	s.SeedPages(t, w.guides, 3)
	s.SeedPages(t, w.api, 1)
	sites := "/v1/orgs/" + w.acme + "/sites"
	w.id = s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{w.guides, w.api}}, 201).JSON(t)["id"].(string)
	w.base = sites + "/" + w.id
	s.Call(t, "updateSiteById", w.alice.Token, "PATCH", w.base, map[string]any{"basename": "docs"}, 200)
	s.Call(t, "publishSite", w.alice.Token, "POST", w.base+"/publish", nil, 200)
	var list siteList
	s.Call(t, "listSiteSpaces", w.alice.Token, "GET", w.base+"/site-spaces", nil, 200).Decode(t, &list)
	for _, it := range list.Items {
		if it["space"].(map[string]any)["id"] == w.guides {
			w.guidesSS = it["id"].(string)
		}
	}
	var pages struct{ Pages []map[string]any }
	s.Call(t, "listPages", w.alice.Token, "GET", "/v1/spaces/"+w.guides+"/content/pages", nil, 200).Decode(t, &pages)
	var walk func(prefix string, ps []map[string]any)
	walk = func(prefix string, ps []map[string]any) {
		for _, p := range ps {
			path := prefix + p["slug"].(string)
			w.pages[path] = p["id"].(string)
			var kids []map[string]any
			if raw, ok := p["pages"].([]any); ok {
				for _, k := range raw {
					kids = append(kids, k.(map[string]any))
				}
			}
			walk(path+"/", kids)
		}
	}
	walk("", pages.Pages)
	if w.guidesSS == "" || w.pages["page-0/page-1"] == "" {
		t.Fatalf("world: %q %v", w.guidesSS, w.pages)
	}
	return w
}

// TestSiteRedirectsCRUD: create, list, get by source, update, delete; bad
// input naming the field with nothing changed, 403 below the create role,
// 404 to strangers; the events of each write.
func TestSiteRedirectsCRUD(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newRedirectSite(t, s)
		coll := w.base + "/redirects"
		page1 := w.pages["page-0/page-1"]
		body := map[string]any{"source": "/old-guide", "permanent": true,
			"destination": map[string]any{"kind": "site-page", "siteSpaceId": w.guidesSS, "pageId": page1}}

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"destination": body["destination"]}, "source"},
			{map[string]any{"source": "old", "destination": body["destination"]}, "source"},
			{map[string]any{"source": "/a/", "destination": body["destination"]}, "source"},
			{map[string]any{"source": "/*", "destination": body["destination"]}, "source"},
			{map[string]any{"source": "/" + strings.Repeat("a", 512), "destination": body["destination"]}, "source"},
			{map[string]any{"source": "/x"}, "destination"},
			{map[string]any{"source": "/x", "destination": map[string]any{"kind": "external", "url": "ftp://example.com"}}, "destination.url"},
			{map[string]any{"source": "/x", "destination": map[string]any{"kind": "site-space", "siteSpaceId": "nope"}}, "destination.siteSpaceId"},
			{map[string]any{"source": "/x", "destination": map[string]any{"kind": "site-page", "siteSpaceId": w.guidesSS, "pageId": "nope"}}, "destination.pageId"},
			{map[string]any{"source": "/x", "destination": map[string]any{"kind": "site-section", "siteSectionId": "nope"}}, "destination.siteSectionId"},
			{map[string]any{"source": "/x", "destination": map[string]any{"kind": "path", "spaceId": w.ops, "path": "a"}}, "destination.spaceId"},
			{map[string]any{"source": "/x", "destination": map[string]any{"kind": "teleport"}}, "destination.kind"},
		} {
			msg := s.Fail(t, "createSiteRedirect", w.alice.Token, "POST", coll, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Fail(t, "createSiteRedirect", w.carol.Token, "POST", coll, body, 403)
		s.Fail(t, "createSiteRedirect", w.bob.Token, "POST", coll, body, 404)
		s.Fail(t, "listSiteRedirects", w.bob.Token, "GET", coll, nil, 404)
		s.Fail(t, "getSiteStructure", w.bob.Token, "GET", w.base+"/structure", nil, 404)
		s.Unchanged(t, before)

		resp := s.Call(t, "createSiteRedirect", w.erin.Token, "POST", coll, body, 201)
		rd := resp.JSON(t)
		id := rd["id"].(string)
		dest := rd["destination"].(map[string]any)
		if rd["object"] != "site-redirect" || rd["source"] != "/old-guide" || rd["permanent"] != true || rd["draft"] != false ||
			rd["captureWildcard"] != false || dest["kind"] != "site-page" || dest["pageId"] != page1 || dest["siteSpaceId"] != w.guidesSS ||
			rd["updatedAt"] != nil {
			t.Fatalf("created: %v", rd)
		}
		if resp.Header.Get("Location") != s.URL+coll+"/"+id {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		row := s.Client().SiteRedirect.GetX(ctx, id)
		if row.SiteID != w.id || row.Source != "/old-guide" || !row.Permanent || row.DestinationKind != siteredirect.DestinationKindSitePage ||
			*row.DestinationPageID != page1 {
			t.Fatalf("stored: %+v", row)
		}
		if n := s.Client().Event.Query().Where(event.Action("site_redirect.created"), event.TargetID(id)).CountX(ctx); n != 1 {
			t.Fatalf("created events: %d", n)
		}
		// The same source twice: 409 naming it, nothing written.
		before = s.Snapshot(t)
		if msg := s.Fail(t, "createSiteRedirect", w.alice.Token, "POST", coll, body, 409); !strings.Contains(msg, "source") {
			t.Fatalf("duplicate: %q", msg)
		}
		s.Unchanged(t, before)

		// A path destination becomes the page; an external one stays a URL.
		viaPath := s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/p2",
			"destination": map[string]any{"kind": "path", "spaceId": w.guides, "path": "page-0/page-2"}}, 201).JSON(t)
		if d := viaPath["destination"].(map[string]any); d["kind"] != "site-page" || d["pageId"] != w.pages["page-0/page-2"] {
			t.Fatalf("path destination: %v", viaPath)
		}
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/elsewhere", "draft": true,
			"destination": map[string]any{"kind": "external", "url": "https://example.com/docs"}}, 201)

		// Lists: live ones by default, drafts on demand, search, by source.
		var list siteList
		s.Call(t, "listSiteRedirects", w.carol.Token, "GET", coll, nil, 200).Decode(t, &list)
		if list.Count != 2 || list.Items[0]["source"] != "/p2" {
			t.Fatalf("live list: %v", list)
		}
		s.Call(t, "listSiteRedirects", w.carol.Token, "GET", coll+"?draft=true", nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["source"] != "/elsewhere" {
			t.Fatalf("drafts: %v", list)
		}
		s.Call(t, "listSiteRedirects", w.carol.Token, "GET", coll+"?orderBy=source&limit=1", nil, 200).Decode(t, &list)
		if list.Count != 2 || list.Items[0]["source"] != "/old-guide" || list.Next == nil {
			t.Fatalf("by source: %v", list)
		}
		s.Call(t, "listSiteRedirects", w.carol.Token, "GET", coll+"?orderBy=source&limit=1&page="+list.Next.Page, nil, 200).Decode(t, &list)
		if list.Count != 2 || list.Items[0]["source"] != "/p2" {
			t.Fatalf("by source, page 2: %v", list)
		}
		s.Call(t, "listSiteRedirects", w.carol.Token, "GET", coll+"?search=GUIDE", nil, 200).Decode(t, &list)
		if list.Count != 1 {
			t.Fatalf("search: %v", list)
		}
		s.Fail(t, "listSiteRedirects", w.carol.Token, "GET", coll+"?orderBy=title", nil, 400)

		// The redirect that applies to a path, with its target.
		got := s.Call(t, "getSiteRedirectBySource", w.carol.Token, "GET", w.base+"/redirect?source=/old-guide", nil, 200).JSON(t)
		if got["target"] != s.URL+"/s/docs/page-0/page-1" || got["redirect"].(map[string]any)["id"] != id {
			t.Fatalf("by source: %v", got)
		}
		s.Fail(t, "getSiteRedirectBySource", w.carol.Token, "GET", w.base+"/redirect?source=/nothing", nil, 404)
		s.Fail(t, "getSiteRedirectBySource", w.carol.Token, "GET", w.base+"/redirect?source=/elsewhere", nil, 404) // a draft
		s.Fail(t, "getSiteRedirectBySource", w.bob.Token, "GET", w.base+"/redirect?source=/old-guide", nil, 404)

		// Update: only what is given; bad input names the field.
		item := coll + "/" + id
		before = s.Snapshot(t)
		if msg := s.Fail(t, "updateSiteRedirectById", w.alice.Token, "PATCH", item, map[string]any{"source": "nope"}, 400); !strings.Contains(msg, "source") {
			t.Fatalf("bad update: %q", msg)
		}
		if msg := s.Fail(t, "updateSiteRedirectById", w.alice.Token, "PATCH", item, map[string]any{"destination": map[string]any{"kind": "external"}}, 400); !strings.Contains(msg, "destination.url") {
			t.Fatalf("bad update: %q", msg)
		}
		s.Fail(t, "updateSiteRedirectById", w.carol.Token, "PATCH", item, map[string]any{"permanent": false}, 403)
		s.Fail(t, "updateSiteRedirectById", w.bob.Token, "PATCH", item, map[string]any{"permanent": false}, 404)
		s.Fail(t, "updateSiteRedirectById", w.alice.Token, "PATCH", coll+"/nope", map[string]any{"permanent": false}, 404)
		s.Unchanged(t, before)
		up := s.Call(t, "updateSiteRedirectById", w.alice.Token, "PATCH", item, map[string]any{"source": "/older-guide", "permanent": false}, 200).JSON(t)
		if up["source"] != "/older-guide" || up["permanent"] != false || up["updatedAt"] == nil || up["destination"].(map[string]any)["pageId"] != page1 {
			t.Fatalf("updated: %v", up)
		}
		if row := s.Client().SiteRedirect.GetX(ctx, id); row.Source != "/older-guide" || row.Permanent {
			t.Fatalf("stored update: %+v", row)
		}

		// Structure: the reference's shape, for members who see the site.
		st := s.Call(t, "getSiteStructure", w.carol.Token, "GET", w.base+"/structure", nil, 200).JSON(t)
		if st["type"] != "siteSpaces" || len(st["structure"].([]any)) != 2 {
			t.Fatalf("structure: %v", st)
		}

		// Delete.
		s.Fail(t, "deleteSiteRedirectById", w.carol.Token, "DELETE", item, nil, 403)
		s.Fail(t, "deleteSiteRedirectById", w.bob.Token, "DELETE", item, nil, 404)
		s.Call(t, "deleteSiteRedirectById", w.alice.Token, "DELETE", item, nil, 204)
		if s.Client().SiteRedirect.Query().Where(siteredirect.ID(id)).ExistX(ctx) {
			t.Fatal("still stored")
		}
		if n := s.Client().Event.Query().Where(event.Action("site_redirect.deleted"), event.TargetID(id)).CountX(ctx); n != 1 {
			t.Fatalf("deleted events: %d", n)
		}
		s.Fail(t, "deleteSiteRedirectById", w.alice.Token, "DELETE", item, nil, 404)
	})
}

// TestSiteRedirectsBulk: items are written or refused one by one.
func TestSiteRedirectsBulk(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newRedirectSite(t, s)
		coll := w.base + "/redirects"
		ext := map[string]any{"kind": "external", "url": "https://example.com/"}
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/gone", "destination": ext}, 201)
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/soon", "draft": true, "destination": ext}, 201)

		before := s.Snapshot(t)
		s.Fail(t, "bulkUpsertSiteRedirects", w.alice.Token, "PUT", coll, map[string]any{"redirects": []any{}}, 400)
		s.Fail(t, "bulkUpsertSiteRedirects", w.carol.Token, "PUT", coll, map[string]any{"redirects": []any{map[string]any{"source": "/a", "destination": ext}}}, 403)
		s.Fail(t, "bulkUpsertSiteRedirects", w.bob.Token, "PUT", coll, map[string]any{"redirects": []any{map[string]any{"source": "/a", "destination": ext}}}, 404)
		// A source the reference's schema refuses fails the request, naming the item.
		if msg := s.Fail(t, "bulkUpsertSiteRedirects", w.alice.Token, "PUT", coll, map[string]any{"redirects": []any{
			map[string]any{"source": "/fine", "destination": ext}, map[string]any{"source": "bad", "destination": ext}}}, 400); !strings.Contains(msg, "redirects[1].source") {
			t.Fatalf("bad source: %q", msg)
		}
		s.Unchanged(t, before)

		res := s.Call(t, "bulkUpsertSiteRedirects", w.alice.Token, "PUT", coll, map[string]any{"redirects": []any{
			map[string]any{"source": "/new", "destination": map[string]any{"kind": "site-space", "siteSpaceId": w.guidesSS}, "permanent": true},
			map[string]any{"source": "/gone", "destination": nil},
			map[string]any{"source": "/x", "destination": map[string]any{"kind": "external", "url": "nope"}},
			map[string]any{"source": "/soon", "intent": "publish"},
			map[string]any{"source": "/new", "destination": ext},
			map[string]any{"source": "/missing", "destination": nil},
		}}, 200).JSON(t)["results"].([]any)
		want := []string{"created", "deleted", "error", "published", "updated", "error"}
		for i, r := range res {
			if got := r.(map[string]any)["status"]; got != want[i] {
				t.Fatalf("item %d: %v (all: %v)", i, r, res)
			}
		}
		if e := res[2].(map[string]any)["error"].(string); !strings.Contains(e, "destination.url") {
			t.Fatalf("error names no field: %q", e)
		}
		live := s.Client().SiteRedirect.Query().Where(siteredirect.SiteID(w.id), siteredirect.Draft(false)).
			Order(siteredirect.BySource()).AllX(ctx)
		if len(live) != 2 || live[0].Source != "/new" || live[0].DestinationKind != siteredirect.DestinationKindExternal || !live[0].Permanent ||
			live[1].Source != "/soon" {
			t.Fatalf("stored: %+v", live)
		}
		if s.Client().SiteRedirect.Query().Where(siteredirect.SiteID(w.id), siteredirect.Draft(true)).ExistX(ctx) {
			t.Fatal("the published draft stayed a draft")
		}
	})
}

// TestSiteRedirectsReader: the reader follows a site's live redirects where
// it would answer 404 — 308 for a permanent one to the public, 307 for a
// temporary one and in a member's preview —, with wildcards.
func TestSiteRedirectsReader(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newRedirectSite(t, s)
		coll := w.base + "/redirects"
		page := map[string]any{"kind": "site-page", "siteSpaceId": w.guidesSS, "pageId": w.pages["page-0/page-1"]}
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/moved", "permanent": true, "destination": page}, 201)
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/temp", "destination": page}, 201)
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/draft", "draft": true, "permanent": true, "destination": page}, 201)
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/legacy/*", "permanent": true, "captureWildcard": true,
			"destination": map[string]any{"kind": "site-space", "siteSpaceId": w.guidesSS}}, 201)
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/out*", "captureWildcard": true,
			"destination": map[string]any{"kind": "external", "url": "https://example.com/x/"}}, 201)
		// A redirect never shadows a page that answers.
		s.Call(t, "createSiteRedirect", w.alice.Token, "POST", coll, map[string]any{"source": "/page-0", "permanent": true,
			"destination": map[string]any{"kind": "external", "url": "https://example.com/"}}, 201)

		for _, c := range []struct {
			path, session string
			status        int
			location      string
		}{
			{"/s/docs/moved", "", 308, "/s/docs/page-0/page-1"},
			{"/s/docs/moved/", "", 308, "/s/docs/page-0/page-1"},
			{"/s/docs/temp", "", 307, "/s/docs/page-0/page-1"},
			{"/s/docs/draft", "", 404, ""},
			{"/s/docs/legacy/page-0/page-2", "", 308, "/s/docs/page-0/page-2"},
			{"/s/docs/legacy", "", 308, "/s/docs/"},
			{"/s/docs/outside/a", "", 307, "https://example.com/x/side/a"},
			{"/s/docs/page-0", "", 200, ""},
			{"/s/docs/page-0/page-1", "", 200, ""},
			{"/s/docs/nothing", "", 404, ""},
		} {
			if code, loc := readerGet(t, s, c.path, c.session); code != c.status || loc != c.location {
				t.Errorf("GET %s: %d %q, want %d %q", c.path, code, loc, c.status, c.location)
			}
		}
		// A member's preview: 307 even for a permanent redirect.
		alice := sessionOf(t, s, w.alice.Email)
		if code, loc := readerGet(t, s, "/s/docs/moved", alice); code != 307 || loc != "/s/docs/page-0/page-1" {
			t.Errorf("member preview: %d %q", code, loc)
		}
		// A write shows at once (the reader's cache forgets the site).
		var list siteList
		s.Call(t, "listSiteRedirects", w.alice.Token, "GET", coll+"?search=moved", nil, 200).Decode(t, &list)
		s.Call(t, "deleteSiteRedirectById", w.alice.Token, "DELETE", coll+"/"+list.Items[0]["id"].(string), nil, 204)
		if code, _ := readerGet(t, s, "/s/docs/moved", ""); code != 404 {
			t.Errorf("deleted redirect still followed: %d", code)
		}
		// Not public: 307.
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", w.base, map[string]any{"visibility": "unlisted"}, 200)
		if code, _ := readerGet(t, s, "/s/docs/legacy/page-0", ""); code != 307 {
			t.Errorf("unlisted site: %d", code)
		}
	})
}

// TestMergeKeepsOldURLs: THE must-show — a merge that renames a published
// page (slug) or moves it keeps its old address working: GET the old
// reader URL → 308 to the new one, which answers 200. Moving it again
// keeps both old addresses leading to where it is now.
func TestMergeKeepsOldURLs(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newRedirectSite(t, s)
		sp := "/v1/spaces/" + w.guides
		merge := func(changes ...any) {
			t.Helper()
			cr := s.Call(t, "createChangeRequest", w.alice.Token, "POST", sp+"/change-requests", map[string]any{"subject": "move"}, 201).JSON(t)["id"].(string)
			s.Call(t, "updateChangeRequestContent", w.alice.Token, "POST", sp+"/change-requests/"+cr+"/content", map[string]any{"changes": changes}, 200)
			s.Call(t, "mergeChangeRequest", w.alice.Token, "POST", sp+"/change-requests/"+cr+"/merge", nil, 200)
		}
		follow := func(old, want string) {
			t.Helper()
			code, loc := readerGet(t, s, old, "")
			if code != 308 || loc != want {
				t.Fatalf("GET %s: %d %q, want 308 %q", old, code, loc, want)
			}
			if code, _ := readerGet(t, s, loc, ""); code != 200 {
				t.Fatalf("GET %s: %d", loc, code)
			}
		}
		if code, _ := readerGet(t, s, "/s/docs/page-0/page-1", ""); code != 200 {
			t.Fatalf("before: %d", code)
		}
		// Rename (slug): page-0/page-1 → page-0/setup.
		merge(map[string]any{"operation": "update_page", "page": w.pages["page-0/page-1"], "slug": "setup"})
		follow("/s/docs/page-0/page-1", "/s/docs/page-0/setup")
		rows := s.Client().SiteRedirect.Query().Where(siteredirect.SiteID(w.id)).AllX(ctx)
		if len(rows) != 1 || rows[0].Source != "/page-0/page-1" || !rows[0].Permanent || rows[0].Draft ||
			*rows[0].DestinationPageID != w.pages["page-0/page-1"] {
			t.Fatalf("automatic redirect: %+v", rows)
		}
		if n := s.Client().Event.Query().Where(event.Action("site_redirect.created"), event.TargetID(rows[0].ID)).CountX(ctx); n != 1 {
			t.Fatalf("automatic redirect's event: %d", n)
		}
		// Move: page-0/setup to the root. Both old addresses lead to it.
		merge(map[string]any{"operation": "update_page", "page": w.pages["page-0/page-1"], "slug": "setup", "into": nil})
		follow("/s/docs/page-0/setup", "/s/docs/setup")
		follow("/s/docs/page-0/page-1", "/s/docs/setup")
		// A page whose parent moves moves too: page-0 renamed → its child's
		// old address follows.
		merge(map[string]any{"operation": "update_page", "page": w.pages["page-0"], "slug": "intro"})
		follow("/s/docs/page-0/page-2", "/s/docs/intro/page-2")
		follow("/s/docs/page-0", "/s/docs/intro")
		// Moving back to an old address: no redirect from where it lives.
		merge(map[string]any{"operation": "update_page", "page": w.pages["page-0/page-1"], "slug": "page-1", "into": w.pages["page-0"]})
		if code, _ := readerGet(t, s, "/s/docs/intro/page-1", ""); code != 200 {
			t.Fatalf("moved back: %d", code)
		}
		follow("/s/docs/setup", "/s/docs/intro/page-1")
		follow("/s/docs/page-0/page-1", "/s/docs/intro/page-1")
	})
}
