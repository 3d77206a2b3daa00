package markdown

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// shape is a compact outline of a block tree: "type(child child)".
func shape(nodes []Node) string {
	var parts []string
	for _, n := range nodes {
		if n.Object != "block" {
			continue
		}
		s := n.Type
		if inner := shape(n.Nodes); inner != "" {
			s += "(" + inner + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// plain is the text of a node's leaves and inline children.
func plain(n Node) string {
	var sb strings.Builder
	for _, l := range n.Leaves {
		sb.WriteString(l.Text)
	}
	for _, c := range n.Nodes {
		sb.WriteString(plain(c))
	}
	return sb.String()
}

func TestToDocumentShapes(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"headings", "# One\n## Two\n### Three\n#### Four\n##### Five\n###### Six\nSetext\n---\n",
			"heading-1 heading-2 heading-3 heading-3 heading-3 heading-3 heading-2"},
		{"paragraphs", "a\nb\n\nc\n", "paragraph paragraph"},
		{"unordered", "- a\n- b\n", "list-unordered(list-item(paragraph) list-item(paragraph))"},
		{"ordered", "1. a\n2. b\n", "list-ordered(list-item(paragraph) list-item(paragraph))"},
		{"nested lists", "- a\n  1. b\n     - [x] c\n- d\n",
			"list-unordered(list-item(paragraph list-ordered(list-item(paragraph list-tasks(list-item(paragraph))))) list-item(paragraph))"},
		{"loose list item with two paragraphs", "- a\n\n  b\n", "list-unordered(list-item(paragraph paragraph))"},
		{"empty list item", "-\n- b\n", "list-unordered(list-item(paragraph) list-item(paragraph))"},
		{"tasks", "- [ ] a\n- [x] b\n", "list-tasks(list-item(paragraph) list-item(paragraph))"},
		{"code", "```\nx\ny\n```\n", "code(code-line code-line)"},
		{"indented code", "    x\n", "code(code-line)"},
		{"empty code", "```\n```\n", "code"},
		{"blockquote", "> a\n>\n> - b\n", "blockquote(paragraph list-unordered(list-item(paragraph)))"},
		{"nested blockquote", "> > a\n", "blockquote(blockquote(paragraph))"},
		{"divider", "a\n\n***\n\nb\n", "paragraph divider paragraph"},
		{"table", "| a |\n|---|\n| 1 |\n", "table"},
		{"image paragraph", "![a](x.png)\n", "images(image)"},
		{"two images", "![a](x.png)\n![b](y.png)\n", "images(image image)"},
		{"image with text is a paragraph", "see ![a](x.png)\n", "paragraph"},
		{"html figure", "<figure><img src=\"a.png\" alt=\"\"><figcaption><p>c</p></figcaption></figure>\n", "images(image)"},
		{"html block", "<div>\n<b>bold</b> words\n</div>\n", "paragraph"},
		{"html comment dropped", "<!-- note -->\n", ""},
		{"reference definition dropped", "[a]: /x\n", ""},
		{"frontmatter skipped", "---\ntitle: t\n---\n# H\n", "heading-1"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := ToDocument(tt.src)
			if doc.Object != "document" {
				t.Errorf("object = %q", doc.Object)
			}
			if got := shape(doc.Nodes); got != tt.want {
				t.Errorf("ToDocument(%q)\n got %s\nwant %s", tt.src, got, tt.want)
			}
		})
	}
}

