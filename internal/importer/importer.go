// Package importer turns outside content into pages and files: one markdown
// file, an HTML page (converted to markdown), a zip of markdown files (in
// SUMMARY.md order when there is one, images becoming files) or a small
// website. It knows nothing of storage; fetching is given to it.
package importer

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"

	"github.com/folio/folio/internal/markdown"
)

// Page is an imported page with its subpages.
type Page struct {
	Title    string
	Markdown string
	Children []*Page
}

// File is an imported file. Pages refer to it as /files/<Token>, which the
// caller replaces with the file's id once stored.
type File struct {
	Name, ContentType, Token string
	Data                     []byte
}

// Result is what an import produced; Total counts the resources looked at.
type Result struct {
	Pages []*Page
	Files []*File
	Total int
}

// Count is the number of pages and files imported.
func (r Result) Count() int {
	n := len(r.Files)
	var walk func([]*Page)
	walk = func(ps []*Page) {
		for _, p := range ps {
			n++
			walk(p.Children)
		}
	}
	walk(r.Pages)
	return n
}

// Limits of an import. The size of what is fetched is the fetcher's.
const (
	// MaxZipFiles bounds the entries of an archive (folders included).
	MaxZipFiles = 2000
	// MaxImportBytes bounds what one import holds: the entries of an
	// archive unpacked, or the pages of a website as fetched.
	MaxImportBytes = 100 << 20
	// MaxWebsitePage bounds the pages of a website import.
	MaxWebsitePage = 25
	// MaxMarkdownEntry bounds a markdown entry of an archive: it becomes
	// one page, whose body may hold no more (markdown.MaxBytes).
	MaxMarkdownEntry = markdown.MaxBytes
	// MaxImageEntry bounds an image entry of an archive: it becomes a
	// file, which may be no larger than one fetched from a URL.
	MaxImageEntry = 20 << 20
	// MaxImportMemory bounds what one import reads and unpacks: its source
	// as fetched (at most 20 MB, the fetcher's limit) and its entries
	// unpacked (MaxImportBytes). Every entry is read through a limit,
	// whatever it declares, so no archive makes an import read more (the
	// pages built from the entries copy their markdown once more).
	MaxImportMemory = 20<<20 + MaxImportBytes
)

// Error is a source Folio will not import. Entry names the archive entry at
// fault ("" when the source as a whole is); TooLarge marks the import
// limits.
type Error struct {
	Entry    string
	Message  string
	TooLarge bool
}

func (e *Error) Error() string {
	if e.Entry != "" {
		return fmt.Sprintf("archive entry %q %s", e.Entry, e.Message)
	}
	return e.Message
}

// Markdown imports one markdown document.
func Markdown(data []byte, name string) (Result, error) {
	// Refused before it is parsed: the page could not hold it anyway.
	if len(data) > MaxMarkdownEntry {
		return Result{}, &Error{TooLarge: true, Message: fmt.Sprintf("the document is larger than the %d MB a page's markdown may hold", MaxMarkdownEntry>>20)}
	}
	if err := checkText(data); err != nil {
		return Result{}, &Error{Message: "the document " + err.Error()}
	}
	src := string(data)
	title := markdown.Parse(src).Title
	if title == "" {
		title = titleFromName(name)
	}
	return Result{Pages: []*Page{{Title: title, Markdown: src}}, Total: 1}, nil
}

// HTML imports one HTML page, converted to markdown; its <title> (or first
// heading) names the page.
func HTML(data []byte, base *url.URL) (Result, error) {
	title, md, err := htmlToMarkdown(data, base)
	if err != nil {
		return Result{}, err
	}
	return Result{Pages: []*Page{{Title: title, Markdown: md}}, Total: 1}, nil
}

func htmlToMarkdown(data []byte, base *url.URL) (title, md string, err error) {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return "", "", &Error{Message: "is not HTML"}
	}
	title = strings.TrimSpace(findText(doc, "title"))
	domain := ""
	if base != nil {
		domain = base.Scheme + "://" + base.Host
	}
	out, err := htmltomarkdown.ConvertString(string(data), converterOptions(domain)...)
	if err != nil {
		return "", "", &Error{Message: "is HTML that cannot be converted to markdown"}
	}
	if title == "" {
		title = markdown.Parse(out).Title
	}
	if title == "" {
		title = "Imported page"
	}
	return asText(title), asText(strings.TrimSpace(out)) + "\n", nil
}

// asText replaces NUL and bytes that are not UTF-8 with U+FFFD, as HTML
// parsing does: pages in other encodings or with stray NULs still import,
// and no page body holds what a database text cannot.
func asText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

func findText(n *html.Node, tag string) string {
	if n.Type == html.ElementNode && n.Data == tag && n.FirstChild != nil {
		return n.FirstChild.Data
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findText(c, tag); t != "" {
			return t
		}
	}
	return ""
}

var summaryItem = regexp.MustCompile(`^(\s*)[*+-]\s+\[([^\]]+)\]\(([^)\s]+)\)`)

