package reader_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/testkit"
)

// pg is a page to seed: parent is the title of its parent page ("" for a
// root page).
type pg struct {
	title, slug, parent, md, description string
	hidden                               bool
}

// seed gives a space a new revision holding pages (straight through ent)
// and indexes it for search. It returns the page ids by title.
func seed(t testing.TB, s *testkit.Server, spaceID string, pages []pg) map[string]string {
	t.Helper()
	ctx := testkit.Fixture(context.Background())
	c := s.Client()
	rev := c.Revision.Create().SetSpaceID(spaceID).SetType("edits").SaveX(ctx)
	byTitle := map[string]string{}
	now := clock.Now()
	for i, p := range pages {
		id := ids.New()
		byTitle[p.title] = id
		sum := sha256.Sum256([]byte(p.md))
		hash := hex.EncodeToString(sum[:])
		if err := c.PageContent.Create().SetID(hash).SetMarkdown(p.md).OnConflict().DoNothing().Exec(ctx); err != nil && !strings.Contains(err.Error(), "no rows") {
			t.Fatal(err)
		}
		q := c.Page.Create().SetChunkID(rev.ID).SetPageID(id).SetPosition(i).SetTitle(p.title).SetSlug(p.slug).
			SetContentHash(hash).SetHidden(p.hidden).SetDescription(p.description).SetCreatedAt(now).SetUpdatedAt(now)
		if p.parent != "" {
			q.SetParentPageID(byTitle[p.parent])
		}
		q.ExecX(ctx)
	}
	testkit.OneChunk(ctx, c, rev.ID)
	c.Space.UpdateOneID(spaceID).SetRevisionID(rev.ID).ExecX(ctx)
	if err := s.App.Resolver.ReindexSpace(ctx, spaceID); err != nil {
		t.Fatal(err)
	}
	return byTitle
}

// api calls the REST API and fails the test on another status.
func api(t testing.TB, s *testkit.Server, token, method, path string, body any, want int) map[string]any {
	t.Helper()
	resp := s.Request(t, token, method, "/v1"+path, body)
	if resp.Status != want {
		t.Fatalf("%s %s: status %d, want %d\n%s", method, path, resp.Status, want, resp.Body)
	}
	if len(resp.Body) == 0 {
		return nil
	}
	return resp.JSON(t)
}

// page is an answer of the reader.
type page struct {
	status int
	header http.Header
	body   string
}

// get asks the reader for path (on host when not empty), with headers
// given as name, value pairs; redirects are not followed.
func get(t testing.TB, base, host, path string, headers ...string) page {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (p page) must(t testing.TB, status int, what string) page {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d\n%.2000s", what, p.status, status, p.body)
	}
	return p
}

func (p page) has(t testing.TB, what string, parts ...string) {
	t.Helper()
	for _, part := range parts {
		if !strings.Contains(p.body, part) {
			t.Errorf("%s: no %q in\n%.3000s", what, part, p.body)
		}
	}
}

func (p page) hasNot(t testing.TB, what string, parts ...string) {
	t.Helper()
	for _, part := range parts {
		if strings.Contains(strings.ToLower(p.body), strings.ToLower(part)) {
			t.Errorf("%s: %q should not be in\n%.3000s", what, part, p.body)
		}
	}
}

// docs is a published site: sections Guide (spaces Guide and Guide v2) and
// API, basename docs.
type docs struct {
	s                           *testkit.Server
	token, org, site            string
	guide, guide2, apiSpace     string
	guideSection, apiSection    string
	pages                       map[string]string
	hostileMarkdown, linkSource string
}

const hostile = "# Hostile\n\n<script>alert(1)</script>\n\n[click](javascript:alert(2)) " +
	"<a href=\"javascript:alert(3)\">raw</a> <img src=x onerror=\"alert(4)\"> <div onclick=\"alert(5)\">x</div>\n\n" +
	"<iframe src=\"https://evil.example/\"></iframe>\n\n[data](data:text/html;base64,PHNjcmlwdD4=)\n"

func newDocs(t testing.TB, s *testkit.Server) *docs {
	t.Helper()
	u, org := s.NewUser(t, "ada@example.com", "Acme")
	d := &docs{s: s, token: u.Token, org: org}
	space := func(title string) string {
		return api(t, s, d.token, "POST", "/orgs/"+org+"/spaces", map[string]any{"title": title}, 201)["id"].(string)
	}
	d.guide, d.guide2, d.apiSpace = space("Guide"), space("Guide v2"), space("API")
	d.pages = seed(t, s, d.guide, []pg{
		{title: "Getting started", slug: "getting-started", md: "# Getting started\n\nWelcome to the guide. Read [Ubuntu](install/linux/ubuntu.md), " +
			"[the install page](/install/README.md#steps) and [external](https://example.com/x).\n\n## First steps\n\nText.\n\n## Next steps\n\nMore.\n"},
		{title: "Install", slug: "install", md: "# Install\n\n## Steps\n\nDownload it.\n"},
		{title: "Linux", slug: "linux", parent: "Install", md: "# Linux\n\nOn Linux.\n"},
		{title: "Ubuntu", slug: "ubuntu", parent: "Linux", md: "# Ubuntu\n\nUse apt on Ubuntu: the zebracorn package.\n"},
		{title: "Secret", slug: "secret", hidden: true, md: "# Secret\n\nThe hiddenword lives here.\n"},
		{title: "Hostile", slug: "hostile", md: hostile},
		{title: "Private notes", slug: "private-notes", md: "---\nnoIndex: true\n---\n# Private notes\n\nNot for robots.\n"},
	})
	for title, id := range seed(t, s, d.guide2, []pg{{title: "Welcome v2", slug: "welcome", md: "# Welcome v2\n\nThe second version.\n"}}) {
		d.pages[title] = id
	}
	for title, id := range seed(t, s, d.apiSpace, []pg{
		{title: "Reference", slug: "reference", md: "# Reference\n\nEndpoints, zebracorn included.\n"},
		{title: "Errors", slug: "errors", md: "# Errors\n\nWhat fails.\n"},
	}) {
		d.pages[title] = id
	}
	sites := "/orgs/" + org + "/sites"
	d.site = api(t, s, d.token, "POST", sites, map[string]any{"title": "Acme Docs"}, 201)["id"].(string)
	base := sites + "/" + d.site
	d.guideSection = api(t, s, d.token, "POST", base+"/sections", map[string]any{"spaceId": d.guide, "title": "Guide"}, 201)["id"].(string)
	api(t, s, d.token, "POST", base+"/site-spaces", map[string]any{"spaceId": d.guide2, "sectionId": d.guideSection}, 201)
	d.apiSection = api(t, s, d.token, "POST", base+"/sections", map[string]any{"spaceId": d.apiSpace, "title": "API"}, 201)["id"].(string)
	api(t, s, d.token, "PATCH", base, map[string]any{"basename": "docs"}, 200)
	api(t, s, d.token, "POST", base+"/publish", nil, 200)
	return d
}

// siteBase is the site's management path in the API.
func (d *docs) siteBase() string { return "/orgs/" + d.org + "/sites/" + d.site }
