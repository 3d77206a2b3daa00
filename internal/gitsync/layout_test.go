package gitsync

import (
	"bytes"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/internal/markdown"
)

// doc, group and link build test pages; slugs are the titles' unless set.
func doc(title, md string, children ...*Page) *Page {
	return &Page{Kind: kindDocument, Title: title, Slug: markdown.Slug(title), Markdown: md, Children: children}
}

func group(title string, children ...*Page) *Page {
	return &Page{Kind: kindGroup, Title: title, Slug: markdown.Slug(title), Children: children}
}

func link(title, href string, children ...*Page) *Page {
	return &Page{Kind: kindLink, Title: title, Slug: markdown.Slug(title), Href: href, Children: children}
}

func with(p *Page, set func(*Page)) *Page { set(p); return p }

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		tree *Tree
	}{
		{"empty", &Tree{}},
		{"nested pages", &Tree{Pages: []*Page{
			doc("Introduction", "# Introduction\n\nWelcome.\n"),
			doc("Guide", "# Guide\n\nRead on.\n",
				doc("Install", "# Install\n\n```sh\ngo install\n```\n"),
				doc("Configure", "# Configure\n",
					doc("Advanced", "# Advanced\n\nDeep.\n",
						doc("Deeper still", "# Deeper still\n")))),
			doc("FAQ", "# FAQ\n"),
		}}},
		{"groups after the root pages", &Tree{Pages: []*Page{
			doc("Home", "# Home\n"),
			group("API",
				doc("Auth", "# Auth\n", doc("Tokens", "# Tokens\n")),
				doc("Errors", "# Errors\n"),
				link("Status", "https://status.example.com")),
			group("Empty group"),
			group("Reference", doc("CLI", "# CLI\n")),
		}}},
		{"groups a heading cannot hold", &Tree{Pages: []*Page{
			group("Start", doc("Welcome", "# Welcome\n")),
			doc("Overview", "# Overview\n",
				group("Inside", doc("Child", "# Child\n", group("Deeper", doc("Leaf", "# Leaf\n"))))),
			group("Trailing", doc("Last", "# Last\n")),
		}}},
		{"links", &Tree{Pages: []*Page{
			link("Website", "https://example.com/"),
			link("Odd URL", `https://example.com/a (b)/<c>\d`),
			link("Mail us", "mailto:team@example.com"),
			link("Relative", "/other/space"),
			link("Links with subpages", "https://example.com/x", doc("Under a link", "# Under a link\n")),
		}}},
		{"hidden, emoji, descriptions", &Tree{Pages: []*Page{
			with(doc("Secret", "# Secret\n"), func(p *Page) { p.Hidden = true }),
			with(doc("Rocket", "# Rocket\n"), func(p *Page) { p.Emoji = "🚀" }),
			with(doc("Coder", "# Coder\n"), func(p *Page) { p.Emoji = "👩‍💻"; p.Description = "Who writes: code # not a comment" }),
			with(doc("Long", "# Long\n"), func(p *Page) {
				p.Description = strings.Repeat("A rather long description that goes on. ", 8) + "End"
			}),
			with(doc("Lines", "# Lines\n"), func(p *Page) { p.Description = "first line\nsecond: line" }),
			with(doc("Quirky", "# Quirky\n"), func(p *Page) { p.Description = "true"; p.Emoji = "🇫🇷" }),
		}}},
		{"titles and headings", &Tree{Pages: []*Page{
			doc("Home", "# Welcome home\n\nThe heading is not the title.\n"),
			doc("No heading", "Just text.\n"),
			doc("Empty", ""),
			doc("Second level", "## Second level\n\ntext\n"),
			doc("Styled heading", "# Styled *heading*\n"),
			doc("Other styled", "# Styled *heading*\n"),
			doc("Thematic", "---\n\nA rule first.\n"),
			doc("Shielded", "---\nfoo: bar\n---\n\n# Shielded\n"),
		}}},
		{"unicode and escaped titles", &Tree{Pages: []*Page{
			doc("Café déjà vu", "# Café déjà vu\n"),
			with(doc("日本語のページ", "# 日本語のページ\n"), func(p *Page) { p.Slug = "nihongo" }),
			doc(`Arrays [] and \ back`, "# Arrays\n"),
			doc("Brackets [x](y)", "# Brackets [x](y)\n"),
			doc(`Unbalanced ] [ and \[ \* literal`, "Body.\n"),
			group(`Group ] with \# odd [ marks ##`, doc("Kid", "# Kid\n")),
			group("C# and F#", doc("Ünïcödé ✓", "# Ünïcödé ✓\n")),
		}}},
		{"slugs unlike titles", &Tree{Pages: []*Page{
			with(doc("Start", "# Start\n"), func(p *Page) { p.Slug = "begin" }),
			with(group("API", doc("Auth", "# Auth\n")), func(p *Page) { p.Slug = "api-v2" }),
			with(link("Docs", "https://example.com", doc("Sub", "# Sub\n")), func(p *Page) { p.Slug = "external" }),
		}}},
		{"robots settings", &Tree{Pages: []*Page{
			doc("Indexed", "# Indexed\n"),
			doc("No index", markdown.KeepRobots("# No index\n\nbody\n", true, false)),
			doc("No robots", markdown.KeepRobots("# No robots\n", false, true)),
			with(doc("Both", markdown.KeepRobots("Body without heading.\n", true, true)), func(p *Page) {
				p.Hidden, p.Description, p.Emoji = true, "described", "🤖"
			}),
		}}},
		{"assets at several depths", &Tree{
			Pages: []*Page{
				doc("Home", "# Home\n\n![Diagram](/files/f1)\n\n[Manual](/files/f2 \"The manual\")\n"),
				doc("Guide", "# Guide\n\n<img src=\"/files/f1\" alt=\"d\">\n",
					doc("Install", "# Install\n\n![](/files/f3) ![](/files/f4)\n\n[Part](/files/f10#page=2)\n",
						doc("Deep", "# Deep\n\n![one](</files/f1>)\n[ref]: /files/f2\n"))),
				group("Group", doc("In a group", "# In a group\n\n![](/files/f5)\nAn unknown /files/nothing stays.\n")),
			},
			Files: []*File{
				{Ref: "f1", Name: "diagram.png", ContentType: "image/png", Data: []byte("png bytes")},
				{Ref: "f2", Name: "user manual (v2).pdf", ContentType: "application/pdf", Data: []byte("%PDF")},
				{Ref: "f3", Name: "image.png", ContentType: "image/png", Data: []byte("first")},
				{Ref: "f4", Name: "image.png", ContentType: "image/png", Data: []byte("second")},
				{Ref: "f10", Name: "Schéma #1.svg", ContentType: "image/svg+xml", Data: []byte("<svg/>")},
				{Ref: "f5", Name: "data.bin", ContentType: "application/octet-stream", Data: []byte{0, 1, 2}},
				{Ref: "f6", Name: "unused.json", ContentType: "application/json", Data: []byte("{}")},
			},
		}},
		{"redirects", &Tree{
			Pages:     []*Page{doc("Guide", "# Guide\n", doc("New", "# New\n"))},
			Redirects: map[string]string{"old/page": "guide/new.md", "a page": "guide/README.md"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { roundTrip(t, c.tree) })
	}
}

// roundTrip checks that Decode(Encode(tree)) gives tree back, file refs
// becoming the files' paths, and that Encode is deterministic.
func roundTrip(t *testing.T, tree *Tree) {
	t.Helper()
	in := cloneTree(tree)
	files, err := Encode(in)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	again, err := Encode(cloneTree(tree))
	if err != nil || !reflect.DeepEqual(files, again) {
		t.Fatalf("Encode is not deterministic (err %v)", err)
	}
	got, err := Decode(files)
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, dumpFiles(files))
	}

	// What Decode should give: in (with the paths Encode set), refs
	// replaced by the files' paths, longest refs first.
	sorted := append([]*File(nil), in.Files...)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i].Ref) > len(sorted[j].Ref) })
	var pairs []string
	for _, f := range sorted {
		pairs = append(pairs, "/files/"+f.Ref, "/files/"+f.Path)
	}
	refs := strings.NewReplacer(pairs...)
	want := cloneTree(in)
	var mapRefs func([]*Page)
	mapRefs = func(ps []*Page) {
		for _, p := range ps {
			p.Markdown = refs.Replace(p.Markdown)
			mapRefs(p.Children)
		}
	}
	mapRefs(want.Pages)
	if g, w := dumpPages(got.Pages), dumpPages(want.Pages); g != w {
		t.Errorf("pages differ\n--- got\n%s--- want\n%s--- files\n%s", g, w, dumpFiles(files))
	}

	if len(got.Files) != len(in.Files) {
		t.Fatalf("got %d files, want %d", len(got.Files), len(in.Files))
	}
	byPath := map[string]*File{}
	for _, f := range got.Files {
		byPath[f.Path] = f
	}
	for _, f := range in.Files {
		g := byPath[f.Path]
		switch {
		case g == nil:
			t.Errorf("file %s (%s) not decoded", f.Ref, f.Path)
		case g.Ref != f.Path || g.Name != path.Base(f.Path) || g.ContentType != f.ContentType || !bytes.Equal(g.Data, f.Data):
			t.Errorf("file %s decoded as %+v, want ref and path %s, type %s", f.Ref, g, f.Path, f.ContentType)
		}
	}
	if len(got.Redirects) != len(in.Redirects) || (len(in.Redirects) > 0 && !reflect.DeepEqual(got.Redirects, in.Redirects)) {
		t.Errorf("redirects %v, want %v", got.Redirects, in.Redirects)
	}
}

// dumpPages writes a page tree one field per line, for diffs.
func dumpPages(ps []*Page) string {
	var b strings.Builder
	var walk func([]*Page, string)
	walk = func(ps []*Page, indent string) {
		for _, p := range ps {
			fmt.Fprintf(&b, "%s- %s %q slug=%q path=%q href=%q emoji=%q hidden=%v\n%s  description=%q\n%s  markdown=%q\n",
				indent, kindOf(p), p.Title, p.Slug, p.Path, p.Href, p.Emoji, p.Hidden, indent, p.Description, indent, p.Markdown)
			walk(p.Children, indent+"  ")
		}
	}
	walk(ps, "")
	return b.String()
}

func dumpFiles(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if strings.HasPrefix(n, assetsDir) {
			fmt.Fprintf(&b, "== %s (%d bytes)\n", n, len(files[n]))
			continue
		}
		fmt.Fprintf(&b, "== %s\n%s\n", n, files[n])
	}
	return b.String()
}

func cloneTree(t *Tree) *Tree {
	c := &Tree{Pages: clonePages(t.Pages)}
	for _, f := range t.Files {
		g := *f
		c.Files = append(c.Files, &g)
	}
	if t.Redirects != nil {
		c.Redirects = map[string]string{}
		for k, v := range t.Redirects {
			c.Redirects[k] = v
		}
	}
	return c
}

func clonePages(ps []*Page) []*Page {
	var out []*Page
	for _, p := range ps {
		c := *p
		c.Children = clonePages(p.Children)
		out = append(out, &c)
	}
	return out
}

// TestEncodeLayout pins the files Encode writes, as GitBook lays them out.
func TestEncodeLayout(t *testing.T) {
	tree := &Tree{
		Pages: []*Page{
			doc("Introduction", "# Introduction\n\n![](/files/f1)\n"),
			doc("Guide", "# Guide\n",
				with(doc("Install", "# Setting up\n\n![](/files/f2)\n"), func(p *Page) { p.Emoji, p.Hidden = "📦", true })),
			link("Website", "https://example.com"),
			group("API Reference", doc("Auth", "# Auth\n", doc("Tokens", "![](/files/f1)\n"))),
		},
		Files: []*File{
			{Ref: "f1", Name: "logo.png", Data: []byte("a")},
			{Ref: "f2", Name: "Logo.PNG", Data: []byte("b")},
		},
		Redirects: map[string]string{"zeta": "guide/install.md", "alpha": "README.md"},
	}
	files, err := Encode(tree)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		".gitbook.yaml": "root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  alpha: README.md\n  zeta: guide/install.md\n",
		"SUMMARY.md": "# Table of contents\n\n" +
			"* [Introduction](README.md)\n" +
			"* [Guide](guide/README.md)\n" +
			"  * [Install](guide/install.md)\n" +
			"* [Website](https://example.com)\n" +
			"\n## API Reference\n\n" +
			"* [Auth](api-reference/auth/README.md)\n" +
			"  * [Tokens](api-reference/auth/tokens.md)\n",
		"README.md":                    "# Introduction\n\n![](.gitbook/assets/logo.png)\n",
		"guide/README.md":              "# Guide\n",
		"guide/install.md":             "---\nhidden: true\nicon: \U0001F4E6\ntitle: Install\n---\n\n# Setting up\n\n![](../.gitbook/assets/Logo%20%281%29.PNG)\n",
		"api-reference/auth/README.md": "# Auth\n",
		"api-reference/auth/tokens.md": "---\ntitle: Tokens\n---\n\n![](../../.gitbook/assets/logo.png)\n",
		".gitbook/assets/logo.png":     "a",
		".gitbook/assets/Logo (1).PNG": "b",
	}
	for name, content := range want {
		if got, ok := files[name]; !ok {
			t.Errorf("no %s", name)
		} else if string(got) != content {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, content)
		}
	}
	if len(files) != len(want) {
		t.Errorf("files:\n%s", dumpFiles(files))
	}
	paths := []string{tree.Pages[0].Path, tree.Pages[1].Path, tree.Pages[1].Children[0].Path, tree.Pages[2].Path, tree.Pages[3].Path,
		tree.Pages[3].Children[0].Children[0].Path, tree.Files[0].Path, tree.Files[1].Path}
	wantPaths := []string{"README.md", "guide/README.md", "guide/install.md", "", "", "api-reference/auth/tokens.md",
		".gitbook/assets/logo.png", ".gitbook/assets/Logo (1).PNG"}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("paths set on the tree %q, want %q", paths, wantPaths)
	}
}

// TestEncodeHome writes README.md only for a first root document that is a
// leaf with its title's slug.
func TestEncodeHome(t *testing.T) {
	for _, c := range []struct {
		name  string
		pages []*Page
		want  string
	}{
		{"leaf with its title's slug", []*Page{link("L", "https://x"), doc("Hello", "# Hello\n")}, "README.md"},
		{"another slug", []*Page{with(doc("Hello", "# Hello\n"), func(p *Page) { p.Slug = "start" })}, "start.md"},
		{"no slug", []*Page{with(doc("Hello", "# Hello\n"), func(p *Page) { p.Slug = "" })}, "README.md"},
		{"has subpages", []*Page{doc("Hello", "# Hello\n", doc("Sub", "# Sub\n"))}, "hello/README.md"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree := &Tree{Pages: c.pages}
			if _, err := Encode(tree); err != nil {
				t.Fatal(err)
			}
			var got string
			for _, p := range tree.Pages {
				if p.Path != "" {
					got = p.Path
					break
				}
			}
			if got != c.want {
				t.Errorf("home at %q, want %q", got, c.want)
			}
		})
	}
}

// TestEncodeGuardsNames keeps sibling files apart, and away from README.md
// and SUMMARY.md on file systems that ignore case.
func TestEncodeGuardsNames(t *testing.T) {
	tree := &Tree{Pages: []*Page{
		doc("Home", "# Home\n"),
		with(doc("Summary", "# Summary\n"), func(p *Page) { p.Slug = "summary" }),
		with(doc("Twin", "# Twin\n"), func(p *Page) { p.Slug = "twin" }),
		with(doc("Twin again", "# Twin again\n"), func(p *Page) { p.Slug = "twin" }),
		with(doc("Bad slug", "# Bad slug\n"), func(p *Page) { p.Slug = "../Up/../../x" }),
		doc("Parent", "# Parent\n", with(doc("Readme", "# Readme\n"), func(p *Page) { p.Slug = "readme" })),
	}}
	files, err := Encode(tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary-2.md", "twin.md", "twin-2.md", "up-x.md", "parent/readme-2.md", "parent/README.md"} {
		if _, ok := files[name]; !ok {
			t.Errorf("no %s in\n%s", name, dumpFiles(files))
		}
	}
	got, err := Decode(files)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Pages[3].Slug; s != "twin-2" {
		t.Errorf("second twin decoded with slug %q", s)
	}
}

func TestEncodeRefusesUnknownKind(t *testing.T) {
	_, err := Encode(&Tree{Pages: []*Page{{Kind: "openapi", Title: "Spec"}}})
	if err == nil || !strings.Contains(err.Error(), `"Spec"`) {
		t.Errorf("err = %v, want one naming the page", err)
	}
}

// TestEncodeFileRefs rewrites whole refs only, where a reference may start.
func TestEncodeFileRefs(t *testing.T) {
	a := placeAssets([]*File{{Ref: "f1", Name: "a.png"}, {Ref: "f10", Name: "b c.png"}}, map[string][]byte{})
	for _, c := range []struct{ in, want string }{
		{"![](/files/f1)", "![](../.gitbook/assets/a.png)"},
		{"![](/files/f10)", "![](../.gitbook/assets/b%20c.png)"},
		{"![](/files/f1x) ![](/files/f1/x)", "![](/files/f1x) ![](/files/f1/x)"},
		{"https://example.com/files/f1 and x/files/f1", "https://example.com/files/f1 and x/files/f1"},
		{"/files/f1", "../.gitbook/assets/a.png"},
		{`<a href='/files/f10'>`, `<a href='../.gitbook/assets/b%20c.png'>`},
		{"(/files/f1?x=1)", "(../.gitbook/assets/a.png?x=1)"},
	} {
		if got := a.toRelative(c.in, "guide"); got != c.want {
			t.Errorf("toRelative(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want summaryEntry
		ok   bool
	}{
		{"* [Title](page.md)", summaryEntry{title: "Title", target: "page.md", linked: true}, true},
		{"    - [Nested](a/b.md \"tip\")", summaryEntry{indent: 4, title: "Nested", target: "a/b.md", linked: true}, true},
		{"\t+ [Tab](x.md)", summaryEntry{indent: 4, title: "Tab", target: "x.md", linked: true}, true},
		{`* [Arrays \[\] and \\ back](arrays.md)`, summaryEntry{title: `Arrays [] and \ back`, target: "arrays.md", linked: true}, true},
		{"* [Spaced](<my page.md>)", summaryEntry{title: "Spaced", target: "my page.md", linked: true}, true},
		{"* [Parens](a%20(1).md)", summaryEntry{title: "Parens", target: "a%20(1).md", linked: true}, true},
		{"* Plain group", summaryEntry{title: "Plain group"}, true},
		{"## Group", summaryEntry{heading: true, title: "Group"}, true},
		{`## C\# and F\# ##`, summaryEntry{heading: true, title: "C# and F#"}, true},
		{"# Table of contents", summaryEntry{}, false},
		{"### Not a group", summaryEntry{}, false},
		{"Some text", summaryEntry{}, false},
	} {
		got, ok := parseSummaryLine(c.line)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseSummaryLine(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestFrontmatterValues writes values YAML would misread (plain) quoted,
// and reads every one back as it was.
func TestFrontmatterValues(t *testing.T) {
	for _, s := range []string{
		"plain words", "- item", "@at", "key: value", "#hash", "a # comment", "' quote", `"double"`, `back\slash`,
		"multi\nline", "🚀 launch", "null", "~", "1.0", "true", "[list]", "{map}", "*alias", "&anchor", "!tag", "%dir",
		"tab\there", "bell\a", "line\u2028sep", "é à ü", "> folded", "| literal", "x:", "?",
	} {
		y := yamlString(s)
		if got := markdown.Parse("---\ntitle: " + y + "\n---\n").Title; got != s {
			t.Errorf("yamlString(%q) = %s, read back as %q", s, y, got)
		}
	}
	if y := yamlString("🚀"); y != "🚀" {
		t.Errorf("an emoji is written %s", y)
	}
}
