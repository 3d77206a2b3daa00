package gitsync

import (
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/folio/folio/internal/markdown"
)

// decoder builds the pages of a repository. Paths it keeps are relative to
// the root (.gitbook.yaml's), unless named project paths.
type decoder struct {
	root    string            // the root, relative to the project directory
	readme  string            // the home page's file
	docs    map[string]string // markdown files that may become pages
	used    map[string]bool   // docs made pages already
	pages   map[string]*Page  // pages by file
	rels    map[*Page]string  // files by page
	folders map[string]*Page  // pages by the folder their subpages live in
	assets  map[string]*File  // files under .gitbook/assets/
}

// project is a root-relative path relative to the project directory.
func (d *decoder) project(rel string) string { return path.Join(d.root, rel) }

// build makes the page of a markdown file. Its title is the frontmatter's,
// else the first heading ("" when there is neither: the caller names it).
// Robots settings stay with the body as Folio keeps them.
func (d *decoder) build(rel string) *Page {
	src := d.docs[rel]
	meta := markdown.Parse(src)
	noIndex, noRobotsIndex := markdown.Robots(src)
	body := d.toRefs(meta.Body, path.Dir(rel))
	p := &Page{
		Kind:        kindDocument,
		Title:       meta.Title,
		Emoji:       meta.Emoji,
		Description: meta.Description,
		Hidden:      meta.Hidden,
		Markdown:    markdown.KeepRobots(body, deref(noIndex), deref(noRobotsIndex)),
		Path:        d.project(rel),
	}
	switch {
	case rel == d.readme:
		// The home page: its file name says nothing of it. Slugs of
		// the file's title are set once it has one (settleSlugs).
	case path.Base(rel) == folderReadme:
		p.Slug = markdown.Slug(path.Base(path.Dir(rel)))
	default:
		p.Slug = markdown.Slug(strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
	}
	d.used[rel] = true
	d.pages[rel] = p
	d.rels[p] = rel
	return p
}

// nameTitle makes a title of a file's name ("getting-started.md": "Getting
// started"; a folder's README.md: the folder's).
func (d *decoder) nameTitle(rel string) string {
	if path.Base(rel) == folderReadme && path.Dir(rel) != "." {
		rel = path.Dir(rel)
	}
	base := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	base = strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(base))
	if base == "" {
		return "Untitled"
	}
	first, size := utf8.DecodeRuneInString(base)
	return string(unicode.ToUpper(first)) + base[size:]
}

// fromFolders adds the files in names (sorted) after pages: a folder's
// README.md (or the page of <folder>.md) is the parent of the folder's
// other files; a folder with neither becomes an empty page. The home page
// comes first.
func (d *decoder) fromFolders(pages []*Page, names []string) []*Page {
	var folder func(dir string) *Page
	var attach func(dir string, p *Page)
	attach = func(dir string, p *Page) {
		if dir == "." || dir == "" {
			pages = append(pages, p)
			return
		}
		parent := folder(dir)
		parent.Children = append(parent.Children, p)
	}
	named := func(rel string) *Page {
		p := d.build(rel)
		if p.Title == "" {
			p.Title = d.nameTitle(rel)
		}
		return p
	}
	folder = func(dir string) *Page {
		if p := d.folders[dir]; p != nil {
			return p
		}
		readme := path.Join(dir, folderReadme)
		var p *Page
		switch {
		case d.pages[readme] != nil:
			p = d.pages[readme]
		case hasKey(d.docs, readme):
			p = named(readme)
			attach(path.Dir(dir), p)
		case d.pages[dir+".md"] != nil:
			p = d.pages[dir+".md"]
		default:
			base := path.Base(dir)
			p = &Page{Kind: kindDocument, Title: d.nameTitle(base), Slug: markdown.Slug(base)}
			attach(path.Dir(dir), p)
		}
		d.folders[dir] = p
		return p
	}
	if hasKey(d.docs, d.readme) && !d.used[d.readme] {
		attach(path.Dir(d.readme), named(d.readme))
	}
	for _, rel := range names {
		switch {
		case d.used[rel]:
			// the home page, or a folder's README.md made its page
		case path.Base(rel) == folderReadme && path.Dir(rel) != ".":
			folder(path.Dir(rel))
		default:
			attach(path.Dir(rel), named(rel))
		}
	}
	return pages
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// settleSlugs gives the pages without one a slug, and keeps siblings'
// slugs apart (-2, -3...). A group or link takes the name of the folder
// its subpages live in, else its title's slug; the home page its title's.
func (d *decoder) settleSlugs(pages []*Page) {
	taken := map[string]bool{}
	for _, p := range pages {
		if p.Slug == "" {
			if rel, ok := d.rels[p]; ok && rel == d.readme {
				p.Slug = markdown.Slug(p.Title)
			} else if dir, ok := d.childDir(p); ok && dir != "" {
				p.Slug = markdown.Slug(path.Base(dir))
			} else {
				p.Slug = markdown.Slug(p.Title)
			}
		}
		slug := p.Slug
		for i := 2; taken[p.Slug]; i++ {
			p.Slug = slug + "-" + strconv.Itoa(i)
		}
		taken[p.Slug] = true
		d.settleSlugs(p.Children)
	}
}

// childDir is the folder p's subpages live in, read from the first of them
// that has a file (ok is false when none has).
func (d *decoder) childDir(p *Page) (string, bool) {
	for _, c := range p.Children {
		if dir, ok := d.placeDir(c); ok {
			return dir, true
		}
	}
	return "", false
}

// placeDir is the folder p itself lives in: its file's, or the parent of
// its README.md's folder, or the parent of its subpages' folder.
func (d *decoder) placeDir(p *Page) (string, bool) {
	if rel, ok := d.rels[p]; ok {
		dir := path.Dir(rel)
		if path.Base(rel) == folderReadme && rel != d.readme {
			dir = path.Dir(dir)
		}
		return topless(dir), true
	}
	if dir, ok := d.childDir(p); ok && dir != "" {
		return topless(path.Dir(dir)), true
	}
	return "", false
}

// topless is a folder from path.Dir, "" for the top.
func topless(dir string) string {
	if dir == "." {
		return ""
	}
	return dir
}
