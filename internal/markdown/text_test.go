package markdown

import (
	"reflect"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"empty", "", ""},
		{"frontmatter dropped", "---\ntitle: Secret\n---\n# Title\n\nBody\n", "Title\nBody"},
		{"marks removed", "**bold** *it* `code` ~~del~~ \\*lit\\*", "bold it code del *lit*"},
		{"links and images", "[text](http://x) ![alt](i.png) <https://a.io>", "text alt https://a.io"},
		{"soft and hard breaks", "a\nb  \nc", "a b\nc"},
		{"lists", "- one\n- two\n  1. three\n", "one\ntwo\nthree"},
		{"tasks", "- [x] done\n- [ ] todo\n", "done\ntodo"},
		{"code keeps lines", "```go\nif x {\n\ty()\n}\n```\n", "if x {\n\ty()\n}"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n", "a b\n1 2"},
		{"quote and divider", "> quoted\n\n---\n\nafter\n", "quoted\nafter"},
		{"html", "<div>\n<p>Hello &amp; <b>bye</b></p>\n</div>\n", "Hello & bye"},
		{"entities", "&lt;tag&gt; &quot;q&quot;", "<tag> \"q\""},
		{"CRLF", "a\r\n\r\nb\r\n", "a\nb"},
		{"reference definitions are not text", "[x][r]\n\n[r]: /url \"title\"\n", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.src); got != tt.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestSections(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Section
	}{
		{"empty", "", nil},
		{"no headings", "just text\n", []Section{{Body: "just text"}}},
		{"text before the first heading", "---\ntitle: t\n---\nIntro **text**.\n\n# First\n\nOne.\n\n## Second\n\nTwo.\n\nMore.\n",
			[]Section{
				{Body: "Intro text."},
				{ID: "first", Title: "First", Body: "One."},
				{ID: "second", Title: "Second", Body: "Two.\nMore."},
			}},
		{"blank before the first heading is left out", "\n\n<!-- c -->\n# A\nx\n",
			[]Section{{ID: "a", Title: "A", Body: "x"}}},
		{"duplicate headings", "# Setup\na\n# Setup\nb\n## Setup\nc\n# Setup 1\nd\n",
			[]Section{
				{ID: "setup", Title: "Setup", Body: "a"},
				{ID: "setup-1", Title: "Setup", Body: "b"},
				{ID: "setup-2", Title: "Setup", Body: "c"},
				{ID: "setup-1-1", Title: "Setup 1", Body: "d"},
			}},
		{"empty sections kept", "# A\n# B\n", []Section{{ID: "a", Title: "A"}, {ID: "b", Title: "B"}}},
		{"heading with markup", "## The `Slug()` *function*\ntext\n", []Section{{ID: "the-slug-function", Title: "The Slug() function", Body: "text"}}},
		{"heading inside a blockquote splits", "# A\n> x\n> # B\n> y\n", []Section{{ID: "a", Title: "A", Body: "x"}, {ID: "b", Title: "B", Body: "y"}}},
		{"heading without text", "#\nbody\n", []Section{{ID: "page", Body: "body"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sections(tt.src)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sections(%q)\n got %+v\nwant %+v", tt.src, got, tt.want)
			}
		})
	}
}

func TestAnchors(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"", []string{}},
		{"text only", []string{}},
		{"# Intro\n## Intro\n### Café & Crème\nSetext\n---\n", []string{"intro", "intro-1", "cafe-creme", "setext"}},
		{"---\ntitle: Not a heading\n---\n# Real\n", []string{"real"}},
		{"- # In a list\n> ## In a quote\n", []string{"in-a-list", "in-a-quote"}},
		{"```\n# not a heading\n```\n", []string{}},
		{"# 日本\n# 中文\n", []string{"page", "page-1"}},
	}
	for _, tt := range tests {
		got := Anchors(tt.src)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Anchors(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
	// Anchors, Section IDs and heading meta ids agree.
	src := "pre\n# A\n## A\n- ### b\n# A-1\n"
	var ids []string
	for _, s := range Sections(src) {
		if s.ID != "" {
			ids = append(ids, s.ID)
		}
	}
	var metas []string
	var walk func([]Node)
	walk = func(nodes []Node) {
		for _, n := range nodes {
			if n.Meta != nil {
				metas = append(metas, n.Meta.ID)
			}
			walk(n.Nodes)
		}
	}
	walk(ToDocument(src).Nodes)
	if a := Anchors(src); !reflect.DeepEqual(a, ids) || !reflect.DeepEqual(a, metas) {
		t.Errorf("Anchors %q, section IDs %q, heading meta ids %q differ", a, ids, metas)
	}
}
