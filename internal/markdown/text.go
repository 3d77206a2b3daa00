package markdown

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Text is the plain text of the markdown (no markup, no frontmatter), for search indexing and excerpts.
//
// Each text block (heading, paragraph, list item paragraph, code block, table,
// HTML block) gives its text, and blocks are joined by one newline. Inside a
// paragraph a soft line break is a space and a hard break a newline; a code
// block keeps its lines; a table row is its cells joined by a space, one row a
// line. Links give their text, images their alt text, HTML its text without
// tags. Character references and backslash escapes are resolved.
func Text(src string) string {
	var parts []string
	walkLeaves(parseBody(src), func(l leaf) bool {
		if l.text != "" {
			parts = append(parts, l.text)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// Section is a part of a page between headings, for search results.
type Section struct {
	ID    string // the heading's anchor (Slug of its text, de-duplicated within the page with -1, -2...); "" for the part before the first heading
	Title string // the heading's text ("" before the first heading)
	Body  string // plain text of the section (without its heading)
}

// Sections splits a page at every heading, of any level and wherever it is
// (a heading inside a blockquote or list starts a section too), so that each
// heading anchor is the ID of exactly one section. The part before the first
// heading is included only when it has text. Body is built as Text builds it.
func Sections(src string) []Section {
	p := parseBody(src)
	var out []Section
	cur := Section{}
	var parts []string
	started := false
	flush := func() {
		cur.Body = strings.Join(parts, "\n")
		if started || strings.TrimSpace(cur.Body) != "" {
			out = append(out, cur)
		}
	}
	anchors := newAnchorer()
	walkLeaves(p, func(l leaf) bool {
		if l.heading != nil {
			flush()
			cur = Section{ID: anchors.next(l.text), Title: l.text}
			parts = nil
			started = true
			return true
		}
		if l.text != "" {
			parts = append(parts, l.text)
		}
		return true
	})
	flush()
	return out
}

// Anchors lists the heading anchors of a page (as Section.ID computes them), to check "#anchor" links.
// They are in document order, one per heading, all distinct.
func Anchors(src string) []string {
	out := []string{}
	anchors := newAnchorer()
	walkLeaves(parseBody(src), func(l leaf) bool {
		if l.heading != nil {
			out = append(out, anchors.next(l.text))
		}
		return true
	})
	return out
}

// anchorer hands out heading anchors unique within one page.
type anchorer struct {
	used map[string]bool
	// suffix is, per slug, the suffix to try next: every smaller one is
	// taken, so n headings alike cost n steps, not n^2.
	suffix map[string]int
}

func newAnchorer() *anchorer { return &anchorer{used: map[string]bool{}, suffix: map[string]int{}} }

// next is the anchor of the next heading with the given text: its slug, or the
// slug with -1, -2... when an earlier heading took it.
func (a *anchorer) next(title string) string {
	base := Slug(title)
	id := base
	if a.used[id] {
		i := max(a.suffix[base], 1)
		for id = base + "-" + strconv.Itoa(i); a.used[id]; id = base + "-" + strconv.Itoa(i) {
			i++
		}
		a.suffix[base] = i + 1
	}
	a.used[id] = true
	return id
}

// leaf is one text-bearing block met by walkLeaves.
type leaf struct {
	node    ast.Node
	heading *ast.Heading // set when the block is a heading
	text    string       // its plain text
}

// walkLeaves calls fn for each text-bearing block in document order, going
// into lists, list items and blockquotes. It stops when fn returns false.
func walkLeaves(p *parsed, fn func(leaf) bool) {
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.List, *ast.ListItem, *ast.Blockquote:
				if !walk(c) {
					return false
				}
			case *ast.Heading:
				if !fn(leaf{node: c, heading: c, text: inlineText(c, p.src)}) {
					return false
				}
			case *ast.Paragraph, *ast.TextBlock:
				if !fn(leaf{node: c, text: inlineText(c, p.src)}) {
					return false
				}
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				if !fn(leaf{node: c, text: strings.TrimSuffix(linesText(c, p.src), "\n")}) {
					return false
				}
			case *ast.HTMLBlock:
				if !fn(leaf{node: c, text: htmlText(htmlBlockSource(c, p.src))}) {
					return false
				}
			case *east.Table:
				if !fn(leaf{node: c, text: tableText(c, p.src)}) {
					return false
				}
			case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
			default:
				if c.Type() == ast.TypeBlock && c.FirstChild() != nil && c.FirstChild().Type() == ast.TypeBlock {
					if !walk(c) {
						return false
					}
				} else if !fn(leaf{node: c, text: inlineText(c, p.src)}) {
					return false
				}
			}
		}
		return true
	}
	walk(p.root)
}

// tableText is a table's text: a line per row, cells joined by a space.
func tableText(t *east.Table, src []byte) string {
	var rows []string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			if s := inlineText(c, src); s != "" {
				cells = append(cells, s)
			}
		}
		if len(cells) > 0 {
			rows = append(rows, strings.Join(cells, " "))
		}
	}
	return strings.Join(rows, "\n")
}

