package gitsync

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/folio/folio/internal/markdown"
)

// encoder writes the page files of a Tree and its SUMMARY.md.
type encoder struct {
	out    map[string][]byte
	assets assetPaths
	toc    strings.Builder
}

// summary writes every page and returns SUMMARY.md. A `## Title` heading
// takes every entry below it, so only the groups after the last other root
// page can be headings, as GitBook writes them; a group anywhere else (before
// a root page, or inside a page) is a list entry without a link, whose
// subpages are indented under it.
func (e *encoder) summary(roots []*Page) ([]byte, error) {
	e.toc.WriteString("# Table of contents\n\n")
	headings := len(roots)
	for headings > 0 && kindOf(roots[headings-1]) == kindGroup {
		headings--
	}
	used := newSiblingNames("")
	home := homePage(roots)
	if err := e.list(roots[:headings], "", 0, used, home); err != nil {
		return nil, err
	}
	for _, g := range roots[headings:] {
		g.Path = ""
		dir := used.claim(slugOf(g))
		if !strings.HasSuffix(e.toc.String(), "\n\n") {
			e.toc.WriteString("\n")
		}
		e.toc.WriteString("## " + escapeHeading(g.Title) + "\n\n")
		if err := e.list(g.Children, dir, 0, newSiblingNames(dir), nil); err != nil {
			return nil, err
		}
	}
	return []byte(e.toc.String()), nil
}

// homePage is the page written at README.md, GitBook's home page: the first
// root document page, when it is a leaf whose slug Decode gives back
// (Slug of its title).
func homePage(roots []*Page) *Page {
	for _, p := range roots {
		if kindOf(p) != kindDocument {
			continue
		}
		if len(p.Children) == 0 && slugOf(p) == markdown.Slug(p.Title) {
			return p
		}
		return nil
	}
	return nil
}

// list writes pages, siblings in dir (root-relative), at a depth of the
// SUMMARY's nested list.
func (e *encoder) list(pages []*Page, dir string, depth int, used *siblingNames, home *Page) error {
	indent := strings.Repeat("  ", depth)
	for _, p := range pages {
		p.Path = ""
		var childDir string
		switch kindOf(p) {
		case kindDocument:
			switch {
			case p == home:
				p.Path = defaultReadme
			case len(p.Children) > 0:
				childDir = path.Join(dir, used.claim(slugOf(p)))
				p.Path = path.Join(childDir, folderReadme)
			default:
				p.Path = path.Join(dir, used.claim(slugOf(p))+".md")
			}
			e.out[p.Path] = e.pageFile(p)
			e.toc.WriteString(indent + "* [" + escapeTitle(p.Title) + "](" + escapePath(p.Path) + ")\n")
		case kindLink:
			childDir = path.Join(dir, used.claim(slugOf(p)))
			e.toc.WriteString(indent + "* [" + escapeTitle(p.Title) + "](" + summaryHref(p.Href) + ")\n")
		case kindGroup:
			childDir = path.Join(dir, used.claim(slugOf(p)))
			e.toc.WriteString(indent + "* " + escapeTitle(p.Title) + "\n")
		default:
			return fmt.Errorf("the page %q has a kind Git Sync cannot write (%q)", p.Title, p.Kind)
		}
		if len(p.Children) > 0 {
			if err := e.list(p.Children, childDir, depth+1, newSiblingNames(childDir), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// pageFile is a document page's file: frontmatter for what the body does
// not say, then the body, its file references made relative paths to the
// assets.
func (e *encoder) pageFile(p *Page) []byte {
	body := p.Markdown
	// Folio keeps robots settings as a frontmatter block of the body
	// (markdown.KeepRobots): they join the page's own frontmatter.
	noIndex, noRobotsIndex := markdown.Robots(body)
	robots := deref(noIndex) || deref(noRobotsIndex)
	if robots {
		body = markdown.Parse(body).Body
	}
	body = e.assets.toRelative(body, path.Dir(p.Path))

	var fm []string // "key: value" lines, keys in sorted order
	if p.Description != "" {
		fm = append(fm, "description: "+yamlString(p.Description))
	}
	if p.Hidden {
		fm = append(fm, "hidden: true")
	}
	if p.Emoji != "" {
		fm = append(fm, "icon: "+yamlString(p.Emoji))
	}
	if deref(noIndex) {
		fm = append(fm, "noIndex: true")
	}
	if deref(noRobotsIndex) {
		fm = append(fm, "noRobotsIndex: true")
	}
	// A body that starts like frontmatter must be shielded by ours, or it
	// would be read as the page's; its first heading is then no longer
	// what Decode reads as the title, so the title is always written.
	if startsLikeFrontmatter(body) || markdown.Parse(body).Title != p.Title {
		fm = append(fm, "title: "+yamlString(p.Title))
	}
	if len(fm) == 0 {
		return []byte(body)
	}
	return []byte("---\n" + strings.Join(fm, "\n") + "\n---\n\n" + body)
}

// startsLikeFrontmatter reports a text whose first line is "---".
func startsLikeFrontmatter(s string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(s, "\ufeff"), "\n")
	return strings.TrimRight(first, " \t\r") == "---"
}

// slugOf is the slug to lay a page out by: its own when it is one, else
// made one (a path segment that is safe on every file system).
func slugOf(p *Page) string {
	if p.Slug == "" {
		return markdown.Slug(p.Title)
	}
	return markdown.Slug(p.Slug)
}

// siblingNames hands out the file and folder names of one folder's pages.
// Folio's slugs are unique among siblings; this guards anyway, and keeps
// names that would clash, on a file system that ignores case, with the
// folder's README.md (and SUMMARY.md at the top).
type siblingNames struct{ taken map[string]bool }

func newSiblingNames(dir string) *siblingNames {
	n := &siblingNames{taken: map[string]bool{"readme": true}}
	if dir == "" {
		n.taken["summary"] = true
	}
	return n
}

// claim returns slug, or slug-2, slug-3... when it is taken.
func (n *siblingNames) claim(slug string) string {
	name := slug
	for i := 2; n.taken[strings.ToLower(name)]; i++ {
		name = slug + "-" + strconv.Itoa(i)
	}
	n.taken[strings.ToLower(name)] = true
	return name
}

// yamlString writes a frontmatter value: plain when YAML reads it back as
// the same string, else double-quoted. Emoji stay as they are (yaml.v3
// would escape them as "\U0001F4E6").
func yamlString(s string) string {
	if plainYAML(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + hexByte(byte(r)))
		case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// plainYAML reports whether s, written plain as a mapping's value, reads
// back as the string s.
func plainYAML(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, "\n\r\t\"\\") || !utf8.ValidString(s) {
		return false
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte("k: "+s), &doc) != nil || len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 {
		return false
	}
	v := doc.Content[0].Content[1]
	return v.Kind == yaml.ScalarNode && v.Style == 0 && v.Tag == "!!str" && v.Value == s
}
