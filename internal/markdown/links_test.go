package markdown

import (
	"reflect"
	"testing"
)

func TestLinks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Link
	}{
		{"none", "plain text", []Link{}},
		{"inline", "See [the guide](../guide/setup.md#install).", []Link{{Target: "../guide/setup.md#install", Text: "the guide", Line: 1}}},
		{"files and anchors", "[f](/files/abc123)\n[a](#x)\n[q](page.md?x=1 \"title\")",
			[]Link{{Target: "/files/abc123", Text: "f", Line: 1}, {Target: "#x", Text: "a", Line: 2}, {Target: "page.md?x=1", Text: "q", Line: 3}}},
		{"reference styles", "[full][r] [collapsed][] [shortcut]\n\n[r]: ./r.md\n[collapsed]: <c d.md>\n[shortcut]: https://s.io 'T'\n",
			[]Link{{Target: "./r.md", Text: "full", Line: 1}, {Target: "c d.md", Text: "collapsed", Line: 1}, {Target: "https://s.io", Text: "shortcut", Line: 1}}},
		{"undefined reference is not a link", "[nope][missing]", []Link{}},
		{"autolinks", "<https://a.io/x?y=1>\n<me@a.io>\nbare https://b.io/p and www.c.io.\n",
			[]Link{
				{Target: "https://a.io/x?y=1", Text: "https://a.io/x?y=1", Line: 1},
				{Target: "mailto:me@a.io", Text: "me@a.io", Line: 2},
				{Target: "https://b.io/p", Text: "https://b.io/p", Line: 3},
				{Target: "http://www.c.io", Text: "www.c.io", Line: 3},
			}},
		{"images", "![A **cat**](../assets/cat.png \"c\")\n\n[![badge](b.svg)](https://ci)",
			[]Link{
				{Target: "../assets/cat.png", Text: "A cat", Image: true, Line: 1},
				{Target: "https://ci", Text: "badge", Line: 3},
				{Target: "b.svg", Text: "badge", Image: true, Line: 3},
			}},
		{"escapes", "[a](a\\(1\\).md) [b](x&amp;y.md)", []Link{{Target: "a(1).md", Text: "a", Line: 1}, {Target: "x&y.md", Text: "b", Line: 1}}},
		{"in lists, quotes and tables", "- [l](l.md)\n> [q](q.md)\n\n| h |\n|---|\n| [t](t.md) |\n",
			[]Link{{Target: "l.md", Text: "l", Line: 1}, {Target: "q.md", Text: "q", Line: 2}, {Target: "t.md", Text: "t", Line: 6}}},
		{"not in code", "`[x](y)`\n\n```\n[x](y)\n```\n", []Link{}},
		{"html", "a <a href=\"x.md\">b</a>\n\n<figure><img src=\"../.gitbook/assets/i.png\" alt=\"I\"><figcaption></figcaption></figure>\n\n<div>\n\n</div>\n<p>\n<img src='z.png'>\n</p>\n",
			[]Link{
				{Target: "x.md", Line: 1},
				{Target: "../.gitbook/assets/i.png", Text: "I", Image: true, Line: 3},
				{Target: "z.png", Image: true, Line: 9},
			}},
		{"line numbers count frontmatter", "---\ntitle: t\n---\n\nText\n\n[x](y.md)\n", []Link{{Target: "y.md", Text: "x", Line: 7}}},
		{"CRLF", "a\r\n\r\n[x](y.md)\r\n", []Link{{Target: "y.md", Text: "x", Line: 3}}},
		{"link spanning lines", "text [a\nb](c.md)\n", []Link{{Target: "c.md", Text: "a b", Line: 1}}},
		{"empty text", "x\n[](#top)", []Link{{Target: "#top", Line: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Links(tt.src)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Links(%q)\n got %+v\nwant %+v", tt.src, got, tt.want)
			}
		})
	}
}
