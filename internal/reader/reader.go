// Package reader serves published docs sites as HTML: at
// FOLIO_BASE_URL/s/<basename>/ and at / of the hosts mapped to sites
// (FOLIO_SITE_HOSTS). It presents only: the sites, their structure,
// navigation and rendered pages come from the application
// (graph/sites_reader.go) — which serves GraphQL's published sites from the
// same rules (internal/published) and caches —, and who may read a
// protected site from the access gate (internal/visitor).
package reader

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/published"
)

// AssetPrefix is where Folio's own stylesheets are served, on the base URL
// and on every mapped host alike: the one path a mapped host keeps for
// Folio.
const AssetPrefix = "/_folio/"

// Handler serves the published sites.
type Handler struct {
	res     *graph.Resolver
	baseURL string            // public base URL, without a trailing slash
	hosts   map[string]string // mapped host (lower case, with port if any) -> site id
}

// New makes the reader over the application. hosts maps host names to the
// sites they serve.
func New(res *graph.Resolver, baseURL string, hosts map[string]string) *Handler {
	return &Handler{res: res, baseURL: strings.TrimRight(baseURL, "/"), hosts: hosts}
}

// MappedSite is the site a request's host is mapped to, if any:
// FOLIO_SITE_HOSTS first, then the sites' stored host names (hostnames.go).
func (h *Handler) MappedSite(r *http.Request) (string, bool) {
	if id, ok := h.configuredSite(r); ok {
		return id, true
	}
	return h.storedSite(r)
}

// configuredSite is the site FOLIO_SITE_HOSTS maps a request's host to.
func (h *Handler) configuredSite(r *http.Request) (string, bool) {
	if len(h.hosts) == 0 {
		return "", false
	}
	id, ok := h.hosts[strings.ToLower(r.Host)]
	if !ok {
		host := r.Host
		if i := strings.LastIndexByte(host, ':'); i > 0 && !strings.Contains(host[i:], "]") {
			host = host[:i]
		}
		id, ok = h.hosts[strings.ToLower(host)]
	}
	return id, ok
}

// Hosts serves the requests of mapped hosts, every path of them, and lets
// the others through to next.
func (h *Handler) Hosts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := h.MappedSite(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/"+MCPPath || r.URL.Path == mcpMetadataPath {
			h.serveHostMCP(w, r, id) // POST: mcp.go
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			h.plain(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		if !h.admitURL(w, r) {
			return
		}
		w, done := compress(w, r)
		defer done()
		switch {
		case strings.HasPrefix(r.URL.Path, AssetPrefix):
			serveAsset(w, r)
		case r.URL.Path == "/favicon.ico":
			serveFavicon(w, r)
		case r.URL.Path == "/robots.txt":
			h.robotsForHost(w, r, id)
		default:
			ctx := h.res.ReaderContext(r.Context())
			r = r.WithContext(ctx)
			s, err := h.res.ReaderSiteByID(ctx, id)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			h.serveSite(w, r, s, "/", strings.TrimPrefix(r.URL.Path, "/"))
		}
	})
}

// ServeSites serves /s/<name>/… on the base URL.
func (h *Handler) ServeSites(w http.ResponseWriter, r *http.Request) {
	if !h.admitURL(w, r) {
		return
	}
	w, done := compress(w, r)
	defer done()
	rest := strings.TrimPrefix(r.URL.Path, "/s/")
	name, rest, slash := strings.Cut(rest, "/")
	if name == "" {
		h.notFound(w, r)
		return
	}
	s, r, err := h.siteNamed(r, name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	prefix := "/s/" + name + "/"
	if !slash {
		http.Redirect(w, r, prefix+query(r), http.StatusMovedPermanently)
		return
	}
	h.serveSite(w, r, s, prefix, rest)
}

// siteNamed is the site at /s/<name>/ and the request to serve it with: a
// signed-in member of its organization (the session cookie reaches /s/ of
// the base URL, not mapped hosts) previews it, published or not;
// everyone else reads the published site as its audience.
func (h *Handler) siteNamed(r *http.Request, name string) (*published.Site, *http.Request, error) {
	if token := r.URL.Query().Get(graph.PreviewParam); token != "" { // a publishing preview's address
		ctx := h.res.ReaderContext(r.Context())
		if s, ok, err := h.res.ReaderPreviewByToken(ctx, name, token); err != nil || ok {
			return s, r.WithContext(ctx), err
		}
	}
	if ctx, ok, err := h.res.SessionViewerContext(r); err != nil {
		return nil, r, err
	} else if ok {
		s, member, err := h.res.ReaderPreviewSite(ctx, name)
		if err != nil || member {
			return s, r.WithContext(ctx), err
		}
	}
	ctx := h.res.ReaderContext(r.Context())
	r = r.WithContext(ctx)
	s, err := h.res.ReaderSiteNamed(ctx, name)
	return s, r, err
}

// ServeAsset serves Folio's stylesheets and icon (AssetPrefix).
func (h *Handler) ServeAsset(w http.ResponseWriter, r *http.Request) {
	if !h.admitURL(w, r) {
		return
	}
	w, done := compress(w, r)
	defer done()
	serveAsset(w, r)
}

// Favicon serves /favicon.ico of the base URL: browsers ask for it even
// when the page links its icon.
func (h *Handler) Favicon(w http.ResponseWriter, r *http.Request) {
	if h.admitURL(w, r) {
		serveFavicon(w, r)
	}
}

func query(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// fail answers an error of the application: not found as the reader's 404
// page, anything else as a 500 (logged).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		h.notFound(w, r)
		return
	}
	if r.Context().Err() != nil {
		h.plain(w, http.StatusServiceUnavailable, "the request was cut short")
		return
	}
	slog.ErrorContext(r.Context(), "internal error", "err", err)
	h.plain(w, http.StatusInternalServerError, "internal error")
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w, h.baseURL)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Robots-Tag", "noindex")
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		_ = templates.ExecuteTemplate(w, "notfound", map[string]any{"Assets": assetURLs(), "Theme": themeOf(r)})
	}
}

func (h *Handler) plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

// setPageHeaders sets the policy of a reader page: Folio's stylesheets,
// images from Folio's files and the web, no script at all, forms only to
// the site itself. connect-src 'self' opens nothing to the page (it has
// no script) but lets auditing tools fetch the site's robots.txt from it
// (Lighthouse's SEO check fails without it).
func setPageHeaders(w http.ResponseWriter, baseURL string) {
	img := "'self' https: data:"
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		img += " " + u.Scheme + "://" + u.Host
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; connect-src 'self'; img-src "+img+
		"; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
}
