package reader_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
)

// gunzip decompresses an answer's body.
func gunzip(t *testing.T, body string) string {
	t.Helper()
	z, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReaderCompression: pages, search, 404s and stylesheets are gzipped
// for a client that accepts it and sent as they are to one that does not,
// both with Vary: Accept-Encoding; a gzipped page's ETag is weak and still
// answers 304; the icon is not compressed again.
func TestReaderCompression(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		newDocs(t, s)
		plain := get(t, s.URL, "", "/s/docs/", "Accept-Encoding", "identity").must(t, 200, "plain")
		assets := regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindAllStringSubmatch(plain.body, -1)
		if len(assets) != 3 {
			t.Fatalf("stylesheets %v", assets)
		}
		for _, path := range []string{"/s/docs/", "/s/docs/install", "/s/docs/_search?q=zebracorn", "/s/docs/nope", assets[0][1], assets[1][1], assets[2][1]} {
			p := get(t, s.URL, "", path, "Accept-Encoding", "gzip, deflate, br")
			if p.header.Get("Content-Encoding") != "gzip" || !strings.Contains(p.header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("%s: Content-Encoding %q, Vary %q", path, p.header.Get("Content-Encoding"), p.header.Get("Vary"))
				continue
			}
			raw := get(t, s.URL, "", path, "Accept-Encoding", "identity")
			if raw.header.Get("Content-Encoding") != "" || !strings.Contains(raw.header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("%s without gzip: Content-Encoding %q, Vary %q", path, raw.header.Get("Content-Encoding"), raw.header.Get("Vary"))
			}
			if got := gunzip(t, p.body); got != raw.body {
				t.Errorf("%s: gzipped body differs from the plain one", path)
			}
			if strings.HasPrefix(path, "/s/docs/install") && len(p.body)*2 > len(raw.body) {
				t.Errorf("%s: %d bytes gzipped, %d plain", path, len(p.body), len(raw.body))
			}
		}
		if p := get(t, s.URL, "", "/s/docs/install", "Accept-Encoding", "gzip;q=0"); p.header.Get("Content-Encoding") != "" {
			t.Error("gzip;q=0 got gzip")
		}
		page := get(t, s.URL, "", "/s/docs/install", "Accept-Encoding", "gzip").must(t, 200, "gzipped")
		tag, identity := page.header.Get("ETag"), get(t, s.URL, "", "/s/docs/install", "Accept-Encoding", "identity").header.Get("ETag")
		if tag != "W/"+identity {
			t.Errorf("gzipped ETag %q, plain %q", tag, identity)
		}
		get(t, s.URL, "", "/s/docs/install", "Accept-Encoding", "gzip", "If-None-Match", tag).must(t, 304, "weak ETag")
		icon := get(t, s.URL, "", "/favicon.ico", "Accept-Encoding", "gzip").must(t, 200, "icon")
		if icon.header.Get("Content-Encoding") != "" {
			t.Errorf("the icon is gzipped")
		}
	})
}

// TestReaderFavicon: pages link an icon of Folio's assets; it and
// /favicon.ico, of the base URL and of a mapped host, answer the same ICO.
func TestReaderFavicon(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		home := get(t, s.URL, "", "/s/docs/").must(t, 200, "home")
		link := regexp.MustCompile(`<link rel="icon" href="(/_folio/favicon\.[0-9a-f]+\.ico)"`).FindStringSubmatch(home.body)
		if link == nil {
			t.Fatalf("no icon link in\n%.1500s", home.body)
		}
		notFound := get(t, s.URL, "", "/s/docs/nope").must(t, 404, "404")
		notFound.has(t, "404", `<link rel="icon" href="`+link[1]+`"`)
		linked := get(t, s.URL, "", link[1]).must(t, 200, "linked icon")
		root := get(t, s.URL, "", "/favicon.ico").must(t, 200, "/favicon.ico")

		cfg := s.App.Config
		cfg.SiteHosts = "docs.example.test=" + d.site
		a, err := app.New(cfg, s.App.DB, app.NewLogger(io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a.Handler)
		defer srv.Close()
		mapped := get(t, srv.URL, "docs.example.test", "/favicon.ico").must(t, 200, "a mapped host's /favicon.ico")
		for name, p := range map[string]page{"linked": linked, "root": root, "mapped": mapped} {
			if p.header.Get("Content-Type") != "image/x-icon" || !bytes.HasPrefix([]byte(p.body), []byte{0, 0, 1, 0}) || p.body != linked.body {
				t.Errorf("%s icon: %q, %d bytes", name, p.header.Get("Content-Type"), len(p.body))
			}
		}
		if !strings.Contains(linked.header.Get("Cache-Control"), "immutable") || !strings.Contains(root.header.Get("Cache-Control"), "max-age=") {
			t.Errorf("cache: linked %q, root %q", linked.header.Get("Cache-Control"), root.header.Get("Cache-Control"))
		}
	})
}

