package markdown

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// gfm is the one goldmark configured for Folio: CommonMark plus GFM tables,
// strikethrough, task lists and linkify, and GitBook's blocks (blocks.go).
// Its parser is safe for concurrent use (each Parse call makes its own
// context).
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM, blockExtension{}))

// normalize drops a leading byte-order mark and turns CRLF and lone CR into LF.
func normalize(src string) string {
	src = strings.TrimPrefix(src, "\ufeff")
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	return src
}

// parsed is a markdown text ready for walking: its AST and the bytes the AST's
// segments point into.
type parsed struct {
	src  []byte
	root ast.Node
	// lineStarts[i] is the byte offset of line i+1 in src.
	lineStarts []int
}

// parseBody normalises src, removes a frontmatter block and parses the rest.
// The removed lines are replaced by empty lines (which markdown ignores at the
// start of a document) so that byte offsets map to the line numbers of src.
func parseBody(src string) *parsed {
	fm := splitFrontmatter(normalize(src))
	return parseText(strings.Repeat("\n", fm.bodyLine-1) + fm.body)
}

// parseText parses a normalised markdown text that has no frontmatter.
// Tables beyond MaxTableCells, containers nested beyond MaxNesting, and link
// openings beyond maxLinkOpens in one stretch of text, are read as text (see
// boundTables, bound and boundLinks): any body, stored before the bounds
// existed too, parses in linear time. Tables go first: bound holds the
// nesting whatever text it is given, and its escapes only shorten the
// delimiter rows boundTables counted.
func parseText(body string) *parsed { return parseWith(gfm, body) }

// parseWith is parseText with another goldmark (the HTML renderer's).
func parseWith(md goldmark.Markdown, body string) *parsed {
	body, _ = boundTables(body, MaxTableCells)
	body, _, _ = bound(body, MaxNesting)
	body = boundLinks(body)
	p := &parsed{src: []byte(body)}
	p.root = md.Parser().Parse(text.NewReader(p.src))
	p.lineStarts = []int{0}
	for i, c := range p.src {
		if c == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	return p
}

// line is the 1-based line number of a byte offset.
func (p *parsed) line(offset int) int {
	if offset < 0 {
		return 0
	}
	lo, hi := 0, len(p.lineStarts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if p.lineStarts[mid] <= offset {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// entityRE matches one HTML character reference.
var entityRE = regexp.MustCompile(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// unescape applies markdown backslash escapes and resolves HTML character
// references in ordinary (non-code) text, as a renderer would.
func unescape(b []byte) string { return resolve(b, true) }

// resolve resolves HTML character references, and backslash escapes when
// backslash is set.
func resolve(b []byte, backslash bool) string {
	if !strings.ContainsAny(string(b), "\\&") {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case backslash && c == '\\' && i+1 < len(b) && util.IsPunct(b[i+1]):
			sb.WriteByte(b[i+1])
			i++
		case c == '&':
			if m := entityRE.Find(b[i:]); m != nil {
				r := util.ResolveNumericReferences(util.ResolveEntityNames(m))
				sb.Write(r)
				i += len(m) - 1
				continue
			}
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// linesText is the concatenated text of a block's raw lines.
func linesText(n ast.Node, src []byte) string {
	var sb strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		sb.Write(seg.Value(src))
	}
	return sb.String()
}

// autoLinkURL is the href goldmark's renderer gives an autolink: mailto: for
// e-mail addresses, the protocol added for www. links.
func autoLinkURL(n *ast.AutoLink, src []byte) string {
	u := string(n.URL(src))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
		u = "mailto:" + u
	}
	return u
}
