package reader_test

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// TestReaderRoutes: a segment is read as a section, then a site space, then
// a page; defaults may be left out; anything else is the 404 page.
func TestReaderRoutes(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		t.Run("root", func(t *testing.T) {
			p := get(t, s.URL, "", "/s/docs/").must(t, 200, "root")
			p.has(t, "root", "<h1>Getting started</h1>", `<a href="/s/docs/" aria-current="page">Guide</a>`,
				`<a href="/s/docs/api/">API</a>`, `href="/s/docs/guide-v2/">Guide v2</a>`,
				`<a class="next" rel="next" href="/s/docs/install">`, `<a href="#first-steps">First steps</a>`,
				`<meta name="viewport"`)
			if got := p.header.Get("Content-Security-Policy"); strings.Contains(got, "script") || !strings.Contains(got, "default-src 'none'") {
				t.Errorf("CSP %q", got)
			}
			if strings.Contains(p.body, "<script") || strings.Contains(p.body, " style=") {
				t.Error("the page carries script or inline style")
			}
		})
		t.Run("without a trailing slash", func(t *testing.T) {
			p := get(t, s.URL, "", "/s/docs").must(t, 301, "redirect")
			if p.header.Get("Location") != "/s/docs/" {
				t.Errorf("Location %q", p.header.Get("Location"))
			}
		})
		t.Run("three levels deep, breadcrumbs, neighbours", func(t *testing.T) {
			p := get(t, s.URL, "", "/s/docs/install/linux/ubuntu").must(t, 200, "ubuntu")
			p.has(t, "ubuntu", "<h1>Ubuntu</h1>", `<a href="/s/docs/install">Install</a> / <a href="/s/docs/install/linux">Linux</a>`,
				`rel="prev" href="/s/docs/install/linux"`, `rel="next" href="/s/docs/hostile"`,
				`<a href="/s/docs/install/linux/ubuntu" aria-current="page">Ubuntu</a>`)
		})
		t.Run("explicit defaults", func(t *testing.T) {
			get(t, s.URL, "", "/s/docs/guide/guide/install").must(t, 200, "explicit").has(t, "explicit", "<h1>Install</h1>")
			get(t, s.URL, "", "/s/docs/guide/install").must(t, 200, "section only").has(t, "section", "<h1>Install</h1>")
		})
		t.Run("variant and section", func(t *testing.T) {
			get(t, s.URL, "", "/s/docs/guide-v2/").must(t, 200, "variant").has(t, "variant", "<h1>Welcome v2</h1>",
				`<a href="/s/docs/guide-v2/" aria-current="page">Guide v2</a>`)
			get(t, s.URL, "", "/s/docs/api/errors").must(t, 200, "api").has(t, "api", "<h1>Errors</h1>",
				`<a href="/s/docs/api/" aria-current="page">API</a>`, `rel="prev" href="/s/docs/api/reference"`)
		})
		t.Run("by site id when it has no basename", func(t *testing.T) {
			get(t, s.URL, "", "/s/"+d.site+"/").must(t, 404, "id of a site with a basename")
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"basename": nil}, 200)
			get(t, s.URL, "", "/s/"+d.site+"/install").must(t, 200, "by id").has(t, "by id", `href="/s/`+d.site+`/install/linux"`)
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"basename": "docs"}, 200)
		})
		for _, path := range []string{"/s/docs/nope", "/s/docs/install/nope", "/s/docs/api/getting-started", "/s/nope/", "/s/",
			"/s/docs/guide-v2/install", "/s/docs/_nothing"} {
			p := get(t, s.URL, "", path).must(t, 404, path)
			p.has(t, path, "Page not found")
		}
		t.Run("links rewritten", func(t *testing.T) {
			// A body's links are the published addresses the APIs hand
			// out (absolute), so GraphQL's PublishedPage.html is the same.
			p := get(t, s.URL, "", "/s/docs/getting-started").must(t, 200, "links")
			p.has(t, "links", `<a href="`+s.URL+`/s/docs/install/linux/ubuntu">Ubuntu</a>`, `<a href="`+s.URL+`/s/docs/install#steps">`,
				`href="https://example.com/x"`)
		})
		t.Run("unpublished", func(t *testing.T) {
			api(t, s, d.token, "POST", d.siteBase()+"/unpublish", nil, 200)
			get(t, s.URL, "", "/s/docs/").must(t, 404, "unpublished")
			get(t, s.URL, "", "/s/docs/_search?q=ubuntu").must(t, 404, "unpublished search")
			api(t, s, d.token, "POST", d.siteBase()+"/publish", nil, 200)
			get(t, s.URL, "", "/s/docs/").must(t, 200, "published again")
		})
	})
}