var descriptionRE = regexp.MustCompile(`<meta name="description" content="([^"]*)">`)

// TestReaderMetaDescription: a page's description, else its first
// paragraph, clipped at a word to 160 characters.
func TestReaderMetaDescription(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		long := strings.Repeat("Lorem ipsum dolor sit amet. ", 12)
		seed(t, s, d.apiSpace, []pg{
			// A revision never changes once written (its tree is kept
			// across requests): the description is the seeded page's.
			{title: "Reference", slug: "reference", md: "# Reference\n\nBody text.\n", description: "Every endpoint & its errors."},
			{title: "Long", slug: "long", md: "# Long\n\n## Intro\n\n{% hint style=\"info\" %}\n" + long + "\n{% endhint %}\n"},
			{title: "Empty", slug: "empty", md: "# Empty\n"},
		})
		describe := func(path string) string {
			t.Helper()
			m := descriptionRE.FindStringSubmatch(get(t, s.URL, "", path).must(t, 200, path).body)
			if m == nil {
				t.Fatalf("%s: no meta description", path)
			}
			return m[1]
		}
		if got := describe("/s/docs/api/"); got != "Every endpoint &amp; its errors." {
			t.Errorf("from the description: %q", got)
		}
		if got := describe("/s/docs/install"); got != "Download it." {
			t.Errorf("from the first paragraph: %q", got)
		}
		got := describe("/s/docs/api/long")
		if n := len([]rune(got)); n > 160 || n < 120 || !strings.HasPrefix(got, "Lorem ipsum") || !strings.HasSuffix(got, "…") || strings.HasSuffix(got, " …") || strings.HasSuffix(got, ".…") {
			t.Errorf("clipped: %d characters, %q", n, got)
		}
		if got := describe("/s/docs/api/empty"); got != "Empty, in Acme Docs." {
			t.Errorf("without text: %q", got)
		}
		if got := describe("/s/docs/_search?q=zebracorn"); got != "Search Acme Docs." {
			t.Errorf("search: %q", got)
		}
	})
}

// TestReaderSystemTheme: with themes.default "system" a page has no theme
// of its own (the stylesheet follows prefers-color-scheme) and links to
// both; light and dark stay explicit choices, and the visitor's cookie
// wins over all.
func TestReaderSystemTheme(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		toggles := func(p page) []string {
			var to []string
			for _, m := range regexp.MustCompile(`<a class="theme to-(\w+)"`).FindAllStringSubmatch(p.body, -1) {
				to = append(to, m[1])
			}
			return to
		}
		for _, c := range []struct {
			stored, cookie, theme string
			toggles               string
		}{
			{"system", "", "", "dark light"},
			{"light", "", "light", "dark"},
			{"dark", "", "dark", "light"},
			{"system", "dark", "dark", "light"},
			{"light", "dark", "dark", "light"},
		} {
			d.setThemeDefault(t, c.stored)
			var headers []string
			if c.cookie != "" {
				headers = []string{"Cookie", "folio_theme=" + c.cookie}
			}
			p := get(t, s.URL, "", "/s/docs/install", headers...).must(t, 200, c.stored)
			m := regexp.MustCompile(`<html lang="en"(?: data-theme="(\w+)")?>`).FindStringSubmatch(p.body)
			if m == nil || m[1] != c.theme || strings.Join(toggles(p), " ") != c.toggles {
				t.Errorf("stored %s, cookie %q: theme %v, toggles %v; want %q, %s", c.stored, c.cookie, m, toggles(p), c.theme, c.toggles)
			}
			if c.theme == "" {
				p.has(t, "system", `<meta name="color-scheme" content="light dark">`)
			}
		}
	})
}
