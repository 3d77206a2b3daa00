package explorer_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/folio/folio/internal/explorer"
	"github.com/folio/folio/internal/testkit"
)

// TestBundleSize: the committed bundle stays under explorer.MaxAssetBytes.
func TestBundleSize(t *testing.T) {
	var total int64
	err := fs.WalkDir(explorer.Assets(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		total += info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("explorer bundle: %d bytes (limit %d)", total, explorer.MaxAssetBytes)
	if total > explorer.MaxAssetBytes {
		t.Fatalf("the explorer bundle is %d bytes, over the limit of %d: trim internal/explorer/bundle or raise MaxAssetBytes (and the README) on purpose", total, explorer.MaxAssetBytes)
	}
}

// textOnlyHosts are the hosts named in the bundle's code as text, never
// fetched: XML namespaces, links in error messages and license comments.
// (TestExplorerInBrowser proves nothing is fetched; this list makes a new
// CDN in an upgraded GraphiQL show up in review.)
var textOnlyHosts = map[string]bool{
	"www.w3.org":       true, // SVG, XLink, MathML namespaces
	"react.dev":        true, // React's error messages link their docs
	"github.com":       true, // license comments, GraphiQL's logo link
	"codemirror.net":   true, // CodeMirror's error message on keymaps
	"commonmark.org":   true, // markdown-it's comments
	"en.wikipedia.org": true, // a comment in graphql-js
	"yarnpkg.com":      true, // graphql-js's warning about two copies
}

// TestNothingFromElsewhere: the page names no URL at all but its own
// files; its script and stylesheet name only the hosts above, as text.
func TestNothingFromElsewhere(t *testing.T) {
	files := explorer.Assets()
	page, _ := fs.ReadFile(files, "index.html")
	if m := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+`).Find(page); m != nil {
		t.Errorf("index.html names %s", m)
	}
	link := regexp.MustCompile(`(?i)https?://([a-z0-9.-]+)`)
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		if e.Name() == "index.html" {
			continue
		}
		body, _ := fs.ReadFile(files, e.Name())
		for _, m := range link.FindAllSubmatch(body, -1) {
			if host := string(m[1]); host != "" && !textOnlyHosts[strings.ToLower(host)] {
				t.Errorf("%s names %s", e.Name(), m[0])
			}
		}
	}
}

// TestServed: the page and its files over HTTP, with their types and
// caching; an unknown file is a 404 like any other.
func TestServed(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	get := func(path string, gz bool) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		// A transport of its own, so gzip is not undone behind the test's back.
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	page := get("/graphql", false)
	if page.StatusCode != 200 || page.Header.Get("Content-Security-Policy") != explorer.CSP || page.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("page: %d %v", page.StatusCode, page.Header)
	}
	html, _ := io.ReadAll(page.Body)
	refs := regexp.MustCompile(`(?:src|href)="(/graphql/explorer/[^"]+)"`).FindAllSubmatch(html, -1)
	if len(refs) != 2 {
		t.Fatalf("the page loads %d files:\n%s", len(refs), html)
	}
	for _, ref := range refs {
		path := string(ref[1])
		want, _ := fs.ReadFile(explorer.Assets(), strings.TrimPrefix(path, explorer.AssetPath))
		ct := map[bool]string{true: "text/javascript; charset=utf-8", false: "text/css; charset=utf-8"}[strings.HasSuffix(path, ".js")]

		plain := get(path, false)
		body, _ := io.ReadAll(plain.Body)
		if plain.StatusCode != 200 || plain.Header.Get("Content-Type") != ct || !bytes.Equal(body, want) ||
			plain.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d %v (%d bytes)", path, plain.StatusCode, plain.Header, len(body))
		}

		zipped := get(path, true)
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil || zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s with gzip: %v %v", path, err, zipped.Header)
		}
		unzipped, _ := io.ReadAll(zr)
		if !bytes.Equal(unzipped, want) {
			t.Errorf("%s: the gzipped body differs", path)
		}
	}
	missing := get(explorer.AssetPath+"nope.js", false)
	body, _ := io.ReadAll(missing.Body)
	if missing.StatusCode != 404 || !strings.Contains(string(body), `"code":404`) {
		t.Errorf("unknown file: %d %s", missing.StatusCode, body)
	}
}
