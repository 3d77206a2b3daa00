package markdown

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"---\ntitle: x\n---\n# H\n",
		"---\n: [\n---\n",
		"# A\n## A\n- [x] t\n\n1. o\n   - n\n",
		"| a | b |\n|---|:-:|\n| 1 |\n",
		"```go\nx\n```\n> q\n\n***\n",
		"![a](b \"c\") [d][e]\n\n[e]: <f g>\n",
		"<figure><img src=x></figure>\n<a href='y'>",
		"**_~~`x`~~_** www.a.io <me@x.io> &amp; \\*",
		"\r\n\r---\r\n\ufeff",
		"| a | b |\n|:--|--:|\n| x *y* | ![i](p.png \"t\") |\n\n[l](https://x.io/a?b=c#d) ![alt](/files/f)\n",
		"{% hint style=\"info\" %}\n# In\n{% tabs %}\n{% tab title=\"t\" %}\n## T\n{% endtab %}\n{% endhint %}\n{% embed url=\"x\" %}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m := Parse(src)
		doc := ToDocument(src)
		enc, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if n := doc.SizeAtLeast(); n > int64(len(enc)) {
			t.Fatalf("SizeAtLeast %d, more than the %d bytes of %s", n, len(enc), enc)
		}
		body := ToDocument(m.Body)
		_ = body
		secs := Sections(src)
		anchors := Anchors(src)
		n := 0
		for _, s := range secs {
			if s.ID != "" {
				if s.ID != anchors[n] {
					t.Fatalf("section %d ID %q, anchor %q", n, s.ID, anchors[n])
				}
				n++
			}
		}
		if n != len(anchors) {
			t.Fatalf("%d sections with headings, %d anchors", n, len(anchors))
		}
		lines := strings.Count(normalize(src), "\n") + 1
		for _, l := range Links(src) {
			if l.Line < 1 || l.Line > lines {
				t.Fatalf("link %+v: line outside 1..%d", l, lines)
			}
		}
		_ = Text(src)
		if s := Slug(src); s == "" || len(s) > 100 || !utf8.ValidString(s) {
			t.Fatalf("Slug = %q", s)
		}
	})
}
