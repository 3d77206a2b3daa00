// Package explorer serves Folio's GraphQL explorer: GraphiQL, bundled once
// by bundle/bundle.sh into assets/ (committed) and embedded in the binary,
// so the page works on a machine without internet and CI needs no npm.
//
// The page persists nothing (headers hold the bearer token) and runs under
// a policy of its own that lets it load only its own files and talk only
// to its own origin.
package explorer

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/folio/folio/internal/apperr"
)

// AssetPath is where the page's script and stylesheet are served; their
// names carry a hash of their content, so they may be cached for good.
const AssetPath = "/graphql/explorer/"

// MaxAssetBytes bounds the committed bundle (a test sums the embedded
// files), so an upgrade that doubles GraphiQL is a decision, not an accident.
const MaxAssetBytes = 2 << 20

// CSP is the page's policy: scripts from the bundle only, requests to the
// same origin only. GraphiQL's stylesheet embeds its fonts and icons as
// data: URLs, and its dialogs inject a <style> element to lock scrolling
// (styles run no script, so allowing them inline opens no hole for code).
const CSP = "default-src 'none'; " +
	"script-src 'self'; " +
	"style-src 'self' 'unsafe-inline'; " +
	"font-src 'self' data:; " +
	"img-src 'self' data:; " +
	"connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed assets
var embedded embed.FS

// Assets is the bundle as committed: index.html and the files it names.
func Assets() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err)
	}
	return sub
}

// asset is one embedded file, gzipped on first request.
type asset struct {
	body        []byte
	contentType string
	once        sync.Once
	gzipped     []byte
}

var (
	page   []byte                // index.html
	served = map[string]*asset{} // the files it loads, by name under AssetPath
)

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]*)"`)

// The page names every file it loads by AssetPath; a rebuilt bundle that
// names a missing file, or anything elsewhere, fails at start (and in the
// package's tests) rather than in a browser.
func init() {
	files := Assets()
	var err error
	if page, err = fs.ReadFile(files, "index.html"); err != nil {
		panic("explorer: no index.html in the bundle: run internal/explorer/bundle/bundle.sh")
	}
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	for _, m := range assetRef.FindAllSubmatch(page, -1) {
		ref := string(m[1])
		if strings.HasPrefix(ref, "data:") {
			continue // the empty icon: spares the browser a request for /favicon.ico
		}
		name, ok := strings.CutPrefix(ref, AssetPath)
		ct := types[path.Ext(name)]
		if !ok || ct == "" || strings.Contains(name, "/") {
			panic("explorer: index.html loads " + ref + ", not a script or stylesheet under " + AssetPath)
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			panic("explorer: index.html loads " + ref + ", which the bundle lacks")
		}
		served[name] = &asset{body: body, contentType: ct}
	}
}

// Page serves the explorer's HTML.
func Page(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP)
	// The page names the current bundle's files: never keep an old one.
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(page)
}

// Asset serves a file of the bundle under AssetPath, gzipped when the
// client takes it (the script shrinks to about a quarter).
func Asset(w http.ResponseWriter, r *http.Request) {
	a := served[strings.TrimPrefix(r.URL.Path, AssetPath)]
	if a == nil {
		apperr.Write(w, r, apperr.NotFoundf("no such explorer file"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	body := a.body
	if acceptsGzip(r) {
		a.once.Do(func() { a.gzipped = gzipBytes(a.body) })
		body = a.gzipped
		h.Set("Content-Encoding", "gzip")
	}
	_, _ = w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}
