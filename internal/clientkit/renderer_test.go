package clientkit_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// rendererFixture is what kit/renderer.mjs reads: where Folio is, the
// tokens, the page to render, and the seeded ids it falls back on while
// URL resolution hands out no site token.
type rendererFixture struct {
	// Endpoint is Folio's origin: GitBook's client adds /v1 itself.
	Endpoint string `json:"endpoint"`
	// BaseToken is the renderer's configured GITBOOK_API_TOKEN: here a
	// stranger's, an account of another organization, so every read of the
	// site's content must come from the site token the resolution hands out.
	BaseToken string `json:"baseToken"`
	// FallbackToken (the site owner's) stands in for the site token only
	// when the resolution gives none; the kit then says so.
	FallbackToken string `json:"fallbackToken"`
	PageURL       string `json:"pageURL"`
	UnknownURL    string `json:"unknownURL"`
	UnknownPath   string `json:"unknownPath"`
	EmbedURL      string `json:"embedURL"`
	Query         string `json:"query"`
	Seeded        seeded `json:"seeded"`
}

// seeded are the ids the page's URL must resolve to.
type seeded struct {
	Organization  string `json:"organization"`
	Site          string `json:"site"`
	SiteSection   string `json:"siteSection"`
	SiteSpace     string `json:"siteSpace"`
	SiteSpacePath string `json:"siteSpacePath"`
	Space         string `json:"space"`
	Revision      string `json:"revision"`
	Page          string `json:"page"`
	PagePath      string `json:"pagePath"`
}

