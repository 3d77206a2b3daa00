package reader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/visitor"
)

// view is a site as one visitor sees it: sections and site spaces whose
// condition is false for the visitor do not exist for them.
type view struct {
	site   *graph.ReaderSite
	prefix string // the site's root path: /s/<name>/ or / on a mapped host
	claims map[string]any
	// outcome records each condition's result, for the ETag.
	outcome strings.Builder
}

func newView(s *graph.ReaderSite, prefix string, claims map[string]any) *view {
	v := &view{site: s, prefix: prefix, claims: claims}
	for _, sec := range s.Sections {
		v.shows(sec.Condition)
		for _, ss := range sec.SiteSpaces {
			v.shows(ss.Condition)
		}
	}
	for _, ss := range s.Root {
		v.shows(ss.Condition)
	}
	return v
}

// shows evaluates a condition (nil: always shown), recording the outcome.
func (v *view) shows(c *adaptive.Condition) bool {
	if c == nil {
		return true
	}
	ok := c.Eval(v.claims)
	if ok {
		v.outcome.WriteByte('1')
	} else {
		v.outcome.WriteByte('0')
	}
	return ok
}

func (v *view) sectionShown(sec *graph.ReaderSection) bool {
	return sec.Condition == nil || sec.Condition.Eval(v.claims)
}

func (v *view) spaceShown(ss *graph.ReaderSiteSpace) bool {
	return ss.Condition == nil || ss.Condition.Eval(v.claims)
}

// sections are the sections the visitor sees, in reading order.
func (v *view) sections() []*graph.ReaderSection {
	var out []*graph.ReaderSection
	for _, s := range v.site.Sections {
		if v.sectionShown(s) {
			out = append(out, s)
		}
	}
	return out
}

// spacesOf are the site spaces the visitor sees in a section (nil: the
// root of a site without sections).
func (v *view) spacesOf(sec *graph.ReaderSection) []*graph.ReaderSiteSpace {
	all := v.site.Root
	if sec != nil {
		all = sec.SiteSpaces
	}
	var out []*graph.ReaderSiteSpace
	for _, ss := range all {
		if v.spaceShown(ss) {
			out = append(out, ss)
		}
	}
	return out
}

// place is where a path leads: a section (nil without sections), one of
// its site spaces, and a page path in it ("" for the first page).
type place struct {
	section  *graph.ReaderSection
	spaces   []*graph.ReaderSiteSpace // the section's site spaces shown
	ss       *graph.ReaderSiteSpace
	pagePath string
}

// resolve reads a path below the site: each segment is read as a section
// first, then a site space, then the page path; the default section and
// site space may be left out. A section or site space hidden from the
// visitor is not found, never read as something else.
func (v *view) resolve(rest string) (place, bool) {
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if len(segs) == 1 && segs[0] == "" {
		segs = nil
	}
	var pl place
	if len(v.site.Sections) > 0 {
		shown := v.sections()
		if len(segs) > 0 {
			for _, s := range v.site.Sections {
				if s.Path == segs[0] {
					if !v.sectionShown(s) {
						return pl, false
					}
					pl.section, segs = s, segs[1:]
					break
				}
			}
		}
		if pl.section == nil {
			for _, s := range shown {
				if s.Default {
					pl.section = s
				}
			}
			if pl.section == nil && len(shown) > 0 {
				pl.section = shown[0]
			}
		}
		if pl.section == nil {
			return pl, false
		}
	}
	pl.spaces = v.spacesOf(pl.section)
	all := v.site.Root
	if pl.section != nil {
		all = pl.section.SiteSpaces
	}
	if len(segs) > 0 {
		for _, ss := range all {
			if ss.Path == segs[0] {
				if !v.spaceShown(ss) {
					return pl, false
				}
				pl.ss, segs = ss, segs[1:]
				break
			}
		}
	}
	if pl.ss == nil {
		for _, ss := range pl.spaces {
			if ss.Default {
				pl.ss = ss
			}
		}
		if pl.ss == nil && len(pl.spaces) > 0 {
			pl.ss = pl.spaces[0]
		}
	}
	if pl.ss == nil {
		return pl, false
	}
	pl.pagePath = strings.Join(segs, "/")
	return pl, true
}

