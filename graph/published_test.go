package graph_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// publishedDocs is a published public site, basename docs, read
// anonymously through GraphQL as the reader reads it:
//
//	Guide (default section): Guide (pages below), Guide v2, and Guide Pro
//	  (condition: plan is pro)
//	API: API (Reference, Errors)
//	Beta (condition: the unsigned claim isBeta): Beta (Beta notes)
//	Pro (condition: plan is pro): Pro (Pro features)
//
// Guide's pages: Getting started (links, headings), Install > Linux >
// Ubuntu, Secret (hidden), Hostile.
type publishedDocs struct {
	s                    *testkit.Server
	alice                testkit.User
	org, site, key       string
	guide                string
	betaSection, proSite string
}

// Conditions, and words that only hidden sections and site spaces hold:
// an answer to a visitor who may not see them must not contain them.
const (
	betaCondition = "visitor.claims.unsigned.isBeta"
	proCondition  = `visitor.claims.plan == "pro"`
)

var hiddenWords = []string{"Beta notes", "Pro features", "Guide Pro", "isBeta", "visitor.claims"}

func newPublishedDocs(t *testing.T, s *testkit.Server) *publishedDocs {
	t.Helper()
	alice, org := s.NewUser(t, "alice@acme.com", "Acme")
	d := &publishedDocs{s: s, alice: alice, org: org}
	space := func(title string, pages ...map[string]any) string {
		t.Helper()
		id := dig(s.MustGraphQL(t, alice.Token, `mutation($o: ID!, $t: String!) { createSpace(organizationId: $o, input: {title: $t, editMode: live}) { id } }`,
			map[string]any{"o": org, "t": title}), "createSpace", "id").(string)
		changes := make([]any, len(pages))
		for i, p := range pages {
			p["operation"] = "insert_page"
			changes[i] = p
		}
		s.MustGraphQL(t, alice.Token, `mutation($s: ID!, $c: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $s, changes: $c) { revision { id } } }`,
			map[string]any{"s": id, "c": changes})
		return id
	}
	page := func(title, slug, md string) map[string]any {
		return map[string]any{"title": title, "slug": slug, "markdown": md}
	}
	under := func(p map[string]any, ref, into string) map[string]any {
		if ref != "" {
			p["ref"] = ref
		}
		if into != "" {
			p["into"] = into
		}
		return p
	}
	hidden := page("Secret", "secret", "# Secret\n\nThe hiddenword lives here.\n")
	hidden["hidden"] = true
	guide := space("Guide",
		page("Getting started", "getting-started", "# Getting started\n\nRead [Ubuntu](install/linux/ubuntu.md) and [the steps](/install/README.md#steps), "+
			"or [elsewhere](https://example.com/x).\n\n## First steps\n\nText.\n\n### In detail\n\nMore.\n\n## Next steps\n\nEven more.\n"),
		under(page("Install", "install", "# Install\n\n## Steps\n\nDownload it.\n"), "install", ""),
		under(page("Linux", "linux", "# Linux\n\nOn Linux.\n"), "linux", "install"),
		under(page("Ubuntu", "ubuntu", "# Ubuntu\n\nUse apt.\n"), "", "linux"),
		hidden,
		page("Hostile", "hostile", "# Hostile\n\n<script>alert(1)</script>\n\n[click](javascript:alert(2)) <img src=x onerror=\"alert(4)\">\n"),
	)
	d.guide = guide
	guide2 := space("Guide v2", page("Welcome v2", "welcome", "# Welcome v2\n\nThe second version.\n"))
	guidePro := space("Guide Pro", page("Pro guide", "pro-guide", "# Pro guide\n\nFor pro plans.\n"))
	apiSpace := space("API", page("Reference", "reference", "# Reference\n\nEndpoints.\n"), page("Errors", "errors", "# Errors\n\nWhat fails.\n"))
	beta := space("Beta", page("Beta notes", "notes", "# Beta notes\n\nFor testers.\n"))
	pro := space("Pro", page("Pro features", "features", "# Pro features\n\nFor pro plans.\n"))

	must := func(query string, vars map[string]any) map[string]any {
		t.Helper()
		return s.MustGraphQL(t, alice.Token, query, vars)
	}
	d.site = dig(must(`mutation($o: ID!) { createSite(organization: $o, input: {title: "Acme Docs"}) { id } }`, map[string]any{"o": org}), "createSite", "id").(string)
	section := func(space, title string) string {
		return dig(must(`mutation($site: ID!, $s: ID!, $t: String) { addSiteSection(site: $site, space: $s, title: $t) { id } }`,
			map[string]any{"site": d.site, "s": space, "t": title}), "addSiteSection", "id").(string)
	}
	guideSection := section(guide, "Guide")
	must(`mutation($site: ID!, $s: ID!, $sec: ID) { addSiteSpace(site: $site, space: $s, section: $sec) { id } }`,
		map[string]any{"site": d.site, "s": guide2, "sec": guideSection})
	d.proSite = dig(must(`mutation($site: ID!, $s: ID!, $sec: ID) { addSiteSpace(site: $site, space: $s, section: $sec) { id } }`,
		map[string]any{"site": d.site, "s": guidePro, "sec": guideSection}), "addSiteSpace", "id").(string)
	section(apiSpace, "API")
	d.betaSection = section(beta, "Beta")
	proSection := section(pro, "Pro")
	must(`mutation($site: ID!, $schema: Any!) { updateSiteAdaptiveSchema(site: $site, jsonSchema: $schema) }`, map[string]any{"site": d.site,
		"schema": map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"plan": map[string]any{"type": "string", "description": "The plan", "enum": []any{"free", "pro"}},
			"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
				"properties": map[string]any{"isBeta": map[string]any{"type": "boolean", "description": "A beta tester"}}}}}})
	must(`mutation($id: ID!, $c: String) { updateSiteSection(id: $id, input: {condition: $c}) { id } }`, map[string]any{"id": d.betaSection, "c": betaCondition})
	must(`mutation($id: ID!, $c: String) { updateSiteSection(id: $id, input: {condition: $c}) { id } }`, map[string]any{"id": proSection, "c": proCondition})
	must(`mutation($id: ID!, $c: String) { updateSiteSpace(id: $id, input: {condition: $c}) { id } }`, map[string]any{"id": d.proSite, "c": proCondition})
	must(`mutation($id: ID!) { updateSite(id: $id, input: {basename: "docs"}) { id } }`, map[string]any{"id": d.site})
	must(`mutation($id: ID!) { publishSite(id: $id) { id } }`, map[string]any{"id": d.site})
	d.key = dig(must(`query($id: ID!) { site(id: $id) { publishingAuth { privateKey } } }`, map[string]any{"id": d.site}),
		"site", "publishingAuth", "privateKey").(string)
	return d
}

