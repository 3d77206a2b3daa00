package published

import (
	"html/template"
	"net/url"
	"path"
	"slices"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/folio/folio/internal/markdown"
)

// Rendered is a page's body as published: sanitized HTML whose links point
// at the published addresses below a base, its outline (level-2 and
// level-3 headings) and whether robots may index it.
type Rendered struct {
	HTML    template.HTML
	Outline []markdown.OutlineItem
	// NoIndex: the page's frontmatter asks search engines to leave it out.
	NoIndex bool
	// Specs are the specs the page's API reference blocks show, and
	// SpecVersions their latest versions when it was rendered: the page
	// renders again when one changes.
	Specs        []string
	SpecVersions string
}

// Render renders page p of nav's revision from its markdown src with the
// markdown engine (sanitized HTML, highlighted code, GitBook blocks, API
// reference blocks through blocks), links and images pointing at their
// published places below base (the site space's address), and without a
// leading title that repeats the page's (the page shows its title above
// the body).
func Render(src string, n *Nav, p *Page, base string, blocks map[string]markdown.BlockRenderer) (*Rendered, error) {
	rewrite := func(dest string) string { return RewriteLink(n, p, base, dest) }
	out, err := markdown.RenderHTML(src, markdown.HTMLOptions{Link: rewrite, Image: rewrite, Blocks: blocks})
	if err != nil {
		return nil, err
	}
	return &Rendered{HTML: withoutTitle(out.HTML, p.Title), Outline: out.Outline, NoIndex: markdown.NoIndex(src),
		Specs: SpecSlugs(src)}, nil
}

// SpecSlugs are the specs a body's API reference blocks name, each once.
func SpecSlugs(src string) []string {
	var out []string
	for _, ref := range markdown.SpecRefs(src) {
		if !slices.Contains(out, ref.Spec) {
			out = append(out, ref.Spec)
		}
	}
	return out
}

// RewriteLink points a link of page from at its published place: pages (by
// path, relative or from the root, with or without .md or README, or
// /pages/<id>) at their address below base, files (/files/<id>) at their
// download URL. Anything else is left as the author wrote it (the renderer
// drops what is unsafe).
func RewriteLink(n *Nav, from *Page, base, dest string) string {
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
	var target *Page
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

// SafeHref is href when it is a web or mail address, else "": where a link
// page may send a visitor.
func SafeHref(href string) string {
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

// RenderCache keeps rendered pages by revision, page and base (the same
// page shown by two site spaces or sites has links of its own in each), at
// most MaxRendered. The reader and GraphQL share one, so a page is rendered
// once for both.
type RenderCache struct{ *lru.Cache[string, *Rendered] }

// MaxRendered bounds the rendered pages a RenderCache keeps.
const MaxRendered = 2048

// NewRenderCache makes an empty cache.
func NewRenderCache() RenderCache {
	c, _ := lru.New[string, *Rendered](MaxRendered)
	return RenderCache{c}
}

// RenderKey is the key of page p of revision rev rendered for base.
func RenderKey(rev string, p *Page, base string) string {
	return rev + "\x00" + p.ID + "\x00" + base
}
