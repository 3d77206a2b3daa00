package markdown

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Link is a link or image found in markdown.
type Link struct {
	Target string // the raw href/src as written
	Text   string // link text or image alt
	Image  bool
	Line   int // 1-based line number in the source
}

// Links lists the links and images of a page in document order: inline links,
// autolinks (<https://...>, bare www./https:// URLs and e-mail addresses),
// reference links (resolved to their definition's destination; an undefined
// reference is not a link), images, and the href/src of <a> and <img> tags in
// HTML (such as GitBook's <figure><img src=...></figure>), and the url of
// GitBook's content-ref and embed blocks.
//
// Target is the destination as written, read as markdown reads it (<a b> is
// "a b", \( is "(", &amp; is "&"), and otherwise untouched: relative paths,
// anchors and queries stay as they are, nothing is resolved or URL-encoded.
// An autolink's Target is the href a renderer gives it (mailto: for an e-mail
// address, http:// before www.). Text is the plain text of the link or the
// image's alt text ("" for HTML <a> tags). Line counts lines of src as given,
// frontmatter included.
func Links(src string) []Link {
	p := parseBody(src)
	out := []Link{}
	_ = ast.Walk(p.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			out = append(out, Link{Target: unescape(n.Destination), Text: inlineText(n, p.src), Line: p.line(inlinePos(n))})
		case *ast.Image:
			out = append(out, Link{Target: unescape(n.Destination), Text: inlineText(n, p.src), Image: true, Line: p.line(inlinePos(n))})
		case *ast.AutoLink:
			out = append(out, Link{Target: autoLinkURL(n, p.src), Text: string(n.Label(p.src)), Line: p.line(inlinePos(n))})
		case *ast.RawHTML:
			if n.Segments.Len() > 0 {
				start := n.Segments.At(0).Start
				out = append(out, htmlLinks(p, rawHTMLText(n, p.src), func(int) int { return start })...)
			}
		case *ast.HTMLBlock:
			out = append(out, htmlBlockLinks(p, n)...)
		case *BlockNode:
			if u := n.Attrs["url"]; u != "" && (n.Name == "content-ref" || n.Name == "embed") {
				out = append(out, Link{Target: u, Line: p.line(n.bodyStart - 1)})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// inlinePos is the source offset of an inline node: its own position when
// goldmark recorded one, else that of its first text, else its block's.
func inlinePos(n ast.Node) int {
	if pos := n.Pos(); pos >= 0 {
		return pos
	}
	for c := n.FirstChild(); c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return t.Segment.Start
		}
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			return p.Lines().At(0).Start
		}
	}
	return -1
}

// htmlBlockLinks reads <a href> and <img src> from an HTML block.
func htmlBlockLinks(p *parsed, n *ast.HTMLBlock) []Link {
	var starts, offs []int // offset in the joined text -> offset in source, per line
	var sb strings.Builder
	add := func(start, stop int) {
		starts = append(starts, sb.Len())
		offs = append(offs, start)
		sb.Write(p.src[start:stop])
	}
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		add(seg.Start, seg.Stop)
	}
	if n.HasClosure() {
		add(n.ClosureLine.Start, n.ClosureLine.Stop)
	}
	return htmlLinks(p, sb.String(), func(i int) int {
		// The last line starting at or before i (a binary search: a block
		// of n lines with a tag on each would cost n^2 walking back).
		j := max(sort.SearchInts(starts, i+1)-1, 0)
		return offs[j] + i - starts[j]
	})
}

// htmlLinks reads the <a href> and <img src> of an HTML fragment; offset maps
// a byte offset in html to one in the source.
func htmlLinks(p *parsed, html string, offset func(int) int) []Link {
	var out []Link
	for _, loc := range htmlLinkTagRE.FindAllStringSubmatchIndex(html, -1) {
		tag := html[loc[0]:loc[1]]
		attrs := htmlAttrs(tag)
		img := strings.EqualFold(html[loc[2]:loc[3]], "img")
		l := Link{Image: img, Line: p.line(offset(loc[0]))}
		if img {
			l.Target, l.Text = attrs["src"], attrs["alt"]
		} else {
			l.Target = attrs["href"]
		}
		if l.Target != "" {
			out = append(out, l)
		}
	}
	return out
}
