package reader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/visitor"
)

// serveSite answers a request for a path of a site (rest: below prefix).
func (h *Handler) serveSite(w http.ResponseWriter, r *http.Request, s *published.Site, prefix, rest string) {
	secure := r.TLS != nil || strings.HasPrefix(h.baseURL, "https://")
	// A member's preview needs no visitor credential: their session is
	// one. They read it as a visitor without claims would.
	vis, ok := visitor.Visitor{Claims: map[string]any{"unsigned": map[string]any{}}, State: "member preview"}, true
	if !s.Preview {
		vis, ok = visitor.Admit(w, r, visitor.Site{
			ID: s.ID, Visibility: s.Visibility, CookiePath: prefix, Secure: secure,
			VisitorKey: s.VisitorKey, FallbackURL: s.FallbackURL, Schema: s.Schema,
			ShareKeyActive: func(ctx context.Context, key string) (bool, error) { return h.res.SiteShareKeyActive(ctx, s.ID, key) },
		})
	}
	if !ok {
		return
	}
	hdr := w.Header()
	hdr.Add("Vary", "Cookie")
	if s.Preview {
		hdr.Set("Cache-Control", "private, no-store")
		hdr.Set("X-Robots-Tag", "noindex")
	} else if s.Visibility == "public" {
		hdr.Set("Cache-Control", "public, no-cache")
	} else {
		hdr.Set("Cache-Control", "private, no-cache")
		// Unlisted and protected sites stay out of search engines.
		hdr.Set("X-Robots-Tag", "noindex")
	}
	v := published.NewView(s, prefix, vis.Claims)
	theme := themeOf(r)
	etag := func(extra ...string) string {
		sum := sha256.New()
		fmt.Fprintf(sum, "%s\x00%s\x00%s\x00%s\x00%s\x00%s", assetsVersion, s.Digest, v.Outcome(), vis.State, theme, prefix)
		for _, e := range extra {
			fmt.Fprintf(sum, "\x00%s", e)
		}
		return `"` + hex.EncodeToString(sum.Sum(nil))[:32] + `"`
	}
	// notModified sets the ETag and answers 304 when the client has it.
	notModified := func(tag string) bool {
		hdr.Set("ETag", tag)
		// A 304's headers replace the cached answer's: the page's policy
		// must be on it too, or the browser keeps the APIs' (no styles).
		setPageHeaders(w, h.baseURL)
		for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
			if t = strings.TrimSpace(t); t == tag || t == "W/"+tag || t == "*" {
				w.WriteHeader(http.StatusNotModified)
				return true
			}
		}
		return false
	}
	switch {
	case rest == "sitemap.xml":
		if s.Visibility != "public" {
			h.notFound(w, r)
			return
		}
		if notModified(etag("sitemap")) {
			return
		}
		h.sitemap(w, r, v)
		return
	case rest == "_search":
		q := strings.TrimSpace(r.URL.Query().Get("q"))
		if notModified(etag("search", q)) {
			return
		}
		h.search(w, r, v, q, theme)
		return
	case rest == "_theme":
		h.toggleTheme(w, r, prefix)
		return
	case strings.HasPrefix(rest, "_style/"):
		h.siteStyle(w, r, s, strings.TrimPrefix(rest, "_style/"))
		return
	case isLLMPath(rest): // llms.go
		h.serveLLM(w, r, v, rest, etag, notModified)
		return
	}
	pl, ok := v.Resolve(rest)
	if !ok {
		h.notFoundOrRedirect(w, r, s, v, prefix, rest)
		return
	}
	n, err := h.res.PublishedNav(r.Context(), pl.SiteSpace.RevisionID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := n.PageAt(pl.PagePath)
	if p == nil {
		h.notFoundOrRedirect(w, r, s, v, prefix, rest)
		return
	}
	if p.Kind == "link" {
		if published.SafeHref(p.Href) == "" {
			h.notFound(w, r)
			return
		}
		http.Redirect(w, r, p.Href, http.StatusFound)
		return
	}
	base := v.SpaceURL(pl.Section, pl.SiteSpace)
	body, err := h.renderPage(r, s, n, p, prefix, base)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The revision and navigation are in the site's digest; the versions
	// of the specs the page's API reference blocks show are not.
	if notModified(etag("page", rest, body.SpecVersions)) {
		return
	}
	data := h.chrome(r, v, pl, theme)
	data.Page = p
	data.Title = p.Title
	data.Body = body.HTML
	data.Description = describe(p, body.HTML, s.Title)
	data.Outline = body.Outline
	if body.NoIndex || s.Visibility != "public" {
		data.Robots = "noindex"
	}
	data.Sidebar = sidebar(n, p, base)
	for _, a := range n.Ancestors(p) {
		data.Crumbs = append(data.Crumbs, link{Title: a.Title, URL: base + a.Path})
	}
	if prev, next := n.Neighbours(p); prev != nil || next != nil {
		if prev != nil {
			data.Prev = &link{Title: prev.Title, URL: base + prev.Path}
		}
		if next != nil {
			data.Next = &link{Title: next.Title, URL: base + next.Path}
		}
	}
	if p.Kind == "group" {
		for _, c := range n.ListedOf(p.Children) {
			data.Children = append(data.Children, link{Title: c.Title, URL: base + c.Path})
		}
	}
	h.trackView(r, s, pl, p, vis)
	h.write(w, r, "page", data)
}

// renderPage is a page's body as HTML, links pointing at the published
// URLs below base: the application's renderer and its cache, which GraphQL
// shares (graph.PublishedRender). Body links are absolute on the base URL
// (FOLIO_BASE_URL/s/<name>/…), as the APIs hand them out, so a page's body
// is the same here and in GraphQL's PublishedPage.html; on a mapped host
// they stay paths of that host.
func (h *Handler) renderPage(r *http.Request, s *published.Site, n *published.Nav, p *published.Page, prefix, base string) (*published.Rendered, error) {
	if prefix != "/" { // "/" is a mapped host's root
		base = h.baseURL + base
	}
	return h.res.PublishedRender(r.Context(), s.OrganizationID, n, p, base, func(ctx context.Context) (string, error) {
		return h.res.ReaderMarkdown(ctx, p.ContentHash)
	})
}