func TestToDocumentBlocks(t *testing.T) {
	t.Run("heading meta id and level", func(t *testing.T) {
		doc := ToDocument("# Intro\n\n#### Deep *one*\n\n# Intro\n")
		var ids []string
		for _, b := range doc.Nodes {
			ids = append(ids, b.Meta.ID)
		}
		if want := []string{"intro", "deep-one", "intro-1"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("ids = %v, want %v", ids, want)
		}
		if doc.Nodes[1].Type != "heading-3" || plain(doc.Nodes[1]) != "Deep one" {
			t.Errorf("h4 = %s %q", doc.Nodes[1].Type, plain(doc.Nodes[1]))
		}
	})
	t.Run("ordered start", func(t *testing.T) {
		doc := ToDocument("3. a\n4. b\n\ntext\n\n1. c\n")
		if s := doc.Nodes[0].Data.Start; s == nil || *s != 3 {
			t.Errorf("start = %v, want 3", s)
		}
		if s := doc.Nodes[2].Data.Start; s != nil {
			t.Errorf("start of list from 1 = %v, want nil", *s)
		}
	})
	t.Run("task checked", func(t *testing.T) {
		doc := ToDocument("- [x] done\n- [ ] todo\n- plain\n")
		list := doc.Nodes[0]
		if list.Type != "list-tasks" {
			t.Fatalf("type = %s", list.Type)
		}
		var got []bool
		for _, it := range list.Nodes {
			got = append(got, *it.Data.Checked)
		}
		if want := []bool{true, false, false}; !reflect.DeepEqual(got, want) {
			t.Errorf("checked = %v, want %v", got, want)
		}
		if text := plain(list.Nodes[0].Nodes[0]); text != "done" {
			t.Errorf("item text = %q", text)
		}
	})
	t.Run("code syntax and lines", func(t *testing.T) {
		doc := ToDocument("```go title=\"main.go\"\nfunc main() {\n\tprintln(\"*not emphasis*\")\n\n}\n```\n")
		code := doc.Nodes[0]
		if code.Data.Syntax != "go" {
			t.Errorf("syntax = %q", code.Data.Syntax)
		}
		var lines []string
		for _, l := range code.Nodes {
			if l.Type != "code-line" {
				t.Errorf("line type = %s", l.Type)
			}
			lines = append(lines, plain(l))
		}
		want := []string{"func main() {", "\tprintln(\"*not emphasis*\")", "", "}"}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("lines = %q, want %q", lines, want)
		}
	})
	t.Run("table", func(t *testing.T) {
		doc := ToDocument("| Name | **Size** | Note |\n|:-----|-----:|:----:|\n| a | 1 | `x` |\n| b | 2 |\n")
		tb := doc.Nodes[0]
		if !tb.IsVoid || tb.Nodes != nil || tb.Fragments == nil {
			t.Errorf("table void=%v nodes=%v fragments=%v", tb.IsVoid, tb.Nodes, tb.Fragments)
		}
		want := Data{
			View: &TableView{Type: "grid", Columns: []string{"c0", "c1", "c2"}},
			Definition: map[string]TableColumn{
				"c0": {ID: "c0", Title: "Name", Type: "text", TextAlignment: "left"},
				"c1": {ID: "c1", Title: "Size", Type: "text", TextAlignment: "right"},
				"c2": {ID: "c2", Title: "Note", Type: "text", TextAlignment: "center"},
			},
			Records: map[string]TableRecord{
				"r0": {OrderIndex: "000000", Values: map[string]string{"c0": "a", "c1": "1", "c2": "x"}},
				"r1": {OrderIndex: "000001", Values: map[string]string{"c0": "b", "c1": "2", "c2": ""}},
			},
		}
		if !reflect.DeepEqual(*tb.Data, want) {
			t.Errorf("table data\n got %+v\nwant %+v", *tb.Data, want)
		}
	})
	t.Run("table without rows", func(t *testing.T) {
		b, _ := json.Marshal(ToDocument("| a | b |\n|---|---|\n").Nodes[0].Data)
		if want := `{"view":{"type":"grid","columns":["c0","c1"],"hideHeader":false},"records":{},"definition":{"c0":{"id":"c0","title":"a","type":"text","textAlignment":"left"},"c1":{"id":"c1","title":"b","type":"text","textAlignment":"left"}}}`; string(b) != want {
			t.Errorf("got  %s\nwant %s", b, want)
		}
	})
	t.Run("image", func(t *testing.T) {
		doc := ToDocument("![A *cat*](../assets/cat.png \"The \\\"cat\\\"\")\n")
		img := doc.Nodes[0].Nodes[0]
		if img.Type != "image" || !img.IsVoid || img.Data.Ref.URL != "../assets/cat.png" || img.Data.Ref.Kind != "url" || img.Data.Alt != "A cat" {
			t.Errorf("image = %+v %+v", img, img.Data)
		}
		if len(img.Fragments) != 1 || img.Fragments[0].Fragment != "caption" || plain(img.Fragments[0].Nodes[0]) != `The "cat"` {
			t.Errorf("caption = %+v", img.Fragments)
		}
		noCaption := ToDocument("![](x.png)").Nodes[0].Nodes[0]
		if noCaption.Fragments == nil || len(noCaption.Fragments) != 0 {
			t.Errorf("fragments without caption = %#v, want []", noCaption.Fragments)
		}
	})
	t.Run("html figure", func(t *testing.T) {
		doc := ToDocument("<figure><img src=\"../.gitbook/assets/a.png\" alt=\"An &amp; B\"><figcaption><p>Cap</p></figcaption></figure>\n")
		img := doc.Nodes[0].Nodes[0]
		if img.Data.Ref.URL != "../.gitbook/assets/a.png" || img.Data.Alt != "An & B" || plain(img.Fragments[0].Nodes[0]) != "Cap" {
			t.Errorf("figure image = %+v", img.Data)
		}
	})
	t.Run("inline image", func(t *testing.T) {
		doc := ToDocument("icon ![i](i.svg \"t\") here")
		n := doc.Nodes[0].Nodes[1]
		if n.Object != "inline" || n.Type != "inline-image" || !n.IsVoid || n.Data.Ref.URL != "i.svg" || n.Data.Alt != "i" || n.Data.Caption != "t" {
			t.Errorf("inline image = %+v %+v", n, n.Data)
		}
	})
}

