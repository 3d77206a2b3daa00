package gitsync

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/folio/folio/internal/markdown"
)

// repo makes a files map from name, content pairs.
func repo(pairs ...string) map[string][]byte {
	m := map[string][]byte{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = []byte(pairs[i+1])
	}
	return m
}

// outline is a page tree as "kind title slug path" lines, indented.
func outline(ps []*Page) string {
	var b strings.Builder
	var walk func([]*Page, string)
	walk = func(ps []*Page, indent string) {
		for _, p := range ps {
			b.WriteString(indent + kindOf(p) + " " + p.Title + " " + p.Slug + " " + p.Path + p.Href + "\n")
			walk(p.Children, indent+"  ")
		}
	}
	walk(ps, "")
	return b.String()
}

func mustDecode(t *testing.T, files map[string][]byte) *Tree {
	t.Helper()
	tree, err := Decode(files)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return tree
}

func TestDecodeCustomRoot(t *testing.T) {
	tree := mustDecode(t, repo(
		".gitbook.yaml", "root: ./docs/\n\nstructure:\n  readme: intro.md\n  summary: toc.md\n",
		"README.md", "# The repository's own readme, outside the root\n",
		"src/main.go", "package main\n",
		"docs/toc.md", "# Table of contents\n\n"+
			"* [Welcome](intro.md)\n"+
			"  * [Tour](tour/start.md)\n"+
			"* [Guide](guide/README.md)\n"+
			"  * [Setup](<guide/first steps.md>)\n"+
			"  * [Web](https://example.com/web)\n"+
			"\n## Reference\n\n"+
			"* [CLI tool](reference/cli.md#usage)\n",
		"docs/intro.md", "---\ndescription: Start here\n---\n\n# Welcome\n\n![](.gitbook/assets/logo.png)\n",
		"docs/tour/start.md", "# Tour\n",
		"docs/guide/README.md", "# Guide\n\n<img src=\"../.gitbook/assets/logo.png\" alt=\"x\">\n",
		"docs/guide/first steps.md", "# First steps\n\n![](<../.gitbook/assets/image (1).png>)\n"+
			"![](../.gitbook/assets/image%20(1).png)\n"+
			"{% file src=\"../.gitbook/assets/manual.pdf\" %}\n"+
			"![](../.gitbook/assets/missing.png)\n",
		"docs/reference/cli.md", "---\nicon: 🛠️\nhidden: true\nnoIndex: true\n---\n\nNo heading here.\n"+
			"![](/.gitbook/assets/logo.png) and ![](.gitbook/assets/logo.png) and ![](../../.gitbook/assets/logo.png)\n",
		"docs/.github/template.md", "# Not a page\n",
		"docs/.gitbook/assets/logo.png", "logo",
		"docs/.gitbook/assets/image (1).png", "image",
		"docs/.gitbook/assets/manual.pdf", "pdf",
		"docs/.gitbook/assets/sub/unused.bin", "bin",
		".gitbook/assets/outside.png", "not under the root",
	))
	want := "document Welcome welcome docs/intro.md\n" +
		"  document Tour start docs/tour/start.md\n" +
		"document Guide guide docs/guide/README.md\n" +
		"  document First steps first-steps docs/guide/first steps.md\n" +
		"  link Web web https://example.com/web\n" +
		"group Reference reference \n" +
		"  document CLI tool cli docs/reference/cli.md\n"
	if got := outline(tree.Pages); got != want {
		t.Errorf("pages:\n%s\nwant:\n%s", got, want)
	}
	intro, setup, cli := tree.Pages[0], tree.Pages[1].Children[0], tree.Pages[2].Children[0]
	if intro.Description != "Start here" || intro.Markdown != "# Welcome\n\n![](/files/docs/.gitbook/assets/logo.png)\n" {
		t.Errorf("intro: %+v", intro)
	}
	if want := "# First steps\n\n![](</files/docs/.gitbook/assets/image (1).png>)\n" +
		"![](/files/docs/.gitbook/assets/image (1).png)\n" +
		"{% file src=\"/files/docs/.gitbook/assets/manual.pdf\" %}\n" +
		"![](../.gitbook/assets/missing.png)\n"; setup.Markdown != want {
		t.Errorf("setup markdown:\n%q\nwant\n%q", setup.Markdown, want)
	}
	logo := "/files/docs/.gitbook/assets/logo.png"
	if want := markdown.KeepRobots("No heading here.\n![]("+logo+") and ![]("+logo+") and ![]("+logo+")\n", true, false); cli.Markdown != want {
		t.Errorf("cli markdown:\n%q\nwant\n%q", cli.Markdown, want)
	}
	if cli.Emoji != "🛠️" || !cli.Hidden {
		t.Errorf("cli emoji %q hidden %v", cli.Emoji, cli.Hidden)
	}
	var files []string
	for _, f := range tree.Files {
		files = append(files, f.Path+" "+f.Ref+" "+f.Name+" "+f.ContentType+" "+string(f.Data))
	}
	wantFiles := []string{
		"docs/.gitbook/assets/image (1).png docs/.gitbook/assets/image (1).png image (1).png image/png image",
		"docs/.gitbook/assets/logo.png docs/.gitbook/assets/logo.png logo.png image/png logo",
		"docs/.gitbook/assets/manual.pdf docs/.gitbook/assets/manual.pdf manual.pdf application/pdf pdf",
		"docs/.gitbook/assets/sub/unused.bin docs/.gitbook/assets/sub/unused.bin unused.bin application/octet-stream bin",
	}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(wantFiles, "\n"))
	}
}

func TestDecodeWithoutSummary(t *testing.T) {
	tree := mustDecode(t, repo(
		"getting-started.md", "# Getting started\n",
		"api/auth.md", "# Auth\n",
		"api/README.md", "---\ntitle: The API\n---\n\n# Heading\n",
		"api/v2/tokens.md", "No heading.\n",
		"Zebra Notes.md", "",
		"README.md", "# Home page\n",
		"old.md", "# Old\n",
		"old/child.md", "# Child of old.md\n",
	))
	want := "document Home page home-page README.md\n" +
		"document Zebra Notes zebra-notes Zebra Notes.md\n" +
		"document The API api api/README.md\n" +
		"  document Auth auth api/auth.md\n" +
		"  document V2 v2 \n" +
		"    document Tokens tokens api/v2/tokens.md\n" +
		"document Getting started getting-started getting-started.md\n" +
		"document Old old old.md\n" +
		"  document Child of old.md child old/child.md\n"
	if got := outline(tree.Pages); got != want {
		t.Errorf("pages:\n%s\nwant:\n%s", got, want)
	}
	if tree.Files != nil || tree.Redirects != nil {
		t.Errorf("files %v, redirects %v", tree.Files, tree.Redirects)
	}
}

func TestDecodeMissingAndUnlisted(t *testing.T) {
	tree := mustDecode(t, repo(
		"SUMMARY.md", "# Table of contents\n\n"+
			"* [Home](README.md)\n"+
			"* [Gone](gone.md)\n"+
			"  * [Kept](kept.md)\n"+
			"* [Guide](guide/)\n"+
			"  * [Missing](guide/missing.md)\n"+
			"    * [Deep](guide/deep.md)\n"+
			"* [Home again](README.md)\n"+
			"  * [Orphan](orphan.md)\n"+
			"* [Untitled entry](untitled.md)\n"+
			"* [Other space](../other/page)\n",
		"README.md", "# Home\n",
		"kept.md", "# Kept\n",
		"orphan.md", "# Orphan\n",
		"untitled.md", "no heading\n",
		"guide/README.md", "# Guide\n",
		"guide/deep.md", "# Deep\n",
		"guide/extra.md", "# Extra\n",
		"notes.md", "# Notes\n",
		"misc/a.md", "# A\n",
	))
	want := "document Home home README.md\n" +
		"document Kept kept kept.md\n" +
		"document Guide guide guide/README.md\n" +
		"  document Deep deep guide/deep.md\n" +
		"  document Extra extra guide/extra.md\n" +
		"document Orphan orphan orphan.md\n" +
		"document Untitled entry untitled untitled.md\n" +
		"link Other space other-space ../other/page\n" +
		"document Misc misc \n" +
		"  document A a misc/a.md\n" +
		"document Notes notes notes.md\n"
	if got := outline(tree.Pages); got != want {
		t.Errorf("pages:\n%s\nwant:\n%s", got, want)
	}
}

func TestDecodeGroups(t *testing.T) {
	tree := mustDecode(t, repo(
		"SUMMARY.md", "# Table of contents\n\n* [Intro](intro.md)\n\n"+
			"## Getting started\n\n* [Install](start/install.md)\n\n"+
			"## API ##\n\n* [Auth](api/auth.md)\n* [Auth](api/auth-2.md)\n\n"+
			"## Empty\n",
		"intro.md", "# Intro\n",
		"start/install.md", "# Install\n",
		"api/auth.md", "# Auth\n",
		"api/auth-2.md", "# Auth\n",
	))
	// A group takes its subpages' folder as slug; sibling slugs stay apart.
	want := "document Intro intro intro.md\n" +
		"group Getting started start \n" +
		"  document Install install start/install.md\n" +
		"group API api \n" +
		"  document Auth auth api/auth.md\n" +
		"  document Auth auth-2 api/auth-2.md\n" +
		"group Empty empty \n"
	if got := outline(tree.Pages); got != want {
		t.Errorf("pages:\n%s\nwant:\n%s", got, want)
	}
}

func TestDecodeRedirects(t *testing.T) {
	tree := mustDecode(t, repo(
		".gitbook.yaml", "root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n"+
			"redirects:\n  old-page: guide/new.md\n  legacy/api: api/README.md\n",
		"README.md", "# Home\n",
	))
	want := map[string]string{"old-page": "guide/new.md", "legacy/api": "api/README.md"}
	if !reflect.DeepEqual(tree.Redirects, want) {
		t.Errorf("redirects %v, want %v", tree.Redirects, want)
	}
	if _, err := Decode(repo(".gitbook.yaml", "redirects: [not, a, map]\n")); err == nil || !strings.Contains(err.Error(), ".gitbook.yaml") {
		t.Errorf("a bad .gitbook.yaml gave %v", err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	big := "# Big\n" + strings.Repeat("x", markdown.MaxBytes)
	for _, c := range []struct {
		name  string
		files map[string][]byte
		file  string
		limit bool
	}{
		{"not UTF-8", repo("README.md", "# Ok\n", "guide/bad.md", "# Bad \xff\xfe\n"), "guide/bad.md", false},
		{"NUL byte", repo("docs/a.md", "# A\x00\n", ".gitbook.yaml", "root: docs"), "docs/a.md", false},
		{"too large", repo("SUMMARY.md", "* [Big](big.md)\n", "big.md", big), "big.md", true},
		{"summary not UTF-8", repo("SUMMARY.md", "* [A](a.md)\xff\n", "a.md", "# A\n"), "SUMMARY.md", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.files)
			if err == nil || !strings.Contains(err.Error(), c.file) {
				t.Fatalf("err = %v, want one naming %s", err, c.file)
			}
			var le *LimitError
			if errors.As(err, &le) != c.limit || (c.limit && le.Bound != "bytes") {
				t.Errorf("err = %#v, limit error wanted: %v", err, c.limit)
			}
		})
	}
	// Files that are not pages are not read as text.
	if _, err := Decode(repo("README.md", "# Ok\n", ".gitbook/assets/x.png", "\x00\xff", ".github/x.md", "\xff")); err != nil {
		t.Errorf("assets and hidden folders refused: %v", err)
	}
}