// fromSummary builds the page tree of SUMMARY.md's nested list.
func fromSummary(summary string, docs map[string]string, used map[string]bool, build func(string) *Page) []*Page {
	type level struct {
		indent int
		page   *Page
	}
	var roots []*Page
	var stack []level
	for _, line := range strings.Split(strings.ReplaceAll(summary, "\r\n", "\n"), "\n") {
		m := summaryItem.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := len(strings.ReplaceAll(m[1], "\t", "    "))
		target, _ := url.PathUnescape(strings.SplitN(m[3], "#", 2)[0])
		target = strings.TrimPrefix(path.Clean("/"+target), "/")
		var p *Page
		if _, ok := docs[target]; ok && !used[target] {
			used[target] = true
			p = build(target)
		} else {
			p = &Page{Markdown: ""}
		}
		p.Title = strings.TrimSpace(m[2])
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, p)
		} else {
			parent := stack[len(stack)-1].page
			parent.Children = append(parent.Children, p)
		}
		stack = append(stack, level{indent, p})
	}
	return roots
}

// fromFolders builds a tree from paths: a folder is a page (README.md its
// body), files are pages inside it.
func fromFolders(docs map[string]string, build func(string) *Page) []*Page {
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	folders := map[string]*Page{}
	var roots []*Page
	var folder func(dir string) *Page
	attach := func(dir string, p *Page) {
		if dir == "." || dir == "" {
			roots = append(roots, p)
			return
		}
		parent := folder(dir)
		parent.Children = append(parent.Children, p)
	}
	folder = func(dir string) *Page {
		if p, ok := folders[dir]; ok {
			return p
		}
		p := &Page{Title: titleFromName(dir)}
		if _, ok := docs[dir+"/README.md"]; ok {
			p = build(dir + "/README.md")
		}
		folders[dir] = p
		attach(path.Dir(dir), p)
		return p
	}
	for _, n := range names {
		if path.Base(n) == "README.md" && path.Dir(n) != "." {
			folder(path.Dir(n))
			continue
		}
		attach(path.Dir(n), build(n))
	}
	return roots
}

var imageLink = regexp.MustCompile(`(!\[[^\]]*\]\()([^)\s]+)(\))`)

// rewriteImages points image links at imported files.
func rewriteImages(src, dir string, files map[string]*File) string {
	return imageLink.ReplaceAllStringFunc(src, func(m string) string {
		parts := imageLink.FindStringSubmatch(m)
		target, _ := url.PathUnescape(parts[2])
		if strings.Contains(target, "://") {
			return m
		}
		resolved := strings.TrimPrefix(path.Clean("/"+path.Join(dir, target)), "/")
		if strings.HasPrefix(target, "/") {
			resolved = strings.TrimPrefix(path.Clean(target), "/")
		}
		if f, ok := files[resolved]; ok {
			return parts[1] + "/files/" + f.Token + parts[3]
		}
		return m
	})
}

// titleFromName makes a title of a file or folder name.
func titleFromName(name string) string {
	base := strings.TrimSuffix(path.Base(name), path.Ext(name))
	base = strings.NewReplacer("-", " ", "_", " ").Replace(base)
	if base == "" || base == "." || base == "/" {
		return "Imported page"
	}
	// The first rune, not the first byte: names are UTF-8.
	first, size := utf8.DecodeRuneInString(base)
	return string(unicode.ToUpper(first)) + base[size:]
}

// Fetch downloads a URL: body, content type, and the URL after redirects.
type Fetch func(ctx context.Context, rawURL string) ([]byte, string, *url.URL, error)

// Website imports a page and the pages of the same site it links to, one
// level deep, at most MaxWebsitePage pages and MaxImportBytes fetched in
// all; pages that fail to load are counted and skipped.
func Website(ctx context.Context, start string, fetch Fetch) (Result, error) {
	body, _, final, err := fetch(ctx, start)
	if err != nil {
		return Result{}, err
	}
	fetched := len(body)
	title, md, err := htmlToMarkdown(body, final)
	if err != nil {
		return Result{}, err
	}
	root := &Page{Title: title, Markdown: md}
	res := Result{Pages: []*Page{root}, Total: 1}
	seen := map[string]bool{strings.TrimSuffix(final.String(), "/"): true}
	doc, _ := html.Parse(bytes.NewReader(body))
	for _, href := range hrefs(doc) {
		if len(seen) >= MaxWebsitePage {
			break
		}
		u, err := final.Parse(href)
		if err != nil || u.Host != final.Host || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		u.Fragment = ""
		key := strings.TrimSuffix(u.String(), "/")
		if seen[key] {
			continue
		}
		seen[key] = true
		res.Total++
		b, ct, fu, err := fetch(ctx, u.String())
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if err != nil || !strings.Contains(ct, "html") {
			continue
		}
		if fetched += len(b); fetched > MaxImportBytes {
			return Result{}, &Error{TooLarge: true, Message: fmt.Sprintf("the website's pages pass the %d MB an import may hold", MaxImportBytes>>20)}
		}
		t, m, err := htmlToMarkdown(b, fu)
		if err != nil {
			continue
		}
		root.Children = append(root.Children, &Page{Title: t, Markdown: m})
	}
	return res, nil
}

func hrefs(n *html.Node) []string {
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n == nil {
			return
		}
		if n.Type == html.ElementNode && n.Data == "a" {
			for _, a := range n.Attr {
				if a.Key == "href" {
					out = append(out, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}
