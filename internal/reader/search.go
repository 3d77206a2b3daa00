package reader

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/published"
)

// maxResults bounds the pages a search page lists.
const maxResults = 50

// result is a found page with its matching excerpts.
type result struct {
	Title, URL, Where string
	Sections          []resultSection
}

type resultSection struct {
	Title, URL string
	Text       string // the excerpt as found
	Excerpt    template.HTML
}

// search lists the pages matching q among what the visitor can see.
func (h *Handler) search(w http.ResponseWriter, r *http.Request, v *published.View, q, theme string) {
	var pl published.Place
	if len(v.Site.Sections) == 0 {
		pl.Spaces = v.SpacesOf(nil)
	}
	data := h.chrome(r, v, pl, theme)
	data.Title, data.Query, data.Robots = "Search", q, "noindex"
	data.Description = clip("Search " + v.Site.Title + ".")
	data.Variants = nil
	if q != "" {
		results, err := h.find(r.Context(), v, q, maxResults)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		data.Results = results
	}
	h.write(w, r, "search", data)
}

// find ranks the pages matching q among what the visitor of v can see:
// the site spaces shown to them, without hidden pages, at most limit. The
// search page and the MCP server's searchDocumentation (mcp.go) both ask
// it: one definition of what a site's search finds.
func (h *Handler) find(ctx context.Context, v *published.View, q string, limit int) ([]result, error) {
	type home struct {
		sec *published.Section
		ss  *published.SiteSpace
	}
	homes := map[string]home{} // space id -> the first place the visitor sees it
	var spaceIDs []string
	add := func(sec *published.Section, ss *published.SiteSpace) {
		if _, ok := homes[ss.SpaceID]; !ok {
			homes[ss.SpaceID] = home{sec, ss}
			spaceIDs = append(spaceIDs, ss.SpaceID)
		}
	}
	if len(v.Site.Sections) == 0 {
		for _, ss := range v.SpacesOf(nil) {
			add(nil, ss)
		}
	}
	for _, sec := range v.Sections() {
		for _, ss := range v.SpacesOf(sec) {
			add(sec, ss)
		}
	}
	hits, err := h.res.ReaderSearch(ctx, spaceIDs, q, limit)
	if err != nil {
		return nil, err
	}
	terms := graph.ReaderSearchTerms(q)
	var out []result
	for _, hit := range hits {
		at := homes[hit.SpaceID]
		n, err := h.res.PublishedNav(ctx, at.ss.RevisionID)
		if err != nil {
			return nil, err
		}
		p := n.ByID[hit.PageID]
		if p == nil || !n.Listed(p) || p.Kind != "document" {
			continue
		}
		base := v.SpaceURL(at.sec, at.ss)
		res := result{Title: p.Title, URL: base + p.Path}
		var where []string
		if at.sec != nil && len(v.Site.Sections) > 1 {
			where = append(where, at.sec.Title)
		}
		if len(v.SpacesOf(at.sec)) > 1 {
			where = append(where, at.ss.Title)
		}
		res.Where = strings.Join(where, " · ")
		for _, s := range hit.Sections {
			u := res.URL
			if s.Anchor != "" {
				u += "#" + s.Anchor
			}
			res.Sections = append(res.Sections, resultSection{Title: s.Title, URL: u, Text: s.Excerpt, Excerpt: highlight(s.Excerpt, terms)})
		}
		out = append(out, res)
	}
	return out, nil
}

// highlight escapes text and marks each occurrence of the terms.
func highlight(text string, terms []string) template.HTML {
	lower := strings.ToLower(text)
	var b strings.Builder
	for i := 0; i < len(text); {
		best, end := -1, 0
		for _, t := range terms {
			if t == "" {
				continue
			}
			if j := strings.Index(lower[i:], t); j >= 0 && (best < 0 || j < best) {
				best, end = j, j+len(t)
			}
		}
		// Lower-casing may change byte lengths: fall back to no marks.
		if best < 0 || len(lower) != len(text) {
			b.WriteString(template.HTMLEscapeString(text[i:]))
			break
		}
		b.WriteString(template.HTMLEscapeString(text[i : i+best]))
		b.WriteString("<mark>" + template.HTMLEscapeString(text[i+best:i+end]) + "</mark>")
		i += end
	}
	return template.HTML(b.String())
}
