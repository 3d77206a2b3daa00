package markdown

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		src  string
		want Meta
	}{
		{"---\ntitle: Install\ndescription: How to\nemoji: \"🚀\"\nhidden: true\n---\nBody.\n",
			Meta{Title: "Install", Description: "How to", Emoji: "🚀", Hidden: true, Body: "Body.\n"}},
		{"# Heading title\n\nText.\n", Meta{Title: "Heading title", Body: "# Heading title\n\nText.\n"}},
		{"Intro.\n\n## Later *heading*\n", Meta{Title: "Later heading", Body: "Intro.\n\n## Later *heading*\n"}},
		{"---\ntitle: [unclosed\n---\n# Real\n", Meta{Title: "title: [unclosed", Body: "---\ntitle: [unclosed\n---\n# Real\n"}},
		{"---\r\ntitle: CRLF\r\n---\r\nText\r\n", Meta{Title: "CRLF", Body: "Text\n"}},
		{"No title here.\n", Meta{Body: "No title here.\n"}},
		{"", Meta{}},
	}
	for _, c := range cases {
		if got := Parse(c.src); got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.src, got, c.want)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Getting Started":        "getting-started",
		"Café & Crème brûlée!":   "cafe-creme-brulee",
		"  --Hello--World--  ":   "hello-world",
		"日本語":                    "page",
		"":                       "page",
		"API v2.0 (beta)":        "api-v2-0-beta",
		strings.Repeat("a", 150): strings.Repeat("a", 100),
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToDocument(t *testing.T) {
	src := "# Title\n\nSome **bold** and *it* and `code` and ~~gone~~ [link](https://x.dev).\n\n" +
		"- one\n- two\n  1. nested\n\n* [x] done\n* [ ] todo\n\n```go\nfmt.Println(1)\nx := 2\n```\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n![Alt text](/files/abc)\n\n> quoted\n\n---\n\n#### Deep\n"
	doc := ToDocument(src)
	var types []string
	for _, n := range doc.Nodes {
		types = append(types, n.Type)
	}
	want := []string{"heading-1", "paragraph", "list-unordered", "list-tasks", "code", "table", "images", "blockquote", "divider", "heading-3"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("block types %v, want %v", types, want)
	}
	para := doc.Nodes[1]
	var marks []string
	for _, n := range para.Nodes {
		if n.Object == "text" && len(n.Leaves[0].Marks) > 0 {
			marks = append(marks, n.Leaves[0].Marks[0].Type)
		}
		if n.Object == "inline" && n.Data["ref"].(map[string]any)["url"] != "https://x.dev" {
			t.Fatalf("link: %+v", n)
		}
	}
	if !reflect.DeepEqual(marks, []string{"bold", "italic", "code", "strikethrough"}) {
		t.Fatalf("marks %v", marks)
	}
	if nested := doc.Nodes[2].Nodes[1].Nodes[1]; nested.Type != "list-ordered" {
		t.Fatalf("nested list: %+v", nested)
	}
	if tasks := doc.Nodes[3].Nodes; tasks[0].Data["checked"] != true || tasks[1].Data["checked"] != false {
		t.Fatalf("tasks: %+v", tasks)
	}
	code := doc.Nodes[4]
	if code.Data["syntax"] != "go" || len(code.Nodes) != 2 || code.Nodes[1].Nodes[0].Leaves[0].Text != "x := 2" {
		t.Fatalf("code: %+v", code)
	}
	if tbl := doc.Nodes[5].Data; !reflect.DeepEqual(tbl["header"], []string{"a", "b"}) || !reflect.DeepEqual(tbl["rows"], [][]string{{"1", "2"}}) {
		t.Fatalf("table: %+v", tbl)
	}
	if img := doc.Nodes[6].Nodes[0]; img.Data["src"] != "/files/abc" || img.Data["alt"] != "Alt text" {
		t.Fatalf("image: %+v", img)
	}
	// Keys are stable for the same content, and differ between blocks.
	if ToDocument(src).Nodes[1].Key != para.Key || doc.Nodes[0].Key == para.Key {
		t.Fatal("block keys are not stable and distinct")
	}
	raw, _ := json.Marshal(ToDocument("Hi"))
	if string(raw) != `{"object":"document","data":{},"nodes":[{"object":"block","type":"paragraph","key":"`+ToDocument("Hi").Nodes[0].Key+`","nodes":[{"object":"text","leaves":[{"object":"leaf","text":"Hi","marks":[]}]}]}]}` {
		t.Fatalf("JSON: %s", raw)
	}
}

func TestTextSectionsAnchors(t *testing.T) {
	src := "---\ntitle: T\n---\nIntro text.\n\n# Setup\n\nInstall **it**.\n\n```sh\nmake\n```\n\n## Setup\n\nAgain.\n\n# Use\n"
	if got := Text(src); got != "Intro text.\n\nSetup\n\nInstall it.\n\nmake\n\nSetup\n\nAgain.\n\nUse" {
		t.Fatalf("Text: %q", got)
	}
	got := Sections(src)
	want := []Section{{Body: "Intro text."}, {ID: "setup", Title: "Setup", Body: "Install it.\n\nmake"}, {ID: "setup-1", Title: "Setup", Body: "Again."}, {ID: "use", Title: "Use"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sections: %+v", got)
	}
	if a := Anchors(src); !reflect.DeepEqual(a, []string{"setup", "setup-1", "use"}) {
		t.Fatalf("Anchors: %v", a)
	}
}

func TestLinks(t *testing.T) {
	src := "See [guide](../guide/setup.md#install) and [ref][r].\n\n![logo](/files/f1)\n\n<https://auto.dev>\n\nJump to [x](#x).\n\n[r]: https://ref.dev\n"
	got := Links(src)
	want := []Link{
		{Target: "../guide/setup.md#install", Text: "guide", Line: 1},
		{Target: "https://ref.dev", Text: "ref", Line: 1},
		{Target: "/files/f1", Text: "logo", Image: true, Line: 3},
		{Target: "https://auto.dev", Text: "https://auto.dev", Line: 5},
		{Target: "#x", Text: "x", Line: 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Links:\n%+v\nwant\n%+v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"# a\n", "---\ntitle: x\n---\n", "| a |\n|---|\n", "- [ ] x\n", "```\ncode", "[a](b)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Parse(s)
		ToDocument(s)
		Sections(s)
		Links(s)
		Text(s)
		Slug(s)
	})
}
