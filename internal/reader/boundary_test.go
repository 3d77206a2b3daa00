package reader_test

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
)

// TestReaderBoundary: NUL (%00) and invalid UTF-8 (%ff) anywhere in a
// reader address — in each segment of every kind of path, on the base URL
// and on a mapped host, and in a query parameter's name or value — answer
// 404 (path) or 400 (query), never 500, on both databases: PostgreSQL
// refuses such text in a statement where SQLite finds nothing. The same
// addresses without the bad bytes answer as usual.
func TestReaderBoundary(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		cfg := s.App.Config
		const host = "docs.example.test"
		cfg.SiteHosts = host + "=" + d.site
		a, err := app.New(cfg, s.App.DB, app.NewLogger(io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		mapped := httptest.NewServer(a.Handler)
		defer mapped.Close()

		home := get(t, s.URL, "", "/s/docs/").must(t, 200, "home")
		var style, asset string
		for _, m := range regexp.MustCompile(`<link rel="stylesheet" href="([^"]+)">`).FindAllStringSubmatch(home.body, -1) {
			if strings.Contains(m[1], "/_style/") {
				style = strings.TrimPrefix(m[1], "/s/docs/")
			} else if asset == "" {
				asset = strings.TrimPrefix(m[1], "/_folio/")
			}
		}
		if style == "" || asset == "" {
			t.Fatalf("no stylesheets in the home page:\n%.2000s", home.body)
		}

		// Every kind of reader path, as segments: each is answered 2xx or
		// 3xx as it stands, then broken one segment at a time.
		base := [][]string{
			{"s", "docs", ""},                      // site home
			{"s", "docs"},                          // site root without its slash (redirect)
			{"s", "docs", "install", "linux"},      // page of the default section
			{"s", "docs", "api", "reference"},      // page of another section
			{"s", "docs", "guide", "guide-v2", ""}, // a site space's root
			{"s", "docs", "_search"},               // search
			{"s", "docs", "_theme"},                // theme toggle (redirect)
			{"s", "docs", "sitemap.xml"},           // sitemap
			{"s", "docs", style},                   // the site's stylesheet: _style/<hash>.css
			{"robots.txt"},                         // robots of the base URL
			{"_folio", asset},                      // Folio's stylesheets
		}
		onHost := [][]string{
			{""}, {"install", "linux"}, {"api", "reference"}, {"_search"}, {"_theme"},
			{"sitemap.xml"}, {"robots.txt"}, {style}, {"_folio", asset},
		}
		type target struct{ srv, host string }
		check := func(at target, segs []string) {
			t.Helper()
			path := "/" + strings.Join(segs, "/")
			if p := get(t, at.srv, at.host, path); p.status >= 400 {
				t.Fatalf("%s%s: %d as it stands", at.host, path, p.status)
			}
			for i := range segs {
				for _, bad := range []string{"%00", "%ff", "a%00b", "%c3%28"} {
					broken := append([]string(nil), segs...)
					if segs[i] == "" {
						broken[i] = bad
					} else {
						broken[i] = segs[i][:len(segs[i])/2] + bad + segs[i][len(segs[i])/2:]
					}
					p := "/" + strings.Join(broken, "/")
					if got := get(t, at.srv, at.host, p); got.status != 404 {
						t.Errorf("%s%s: %d, want 404\n%.300s", at.host, p, got.status, got.body)
					}
				}
			}
			sep := "?"
			if strings.HasSuffix(path, "_search") {
				sep = "?q=install&" // a real search with a bad parameter beside it
			}
			for _, q := range []string{"q=%00", "q=%ff", "to=dark%00", "shareKey=%ff", "jwt_token=a%00", "visitor.isBeta=%ff", "x%00=1", "%ff=1"} {
				got := get(t, at.srv, at.host, path+sep+q)
				if got.status != 400 {
					t.Errorf("%s%s%s%s: %d, want 400\n%.300s", at.host, path, sep, q, got.status, got.body)
				}
			}
		}
		for _, segs := range base {
			check(target{s.URL, ""}, segs)
		}
		for _, segs := range onHost {
			check(target{mapped.URL, host}, segs)
		}
		// A search with a bad query names it.
		if p := get(t, s.URL, "", "/s/docs/_search?q=zebra%00corn"); p.status != 400 || !strings.Contains(p.body, "q: contains a NUL character") {
			t.Errorf("search: %d %s", p.status, p.body)
		}
		if p := get(t, s.URL, "", "/s/docs/_search?q=zebra%ffcorn"); p.status != 400 || !strings.Contains(p.body, "q: is not valid UTF-8") {
			t.Errorf("search: %d %s", p.status, p.body)
		}
	})
}