// inlineText is the plain text of a node's inline content.
func inlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	writeInlineText(&sb, n, src)
	return strings.TrimSpace(sb.String())
}

func writeInlineText(sb *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			sb.WriteString(unescape(c.Segment.Value(src)))
			if c.HardLineBreak() {
				sb.WriteByte('\n')
			} else if c.SoftLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			if c.IsCode() || c.IsRaw() {
				sb.Write(c.Value)
			} else {
				sb.WriteString(unescape(c.Value))
			}
		case *ast.CodeSpan:
			sb.WriteString(codeSpanText(c, src))
		case *ast.AutoLink:
			sb.Write(c.Label(src))
		case *ast.RawHTML:
			if isBreakTag(rawHTMLText(c, src)) {
				sb.WriteByte('\n')
			}
		case *east.TaskCheckBox:
		default:
			writeInlineText(sb, c, src)
		}
	}
}

// codeSpanText is a code span's content as written (no escapes apply in code).
func codeSpanText(n *ast.CodeSpan, src []byte) string {
	var sb strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(src))
		case *ast.String:
			sb.Write(c.Value)
		}
	}
	return strings.ReplaceAll(sb.String(), "\n", " ")
}

// rawHTMLText is the source of an inline HTML tag.
func rawHTMLText(n *ast.RawHTML, src []byte) string {
	var sb strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		sb.Write(seg.Value(src))
	}
	return sb.String()
}

// htmlBlockSource is the source of an HTML block, closing line included.
func htmlBlockSource(n *ast.HTMLBlock, src []byte) string {
	s := linesText(n, src)
	if n.HasClosure() {
		s += string(n.ClosureLine.Value(src))
	}
	return s
}

var (
	breakTagRE  = regexp.MustCompile(`(?i)^<br\s*/?>$`)
	tagRE       = regexp.MustCompile(`(?s)<!--.*?-->|<[^>]*>`)
	blockTagRE  = regexp.MustCompile(`(?i)<(?:br|/?p|/?div|/?li|/?tr|/?h[1-6]|/?figcaption|/?summary|/?details|/?blockquote)\b[^>]*>`)
	blankRunsRE = regexp.MustCompile(`[ \t]*\n[ \t\n]*`)
)

func isBreakTag(s string) bool { return breakTagRE.MatchString(s) }

// htmlText is the text of an HTML fragment: tags and comments removed (block
// tags become line breaks), character references resolved, blank lines
// squeezed.
func htmlText(s string) string {
	s = blockTagRE.ReplaceAllString(s, "\n")
	s = tagRE.ReplaceAllString(s, "")
	s = resolve([]byte(s), false)
	s = blankRunsRE.ReplaceAllString(s, "\n")
	return strings.TrimSpace(s)
}