// kitCall is one line of the kit's output.
type kitCall struct {
	OperationID string          `json:"operationId"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Token       string          `json:"token"`
	Status      int             `json:"status"`
	Body        json.RawMessage `json:"body"`
	Raw         string          `json:"raw"`
}

const (
	embedTitle = "Folio gyroscope demo"
	embedHTML  = `<iframe src="https://player.example/gyroscope" title="gyroscope"></iframe>`
	// searchWord is in the rendered page alone (the variant's install
	// page), so the search must find that page.
	searchWord = "gyroscope"
)

// TestRendererCalls renders one page of a published site as GitBook's
// open-source renderer does, with GitBook's own client (@gitbook/api
// 0.202.0): every call it makes (kit/renderer.mjs lists them, with their
// parameters and tokens) answers as the reference describes the
// operation, and answers with the right content. The site has two
// sections, the first with two variants; the page is a nested page of the
// second variant.
func TestRendererCalls(t *testing.T) {
	node := nodeKit(t)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		embed := oEmbedServer(t)
		f := seedPublishedSite(t, s, embed.URL+"/watch/gyroscope")
		raw, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "renderer.json")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := runCheck(node, "renderer", path)
		if err != nil {
			t.Fatalf("%s\n%s", err, out)
		}
		calls := map[string]kitCall{}
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var one map[string]kitCall
			if err := json.Unmarshal([]byte(line), &one); err != nil {
				t.Fatalf("kit line %q: %v", line, err)
			}
			for name, c := range one {
				calls[name] = c
			}
		}
		t.Logf("kit output:\n%s", out)
		checkRendererCalls(t, f, calls)
	})
}

// rendererCheck is what one call must answer besides its reference shape.
type rendererCheck struct {
	name, operationID string
	status            int
	// token is who the renderer sends the call as: "site" (the resolution's
	// apiToken) or "base" (its configured token).
	token string
	check func(t *testing.T, body map[string]any)
}

func checkRendererCalls(t *testing.T, f rendererFixture, calls map[string]kitCall) {
	want := f.Seeded
	eq := func(t *testing.T, what string, got any, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %s", what, got, want)
		}
	}
	checks := []rendererCheck{
		{"resolve", "resolvePublishedContentByUrl", 200, "base", func(t *testing.T, b map[string]any) {
			eq(t, "organization", b["organization"], want.Organization)
			eq(t, "site", b["site"], want.Site)
			eq(t, "siteSection", b["siteSection"], want.SiteSection)
			eq(t, "siteSpace", b["siteSpace"], want.SiteSpace)
			eq(t, "space", b["space"], want.Space)
			eq(t, "pathname", strings.Trim(str(b["pathname"]), "/"), want.PagePath)
			if b["complete"] != true {
				t.Errorf("complete = %v: a page's URL is past the site's own path", b["complete"])
			}
			if str(b["apiToken"]) == "" {
				t.Errorf("no apiToken")
			}
		}},
		{"site", "getPublishedContentSite", 200, "site", func(t *testing.T, b map[string]any) {
			site, _ := b["site"].(map[string]any)
			eq(t, "site.id", site["id"], want.Site)
			structure, _ := b["structure"].(map[string]any)
			eq(t, "structure.type", structure["type"], "sections")
			sections := sectionsOf(structure["structure"])
			if len(sections) != 2 {
				t.Fatalf("structure has %d sections, want 2: %v", len(sections), structure)
			}
			var variants []string
			for _, sec := range sections {
				if sec["id"] == want.SiteSection {
					for _, ss := range list(sec["siteSpaces"]) {
						variants = append(variants, str(ss["id"]))
					}
				}
			}
			if len(variants) != 2 || !contains(variants, want.SiteSpace) {
				t.Errorf("the page's section has site spaces %v, want two with %s", variants, want.SiteSpace)
			}
		}},
		{"space", "getSpaceById", 200, "site", func(t *testing.T, b map[string]any) {
			eq(t, "id", b["id"], want.Space)
			eq(t, "revision", b["revision"], want.Revision)
		}},
		{"revision", "getRevisionById", 200, "site", func(t *testing.T, b map[string]any) {
			eq(t, "id", b["id"], want.Revision)
			// The renderer finds the page in this tree by the lookup's pathname.
			if id := pageAt(list(b["pages"]), want.PagePath); id != want.Page {
				t.Errorf("page at %s in the revision's tree: %q, want %s", want.PagePath, id, want.Page)
			}
		}},
		{"pageByPath", "getPageInRevisionByPath", 200, "site", func(t *testing.T, b map[string]any) {
			eq(t, "id", b["id"], want.Page)
			eq(t, "path", b["path"], want.PagePath)
		}},
		{"document", "getPageDocumentInRevisionById", 200, "site", func(t *testing.T, b map[string]any) {
			eq(t, "object", b["object"], "document")
			if raw, _ := json.Marshal(b); !strings.Contains(string(raw), searchWord) {
				t.Errorf("the document does not hold the page's text (%q): %s", searchWord, raw)
			}
		}},
		{"metaLinks", "listRevisionPageMetaLinks", 200, "site", nil},
		{"resolveUnknown", "resolvePublishedContentByUrl", 200, "base", func(t *testing.T, b map[string]any) {
			eq(t, "siteSpace", b["siteSpace"], want.SiteSpace)
			eq(t, "pathname", strings.Trim(str(b["pathname"]), "/"), f.UnknownPath)
		}},
		{"redirectInSite", "getSiteRedirectBySource", 404, "site", nil},
		{"redirectInSpace", "getSiteRedirectBySource", 404, "site", nil},
		{"pageByUnknownPath", "getPageInRevisionByPath", 404, "site", nil},
		{"embed", "getEmbedByUrlInSpace", 200, "site", func(t *testing.T, b map[string]any) {
			eq(t, "title", b["title"], embedTitle)
			if b["type"] == "rich" && !strings.Contains(str(b["html"]), "player.example/gyroscope") {
				t.Errorf("rich embed html %q is not the provider's", b["html"])
			}
		}},
		{"search", "searchSiteContent", 200, "site", func(t *testing.T, b map[string]any) {
			var found []string
			for _, item := range list(b["items"]) {
				if item["type"] != "space" {
					continue
				}
				for _, p := range list(item["pages"]) {
					found = append(found, str(item["id"])+"/"+str(p["id"]))
				}
			}
			if !contains(found, want.Space+"/"+want.Page) {
				t.Errorf("search for %q found %v, want the page %s of space %s", searchWord, found, want.Page, want.Space)
			}
		}},
		{"insights", "trackEventsInSiteById", 204, "base", nil},
	}
	// Each call as the renderer sends it: the resolution with its own
	// token, the content with the token the resolution hands out. A kit
	// that fell back to the owner's token (no site token yet) fails here
	// alone, so the calls' own subtests still say which answer right.
	t.Run("tokens", func(t *testing.T) {
		for _, c := range checks {
			if got, ok := calls[c.name]; ok && got.Token != c.token {
				t.Errorf("%s was sent with the %s token, want the %s token (the renderer's)", c.name, got.Token, c.token)
			}
		}
	})
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			got, ok := calls[c.name]
			if !ok {
				t.Fatalf("the kit made no %s call", c.name)
			}
			if got.OperationID != c.operationID {
				t.Fatalf("kit's %s is %s, want %s", c.name, got.OperationID, c.operationID)
			}
			if got.Status != c.status {
				t.Fatalf("%s %s answered %d, want %d: %s", got.Method, got.Path, got.Status, c.status, got.Raw)
			}
			if c.status == 404 && strings.Contains(got.Raw, "no route for") {
				t.Fatalf("%s %s: no such operation on the server: %s", got.Method, got.Path, got.Raw)
			}
			testkit.CheckContract(t, c.operationID, got.Method, got.Path, &testkit.Response{Status: got.Status, Body: []byte(got.Raw)})
			if c.check != nil {
				var body map[string]any
				if err := json.Unmarshal(got.Body, &body); err != nil {
					t.Fatalf("body is not a JSON object: %v\n%s", err, got.Raw)
				}
				c.check(t, body)
			}
		})
	}
}

// seedPublishedSite publishes, through the API as a team would, the site
// the renderer reads: Acme's "Docs" (basename docs, public) with two
// sections: Guide, whose variants are the spaces Guide v1 (default) and
// Guide v2, and API. Every space has nested pages; the page rendered is
// getting-started/install of Guide v2, the only page with searchWord.
func seedPublishedSite(t *testing.T, s *testkit.Server, embedURL string) rendererFixture {
	t.Helper()
	ada, acme := s.NewUser(t, "ada@acme.test", "Acme Docs")
	host, _ := s.NewUser(t, "renderer@host.test", "Renderer Host")
	g := gql{s: s, t: t}
	space := func(title string, pages ...map[string]any) string {
		id := g.do(ada.Token, `mutation($org: ID!, $title: String!) { createSpace(organizationId: $org, input: {title: $title, editMode: live}) { id } }`,
			vars("org", acme, "title", title), "createSpace", "id")
		g.do(ada.Token, `mutation($sp: ID!, $changes: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $sp, changes: $changes) { id } }`,
			vars("sp", id, "changes", pages), "updateSpaceContent", "id")
		return id
	}
	v1 := space("Guide v1",
		page("start", "", "# Getting started\n\nWhat Folio is.\n"),
		page("install", "start", "# Install\n\nDownload the binary and run `folio serve`.\n"),
		page("faq", "install", "# Install FAQ\n\nCommon questions.\n"))
	v2 := space("Guide v2",
		page("start", "", "# Getting started\n\nWhat Folio 2 is.\n"),
		page("install", "start", "# Install\n\nInstall the package, then calibrate the "+searchWord+" sensor.\n\n## Requirements\n\nA 64-bit system.\n"),
		page("faq", "install", "# Install FAQ\n\nCommon questions about version 2.\n"),
		page("configure", "start", "# Configure\n\nSet `FOLIO_ADDR`.\n"))
	apiSpace := space("API",
		page("ref", "", "# Reference\n\nEvery endpoint.\n"),
		page("auth", "ref", "# Authentication\n\nBearer tokens.\n"))

	sites := "/v1/orgs/" + acme + "/sites"
	site := s.Call(t, "createSite", ada.Token, "POST", sites, map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
	base := sites + "/" + site
	guide := s.Call(t, "addSectionToSite", ada.Token, "POST", base+"/sections", map[string]any{"spaceId": v1, "title": "Guide"}, 201).JSON(t)["id"].(string)
	variant := s.Call(t, "addSpaceToSite", ada.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": v2, "sectionId": guide}, 201).JSON(t)
	s.Call(t, "addSectionToSite", ada.Token, "POST", base+"/sections", map[string]any{"spaceId": apiSpace, "title": "API"}, 201)
	s.Call(t, "updateSiteById", ada.Token, "PATCH", base, map[string]any{"basename": "docs", "visibility": "public"}, 200)
	s.Call(t, "publishSite", ada.Token, "POST", base+"/publish", nil, 200)

	// The variant's published address, as the API hands it out.
	var spaces struct{ Items []map[string]any }
	s.Call(t, "listSiteSpaces", ada.Token, "GET", base+"/site-spaces", nil, 200).Decode(t, &spaces)
	var published string
	for _, ss := range spaces.Items {
		if ss["id"] == variant["id"] {
			urls, _ := ss["urls"].(map[string]any)
			published = str(urls["published"])
		}
	}
	if published == "" {
		t.Fatalf("the variant %v has no published URL in %v", variant["id"], spaces.Items)
	}
	published = strings.TrimSuffix(published, "/") + "/"
	siteURL := str(s.Call(t, "getSiteById", ada.Token, "GET", base, nil, 200).JSON(t)["urls"].(map[string]any)["published"])
	const pagePath, unknownPath = "getting-started/install", "getting-started/no-such-page"
	return rendererFixture{
		Endpoint:      s.URL,
		BaseToken:     host.Token,
		FallbackToken: ada.Token,
		PageURL:       published + pagePath,
		UnknownURL:    published + unknownPath,
		UnknownPath:   unknownPath,
		EmbedURL:      embedURL,
		Query:         searchWord,
		Seeded: seeded{
			Organization:  acme,
			Site:          site,
			SiteSection:   guide,
			SiteSpace:     str(variant["id"]),
			SiteSpacePath: strings.Trim(strings.TrimPrefix(published, strings.TrimSuffix(siteURL, "/")), "/"),
			Space:         v2,
			Revision:      str(s.Call(t, "getCurrentRevision", ada.Token, "GET", "/v1/spaces/"+v2+"/content", nil, 200).JSON(t)["id"]),
			Page:          pageID(t, s, ada.Token, v2, pagePath),
			PagePath:      pagePath,
		},
	}
}

// oEmbedServer is an embed provider: a page that names its oEmbed
// endpoint (<link rel="alternate" type="application/json+oembed">) and
// carries the same title in <title> and og:title, so the embed answers the
// same whichever way the server discovers it.
func oEmbedServer(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/watch/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>%[1]s</title>
<meta property="og:title" content="%[1]s"><meta property="og:site_name" content="Player">
<link rel="alternate" type="application/json+oembed" href="%[2]s/oembed?url=%[2]s%[3]s&amp;format=json" title="%[1]s">
</head><body><h1>%[1]s</h1></body></html>`, embedTitle, srv.URL, r.URL.Path)
	})
	mux.HandleFunc("/oembed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"version": "1.0", "type": "rich", "title": embedTitle, "provider_name": "Player",
			"provider_url": srv.URL, "html": embedHTML, "width": 640, "height": 360,
		})
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// sectionsOf flattens a site structure's sections, section groups included.
func sectionsOf(v any) []map[string]any {
	var out []map[string]any
	for _, item := range list(v) {
		if item["object"] == "site-section-group" {
			out = append(out, sectionsOf(item["sections"])...)
			continue
		}
		out = append(out, item)
	}
	return out
}

// pageAt is the id of the document page at path in a revision's page tree.
func pageAt(pages []map[string]any, path string) string {
	for _, p := range pages {
		if p["type"] == "document" && p["path"] == path {
			return str(p["id"])
		}
		if id := pageAt(list(p["pages"]), path); id != "" {
			return id
		}
	}
	return ""
}

func list(v any) []map[string]any {
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
