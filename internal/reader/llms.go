package reader

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/published"
)

// Docs for language models, beside every published page (llmstxt.org):
//
//   - <page path>.md: the page's markdown as stored;
//   - llms.txt at the site's root: the site's title, then per section (and
//     site space) a list of its pages' .md addresses with their
//     descriptions;
//   - llms-full.txt: every listed page's markdown, one after another, cut
//     at MaxLLMsFullBytes.
//
// They are read through the same gate and view as the HTML (serveSite):
// what a visitor may not read as HTML (a protected site without its
// credential, a section or site space whose condition hides it) does not
// exist here either. Hidden pages, and pages under them, are left out of
// the lists and answer 404 as .md: the HTML keeps them reachable by URL for
// people who were given the link, but these files are for crawlers. Pages
// that ask not to be indexed (frontmatter noIndex) are left out of the
// lists as they are of the sitemap.

// MaxLLMsFullBytes caps llms-full.txt: past it, the file ends with a line
// saying it was cut and how many pages are missing.
const MaxLLMsFullBytes = 4 << 20

// isLLMPath says whether a path below a site's root is one of these files.
func isLLMPath(rest string) bool {
	return rest == "llms.txt" || rest == "llms-full.txt" || strings.HasSuffix(rest, ".md")
}

// serveLLM answers llms.txt, llms-full.txt or a page's .md for the visitor
// whose view is v; etag and notModified are serveSite's.
func (h *Handler) serveLLM(w http.ResponseWriter, r *http.Request, v *published.View, rest string,
	etag func(...string) string, notModified func(string) bool) {
	if rest == "llms.txt" || rest == "llms-full.txt" {
		if notModified(etag("llms", rest)) {
			return
		}
		pages, err := h.llmPages(r, v)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		var text string
		if rest == "llms.txt" {
			text = llmsIndex(v.Site, h.origin(r)+v.Prefix, pages)
		} else {
			text = llmsFull(v.Site, pages, MaxLLMsFullBytes)
		}
		writeLLM(w, r, "text/plain; charset=utf-8", text)
		return
	}
	pl, ok := v.Resolve(strings.TrimSuffix(rest, ".md"))
	if !ok || pl.PagePath == "" {
		h.notFound(w, r)
		return
	}
	n, err := h.res.PublishedNav(r.Context(), pl.SiteSpace.RevisionID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := n.PageAt(pl.PagePath)
	if p == nil || p.Kind != "document" || !n.Listed(p) {
		h.notFound(w, r)
		return
	}
	if notModified(etag("md", rest)) {
		return
	}
	md, err := h.res.ReaderMarkdown(r.Context(), p.ContentHash)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeLLM(w, r, "text/markdown; charset=utf-8", md)
}

func writeLLM(w http.ResponseWriter, r *http.Request, contentType, text string) {
	w.Header().Set("Content-Type", contentType)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(text))
	}
}

// llmGroup is the pages of one site space the visitor sees, under a
// heading.
type llmGroup struct {
	heading string
	pages   []llmPage
}

type llmPage struct {
	title, description, url, markdown string
}

// llmPages are the listed documents of every site space the visitor sees,
// in reading order, with their markdown (one statement per revision); URLs
// are relative to the site's root.
func (h *Handler) llmPages(r *http.Request, v *published.View) ([]llmGroup, error) {
	var groups []llmGroup
	visit := func(sec *published.Section) error {
		spaces := v.SpacesOf(sec)
		for _, ss := range spaces {
			n, err := h.res.PublishedNav(r.Context(), ss.RevisionID)
			if err != nil {
				return err
			}
			bodies, err := h.res.ReaderBodies(r.Context(), ss.RevisionID)
			if err != nil {
				return err
			}
			g := llmGroup{heading: ss.Title}
			if sec != nil {
				g.heading = sec.Title
				if len(spaces) > 1 {
					g.heading += " — " + ss.Title
				}
			}
			base := strings.TrimPrefix(v.SpaceURL(sec, ss), v.Prefix)
			for _, p := range n.Order() {
				md := bodies[p.ContentHash]
				if markdown.NoIndex(md) {
					continue
				}
				g.pages = append(g.pages, llmPage{title: p.Title, description: p.Description, url: base + p.Path + ".md", markdown: md})
			}
			if len(g.pages) > 0 {
				groups = append(groups, g)
			}
		}
		return nil
	}
	if len(v.Site.Sections) == 0 {
		if err := visit(nil); err != nil {
			return nil, err
		}
	}
	for _, sec := range v.Sections() {
		if err := visit(sec); err != nil {
			return nil, err
		}
	}
	return groups, nil
}

// llmsIndex is llms.txt: links are absolute on root (the site's root as
// the visitor reaches it).
func llmsIndex(s *published.Site, root string, groups []llmGroup) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(s.Title))
	fmt.Fprintf(&b, "> The documentation of %s. Each link below is a page's markdown; %sllms-full.txt holds them all in one file.\n",
		oneLine(s.Title), root)
	for _, g := range groups {
		fmt.Fprintf(&b, "\n## %s\n\n", oneLine(g.heading))
		for _, p := range g.pages {
			fmt.Fprintf(&b, "- [%s](%s%s)", linkText(p.title), root, p.url)
			if d := oneLine(p.description); d != "" {
				b.WriteString(": " + d)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// llmsFull is llms-full.txt: every page's markdown under a line naming it,
// whole pages only, at most max bytes before the closing note.
func llmsFull(s *published.Site, groups []llmGroup, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", oneLine(s.Title))
	total, written := 0, 0
	for _, g := range groups {
		total += len(g.pages)
	}
	for _, g := range groups {
		for _, p := range g.pages {
			part := fmt.Sprintf("\n---\n\n<!-- %s / %s: %s -->\n\n%s\n", oneLine(g.heading), oneLine(p.title), p.url,
				strings.TrimRight(p.markdown, "\n"))
			if b.Len()+len(part) > max {
				fmt.Fprintf(&b, "\n---\n\nllms-full.txt is cut here: it holds at most %d bytes, and %d of the site's %d pages did not fit. "+
					"llms.txt lists every page; each is at its address with .md.\n", max, total-written, total)
				return b.String()
			}
			b.WriteString(part)
			written++
		}
	}
	return b.String()
}

// oneLine keeps a title or description on its line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// linkText escapes what would end a markdown link's text.
func linkText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(oneLine(s))
}
