// Package markdown reads page markdown: frontmatter and title, slugs, the
// structured document GitBook clients expect, plain text and sections for
// search, and links. It parses with goldmark (CommonMark with GitHub's
// tables, strikethrough, task lists and autolinks) and knows nothing of
// storage or HTTP.
package markdown

import (
	"bytes"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"golang.org/x/text/unicode/norm"
	"gopkg.in/yaml.v3"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Meta is what a page's markdown says about the page.
type Meta struct {
	Title       string // frontmatter title, else the first heading, else ""
	Description string
	Emoji       string
	Hidden      bool
	Body        string // the markdown without its frontmatter
}

// Parse reads frontmatter (a leading YAML block between --- lines) and the
// title. It never fails: a malformed block is body text.
func Parse(src string) Meta {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	m := Meta{Body: src}
	if rest, fm, ok := splitFrontmatter(src); ok {
		var v struct {
			Title       string `yaml:"title"`
			Description string `yaml:"description"`
			Emoji       string `yaml:"emoji"`
			Icon        string `yaml:"icon"`
			Hidden      bool   `yaml:"hidden"`
		}
		if err := yaml.Unmarshal([]byte(fm), &v); err == nil {
			m.Body, m.Title, m.Description, m.Hidden = rest, strings.TrimSpace(v.Title), strings.TrimSpace(v.Description), v.Hidden
			m.Emoji = strings.TrimSpace(v.Emoji)
			if m.Emoji == "" && isEmoji(v.Icon) {
				m.Emoji = strings.TrimSpace(v.Icon)
			}
		}
	}
	if m.Title == "" {
		doc, source := parse(m.Body)
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if h, ok := n.(*ast.Heading); ok && entering {
				m.Title = strings.TrimSpace(plain(h, source))
				return ast.WalkStop, nil
			}
			return ast.WalkContinue, nil
		})
	}
	return m
}

func splitFrontmatter(src string) (rest, fm string, ok bool) {
	if !strings.HasPrefix(src, "---\n") {
		return src, "", false
	}
	end := strings.Index(src[4:], "\n---")
	if end < 0 {
		return src, "", false
	}
	fm = src[4 : 4+end]
	rest = src[4+end+4:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 && strings.TrimSpace(rest[:i]) == "" {
		rest = rest[i+1:]
	} else if strings.TrimSpace(rest) == "" {
		rest = ""
	} else {
		return src, "", false // "---" followed by text on the same line
	}
	return rest, fm, true
}

func isEmoji(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len([]rune(s)) > 4 {
		return false
	}
	for _, r := range s {
		if r < 0x2000 {
			return false
		}
	}
	return true
}

func parse(src string) (ast.Node, []byte) {
	source := []byte(src)
	return md.Parser().Parse(text.NewReader(source), parser.WithContext(parser.NewContext())), source
}

// plain is the text of a node and its descendants.
func plain(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for ch := t.FirstChild(); ch != nil; ch = ch.NextSibling() {
				if txt, ok := ch.(*ast.Text); ok {
					b.Write(txt.Segment.Value(source))
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			b.Write(t.URL(source))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Slug makes a path segment from a title: lower-case ASCII letters, digits
// and single hyphens, accents folded, at most 100 characters; "page" when
// nothing is left.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(title) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // accents, once decomposed
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
		if b.Len() >= 100 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 100 {
		s = strings.Trim(s[:100], "-")
	}
	if s == "" {
		return "page"
	}
	return s
}

// Text is the plain text of markdown, blocks separated by blank lines.
func Text(src string) string {
	doc, source := parse(Parse(src).Body)
	var blocks []string
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if t := strings.TrimSpace(blockText(c, source)); t != "" {
			blocks = append(blocks, t)
		}
	}
	return strings.Join(blocks, "\n\n")
}

// blockText is the text of a block, code and list items included.
func blockText(n ast.Node, source []byte) string {
	switch n.(type) {
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var b bytes.Buffer
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(source))
		}
		return b.String()
	}
	if n.Type() == ast.TypeBlock && n.HasChildren() && n.FirstChild().Type() == ast.TypeBlock {
		var parts []string
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t := strings.TrimSpace(blockText(c, source)); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	return plain(n, source)
}

// Section is a part of a page between headings.
type Section struct {
	ID    string // the heading's anchor; "" before the first heading
	Title string
	Body  string // plain text of the section, without its heading
}

// Sections splits a page at its headings. Text before the first heading is
// a section only when there is some.
func Sections(src string) []Section {
	doc, source := parse(Parse(src).Body)
	anchors := newAnchors()
	var out []Section
	cur := Section{}
	var body []string
	flush := func() {
		cur.Body = strings.Join(body, "\n\n")
		if cur.ID != "" || cur.Body != "" {
			out = append(out, cur)
		}
		body = nil
	}
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if h, ok := c.(*ast.Heading); ok {
			flush()
			title := strings.TrimSpace(plain(h, source))
			cur = Section{ID: anchors.next(title), Title: title}
			continue
		}
		if t := strings.TrimSpace(blockText(c, source)); t != "" {
			body = append(body, t)
		}
	}
	flush()
	return out
}

// Anchors lists the heading anchors of a page.
func Anchors(src string) []string {
	var out []string
	for _, s := range Sections(src) {
		if s.ID != "" {
			out = append(out, s.ID)
		}
	}
	return out
}

type anchorSet map[string]int

func newAnchors() anchorSet { return anchorSet{} }

// next is the anchor of a heading: its slug, with -1, -2... for repeats.
func (a anchorSet) next(title string) string {
	slug := Slug(title)
	n := a[slug]
	a[slug] = n + 1
	if n == 0 {
		return slug
	}
	return slug + "-" + itoa(n)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Link is a link or image found in markdown.
type Link struct {
	Target string
	Text   string
	Image  bool
	Line   int // 1-based line in the body (after frontmatter)
}

// Links lists links, autolinks and images in document order.
func Links(src string) []Link {
	body := Parse(src).Body
	doc, source := parse(body)
	var out []Link
	line := func(n ast.Node) int {
		for p := n; p != nil; p = p.Parent() {
			if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
				return bytes.Count(source[:p.Lines().At(0).Start], []byte("\n")) + 1
			}
		}
		return 1
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Link:
			out = append(out, Link{Target: string(t.Destination), Text: strings.TrimSpace(plain(t, source)), Line: line(n)})
		case *ast.Image:
			out = append(out, Link{Target: string(t.Destination), Text: strings.TrimSpace(plain(t, source)), Image: true, Line: line(n)})
		case *ast.AutoLink:
			u := string(t.URL(source))
			if t.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(u, "mailto:") {
				u = "mailto:" + u
			}
			out = append(out, Link{Target: u, Text: string(t.Label(source)), Line: line(n)})
		}
		return ast.WalkContinue, nil
	})
	return out
}