// TestReaderHiddenPages: hidden pages (and their subpages) answer by URL
// but are listed nowhere: sidebar, previous/next, search, sitemap.
func TestReaderHiddenPages(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		newDocs(t, s)
		get(t, s.URL, "", "/s/docs/secret").must(t, 200, "hidden by URL").has(t, "hidden", "<h1>Secret</h1>", "hiddenword")
		for _, path := range []string{"/s/docs/", "/s/docs/install/linux/ubuntu", "/s/docs/hostile", "/s/docs/secret"} {
			get(t, s.URL, "", path).must(t, 200, path).hasNot(t, path, `href="/s/docs/secret"`)
		}
		get(t, s.URL, "", "/s/docs/_search?q=hiddenword").must(t, 200, "search").hasNot(t, "search", "/s/docs/secret")
		get(t, s.URL, "", "/s/docs/sitemap.xml").must(t, 200, "sitemap").hasNot(t, "sitemap", "/s/docs/secret")
	})
}

// TestReaderHostileMarkdown: script, javascript: links and event handlers
// an author wrote reach the page as none of them.
func TestReaderHostileMarkdown(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		newDocs(t, s)
		p := get(t, s.URL, "", "/s/docs/hostile").must(t, 200, "hostile")
		p.has(t, "hostile", "<h1>Hostile</h1>", "click", "raw")
		p.hasNot(t, "hostile", "<script", "javascript:", "onerror", "onclick", "<iframe", "data:text/html", "alert(")
	})
}

// TestReaderETag: answers carry an ETag; the same request with it is a 304
// without a body; a change of the site or of its content changes it.
func TestReaderETag(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		first := get(t, s.URL, "", "/s/docs/install").must(t, 200, "first")
		tag := first.header.Get("ETag")
		if tag == "" || first.header.Get("Cache-Control") != "public, no-cache" || !strings.Contains(first.header.Get("Vary"), "Cookie") {
			t.Fatalf("headers %v", first.header)
		}
		again := get(t, s.URL, "", "/s/docs/install", "If-None-Match", tag).must(t, 304, "again")
		if again.body != "" {
			t.Errorf("304 with a body %q", again.body)
		}
		// The browser keeps a 304's headers: the page's policy must be there.
		if again.header.Get("Content-Security-Policy") != first.header.Get("Content-Security-Policy") {
			t.Errorf("304 policy %q, page's %q", again.header.Get("Content-Security-Policy"), first.header.Get("Content-Security-Policy"))
		}
		if other := get(t, s.URL, "", "/s/docs/install/linux").header.Get("ETag"); other == tag {
			t.Error("two pages share an ETag")
		}
		if dark := get(t, s.URL, "", "/s/docs/install", "Cookie", "folio_theme=dark").header.Get("ETag"); dark == tag {
			t.Error("the theme does not change the ETag")
		}
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"title": "Acme Handbook"}, 200)
		p := get(t, s.URL, "", "/s/docs/install", "If-None-Match", tag).must(t, 200, "after a title change")
		p.has(t, "new title", "Acme Handbook")
		tag = p.header.Get("ETag")
		seed(t, s, d.guide, []pg{{title: "Install", slug: "install", md: "# Install\n\nNew text.\n"}})
		get(t, s.URL, "", "/s/docs/install", "If-None-Match", tag).must(t, 200, "after new content").has(t, "new content", "New text.")
		// A protected site's answers are private.
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "unlisted"}, 200)
		p = get(t, s.URL, "", "/s/docs/install").must(t, 200, "unlisted")
		if p.header.Get("Cache-Control") != "private, no-cache" || p.header.Get("X-Robots-Tag") != "noindex" {
			t.Errorf("unlisted headers %v", p.header)
		}
		p.has(t, "unlisted", `<meta name="robots" content="noindex">`)
	})
}

// TestReaderRobots: robots.txt disallows published sites that are not
// public and points at public sites' sitemaps; sitemaps list listed pages
// without noIndex ones; a page's noIndex is a robots meta.
func TestReaderRobots(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		hush := api(t, s, d.token, "POST", "/orgs/"+d.org+"/sites", map[string]any{"title": "Hush", "spaces": []string{d.apiSpace}, "visibility": "unlisted"}, 201)["id"].(string)
		api(t, s, d.token, "PATCH", "/orgs/"+d.org+"/sites/"+hush, map[string]any{"basename": "hush"}, 200)
		api(t, s, d.token, "POST", "/orgs/"+d.org+"/sites/"+hush+"/publish", nil, 200)
		draft := api(t, s, d.token, "POST", "/orgs/"+d.org+"/sites", map[string]any{"title": "Draft", "spaces": []string{d.apiSpace}}, 201)["id"].(string)
		api(t, s, d.token, "PATCH", "/orgs/"+d.org+"/sites/"+draft, map[string]any{"basename": "draft"}, 200)

		r := get(t, s.URL, "", "/robots.txt").must(t, 200, "robots")
		r.has(t, "robots", "User-agent: *", "Disallow: /s/hush/", "Sitemap: "+s.URL+"/s/docs/sitemap.xml")
		r.hasNot(t, "robots", "draft", "/s/docs/\n")
		get(t, s.URL, "", "/s/hush/").must(t, 200, "unlisted").has(t, "unlisted", "<h1>Reference</h1>")
		get(t, s.URL, "", "/s/hush/sitemap.xml").must(t, 404, "unlisted sitemap")

		sm := get(t, s.URL, "", "/s/docs/sitemap.xml").must(t, 200, "sitemap")
		sm.has(t, "sitemap", "<urlset", "<loc>"+s.URL+"/s/docs/getting-started</loc>", "<loc>"+s.URL+"/s/docs/install/linux/ubuntu</loc>",
			"<loc>"+s.URL+"/s/docs/guide-v2/welcome</loc>", "<loc>"+s.URL+"/s/docs/api/errors</loc>")
		sm.hasNot(t, "sitemap", "private-notes", "/secret")
		get(t, s.URL, "", "/s/docs/private-notes").must(t, 200, "noIndex page").has(t, "noIndex", `<meta name="robots" content="noindex">`)
		get(t, s.URL, "", "/s/docs/install").must(t, 200, "indexable").hasNot(t, "indexable", `name="robots"`)
	})
}

// TestReaderSearch: results over what the visitor sees, with highlighted
// excerpts, linking to the published pages.
func TestReaderSearch(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		newDocs(t, s)
		p := get(t, s.URL, "", "/s/docs/_search?q=zebracorn").must(t, 200, "search")
		p.has(t, "search", `<a class="title" href="/s/docs/install/linux/ubuntu">Ubuntu</a>`, `<a class="title" href="/s/docs/api/reference">Reference</a>`,
			"<mark>zebracorn</mark>", `value="zebracorn"`, "2 results")
		get(t, s.URL, "", "/s/docs/_search?q=").must(t, 200, "empty").hasNot(t, "empty", "class=\"title\"")
		get(t, s.URL, "", "/s/docs/_search?q=%3Cscript%3E").must(t, 200, "hostile query").hasNot(t, "hostile query", "<script>")
	})
}

// TestReaderTheme: the theme toggle is a link that keeps the choice in a
// cookie of the site and goes back; pages then carry the theme.
func TestReaderTheme(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		newDocs(t, s)
		p := get(t, s.URL, "", "/s/docs/_theme?to=dark&back=%2Fs%2Fdocs%2Finstall").must(t, 303, "toggle")
		if p.header.Get("Location") != "/s/docs/install" || !strings.Contains(p.header.Get("Set-Cookie"), "folio_theme=dark; Path=/s/docs/") {
			t.Errorf("toggle headers %v", p.header)
		}
		if loc := get(t, s.URL, "", "/s/docs/_theme?to=dark&back=https%3A%2F%2Fevil.example%2F").header.Get("Location"); loc != "/s/docs/" {
			t.Errorf("open redirect to %q", loc)
		}
		get(t, s.URL, "", "/s/docs/install", "Cookie", "folio_theme=dark").must(t, 200, "dark").has(t, "dark", `data-theme="dark"`, "Switch to light theme")
		// Stylesheets: hashed names, a year of cache; the site's own.
		home := get(t, s.URL, "", "/s/docs/")
		for _, href := range regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindAllStringSubmatch(home.body, -1) {
			css := get(t, s.URL, "", href[1]).must(t, 200, href[1])
			if !strings.Contains(css.header.Get("Content-Type"), "text/css") || !strings.Contains(css.header.Get("Cache-Control"), "max-age=31536000") {
				t.Errorf("%s: %v", href[1], css.header)
			}
		}
		get(t, s.URL, "", "/_folio/site.000000000000.css").must(t, 404, "unknown asset")
	})
}

// TestReaderCustomization: the stored primary color reaches the site's
// stylesheet, whose name changes with it.
func TestReaderCustomization(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		before := regexp.MustCompile(`/s/docs/_style/[0-9a-f]+\.css`).FindString(get(t, s.URL, "", "/s/docs/").body)
		c := api(t, s, d.token, "GET", d.siteBase()+"/customization", nil, 200)
		c["styling"].(map[string]any)["primaryColor"] = map[string]any{"light": "#ff0066", "dark": "#00ff99"}
		c["themes"] = map[string]any{"default": "dark", "toggeable": true}
		api(t, s, d.token, "PUT", d.siteBase()+"/customization", c, 200)
		home := get(t, s.URL, "", "/s/docs/")
		home.has(t, "dark default", `data-theme="dark"`)
		after := regexp.MustCompile(`/s/docs/_style/[0-9a-f]+\.css`).FindString(home.body)
		if after == before || after == "" {
			t.Fatalf("stylesheet %q, was %q", after, before)
		}
		get(t, s.URL, "", after).must(t, 200, "style").has(t, "style", "--primary:#ff0066", "--primary:#00ff99")
	})
}