// anonymous runs query with no Authorization header and answers the raw
// answer with its data and errors.
func (d *publishedDocs) anonymous(t *testing.T, query string, vars map[string]any) (answer, string) {
	t.Helper()
	resp := call(t, d.s, "POST", "/graphql", "", postBody(query, vars, nil))
	if resp.Status != 200 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	return decodeAnswer(t, resp.Body), string(resp.Body)
}

// token signs a visitor token for the site (an hour from now).
func (d *publishedDocs) token(t *testing.T, key string, claims map[string]any) string {
	t.Helper()
	c := map[string]any{"exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	tok, err := visitorauth.Sign(key, c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (d *publishedDocs) setVisibility(t *testing.T, v string) {
	t.Helper()
	d.s.MustGraphQL(t, d.alice.Token, `mutation($id: ID!, $v: SiteVisibility) { updateSite(id: $id, input: {visibility: $v}) { id } }`,
		map[string]any{"id": d.site, "v": v})
}

// sectionTitles are the titles of a published site's sections in an
// answer.
func sectionTitles(site any) string {
	var out []string
	for _, sec := range dig(site, "sections").([]any) {
		out = append(out, dig(sec, "title").(string))
	}
	return strings.Join(out, ",")
}

const structureQuery = `query($id: ID!, $key: String, $token: String, $claims: Any) {
  publishedSite(id: $id, shareKey: $key, visitorToken: $token, unsignedClaims: $claims) {
    id title siteSpaceCount urls { location app published }
    sections { id title condition siteSpaces { id title condition pages { url page { title } pages { url page { title } } } } }
    sectionGroups { title }
  }
}`

// TestPublishedSiteAnonymous: a public published site, its structure and
// its pages are readable with no token, exactly as the reader shows them:
// sections and site spaces hidden by their conditions absent (their
// titles and conditions nowhere in the answer), hidden pages out of the
// navigation, the organization, share links and signing key refused; a
// page's HTML, outline, address and neighbours; its HTML is the reader's
// body for the same page.
func TestPublishedSiteAnonymous(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newPublishedDocs(t, s)
		root := s.URL + "/s/docs/"

		t.Run("structure", func(t *testing.T) {
			a, body := d.anonymous(t, structureQuery, map[string]any{"id": d.site})
			if len(a.Errors) != 0 {
				t.Fatalf("errors: %s", body)
			}
			site := a.Data["publishedSite"]
			if got := sectionTitles(site); got != "Guide,API" {
				t.Fatalf("sections: %s", got)
			}
			guide := dig(site, "sections", 0)
			if dig(guide, "condition") != nil || len(dig(guide, "siteSpaces").([]any)) != 2 {
				t.Fatalf("guide section: %v", guide)
			}
			// Guide and Guide v2 (Guide Pro is for pro plans), and API.
			if dig(site, "siteSpaceCount") != float64(3) {
				t.Fatalf("siteSpaceCount: %v", dig(site, "siteSpaceCount"))
			}
			if dig(site, "urls", "location") != root || dig(site, "urls", "published") != root {
				t.Fatalf("urls: %v", dig(site, "urls"))
			}
			pages := dig(guide, "siteSpaces", 0, "pages").([]any)
			var titles []string
			for _, p := range pages {
				titles = append(titles, dig(p, "page", "title").(string))
			}
			if strings.Join(titles, ",") != "Getting started,Install,Hostile" {
				t.Fatalf("root pages (Secret is hidden): %v", titles)
			}
			if dig(pages, 1, "url") != root+"install" || dig(pages, 1, "pages", 0, "url") != root+"install/linux" {
				t.Fatalf("urls: %v", pages[1])
			}
			for _, w := range append(hiddenWords, "Secret", "hiddenword", d.alice.Email, "Acme\"") {
				if strings.Contains(body, w) {
					t.Errorf("the answer shows %q: %s", w, body)
				}
			}
		})

		t.Run("what the audience may not see", func(t *testing.T) {
			a, body := d.anonymous(t, `query($id: ID!) { publishedSite(id: $id) { title organization { id title } shareLinks { id key } publishingAuth { privateKey } adaptiveSchema } }`,
				map[string]any{"id": d.site})
			if dig(a.Data, "publishedSite", "title") != "Acme Docs" {
				t.Fatalf("%s", body)
			}
			refused := map[string]bool{}
			for _, e := range a.Errors {
				if e.Extensions["code"] != "NOT_FOUND" {
					t.Errorf("error %+v", e)
				}
				refused[fmt.Sprint(e.Path)] = true
			}
			for _, f := range []string{"organization", "shareLinks", "publishingAuth"} {
				if dig(a.Data, "publishedSite", f) != nil || !refused["[publishedSite "+f+"]"] {
					t.Errorf("%s: %s", f, body)
				}
			}
			// The schema's unsigned claims only (anyone may set them); the
			// signed ones stay the site's business.
			schema, _ := json.Marshal(dig(a.Data, "publishedSite", "adaptiveSchema"))
			if !strings.Contains(string(schema), "isBeta") || strings.Contains(string(schema), "plan") {
				t.Errorf("adaptiveSchema: %s", schema)
			}
			for _, w := range []string{d.key, d.org, d.alice.Email} {
				if strings.Contains(body, w) {
					t.Errorf("the answer shows %q", w)
				}
			}
			// The spaces it shows are published content: their pages, not
			// their activity (change requests, comments) or anything behind
			// their own guards.
			s.MustGraphQL(t, d.alice.Token, `mutation($s: ID!) { createChangeRequest(spaceId: $s, subject: "Unpublished work") { id } }`,
				map[string]any{"s": d.guide})
			const spaces = `query($id: ID!) { publishedSite(id: $id) { sections { siteSpaces { space { title changeRequestCount changeRequestsDraft changeRequestsOpen
				organization { id } changeRequests { totalCount } revision { id } } } } } }`
			a, body = d.anonymous(t, spaces, map[string]any{"id": d.site})
			sp := dig(a.Data, "publishedSite", "sections", 0, "siteSpaces", 0, "space")
			if dig(sp, "title") != "Guide" || dig(sp, "changeRequestCount") != float64(0) || dig(sp, "changeRequestsDraft") != float64(0) ||
				dig(sp, "changeRequests") != nil || dig(sp, "revision") != nil || dig(sp, "organization") != nil {
				t.Errorf("the audience's space: %s", body)
			}
			for _, w := range []string{d.org, "Unpublished work"} {
				if strings.Contains(body, w) {
					t.Errorf("the answer shows %q", w)
				}
			}
			member := s.MustGraphQL(t, d.alice.Token, spaces, map[string]any{"id": d.site})
			if dig(member, "publishedSite", "sections", 0, "siteSpaces", 0, "space", "changeRequestCount") != float64(1) {
				t.Errorf("the member's space: %v", member)
			}
		})

		const pageQuery = `query($id: ID!, $path: String) { publishedSite(id: $id) { page(path: $path) {
			id url html noIndex outline { level title anchor } page { title path }
			previous { url page { title } } next { url page { title } } ancestors { url } pages { url } siteSpace { id } } } }`
		t.Run("a page", func(t *testing.T) {
			a, body := d.anonymous(t, pageQuery, map[string]any{"id": d.site, "path": "install/linux"})
			if len(a.Errors) != 0 {
				t.Fatalf("%s", body)
			}
			p := dig(a.Data, "publishedSite", "page")
			if dig(p, "url") != root+"install/linux" || dig(p, "page", "title") != "Linux" || dig(p, "noIndex") != false {
				t.Fatalf("page: %v", p)
			}
			if dig(p, "previous", "url") != root+"install" || dig(p, "next", "page", "title") != "Ubuntu" ||
				dig(p, "ancestors", 0, "url") != root+"install" || dig(p, "pages", 0, "url") != root+"install/linux/ubuntu" {
				t.Fatalf("navigation: %v", p)
			}
			if !strings.Contains(dig(p, "html").(string), "<p>On Linux.</p>") || strings.Contains(dig(p, "html").(string), "<h1") {
				t.Fatalf("html: %v", dig(p, "html"))
			}
			// The home page: the first listed page, with links to published
			// addresses and the outline.
			a, body = d.anonymous(t, pageQuery, map[string]any{"id": d.site})
			home := dig(a.Data, "publishedSite", "page")
			html := dig(home, "html").(string)
			for _, want := range []string{`<a href="` + root + `install/linux/ubuntu">Ubuntu</a>`, `<a href="` + root + `install#steps">`,
				`href="https://example.com/x"`, `<h2 id="first-steps">`} {
				if !strings.Contains(html, want) {
					t.Errorf("no %q in %s", want, html)
				}
			}
			outline, _ := json.Marshal(dig(home, "outline"))
			if string(outline) != `[{"anchor":"first-steps","level":2,"title":"First steps"},{"anchor":"in-detail","level":3,"title":"In detail"},{"anchor":"next-steps","level":2,"title":"Next steps"}]` {
				t.Errorf("outline: %s", outline)
			}
			if dig(home, "previous") != nil || dig(home, "url") != root+"getting-started" {
				t.Errorf("home: %s", body)
			}
			// The GraphQL body is the reader's for the same page.
			res, err := http.Get(root + "getting-started")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			article := string(b)
			article = article[strings.Index(article, "</h1>\n")+len("</h1>\n"):]
			article = strings.TrimPrefix(article[:strings.Index(article, "\n</article>")], "\n")
			if strings.TrimSpace(article) != strings.TrimSpace(html) {
				t.Errorf("GraphQL's html:\n%s\nthe reader's body:\n%s", html, article)
			}
		})

		t.Run("hidden and hostile", func(t *testing.T) {
			a, body := d.anonymous(t, pageQuery, map[string]any{"id": d.site, "path": "secret"})
			p := dig(a.Data, "publishedSite", "page")
			// A hidden page answers by its address, out of the navigation.
			if dig(p, "page", "title") != "Secret" || dig(p, "previous") != nil || dig(p, "next") != nil {
				t.Fatalf("hidden page: %s", body)
			}
			a, _ = d.anonymous(t, pageQuery, map[string]any{"id": d.site, "path": "hostile"})
			html := dig(a.Data, "publishedSite", "page", "html").(string)
			for _, bad := range []string{"<script", "javascript:", "onerror"} {
				if strings.Contains(strings.ToLower(html), bad) {
					t.Errorf("hostile markdown rendered %q: %s", bad, html)
				}
			}
			// A section hidden by its condition has no page to give.
			for _, path := range []string{"beta/notes", "pro", "guide-pro/pro-guide", "nope"} {
				a, body = d.anonymous(t, pageQuery, map[string]any{"id": d.site, "path": path})
				if dig(a.Data, "publishedSite", "page") != nil || len(a.Errors) != 0 {
					t.Errorf("%s: %s", path, body)
				}
			}
		})

		t.Run("node", func(t *testing.T) {
			member := s.MustGraphQL(t, d.alice.Token, `query($id: ID!) { site(id: $id) { sections { title siteSpaces { title page { id } } } } }`,
				map[string]any{"id": d.site})["site"]
			ids := map[string]string{}
			for _, sec := range dig(member, "sections").([]any) {
				for _, ss := range dig(sec, "siteSpaces").([]any) {
					ids[dig(ss, "title").(string)] = dig(ss, "page", "id").(string)
				}
			}
			const node = `query($id: ID!) { node(id: $id) { id ... on PublishedPage { url page { title } } } }`
			a, body := d.anonymous(t, node, map[string]any{"id": ids["API"]})
			if dig(a.Data, "node", "url") != root+"api/reference" || dig(a.Data, "node", "id") != ids["API"] {
				t.Fatalf("node of a shown page: %s", body)
			}
			for _, hidden := range []string{"Beta", "Pro", "Guide Pro"} {
				a, body = d.anonymous(t, node, map[string]any{"id": ids[hidden]})
				if a.Data["node"] != nil || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "NOT_FOUND" {
					t.Errorf("node of %s's page: %s", hidden, body)
				}
				for _, w := range hiddenWords {
					if strings.Contains(body, w) {
						t.Errorf("the answer shows %q: %s", w, body)
					}
				}
			}
			// Members read every page of the site by id.
			got := s.MustGraphQL(t, d.alice.Token, node, map[string]any{"id": ids["Pro"]})
			if dig(got, "node", "page", "title") != "Pro features" {
				t.Fatalf("member: %v", got)
			}
			// An id names the site space: the same page is another node in
			// another site space, and a malformed id is not found.
			if typ, parts, ok := model.ParseNodeID(ids["API"]); !ok || typ != "PublishedPage" || len(parts) != 4 || parts[0] != d.site {
				t.Fatalf("id parts: %s %v", typ, parts)
			}
			a, _ = d.anonymous(t, node, map[string]any{"id": model.NodeID("PublishedPage", d.site, "nope", "nope", "nope")})
			if a.Data["node"] != nil || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "NOT_FOUND" {
				t.Errorf("unknown published page: %+v", a)
			}
		})

		t.Run("members see it as members", func(t *testing.T) {
			got := s.MustGraphQL(t, d.alice.Token, `query($id: ID!) { publishedSite(id: $id, unsignedClaims: {isBeta: false}) {
				organization { id } sections { title condition } siteSpaceCount urls { location } } }`, map[string]any{"id": d.site})["publishedSite"]
			if sectionTitles(got) != "Guide,API,Beta,Pro" || dig(got, "sections", 2, "condition") != betaCondition ||
				dig(got, "organization", "id") != d.org || dig(got, "siteSpaceCount") != float64(6) ||
				!strings.Contains(dig(got, "urls", "location").(string), "/v1/orgs/") {
				t.Fatalf("member's view: %v", got)
			}
		})

		t.Run("unlisted", func(t *testing.T) {
			d.setVisibility(t, "unlisted")
			a, body := d.anonymous(t, pageQuery, map[string]any{"id": d.site, "path": "install"})
			if dig(a.Data, "publishedSite", "page", "url") != root+"install" || dig(a.Data, "publishedSite", "page", "noIndex") != true {
				t.Fatalf("unlisted: %s", body)
			}
			d.setVisibility(t, "public")
		})

		t.Run("unpublished", func(t *testing.T) {
			s.MustGraphQL(t, d.alice.Token, `mutation($id: ID!) { unpublishSite(id: $id) { id } }`, map[string]any{"id": d.site})
			a, body := d.anonymous(t, structureQuery, map[string]any{"id": d.site})
			if a.Data["publishedSite"] != nil || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "NOT_FOUND" ||
				strings.Contains(body, "Acme Docs") {
				t.Fatalf("unpublished: %s", body)
			}
			// Members preview it: no address while it is unpublished.
			got := s.MustGraphQL(t, d.alice.Token, `query($id: ID!) { publishedSite(id: $id) { page(path: "install") { url html } } }`,
				map[string]any{"id": d.site})
			if dig(got, "publishedSite", "page", "url") != nil || !strings.Contains(dig(got, "publishedSite", "page", "html").(string), "Download it.") {
				t.Fatalf("member's preview: %v", got)
			}
			s.MustGraphQL(t, d.alice.Token, `mutation($id: ID!) { publishSite(id: $id) { id } }`, map[string]any{"id": d.site})
		})
	})
}

