package reader

import (
	"encoding/xml"
	"net/http"
	"strings"

	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/published"
)

// Robots serves /robots.txt of the base URL: published sites that are not
// public are disallowed, public ones point at their sitemap.
func (h *Handler) Robots(w http.ResponseWriter, r *http.Request) {
	if !h.admitURL(w, r) {
		return
	}
	ctx := h.res.ReaderContext(r.Context())
	sites, err := h.res.ReaderPublishedSites(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /v1/\nDisallow: /graphql\nDisallow: /files/\nDisallow: /downloads/\n")
	var maps []string
	for _, s := range sites {
		name := s.Basename
		if name == "" {
			name = s.ID
		}
		if s.Visibility == "public" {
			maps = append(maps, "Sitemap: "+h.baseURL+"/s/"+name+"/sitemap.xml\n")
		} else {
			b.WriteString("Disallow: /s/" + name + "/\n")
		}
	}
	b.WriteString("\n" + strings.Join(maps, ""))
	writeText(w, r, b.String())
}

// robotsForHost serves /robots.txt of a mapped host: its site's sitemap when
// the site is public, else nothing may be indexed.
func (h *Handler) robotsForHost(w http.ResponseWriter, r *http.Request, siteID string) {
	ctx := h.res.ReaderContext(r.Context())
	s, err := h.res.ReaderSiteByID(ctx, siteID)
	if err != nil || s.Visibility != "public" {
		writeText(w, r, "User-agent: *\nDisallow: /\n")
		return
	}
	writeText(w, r, "User-agent: *\nDisallow: "+AssetPrefix+"\n\nSitemap: "+h.origin(r)+"/sitemap.xml\n")
}

func writeText(w http.ResponseWriter, r *http.Request, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(text))
	}
}

// origin is scheme://host of the request's site: the base URL's, or the
// mapped host's.
func (h *Handler) origin(r *http.Request) string {
	if _, ok := h.MappedSite(r); !ok {
		return h.baseURL
	}
	scheme := "http"
	if r.TLS != nil || strings.HasPrefix(h.baseURL, "https://") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// sitemap lists the listed pages of every site space the visitor sees,
// except those whose frontmatter asks not to be indexed.
func (h *Handler) sitemap(w http.ResponseWriter, r *http.Request, v *published.View) {
	type loc struct {
		Loc string `xml:"loc"`
	}
	var urls []loc
	origin := h.origin(r)
	visit := func(sec *published.Section) error {
		for _, ss := range v.SpacesOf(sec) {
			n, err := h.res.PublishedNav(r.Context(), ss.RevisionID)
			if err != nil {
				return err
			}
			bodies, err := h.res.ReaderBodies(r.Context(), ss.RevisionID)
			if err != nil {
				return err
			}
			base := v.SpaceURL(sec, ss)
			for _, p := range n.Order() {
				if !markdown.NoIndex(bodies[p.ContentHash]) {
					urls = append(urls, loc{Loc: origin + base + p.Path})
				}
			}
		}
		return nil
	}
	var err error
	if len(v.Site.Sections) == 0 {
		err = visit(nil)
	}
	for _, sec := range v.Sections() {
		if err == nil {
			err = visit(sec)
		}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out, err := xml.MarshalIndent(struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []loc    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: urls}, "", " ")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(xml.Header))
		_, _ = w.Write(out)
	}
}