func TestToDocumentInlines(t *testing.T) {
	type leaf struct {
		text  string
		marks string
	}
	// flat lists the leaves of a paragraph's inline content; links show as
	// "<url>" followed by their leaves.
	flat := func(nodes []Node) []leaf {
		var out []leaf
		var walk func([]Node)
		walk = func(nodes []Node) {
			for _, n := range nodes {
				switch n.Object {
				case "text":
					for _, l := range n.Leaves {
						var ms []string
						for _, m := range l.Marks {
							ms = append(ms, m.Type)
						}
						out = append(out, leaf{l.Text, strings.Join(ms, "+")})
					}
				case "inline":
					out = append(out, leaf{"<" + n.Data.Ref.URL + ">", n.Type})
					walk(n.Nodes)
				}
			}
		}
		walk(nodes)
		return out
	}
	tests := []struct {
		name string
		src  string
		want []leaf
	}{
		{"plain", "hello", []leaf{{"hello", ""}}},
		{"marks", "a **b** *c* `d` ~~e~~", []leaf{{"a ", ""}, {"b", "bold"}, {" ", ""}, {"c", "italic"}, {" ", ""}, {"d", "code"}, {" ", ""}, {"e", "strikethrough"}}},
		{"nested marks", "***x*** **a *b* ~~c~~**", []leaf{{"x", "bold+italic"}, {" ", ""}, {"a ", "bold"}, {"b", "bold+italic"}, {" ", "bold"}, {"c", "bold+strikethrough"}}},
		{"underscore emphasis", "__b__ _i_", []leaf{{"b", "bold"}, {" ", ""}, {"i", "italic"}}},
		{"code keeps escapes", "`a\\*b` \\*c\\*", []leaf{{"a\\*b", "code"}, {" *c*", ""}}},
		{"entities", "a &amp; b &#169; &copy;", []leaf{{"a & b © ©", ""}}},
		{"soft and hard breaks", "a\nb  \nc\\\nd", []leaf{{"a b\nc\nd", ""}}},
		{"br tag", "a<br>b", []leaf{{"a\nb", ""}}},
		{"inline html dropped", "a <kbd>Ctrl</kbd> b", []leaf{{"a Ctrl b", ""}}},
		{"link", "see [the *guide*](../guide/setup.md#install) now", []leaf{{"see ", ""}, {"<../guide/setup.md#install>", "link"}, {"the ", ""}, {"guide", "italic"}, {" now", ""}}},
		{"link inside bold", "**[x](/y)**", []leaf{{"</y>", "link"}, {"x", "bold"}}},
		{"reference link", "[x][r]\n\n[r]: /files/abc", []leaf{{"</files/abc>", "link"}, {"x", ""}}},
		{"autolink", "<https://a.io/x>", []leaf{{"<https://a.io/x>", "link"}, {"https://a.io/x", ""}}},
		{"bare url", "go to https://a.io now", []leaf{{"go to ", ""}, {"<https://a.io>", "link"}, {"https://a.io", ""}, {" now", ""}}},
		{"www", "www.a.io", []leaf{{"<http://www.a.io>", "link"}, {"www.a.io", ""}}},
		{"email", "<me@a.io>", []leaf{{"<mailto:me@a.io>", "link"}, {"me@a.io", ""}}},
		{"empty link text is one empty leaf", "[](#x)", []leaf{{"<#x>", "link"}, {"", ""}}},
		{"escaped destination", "[a](<my file.md>) [b](a\\(1\\).md)", []leaf{{"<my file.md>", "link"}, {"a", ""}, {" ", ""}, {"<a(1).md>", "link"}, {"b", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := ToDocument(tt.src)
			if len(doc.Nodes) == 0 || doc.Nodes[0].Type != "paragraph" {
				t.Fatalf("not a paragraph: %s", shape(doc.Nodes))
			}
			got := flat(doc.Nodes[0].Nodes)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ToDocument(%q)\n got %q\nwant %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestToDocumentKeys(t *testing.T) {
	src := "# T\n\nsame\n\nsame\n\n- same\n- other\n\n```\n}\n}\n```\n"
	a, b := ToDocument(src), ToDocument(src)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("ToDocument is not deterministic")
	}
	seen := map[string]bool{}
	var walk func([]Node)
	walk = func(nodes []Node) {
		for _, n := range nodes {
			if n.Object == "block" {
				if len(n.Key) != 12 {
					t.Errorf("%s key %q: want 12 hex digits", n.Type, n.Key)
				}
				if seen[n.Key] {
					t.Errorf("%s key %q used twice", n.Type, n.Key)
				}
				seen[n.Key] = true
			} else if n.Key != "" && n.Object != "fragment" {
				t.Errorf("%s %s has a key", n.Object, n.Type)
			}
			walk(n.Nodes)
			walk(n.Fragments)
		}
	}
	walk(a.Nodes)
	// Editing one block leaves the keys of other, unlike blocks alone.
	edited := ToDocument("# T\n\nsame\n\nchanged\n\n- same\n- other\n\n```\n}\n}\n```\n")
	if edited.Nodes[0].Key != a.Nodes[0].Key || edited.Nodes[3].Key != a.Nodes[3].Key || edited.Nodes[4].Key != a.Nodes[4].Key {
		t.Error("keys of unchanged blocks changed")
	}
	if edited.Nodes[2].Key == a.Nodes[2].Key {
		t.Error("key of the changed block did not change")
	}
}

func TestToDocumentJSON(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{
			name: "paragraph with marks and a link",
			src:  "Hi **bold** [x](../a.md#b)",
			want: `{"object":"document","data":{},"nodes":[` +
				`{"object":"block","type":"paragraph","key":"` + ToDocument("Hi **bold** [x](../a.md#b)").Nodes[0].Key + `","data":{},"nodes":[` +
				`{"object":"text","leaves":[{"object":"leaf","text":"Hi ","marks":[]},{"object":"leaf","text":"bold","marks":[{"object":"mark","type":"bold"}]},{"object":"leaf","text":" ","marks":[]}]},` +
				`{"object":"inline","type":"link","data":{"ref":{"kind":"url","url":"../a.md#b"}},"nodes":[{"object":"text","leaves":[{"object":"leaf","text":"x","marks":[]}]}]}]}]}`,
		},
		{
			name: "heading, code, divider",
			src:  "## Set up\n\n```sh\nmake\n```\n\n---\n",
			want: `{"object":"document","data":{},"nodes":[` +
				`{"object":"block","type":"heading-2","key":"K0","data":{},"meta":{"id":"set-up"},"nodes":[{"object":"text","leaves":[{"object":"leaf","text":"Set up","marks":[]}]}]},` +
				`{"object":"block","type":"code","key":"K1","data":{"syntax":"sh"},"nodes":[{"object":"block","type":"code-line","key":"K2","data":{},"nodes":[{"object":"text","leaves":[{"object":"leaf","text":"make","marks":[]}]}]}]},` +
				`{"object":"block","type":"divider","key":"K3","isVoid":true,"data":{}}]}`,
		},
		{
			name: "task list and image",
			src:  "- [x] a\n\n![alt](p.png)\n",
			want: `{"object":"document","data":{},"nodes":[` +
				`{"object":"block","type":"list-tasks","key":"K0","data":{},"nodes":[{"object":"block","type":"list-item","key":"K1","data":{"checked":true},"nodes":[{"object":"block","type":"paragraph","key":"K2","data":{},"nodes":[{"object":"text","leaves":[{"object":"leaf","text":"a","marks":[]}]}]}]}]},` +
				`{"object":"block","type":"images","key":"K3","data":{},"nodes":[{"object":"block","type":"image","key":"K4","isVoid":true,"data":{"ref":{"kind":"url","url":"p.png"},"alt":"alt"},"fragments":[]}]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := ToDocument(tt.src)
			// Keys are hashes: name them K0, K1... in document order for the golden string.
			want := tt.want
			i := 0
			var walk func([]Node)
			walk = func(nodes []Node) {
				for _, n := range nodes {
					if n.Object == "block" {
						want = strings.Replace(want, `"K`+itoa(i)+`"`, `"`+n.Key+`"`, 1)
						i++
					}
					walk(n.Nodes)
					walk(n.Fragments)
				}
			}
			walk(doc.Nodes)
			got, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("JSON\n got %s\nwant %s", got, want)
			}
			var back Document
			if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, doc) {
				t.Errorf("round trip: err %v, equal %v", err, reflect.DeepEqual(back, doc))
			}
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }
