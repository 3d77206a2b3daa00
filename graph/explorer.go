package graph

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/99designs/gqlgen/graphql/playground"
)

// gqlgen's GraphiQL page keeps the editors' state in the origin's
// localStorage and sets shouldPersistHeaders, so a pasted Authorization
// header outlives the tab; it has no option to turn either off. Until the
// explorer is bundled (issue 10), Folio serves gqlgen's page (its scripts,
// from the CDN it pins with SRI) rewritten to keep state in memory only and
// never persist headers, under a policy that lets only those scripts run.

// memoryStorage stands in for localStorage: the Storage methods GraphiQL's
// storage wrapper uses, over a Map that dies with the tab.
const memoryStorage = `
      const memoryStorage = (() => {
        const items = new Map();
        return {
          getItem: (key) => (items.has(key) ? items.get(key) : null),
          setItem: (key, value) => { items.set(key, String(value)); },
          removeItem: (key) => { items.delete(key); },
          key: (index) => Array.from(items.keys())[index] ?? null,
          get length() { return items.size; },
        };
      })();`

var (
	scriptSrc = regexp.MustCompile(`<script\s+src="([^"]+)"`)
	styleHref = regexp.MustCompile(`<link\s+rel="stylesheet"\s+href="([^"]+)"`)
)

type explorerPage struct {
	body []byte
	csp  string
}

// newExplorer renders the page once; it panics, like template.Must, when
// gqlgen's page no longer has the shape the rewrite expects (a test
// renders it, so an upgrade of gqlgen that breaks it fails there).
func newExplorer() http.Handler {
	rec := &pageRecorder{header: http.Header{}}
	req, _ := http.NewRequest(http.MethodGet, "/graphql", nil)
	playground.Handler("Folio GraphQL", "/graphql")(rec, req)
	page := rec.String()

	const persist = "shouldPersistHeaders: true"
	if strings.Count(page, persist) != 1 {
		panic("graph: gqlgen's explorer page changed: no " + persist)
	}
	page = strings.Replace(page, persist, "shouldPersistHeaders: false", 1)
	// The inline script is the last one and has no attributes.
	start := strings.LastIndex(page, "<script>")
	end := strings.LastIndex(page, "</script>")
	if start < 0 || end < start {
		panic("graph: gqlgen's explorer page changed: no inline script")
	}
	start += len("<script>")
	inline := memoryStorage + strings.ReplaceAll(page[start:end], "localStorage", "memoryStorage")
	page = page[:start] + inline + page[end:]
	if strings.Contains(page, "localStorage") {
		panic("graph: gqlgen's explorer page changed: localStorage outside its inline script")
	}

	scripts := origins(scriptSrc.FindAllStringSubmatch(page, -1))
	styles := origins(styleHref.FindAllStringSubmatch(page, -1))
	if scripts == "" || styles == "" {
		panic("graph: gqlgen's explorer page changed: no scripts or styles")
	}
	sum := sha256.Sum256([]byte(inline))
	csp := "default-src 'none'; " +
		"script-src " + scripts + " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		// GraphiQL styles elements inline as it renders.
		"style-src " + styles + " 'unsafe-inline'; " +
		"font-src " + styles + " data:; " +
		"img-src 'self' data:; " +
		"connect-src 'self'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return &explorerPage{body: []byte(page), csp: csp}
}

func (p *explorerPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", p.csp)
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(p.body)
}

// origins lists the distinct scheme://host of the matched URLs.
func origins(matches [][]string) string {
	var out []string
	seen := map[string]bool{}
	for _, m := range matches {
		u, err := url.Parse(m[1])
		if err != nil || u.Scheme != "https" || u.Host == "" {
			panic("graph: gqlgen's explorer page loads " + m[1])
		}
		o := u.Scheme + "://" + u.Host
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return strings.Join(out, " ")
}

// pageRecorder captures what gqlgen's handler writes.
type pageRecorder struct {
	bytes.Buffer
	header http.Header
}

func (p *pageRecorder) Header() http.Header { return p.header }
func (p *pageRecorder) WriteHeader(int)     {}
