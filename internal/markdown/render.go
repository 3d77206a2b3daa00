package markdown

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// RenderHTML renders a page's markdown (a leading frontmatter block is
// skipped) as sanitized HTML for the published site:
//
//   - CommonMark with GitHub tables, task lists, strikethrough, bare-URL
//     autolinks and footnotes;
//   - headings carry id attributes equal to the page's Anchors (same text,
//     same order, same de-duplication), so #anchor links work;
//   - fenced code is highlighted with chroma as CSS classes (HighlightCSS
//     is the stylesheet);
//   - GitBook blocks (blocks.go): hints as <div class="hint hint-STYLE"
//     role="note">, tabs as radio inputs, labels and panels that switch with
//     CSS alone (BlocksCSS), content-ref as a link card, embeds as plain
//     links (never iframes), openapi blocks through HTMLOptions.Blocks or, by
//     default, as an inert box naming the method and path;
//   - everything is then passed through the sanitizer (Sanitize): raw HTML
//     the author wrote included, and whatever Blocks renderers return.
//
// It applies the bounds of parseText (nesting, table cells, link openings)
// and of highlighting, and never fails on any input; the error is for a
// renderer in opt.Blocks that fails (the page is not rendered then).
func RenderHTML(src string, opt HTMLOptions) (Rendered, error) {
	fm := splitFrontmatter(normalize(src))
	p := parseWith(htmlMarkdown, strings.Repeat("\n", fm.bodyLine-1)+fm.body)
	r := &htmlRenderer{opt: opt, p: p, tabGroups: map[ast.Node]int{}, tabIndex: map[ast.Node]int{}}
	out := Rendered{Outline: []OutlineItem{}}

	// Heading ids (as Anchors gives them), outline and text in one walk.
	anchors := newAnchorer()
	var text []string
	walkLeaves(p, func(l leaf) bool {
		if l.heading != nil {
			id := anchors.next(l.text)
			l.heading.SetAttributeString("id", []byte(id))
			if (l.heading.Level == 2 || l.heading.Level == 3) && !inTab(l.heading) {
				out.Outline = append(out.Outline, OutlineItem{Level: l.heading.Level, ID: id, Text: l.text})
			}
		}
		if l.text != "" {
			text = append(text, l.text)
		}
		return true
	})
	out.Text = strings.Join(text, "\n")

	// Links between pages and images go through the caller's hooks.
	if opt.Link != nil || opt.Image != nil {
		_ = ast.Walk(p.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.Link:
				if opt.Link != nil {
					n.Destination = []byte(opt.Link(unescape(n.Destination)))
				}
			case *ast.Image:
				if opt.Image != nil {
					n.Destination = []byte(opt.Image(unescape(n.Destination)))
				}
			}
			return ast.WalkContinue, nil
		})
	}

	alignCells(p.root)

	rd := renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(html.NewRenderer(html.WithUnsafe()), 1000),
		util.Prioritized(extension.NewTableHTMLRenderer(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)), 500),
		util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500),
		util.Prioritized(extension.NewTaskCheckBoxHTMLRenderer(), 500),
		util.Prioritized(extension.NewFootnoteHTMLRenderer(), 500),
		util.Prioritized(r, 100),
	))
	var buf bytes.Buffer
	if err := rd.Render(&buf, p.src, p.root); err != nil {
		return Rendered{}, err
	}
	out.HTML = template.HTML(Sanitize(buf.String()))
	return out, nil
}

// HTMLOptions are the caller's hooks into RenderHTML. All are optional.
type HTMLOptions struct {
	// Link rewrites the destination of every markdown link (as written,
	// escapes resolved), e.g. a relative page path to its published URL;
	// nil keeps them. Content-ref urls go through it too; autolinks, embeds
	// and links in raw HTML do not.
	Link func(href string) string
	// Image rewrites the source of every markdown image (e.g. to a file
	// URL of blob storage); nil keeps them.
	Image func(src string) string
	// Blocks renders GitBook blocks by name (e.g. "openapi-operation")
	// instead of the default rendering. Its HTML is sanitized like the rest.
	Blocks map[string]BlockRenderer
	// IDPrefix is put before the ids of tab inputs, for a page that shows
	// several rendered texts; heading ids are never prefixed. Letters,
	// digits, '-' and '_' only (the sanitizer drops other ids).
	IDPrefix string
}

// BlockRenderer renders one GitBook block as HTML (sanitized afterwards).
// An error stops the render and is RenderHTML's error: renderers meaning
// to show a problem to readers return HTML saying so instead.
type BlockRenderer func(b Block) (template.HTML, error)

// Block is a GitBook block handed to a BlockRenderer.
type Block struct {
	Name  string            // e.g. "openapi-operation"
	Attrs map[string]string // attribute values, unescaped (e.g. spec, path, method)
	Body  string            // markdown between the tags as written ("" when void)
}

// Rendered is a rendered page.
type Rendered struct {
	HTML    template.HTML // sanitized
	Outline []OutlineItem // headings of level 2 and 3, outside tabs, in order
	Text    string        // plain text, built as Text builds it (footnotes included)
}

// OutlineItem is one heading of the on-page table of contents.
type OutlineItem struct {
	Level int    // 2 or 3
	ID    string // the heading's id (its anchor)
	Text  string // plain text of the heading
}

// htmlMarkdown parses for RenderHTML: gfm plus footnotes. Its renderer is
// not used; each RenderHTML builds one with its hooks.
var htmlMarkdown = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote, blockExtension{}))

// inTab reports whether n is inside a tab panel (hidden unless chosen).
func inTab(n ast.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if b, ok := p.(*BlockNode); ok && b.Name == "tab" {
			return true
		}
	}
	return false
}

// alignCells gives the cells of aligned table columns a class (align-left,
// align-center, align-right; BlocksCSS styles them) instead of goldmark's
// align attribute, which HTML5 no longer has, or a style attribute, which
// the sanitizer drops.
func alignCells(root ast.Node) {
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if c, ok := n.(*east.TableCell); ok && entering {
			if c.Alignment != east.AlignNone {
				c.SetAttributeString("class", []byte("align-"+c.Alignment.String()))
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}
