package markdown

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const blocksPage = `# Guide

{% hint style="warning" %}
Mind the **gap**.

- one
- two
{% endhint %}

{% tabs %}
{% tab title="Go" %}
` + "```go\nfmt.Println(1)\n```" + `
{% endtab %}

{% tab title="Shell \"sh\"" %}
Run it.
{% endtab %}
{% endtabs %}

{% content-ref url="other/page.md" %}
[page.md](other/page.md)
{% endcontent-ref %}

{% embed url="https://www.youtube.com/watch?v=x" %}
A caption
{% endembed %}

{% embed url="https://example.com/void" %}

{% openapi-operation spec="petstore" path="/pets" method="GET" %}
[OpenAPI petstore](https://example.com/pets.yaml)
{% endopenapi-operation %}

{% openapi-schemas spec="petstore" schemas="Pet, Error" grouped="false" %}

{% unknown x="y" %}
`

func TestBlocksToDocument(t *testing.T) {
	doc := ToDocument(blocksPage)
	raw, _ := json.Marshal(doc)
	var got []string
	for _, n := range doc.Nodes {
		got = append(got, n.Type)
	}
	want := "heading-1 hint tabs content-ref embed embed openapi-operation openapi-schemas paragraph"
	if strings.Join(got, " ") != want {
		t.Fatalf("types %v, want %s\n%s", got, want, raw)
	}
	hint := doc.Nodes[1]
	if hint.Data.Style != "warning" || len(hint.Nodes) != 2 || hint.Nodes[0].Type != "paragraph" || hint.Nodes[1].Type != "list-unordered" {
		t.Errorf("hint %+v", hint)
	}
	tabs := doc.Nodes[2]
	if len(tabs.Nodes) != 2 || tabs.Nodes[0].Type != "tabs-item" || tabs.Nodes[0].Data.Title != "Go" || tabs.Nodes[1].Data.Title != `Shell "sh"` || tabs.Nodes[0].Nodes[0].Type != "code" {
		t.Errorf("tabs %s", raw)
	}
	if r := doc.Nodes[3].Data.Ref; !doc.Nodes[3].IsVoid || r.Kind != "url" || r.URL != "other/page.md" {
		t.Errorf("content-ref %+v", doc.Nodes[3])
	}
	if doc.Nodes[4].Data.URL != "https://www.youtube.com/watch?v=x" || doc.Nodes[5].Data.URL != "https://example.com/void" {
		t.Errorf("embeds %s", raw)
	}
	op := doc.Nodes[6]
	if !op.IsVoid || op.Data.Method != "get" || op.Data.Path != "/pets" || op.Data.Ref.Spec != "petstore" {
		t.Errorf("operation %+v", op)
	}
	js, _ := json.Marshal(op.Data.Ref)
	if string(js) != `{"kind":"openapi","spec":"petstore"}` {
		t.Errorf("openapi ref %s", js)
	}
	sc := doc.Nodes[7]
	if strings.Join(sc.Data.Schemas, "|") != "Pet|Error" || sc.Data.Grouped == nil || *sc.Data.Grouped {
		t.Errorf("schemas %+v", sc.Data)
	}
	if plain(doc.Nodes[8]) != `{% unknown x="y" %}` {
		t.Errorf("unknown tag: %q", plain(doc.Nodes[8]))
	}
}

func TestBlocksRoundTrip(t *testing.T) {
	for _, md := range []string{
		blocksPage,
		"{% hint style=\"danger\" %}\n{% tabs %}\n{% tab title=\"a\" %}\n> q\n{% endtab %}\n{% endtabs %}\n{% endhint %}\n",
		"> {% hint style=\"success\" %}\n> quoted hint\n> {% endhint %}\n",
		"- item\n\n  {% hint style=\"info\" %}\n  in a list\n  {% endhint %}\n",
		"{% hint style=\"info\" %}\n{% endhint %}\n",
	} {
		roundTrips(t, md)
	}
}

func TestBlockTagsThatStayText(t *testing.T) {
	for _, md := range []string{
		"{% tab title=\"x\" %}\nout of tabs\n{% endtab %}\n",
		"{% endhint %}\n",
		"{% hint style=unquoted %}\nx\n",
		"{% hint style=\"a\" style=\"b\" %}\n",
		"{% embed %}\n",
		"{% openapi-operation spec=\"x\" path=\"/a\" %}\n",
		"{% hint style=\"x\" %} trailing\n",
		"    {% hint style=\"info\" %}\n",
		"{% hint " + strings.Repeat("a=\"b\" ", MaxBlockAttrs+1) + "%}\n",
		"{% embed url=\"" + strings.Repeat("u", MaxBlockAttrLen+1) + "\" %}\n",
	} {
		for _, n := range ToDocument(md).Nodes {
			if n.Type != "paragraph" && n.Type != "code" {
				t.Errorf("%q: a %s block", md, n.Type)
			}
		}
	}
}