// TestReaderSiteHosts: a host of FOLIO_SITE_HOSTS serves its site at /,
// with Folio's assets under /_folio/ and nothing else of Folio; the base
// URL's own host cannot be mapped.
func TestReaderSiteHosts(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		cfg := s.App.Config
		cfg.SiteHosts = "docs.example.test=" + d.site + ",gone.example.test=nosuchsite"
		a, err := app.New(cfg, s.App.DB, app.NewLogger(io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a.Handler)
		defer srv.Close()
		const host = "docs.example.test"
		p := get(t, srv.URL, host, "/").must(t, 200, "mapped root")
		p.has(t, "mapped root", "<h1>Getting started</h1>", `href="/install"`, `<a href="/api/">API</a>`, `action="/_search"`)
		get(t, srv.URL, host, "/install/linux/ubuntu").must(t, 200, "deep").has(t, "deep", `<a href="/install">Install</a>`)
		get(t, srv.URL, host, "/s/docs/").must(t, 404, "the base URL's paths are not the mapped host's")
		get(t, srv.URL, host, "/v1/user").must(t, 404, "no API on a mapped host")
		get(t, srv.URL, host, "/robots.txt").must(t, 200, "robots").has(t, "robots", "Sitemap: http://"+host+"/sitemap.xml")
		get(t, srv.URL, host, "/sitemap.xml").must(t, 200, "sitemap").has(t, "sitemap", "<loc>http://"+host+"/install</loc>")
		for _, href := range regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindAllStringSubmatch(p.body, -1) {
			get(t, srv.URL, host, href[1]).must(t, 200, href[1])
		}
		get(t, srv.URL, "gone.example.test", "/").must(t, 404, "a host mapped to no site")
		get(t, srv.URL, "", "/s/docs/install").must(t, 200, "the base host still serves /s/")

		cfg.SiteHosts = "127.0.0.1=" + d.site
		if _, err := app.New(cfg, s.App.DB, app.NewLogger(io.Discard)); err == nil || !strings.Contains(err.Error(), "FOLIO_BASE_URL") {
			t.Errorf("mapping the base URL's host: %v", err)
		}
	})
}