// sectionURL is the path of a section: the default one's is the site's.
func (v *view) sectionURL(sec *graph.ReaderSection) string {
	if sec == nil || sec.Default {
		return v.prefix
	}
	return v.prefix + sec.Path + "/"
}

// spaceURL is the path of a site space, below its section's.
func (v *view) spaceURL(sec *graph.ReaderSection, ss *graph.ReaderSiteSpace) string {
	u := v.sectionURL(sec)
	if !ss.Default {
		u += ss.Path + "/"
	}
	return u
}

// serveSite answers a request for a path of a site (rest: below prefix).
func (h *Handler) serveSite(w http.ResponseWriter, r *http.Request, s *graph.ReaderSite, prefix, rest string) {
	secure := r.TLS != nil || strings.HasPrefix(h.baseURL, "https://")
	vis, ok := visitor.Admit(w, r, visitor.Site{
		ID: s.ID, Visibility: s.Visibility, CookiePath: prefix, Secure: secure,
		VisitorKey: s.VisitorKey, FallbackURL: s.FallbackURL, Schema: s.Schema,
		ShareKeyActive: func(ctx context.Context, key string) (bool, error) { return h.res.SiteShareKeyActive(ctx, s.ID, key) },
	})
	if !ok {
		return
	}
	hdr := w.Header()
	hdr.Add("Vary", "Cookie")
	if s.Visibility == "public" {
		hdr.Set("Cache-Control", "public, no-cache")
	} else {
		hdr.Set("Cache-Control", "private, no-cache")
		// Unlisted and protected sites stay out of search engines.
		hdr.Set("X-Robots-Tag", "noindex")
	}
	v := newView(s, prefix, vis.Claims)
	theme := themeOf(r)
	etag := func(extra ...string) string {
		sum := sha256.New()
		fmt.Fprintf(sum, "%s\x00%s\x00%s\x00%s\x00%s\x00%s", assetsVersion, s.Digest, v.outcome.String(), vis.State, theme, prefix)
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
	}
	pl, ok := v.resolve(rest)
	if !ok {
		h.notFound(w, r)
		return
	}
	n, err := h.navs.get(r.Context(), h.res, pl.ss.RevisionID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var p *graph.ReaderPage
	if pl.pagePath == "" {
		p = n.first()
	} else {
		p = n.ByPath[strings.TrimSuffix(pl.pagePath, "/")]
	}
	if p == nil {
		h.notFound(w, r)
		return
	}
	if p.Kind == "link" {
		if safeHref(p.Href) == "" {
			h.notFound(w, r)
			return
		}
		http.Redirect(w, r, p.Href, http.StatusFound)
		return
	}
	base := v.spaceURL(pl.section, pl.ss)
	body, err := h.renderPage(r, s, n, p, base)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// The revision and navigation are in the site's digest; the versions
	// of the specs the page's API reference blocks show are not.
	if notModified(etag("page", rest, body.specVersions)) {
		return
	}
	data := h.chrome(r, v, pl, theme)
	data.Page = p
	data.Title = p.Title
	data.Body = body.html
	data.Outline = body.outline
	data.Robots = body.robots
	if s.Visibility != "public" {
		data.Robots = "noindex"
	}
	data.Sidebar = sidebar(n, p, base)
	for _, a := range n.ancestors(p) {
		data.Crumbs = append(data.Crumbs, link{Title: a.Title, URL: base + a.Path})
	}
	if prev, next := n.neighbours(p); prev != nil || next != nil {
		if prev != nil {
			data.Prev = &link{Title: prev.Title, URL: base + prev.Path}
		}
		if next != nil {
			data.Next = &link{Title: next.Title, URL: base + next.Path}
		}
	}
	if p.Kind == "group" {
		for _, c := range p.Children {
			if !n.unlisted[c.ID] {
				data.Children = append(data.Children, link{Title: c.Title, URL: base + c.Path})
			}
		}
	}
	h.write(w, r, "page", data)
}

// renderPage is a page's body as HTML, links pointing at the published
// URLs below base; kept by revision, page and base. A page with API
// reference blocks is rendered again when a spec it shows has a new
// version.
func (h *Handler) renderPage(r *http.Request, s *graph.ReaderSite, n *nav, p *graph.ReaderPage, base string) (*renderedPage, error) {
	ctx := r.Context()
	key := n.RevisionID + "\x00" + p.ID + "\x00" + base
	if rp, ok := h.pages.Get(key); ok {
		if len(rp.specs) == 0 {
			return rp, nil
		}
		versions, err := h.res.ReaderSpecVersions(ctx, s.OrganizationID, rp.specs)
		if err != nil || versions == rp.specVersions {
			return rp, err
		}
	}
	src, err := h.res.ReaderMarkdown(ctx, p.ContentHash)
	if err != nil {
		return nil, err
	}
	rp := &renderedPage{specs: specSlugs(src)}
	if len(rp.specs) > 0 {
		// Read before rendering: a version landing meanwhile renders
		// again at the next request instead of being missed.
		if rp.specVersions, err = h.res.ReaderSpecVersions(ctx, s.OrganizationID, rp.specs); err != nil {
			return nil, err
		}
	}
	html, outline, err := renderMarkdown(src, func(dest string, image bool) string { return rewriteLink(n, p, base, dest) },
		h.res.ReaderSpecBlocks(ctx, s.OrganizationID))
	if err != nil {
		return nil, err
	}
	rp.html, rp.outline = withoutTitle(html, p.Title), outline
	if markdown.NoIndex(src) {
		rp.robots = "noindex"
	}
	h.pages.Add(key, rp)
	return rp, nil
}

// specSlugs are the specs a body's API reference blocks name, each once.
func specSlugs(src string) []string {
	var out []string
	for _, ref := range markdown.SpecRefs(src) {
		if !slices.Contains(out, ref.Spec) {
			out = append(out, ref.Spec)
		}
	}
	return out
}

// rewriteLink points a link of page p at its published place: pages (by
// path, relative or from the root, or /pages/<id>) at their URL below
// base, files (/files/<id>) at their download URL. Anything else is left
// as the author wrote it (the renderer drops what is unsafe).
func rewriteLink(n *nav, from *graph.ReaderPage, base, dest string) string {
	u, err := url.Parse(strings.TrimSpace(dest))
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
		return dest
	}
	frag := ""
	if u.Fragment != "" {
		frag = "#" + u.EscapedFragment()
	}
	if id, ok := strings.CutPrefix(u.Path, "/files/"); ok {
		if f, ok := n.Files[strings.Trim(id, "/")]; ok {
			return f
		}
		return dest
	}
	var target *graph.ReaderPage
	if id, ok := strings.CutPrefix(u.Path, "/pages/"); ok {
		target = n.ByID[strings.Trim(id, "/")]
	} else {
		p := u.Path
		if !strings.HasPrefix(p, "/") {
			p = path.Join(path.Dir("/"+from.Path), p)
		}
		p = strings.TrimSuffix(strings.TrimSuffix(strings.Trim(path.Clean(p), "/"), ".md"), "/README")
		if f, ok := n.Files[p]; ok {
			return f
		}
		target = n.ByPath[p]
	}
	if target == nil {
		return dest
	}
	return base + target.Path + frag
}

// safeHref is href when it is a web or mail address, else "".
func safeHref(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
		return href
	}
	return ""
}

// withoutTitle drops a body's leading <h1> when it repeats the page's
// title, which the page shows above the body already. (The heading is
// rendered first and dropped after, so heading ids stay the page's anchors.)
func withoutTitle(body template.HTML, title string) template.HTML {
	b := strings.TrimLeft(string(body), " \n")
	if !strings.HasPrefix(b, "<h1") {
		return body
	}
	end := strings.Index(b, "</h1>")
	open := strings.IndexByte(b, '>')
	if end < 0 || open < 0 || open > end {
		return body
	}
	if strings.TrimSpace(b[open+1:end]) != template.HTMLEscapeString(strings.TrimSpace(title)) {
		return body
	}
	return template.HTML(b[end+len("</h1>"):])
}