func TestBlockAttributeEscapes(t *testing.T) {
	doc := ToDocument(`{% hint style="x\" onmouseover=\"alert(1)" %}` + "\nhi\n{% endhint %}\n")
	if len(doc.Nodes) != 1 || doc.Nodes[0].Type != "hint" || doc.Nodes[0].Data.Style != "info" {
		t.Fatalf("%+v", doc.Nodes)
	}
	attrs, ok := parseAttrs(` a="x\"y\\z" b="" `)
	if !ok || attrs["a"] != `x"y\z` || attrs["b"] != "" {
		t.Errorf("parseAttrs = %v %v", attrs, ok)
	}
	if got, _ := parseAttrs(quoteAttr("a\"b\\c\nd")[0:0] + " k=" + quoteAttr("a\"b\\c\nd")); got["k"] != "a\"b\\c d" {
		t.Errorf("quoteAttr round trip: %q", got["k"])
	}
}

func TestBlockNestingBounded(t *testing.T) {
	var b strings.Builder
	for range MaxBlockNesting + 4 {
		b.WriteString("{% hint style=\"info\" %}\n")
	}
	b.WriteString("deep\n")
	doc := ToDocument(b.String())
	d := 0
	for n := doc.Nodes; len(n) > 0 && n[0].Type == "hint"; n = n[0].Nodes {
		d++
	}
	if d != MaxBlockNesting {
		t.Errorf("nested %d hints, want %d", d, MaxBlockNesting)
	}
}

// gitbookBlocks lists the GitBook blocks of a document, depth first, with
// the data that identifies them.
func gitbookBlocks(nodes []Node, out *[]string) {
	for _, n := range nodes {
		switch n.Type {
		case "hint", "tabs", "tabs-item", "content-ref", "embed", "openapi-operation", "openapi-schemas":
			d, _ := json.Marshal(n.Data)
			*out = append(*out, n.Type+string(d))
		}
		gitbookBlocks(n.Nodes, out)
	}
}

// Markdown -> document -> markdown keeps every GitBook block and its data
// (FromDocument may refuse documents with blocks it cannot write, such as
// tables, but never panics).
func FuzzBlocksRoundTrip(f *testing.F) {
	f.Add(blocksPage)
	f.Add("{% hint style=\"danger\" %}\n{% tabs %}\n{% tab title=\"a\\\"b\" %}\n> q\n{% endtab %}\n{% endtabs %}\n{% endhint %}\n")
	f.Add("\\{% hint style=\"info\" %}\n\n{% embed url=\"a b\" %}\n{% endembed %}\n")
	f.Fuzz(func(t *testing.T, src string) {
		doc := ToDocument(src)
		raw, _ := json.Marshal(doc)
		back, err := FromDocument(raw)
		if err != nil {
			return
		}
		var want, got []string
		gitbookBlocks(doc.Nodes, &want)
		gitbookBlocks(ToDocument(back).Nodes, &got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q wrote back %q:\n got %v\nwant %v", src, back, got, want)
		}
	})
}

func TestSpecRefs(t *testing.T) {
	src := "---\ntitle: x\n---\n" + blocksPage + "\n> {% openapi-operation spec=\"other\" path=\"/a\" method=\"POST\" %}\n"
	refs := SpecRefs(src)
	if len(refs) != 3 {
		t.Fatalf("refs %+v", refs)
	}
	if r := refs[0]; r.Kind != "openapi-operation" || r.Spec != "petstore" || r.Path != "/pets" || r.Method != "get" || r.Line != 1+strings.Count(src[:strings.Index(src, "{% openapi-operation")], "\n") {
		t.Errorf("first %+v", r)
	}
	if r := refs[1]; r.Kind != "openapi-schemas" || strings.Join(r.Schemas, ",") != "Pet,Error" {
		t.Errorf("second %+v", r)
	}
	if r := refs[2]; r.Spec != "other" || r.Method != "post" {
		t.Errorf("third %+v", r)
	}
	if got := strings.Join(SpecSlugs(src), ","); got != "petstore,other" {
		t.Errorf("slugs %s", got)
	}
}

func TestDocumentSpecRefs(t *testing.T) {
	src := "{% hint style=\"info\" %}\n{% openapi-operation spec=\"a\" path=\"/x\" method=\"GET\" %}\n{% endhint %}\n\n{% openapi-schemas spec=\"b\" schemas=\"S\" %}\n"
	from := DocumentSpecRefs(ToDocument(src))
	refs := SpecRefs(src)
	if len(from) != 2 || len(refs) != 2 {
		t.Fatalf("%+v %+v", from, refs)
	}
	for i := range refs {
		refs[i].Line = 0
		if a, b := fmt.Sprint(from[i]), fmt.Sprint(refs[i]); a != b {
			t.Errorf("%s != %s", a, b)
		}
	}
}