// TestPublishedSiteAccess: share-link and visitor-auth sites through
// GraphQL's arguments, and the claims that show conditioned sections and
// site spaces, each under the reader's rules; answers that depend on a
// share key or a visitor token are never cached publicly.
func TestPublishedSiteAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newPublishedDocs(t, s)
		vars := func(kv ...any) map[string]any {
			v := map[string]any{"id": d.site}
			for i := 0; i+1 < len(kv); i += 2 {
				v[kv[i].(string)] = kv[i+1]
			}
			return v
		}
		admitted := func(t *testing.T, what string, v map[string]any) any {
			t.Helper()
			a, body := d.anonymous(t, structureQuery, v)
			if len(a.Errors) != 0 || a.Data["publishedSite"] == nil {
				t.Fatalf("%s: %s", what, body)
			}
			return a.Data["publishedSite"]
		}
		refused := func(t *testing.T, what string, v map[string]any) {
			t.Helper()
			a, body := d.anonymous(t, structureQuery, v)
			if a.Data["publishedSite"] != nil || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "NOT_FOUND" ||
				strings.Contains(body, "Acme Docs") {
				t.Fatalf("%s: %s", what, body)
			}
		}
		cacheControl := func(t *testing.T, v map[string]any) string {
			t.Helper()
			return call(t, s, "GET", getQuery(structureQuery, v, nil), "", "").Header.Get("Cache-Control")
		}

		t.Run("claims", func(t *testing.T) {
			if got := sectionTitles(admitted(t, "beta", vars("claims", map[string]any{"isBeta": true}))); got != "Guide,API,Beta" {
				t.Errorf("unsigned isBeta: %s", got)
			}
			// Values are coerced as in the reader's ?visitor.isBeta=true.
			if got := sectionTitles(admitted(t, "beta text", vars("claims", map[string]any{"isBeta": "true"}))); got != "Guide,API,Beta" {
				t.Errorf("unsigned isBeta as text: %s", got)
			}
			// Undeclared names and values of the wrong type are dropped: an
			// unsigned claim never stands in for a signed one.
			site := admitted(t, "not beta", vars("claims", map[string]any{"isBeta": "maybe", "plan": "pro"}))
			if got := sectionTitles(site); got != "Guide,API" {
				t.Errorf("dropped claims: %s", got)
			}
			pro := d.token(t, d.key, map[string]any{"plan": "pro"})
			site = admitted(t, "pro", vars("token", pro))
			if got := sectionTitles(site); got != "Guide,API,Pro" || len(dig(site, "sections", 0, "siteSpaces").([]any)) != 3 {
				t.Errorf("signed plan pro: %s %v", got, dig(site, "sections", 0))
			}
			// A token's own unsigned claims win over the argument's.
			own := d.token(t, d.key, map[string]any{"unsigned": map[string]any{"isBeta": false}})
			if got := sectionTitles(admitted(t, "token's unsigned", vars("token", own, "claims", map[string]any{"isBeta": true}))); got != "Guide,API" {
				t.Errorf("token's unsigned over the argument: %s", got)
			}
			// An invalid token on a public site is ignored, as the reader does.
			if got := sectionTitles(admitted(t, "bad token", vars("token", d.token(t, "another key", map[string]any{"plan": "pro"})))); got != "Guide,API" {
				t.Errorf("invalid token: %s", got)
			}
			// A bad argument, once in.
			a, body := d.anonymous(t, structureQuery, vars("claims", []any{"isBeta"}))
			if len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || a.Errors[0].Extensions["field"] != "unsignedClaims" {
				t.Errorf("claims not an object: %s", body)
			}
			// One visitor per site and request.
			a, body = d.anonymous(t, `query($id: ID!) { a: publishedSite(id: $id, unsignedClaims: {isBeta: true}) { sections { title } }
				b: publishedSite(id: $id) { sections { title } } }`, vars())
			if len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
				t.Errorf("two visitors in one request: %s", body)
			}
			if cc := cacheControl(t, vars()); cc != "public, max-age=60" {
				t.Errorf("anonymous GET of a public site: %q", cc)
			}
			if cc := cacheControl(t, vars("token", pro)); cc != "private, no-store" {
				t.Errorf("GET with a visitor token: %q", cc)
			}
		})

		t.Run("share link", func(t *testing.T) {
			d.setVisibility(t, "share_link")
			link := dig(s.MustGraphQL(t, d.alice.Token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { id key } }`,
				map[string]any{"site": d.site}), "createSiteShareLink").(map[string]any)
			refused(t, "without the key", vars())
			refused(t, "with a wrong key", vars("key", "wrong"))
			site := admitted(t, "with the key", vars("key", link["key"]))
			if sectionTitles(site) != "Guide,API" {
				t.Errorf("share link: %v", site)
			}
			if cc := cacheControl(t, vars("key", link["key"])); cc != "private, no-store" {
				t.Errorf("GET with a share key: %q", cc)
			}
			if cc := cacheControl(t, vars("key", "wrong")); cc != "private, no-store" {
				t.Errorf("GET with a wrong share key: %q", cc)
			}
			s.MustGraphQL(t, d.alice.Token, `mutation($id: ID!) { updateSiteShareLink(id: $id, active: false) { id } }`, vars("id", link["id"]))
			refused(t, "with an inactive link's key", vars("key", link["key"]))
			// A page of it by id: node(id:) reads as an anonymous visitor,
			// who brings no key.
			page := dig(s.MustGraphQL(t, d.alice.Token, `query($id: ID!) { site(id: $id) { page(path: "install") { id } } }`, vars()),
				"site", "page", "id").(string)
			a, body := d.anonymous(t, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": page})
			if a.Data["node"] != nil || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "NOT_FOUND" {
				t.Errorf("node of a share-link site's page: %s", body)
			}
		})

		t.Run("visitor auth", func(t *testing.T) {
			d.setVisibility(t, "visitor_auth")
			refused(t, "without a token", vars())
			refused(t, "with another key's token", vars("token", d.token(t, "another key", nil)))
			expired, err := visitorauth.Sign(d.key, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})
			if err != nil {
				t.Fatal(err)
			}
			refused(t, "with an expired token", vars("token", expired))
			refused(t, "with garbage", vars("token", "not.a.token"))
			site := admitted(t, "with a valid token", vars("token", d.token(t, d.key, nil)))
			if sectionTitles(site) != "Guide,API" {
				t.Errorf("visitor auth: %v", site)
			}
			site = admitted(t, "with a pro token and beta claims", vars("token", d.token(t, d.key, map[string]any{"plan": "pro"}),
				"claims", map[string]any{"isBeta": true}))
			if sectionTitles(site) != "Guide,API,Beta,Pro" {
				t.Errorf("visitor auth with claims: %v", sectionTitles(site))
			}
			a, body := d.anonymous(t, `query($id: ID!, $token: String) { publishedSite(id: $id, visitorToken: $token) { page(path: "install/linux") { html next { url } } } }`,
				vars("token", d.token(t, d.key, nil)))
			if !strings.Contains(fmt.Sprint(dig(a.Data, "publishedSite", "page", "html")), "On Linux.") {
				t.Errorf("a page of a visitor-auth site: %s", body)
			}
			if cc := cacheControl(t, vars("token", d.token(t, d.key, nil))); cc != "private, no-store" {
				t.Errorf("GET with a visitor token: %q", cc)
			}
			if cc := cacheControl(t, vars()); cc != "no-store" {
				t.Errorf("a refused anonymous GET: %q", cc)
			}
		})
	})
}

// TestPublishedSiteStatements: reading a published site's whole
// navigation and every page's HTML costs the same number of statements
// for 2 site spaces as for 10: navigation, trees, files and bodies are
// read for the site's revisions together, never per site space or page.
func TestPublishedSiteStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, org := s.NewUser(t, "alice@acme.com", "Acme")
		const query = `query($id: ID!) { publishedSite(id: $id) { siteSpaceCount siteSpaces { title
			pages { url html page { title markdown } pages { url html next { url } } }
			page { html outline { anchor } previous { url } next { url page { title } } } } } }`
		cost := func(n int) int64 {
			var spaces []any
			for i := range n {
				sp := dig(s.MustGraphQL(t, alice.Token, `mutation($o: ID!, $t: String!) { createSpace(organizationId: $o, input: {title: $t}) { id } }`,
					map[string]any{"o": org, "t": fmt.Sprint("Space ", n, "-", i)}), "createSpace", "id").(string)
				s.SeedPages(t, sp, 12)
				spaces = append(spaces, sp)
			}
			site := dig(s.MustGraphQL(t, alice.Token, `mutation($o: ID!, $s: [ID!]) { createSite(organization: $o, input: {title: "Many", spaces: $s}) { id } }`,
				map[string]any{"o": org, "s": spaces}), "createSite", "id").(string)
			s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { publishSite(id: $id) { id } }`, map[string]any{"id": site})
			before := s.Statements()
			resp := call(t, s, "POST", "/graphql", "", postBody(query, map[string]any{"id": site}, nil))
			got := s.Statements() - before
			a := decodeAnswer(t, resp.Body)
			if len(a.Errors) != 0 || len(dig(a.Data, "publishedSite", "siteSpaces").([]any)) != n ||
				len(dig(a.Data, "publishedSite", "siteSpaces", n-1, "pages").([]any)) != 2 {
				t.Fatalf("%d site spaces: %.2000s", n, resp.Body)
			}
			return got
		}
		two, ten := cost(2), cost(10)
		if two != ten {
			t.Fatalf("2 site spaces: %d statements, 10: %d", two, ten)
		}
		t.Logf("%d statements for 2 and for 10 site spaces", two)
	})
}