// TestReaderAccess: share-link and visitor-auth sites through the gate; a
// section whose condition is false for the visitor does not exist.
func TestReaderAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		t.Run("adaptive", func(t *testing.T) {
			api(t, s, d.token, "PUT", d.siteBase()+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
				"type": "object", "additionalProperties": false, "properties": map[string]any{
					"plan": map[string]any{"type": "string", "description": "Plan"},
					"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false, "properties": map[string]any{
						"beta": map[string]any{"type": "boolean", "description": "Beta"}}}}}}, 200)
			api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": "visitor.claims.unsigned.beta"}, 200)
			p := get(t, s.URL, "", "/s/docs/").must(t, 200, "without the claim")
			p.hasNot(t, "without the claim", `href="/s/docs/api/"`)
			get(t, s.URL, "", "/s/docs/api/errors").must(t, 404, "hidden section by URL")
			get(t, s.URL, "", "/s/docs/_search?q=zebracorn").must(t, 200, "search").hasNot(t, "search", "/s/docs/api/")
			get(t, s.URL, "", "/s/docs/api/errors?visitor.beta=true").must(t, 200, "with the claim").has(t, "with", "<h1>Errors</h1>")
			api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": nil}, 200)
		})
		t.Run("share link", func(t *testing.T) {
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "share-link"}, 200)
			link := s.MustGraphQL(t, d.token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { key } }`,
				map[string]any{"site": d.site})["createSiteShareLink"].(map[string]any)["key"].(string)
			get(t, s.URL, "", "/s/docs/install").must(t, 404, "without the key")
			p := get(t, s.URL, "", "/s/docs/install?shareKey="+link)
			if p.status != 200 && p.status != 302 && p.status != 303 {
				t.Fatalf("with the key: %d", p.status)
			}
			if p.header.Get("Cache-Control") != "private, no-cache" && p.status == 200 {
				t.Errorf("share-link page cache %q", p.header.Get("Cache-Control"))
			}
		})
		t.Run("visitor auth", func(t *testing.T) {
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "visitor-auth"}, 200)
			get(t, s.URL, "", "/s/docs/install").must(t, 401, "without a token")
			key := api(t, s, d.token, "GET", d.siteBase()+"/publishing/auth", nil, 200)["privateKey"].(string)
			tok, err := visitorauth.Sign(key, map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
			if err != nil {
				t.Fatal(err)
			}
			p := get(t, s.URL, "", "/s/docs/install?jwt_token="+tok).must(t, 302, "with a token")
			var cookies []string
			for _, c := range p.header.Values("Set-Cookie") {
				cookies = append(cookies, strings.Split(c, ";")[0])
			}
			get(t, s.URL, "", "/s/docs/install", "Cookie", strings.Join(cookies, "; ")).must(t, 200, "with the cookie").has(t, "cookie", "<h1>Install</h1>")
		})
	})
}

// TestReaderStatements: once a revision's navigation is built, a page of a
// 5,000-page site costs the same few statements as one of a small site.
func TestReaderStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "big@example.com", "Big")
		sp := api(t, s, u.Token, "POST", "/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201)["id"].(string)
		s.SeedPages(t, sp, 5000)
		site := api(t, s, u.Token, "POST", "/orgs/"+org+"/sites", map[string]any{"title": "Big docs", "spaces": []string{sp}}, 201)["id"].(string)
		api(t, s, u.Token, "PATCH", "/orgs/"+org+"/sites/"+site, map[string]any{"basename": "big"}, 200)
		api(t, s, u.Token, "POST", "/orgs/"+org+"/sites/"+site+"/publish", nil, 200)
		get(t, s.URL, "", "/s/big/page-10").must(t, 200, "warm")
		before := s.Statements()
		get(t, s.URL, "", "/s/big/page-4990/page-4995").must(t, 200, "deep page").has(t, "deep page", "<h1>Page 4995</h1>",
			`<a href="/s/big/page-4990">Page 4990</a>`, `rel="next" href="/s/big/page-4990/page-4996"`)
		if n := s.Statements() - before; n > 7 {
			t.Errorf("a page of a built revision took %d statements, want at most 7", n)
		} else {
			t.Logf("%d statements", n)
		}
	})
}

// TestReaderFilesAndGroups: images and file links point at blob storage's
// unguessable URLs, which answer without a token even for a protected
// site; a section group is a menu of its sections.
func TestReaderFilesAndGroups(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		ctx := testkit.Fixture(t.Context())
		png := []byte("\x89PNG\r\n\x1a\nnot really")
		key, err := s.App.Resolver.Blobs.Put(ctx, png, "image/png")
		if err != nil {
			t.Fatal(err)
		}
		seed(t, s, d.apiSpace, []pg{{title: "Reference", slug: "reference",
			md: "# Reference\n\n![Logo](/files/logo1) and [the spec](/files/logo1).\n"}})
		rev := s.Client().Space.GetX(ctx, d.apiSpace).RevisionID
		s.Client().File.Create().SetRevisionID(rev).SetFileID("logo1").SetName("logo.png").SetContentType("image/png").
			SetSize(int64(len(png))).SetBlobKey(key).SetCreatedAt(time.Now()).ExecX(ctx)
		want := s.URL + "/files/" + key + "/logo.png"
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "share-link"}, 200)
		link := s.MustGraphQL(t, d.token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { key } }`,
			map[string]any{"site": d.site})["createSiteShareLink"].(map[string]any)["key"].(string)
		p := get(t, s.URL, "", "/s/docs/api/reference?shareKey="+link).must(t, 200, "page with an image")
		p.has(t, "image", `<img src="`+want+`" alt="Logo"`, `<a href="`+want+`">the spec</a>`)
		img := get(t, s.URL, "", "/files/"+key+"/logo.png").must(t, 200, "the image without a token or key")
		if img.body != string(png) || img.header.Get("Content-Type") != "image/png" {
			t.Errorf("image answer %v %q", img.header, img.body)
		}
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "public"}, 200)

		api(t, s, d.token, "POST", d.siteBase()+"/section-groups", map[string]any{"title": "More", "sections": []string{d.apiSection}}, 201)
		home := get(t, s.URL, "", "/s/docs/").must(t, 200, "with a group")
		home.has(t, "group", `<details><summary>More</summary><div><a href="/s/docs/api/">API</a></div></details>`)
		get(t, s.URL, "", "/s/docs/api/").must(t, 200, "grouped section").has(t, "grouped", `<details class="active"><summary>More</summary>`)
	})
}
