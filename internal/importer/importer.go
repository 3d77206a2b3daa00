// Package importer turns outside content into pages and files: one markdown
// file, an HTML page (converted to markdown), a zip of markdown files (in
// SUMMARY.md order when there is one, images becoming files) or a small
// website. It knows nothing of storage; fetching is given to it.
package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

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

// Limits of an import.
const (
	MaxZipFiles    = 2000
	MaxZipBytes    = 100 << 20 // uncompressed
	MaxWebsitePage = 25
)

// Markdown imports one markdown document.
func Markdown(data []byte, name string) Result {
	src := string(data)
	title := markdown.Parse(src).Title
	if title == "" {
		title = titleFromName(name)
	}
	return Result{Pages: []*Page{{Title: title, Markdown: src}}, Total: 1}
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
		return "", "", fmt.Errorf("not HTML: %w", err)
	}
	title = strings.TrimSpace(findText(doc, "title"))
	domain := ""
	if base != nil {
		domain = base.Scheme + "://" + base.Host
	}
	out, err := htmltomarkdown.ConvertString(string(data), converterOptions(domain)...)
	if err != nil {
		return "", "", fmt.Errorf("converting HTML: %w", err)
	}
	if title == "" {
		title = markdown.Parse(out).Title
	}
	if title == "" {
		title = "Imported page"
	}
	return title, strings.TrimSpace(out) + "\n", nil
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

var imageExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true}

// Zip imports a tree of markdown files. With a SUMMARY.md, pages follow its
// nested list; files it does not list come after, by path. Without one,
// folders become pages (their README.md as body) in path order. Images
// become files and image links to them point at the files.
func Zip(data []byte) (Result, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Result{}, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > MaxZipFiles {
		return Result{}, fmt.Errorf("the archive holds more than %d files", MaxZipFiles)
	}
	docs := map[string]string{}
	res := Result{}
	files := map[string]*File{}
	var total int64
	prefix := commonRoot(zr.File)
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || strings.HasPrefix(path.Base(f.Name), ".") || strings.Contains(f.Name, "__MACOSX") {
			continue
		}
		name := strings.TrimPrefix(path.Clean("/"+f.Name), "/")
		name = strings.TrimPrefix(name, prefix)
		ext := strings.ToLower(path.Ext(name))
		if ext != ".md" && !imageExt[ext] {
			continue
		}
		res.Total++
		rc, err := f.Open()
		if err != nil {
			return Result{}, err
		}
		body, err := io.ReadAll(io.LimitReader(rc, MaxZipBytes-total+1))
		rc.Close()
		if err != nil {
			return Result{}, err
		}
		if total += int64(len(body)); total > MaxZipBytes {
			return Result{}, fmt.Errorf("the archive is larger than %d MB uncompressed", MaxZipBytes>>20)
		}
		if ext == ".md" {
			docs[name] = string(body)
			continue
		}
		file := &File{Name: path.Base(name), Data: body, ContentType: mime.TypeByExtension(ext), Token: fmt.Sprintf("folio-import-%d", len(files))}
		files[name] = file
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		res.Files = append(res.Files, files[n])
	}
	build := func(name string) *Page {
		src := rewriteImages(docs[name], path.Dir(name), files)
		title := markdown.Parse(src).Title
		if title == "" {
			title = titleFromName(name)
		}
		return &Page{Title: title, Markdown: src}
	}
	if summary, ok := docs["SUMMARY.md"]; ok {
		used := map[string]bool{"SUMMARY.md": true}
		res.Pages = fromSummary(summary, docs, used, build)
		var rest []string
		for n := range docs {
			if !used[n] {
				rest = append(rest, n)
			}
		}
		sort.Strings(rest)
		for _, n := range rest {
			res.Pages = append(res.Pages, build(n))
		}
		return res, nil
	}
	res.Pages = fromFolders(docs, build)
	return res, nil
}

// commonRoot is a single top folder every entry shares ("docs/"), or "".
func commonRoot(files []*zip.File) string {
	root := ""
	for _, f := range files {
		first, _, ok := strings.Cut(strings.TrimPrefix(f.Name, "/"), "/")
		if !ok {
			return ""
		}
		if root == "" {
			root = first
		} else if root != first {
			return ""
		}
	}
	if root == "" {
		return ""
	}
	return root + "/"
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
	return strings.ToUpper(base[:1]) + base[1:]
}

// Fetch downloads a URL: body, content type, and the URL after redirects.
type Fetch func(ctx context.Context, rawURL string) ([]byte, string, *url.URL, error)

// Website imports a page and the pages of the same site it links to, one
// level deep, at most MaxWebsitePage pages in all; pages that fail to load
// are counted and skipped.
func Website(ctx context.Context, start string, fetch Fetch) (Result, error) {
	body, _, final, err := fetch(ctx, start)
	if err != nil {
		return Result{}, err
	}
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
		if err != nil || !strings.Contains(ct, "html") {
			continue
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
