package gitsync

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// SUMMARY.md is GitBook's table of contents: "# Table of contents", then
// nested bullet lists of `* [Title](path.md)` (two spaces a level), and
// `## Title` headings, each a group of the list that follows it.

// escapeTitle writes a title as link text: backslashes and brackets
// escaped, on one line.
func escapeTitle(title string) string {
	title = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(title)
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(title)
}

// escapeHeading writes a title as a heading's text: as link text, and '#'
// escaped too, so no part of it reads as a closing sequence.
func escapeHeading(title string) string {
	return strings.ReplaceAll(escapeTitle(title), "#", `\#`)
}

// unescapeMarkdown removes backslash escapes of ASCII punctuation.
func unescapeMarkdown(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// summaryHref writes a link page's URL as a link destination: as it is
// when it can be, else between <> with <, > and \ escaped. It is never
// percent-encoded, so Decode gives back the same string.
func summaryHref(href string) string {
	if href != "" && !strings.ContainsAny(href, " \t()<>\\") && !hasControl(href) {
		return href
	}
	var b strings.Builder
	b.WriteByte('<')
	for i := 0; i < len(href); i++ {
		switch c := href[i]; {
		case c == '<' || c == '>' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteString("%" + strings.ToUpper(hexByte(c)))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('>')
	return b.String()
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// summaryEntry is one line of SUMMARY.md that means something: a group
// heading or a list item.
type summaryEntry struct {
	heading bool // "## Title"
	indent  int  // of a list item, tabs counting four
	title   string
	linked  bool   // the item is a link, target its destination
	target  string // as written, backslash escapes removed
}

var summaryItem = regexp.MustCompile(`^([ \t]*)[*+-][ \t]+(.*)$`)

// parseSummaryLine reads a line of SUMMARY.md; ok is false for lines that
// are neither a list item nor a "##" heading.
func parseSummaryLine(line string) (e summaryEntry, ok bool) {
	line = strings.TrimRight(line, " \t\r")
	if h, found := strings.CutPrefix(strings.TrimLeft(line, " "), "##"); found && len(line)-len(strings.TrimLeft(line, " ")) < 4 {
		if h != "" && h[0] != ' ' && h[0] != '\t' {
			return e, false // ### and deeper, or "##x"
		}
		return summaryEntry{heading: true, title: unescapeMarkdown(stripClosingHashes(strings.TrimSpace(h)))}, true
	}
	m := summaryItem.FindStringSubmatch(line)
	if m == nil {
		return e, false
	}
	e.indent = len(strings.ReplaceAll(m[1], "\t", "    "))
	if title, target, ok := parseLink(m[2]); ok {
		e.title, e.target, e.linked = strings.TrimSpace(unescapeMarkdown(title)), target, true
		return e, true
	}
	e.title = strings.TrimSpace(unescapeMarkdown(m[2]))
	return e, true
}

// stripClosingHashes removes a heading's optional closing sequence: a run
// of unescaped '#' at the end, after a space.
func stripClosingHashes(h string) string {
	t := strings.TrimRight(h, "#")
	if t == h {
		return h
	}
	if t == "" {
		return ""
	}
	if last := t[len(t)-1]; (last == ' ' || last == '\t') && !strings.HasSuffix(strings.TrimRight(t, " \t"), `\`) {
		return strings.TrimRight(t, " \t")
	}
	return h
}

// parseLink reads `[text](destination ...)` at the start of s: the text as
// written, the destination with backslash escapes removed.
func parseLink(s string) (text, dest string, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return "", "", false
	}
	depth := 0
	end := -1
	for i := 0; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				end = i
			}
		}
	}
	if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
		return "", "", false
	}
	text = s[1:end]
	rest := strings.TrimLeft(s[end+2:], " \t")
	if strings.HasPrefix(rest, "<") {
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '>':
				return text, unescapeMarkdown(rest[1:i]), true
			}
		}
		return "", "", false
	}
	depth = 0
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '\\':
			i++
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case c == ')' || c == ' ' || c == '\t':
			return text, unescapeMarkdown(rest[:i]), true
		}
	}
	return "", "", false
}

var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// fromSummary builds the pages SUMMARY.md lists (base: the folder it is
// in, relative to the root). An entry whose file is missing (or already
// listed) is left out; its subpages take its place.
func (d *decoder) fromSummary(src, base string) []*Page {
	var roots []*Page
	var group *Page
	type level struct {
		indent int
		page   *Page // nil for an entry left out
	}
	var stack []level
	for _, line := range strings.Split(src, "\n") {
		e, ok := parseSummaryLine(line)
		if !ok {
			continue
		}
		if e.heading {
			group = &Page{Kind: kindGroup, Title: e.title}
			roots = append(roots, group)
			stack = stack[:0]
			continue
		}
		p := d.summaryPage(e, base)
		for len(stack) > 0 && stack[len(stack)-1].indent >= e.indent {
			stack = stack[:len(stack)-1]
		}
		parent := group
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].page != nil {
				parent = stack[i].page
				break
			}
		}
		if p != nil {
			if parent == nil {
				roots = append(roots, p)
			} else {
				parent.Children = append(parent.Children, p)
			}
		}
		stack = append(stack, level{e.indent, p})
	}
	return roots
}

// summaryPage is the page of a list item, nil when it points at a
// markdown file that is missing or already listed.
func (d *decoder) summaryPage(e summaryEntry, base string) *Page {
	if !e.linked {
		return &Page{Kind: kindGroup, Title: e.title}
	}
	if urlScheme.MatchString(e.target) {
		return &Page{Kind: kindLink, Title: e.title, Href: e.target}
	}
	target, _, _ := strings.Cut(e.target, "#")
	if t, err := url.PathUnescape(target); err == nil {
		target = t
	}
	rel := cleanRel(path.Join(base, target))
	if strings.HasPrefix(target, "/") {
		rel = cleanRel(target)
	}
	for _, name := range []string{rel, path.Join(rel, folderReadme)} {
		if _, ok := d.docs[name]; ok {
			if d.used[name] {
				return nil
			}
			p := d.build(name)
			if p.Title == "" {
				p.Title = e.title
			}
			if p.Title == "" {
				p.Title = d.nameTitle(name)
			}
			return p
		}
	}
	if target == "" || isMarkdownName(target) || strings.HasSuffix(target, "/") {
		return nil
	}
	// Not a page file: a relative link (to another site, say), kept.
	return &Page{Kind: kindLink, Title: e.title, Href: e.target}
}
