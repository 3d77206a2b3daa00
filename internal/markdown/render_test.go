package markdown

import (
	"errors"
	"fmt"
	"unicode"

	xhtml "golang.org/x/net/html"
	"html/template"
	"regexp"
	"strings"
	"testing"
)

func render(t testing.TB, src string, opt HTMLOptions) string {
	t.Helper()
	r, err := RenderHTML(src, opt)
	if err != nil {
		t.Fatalf("RenderHTML(%.40q): %v", src, err)
	}
	return string(r.HTML)
}

func TestRenderHTMLBlocks(t *testing.T) {
	h := render(t, blocksPage, HTMLOptions{})
	for _, want := range []string{
		`<h1 id="guide">Guide</h1>`,
		`<div class="hint hint-warning" role="note">`, `<strong>gap</strong>`,
		`<div class="tabs">`,
		`<input type="radio" class="tab-input" name="gbtabs_1" id="gbtabs_1_0" checked>`,
		`<label class="tab-label" for="gbtabs_1_0">Go</label>`,
		`<label class="tab-label" for="gbtabs_1_1">Shell &#34;sh&#34;</label>`,
		`<div class="tab-panel">`,
		`<span class="nf">Println</span>`, // highlighted with classes
		`<div class="content-ref"><a class="content-ref-link" href="other/page.md">page.md</a></div>`,
		`<a class="embed-link" href="https://www.youtube.com/watch?v=x">`, `<div class="embed-caption">`,
		`<span class="openapi-method openapi-method-get">GET</span> <code class="openapi-path">/pets</code>`,
		`<code class="openapi-schema-name">Pet</code>, <code class="openapi-schema-name">Error</code>`,
		`<p>{% unknown x=&#34;y&#34; %}</p>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %s in\n%s", want, h)
		}
	}
	if strings.Contains(h, "<iframe") || strings.Contains(h, "style=") {
		t.Errorf("iframe or style in\n%s", h)
	}
}

func TestRenderHTMLGFM(t *testing.T) {
	h := render(t, "## Tasks\n\n- [x] done\n- [ ] todo\n\n~~old~~ www.example.com\n\nA note[^n].\n\n[^n]: The note.\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n", HTMLOptions{})
	for _, want := range []string{
		`<h2 id="tasks">Tasks</h2>`,
		`<input checked disabled type="checkbox" aria-label="Done">`, `<del>old</del>`,
		`<a href="http://www.example.com">www.example.com</a>`,
		`<sup id="fnref:1"><a href="#fn:1" class="footnote-ref" role="doc-noteref">1</a></sup>`,
		`<li id="fn:1">`, `<th class="align-left">a</th>`, `<td class="align-right">2</td>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %s in\n%s", want, h)
		}
	}
	// HTML5 has no align attribute: column alignment is a class.
	if strings.Contains(h, " align=") {
		t.Errorf("an align attribute in\n%s", h)
	}
}

var idAttrRE = regexp.MustCompile(`<h[1-6] id="([^"]*)"`)

// Heading ids are the page's Anchors, in order, wherever the heading is.
func TestRenderHTMLAnchors(t *testing.T) {
	src := "# A\n\n## A\n\n## **Bold** `code` é\n\n> ### In quote\n\n{% hint style=\"info\" %}\n## In hint\n{% endhint %}\n\n{% tabs %}\n{% tab title=\"t\" %}\n### In tab\n{% endtab %}\n{% endtabs %}\n\n- ## In list\n\nSetext\n---\n"
	r, err := RenderHTML(src, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range idAttrRE.FindAllStringSubmatch(string(r.HTML), -1) {
		ids = append(ids, m[1])
	}
	if want := Anchors(src); strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("ids %v, Anchors %v", ids, want)
	}
	var outline []string
	for _, o := range r.Outline {
		outline = append(outline, o.ID+"/"+o.Text)
	}
	// h2 and h3 outside tabs.
	if got := strings.Join(outline, " "); got != "a-1/A bold-code-e/Bold code é in-quote/In quote in-hint/In hint in-list/In list setext/Setext" {
		t.Errorf("outline %s", got)
	}
	if !strings.Contains(r.Text, "In tab") || strings.Contains(r.Text, "{%") {
		t.Errorf("text %q", r.Text)
	}
}

func TestRenderHTMLHooks(t *testing.T) {
	src := "[p](../other.md#x) ![i](files/a.png) <https://x.io>\n\n{% content-ref url=\"b.md\" %}\n[B](b.md)\n{% endcontent-ref %}\n\n{% openapi-operation spec=\"pets\" path=\"/pets/{id}\" method=\"delete\" %}\n[pets](x)\n{% endopenapi-operation %}\n"
	var got Block
	h := render(t, src, HTMLOptions{
		Link:  func(u string) string { return "/s/site/" + strings.TrimSuffix(u, ".md") },
		Image: func(u string) string { return "https://files.example/" + u },
		Blocks: map[string]BlockRenderer{"openapi-operation": func(b Block) (template.HTML, error) {
			got = b
			return `<div class="openapi-operation" onclick="x()"><script>bad()</script>` + template.HTML(b.Attrs["path"]) + `</div>`, nil
		}},
	})
	for _, want := range []string{
		`<a href="/s/site/../other.md#x">p</a>`, `<img src="https://files.example/files/a.png" alt="i">`,
		`<a href="https://x.io">https://x.io</a>`,
		`<a class="content-ref-link" href="/s/site/b">B</a>`,
		`<div class="openapi-operation">/pets/{id}</div>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %s in\n%s", want, h)
		}
	}
	if got.Name != "openapi-operation" || got.Attrs["method"] != "delete" || got.Body != "[pets](x)\n" {
		t.Errorf("block %+v", got)
	}
	if strings.Contains(h, "script") || strings.Contains(h, "onclick") {
		t.Errorf("hook output not sanitized:\n%s", h)
	}
	boom := errors.New("boom")
	if _, err := RenderHTML(src, HTMLOptions{Blocks: map[string]BlockRenderer{"openapi-operation": func(Block) (template.HTML, error) { return "", boom }}}); !errors.Is(err, boom) {
		t.Errorf("hook error: %v", err)
	}
}

// hostile is markdown trying to run script through every door.
var hostile = []string{
	"<script>alert(1)</script>",
	"<SCRIPT SRC=//x.js></SCRIPT>",
	"[x](javascript:alert(1))",
	"[x](JaVaScRiPt:alert(1))",
	"[x](jav&#x61;script:alert(1))",
	"[x](jav&#97;script&colon;alert(1))",
	"[x](\tjavascript:alert(1))",
	"[x](<javascript:alert(1)>)",
	"<javascript:alert(1)>",
	"[x]: javascript:alert(1)\n\n[x]",
	"![i](javascript:alert(1))",
	"![i](data:text/html;base64,PHNjcmlwdD4=)",
	"[d](data:text/html,<script>alert(1)</script>)",
	"<a href=\"javascript:alert(1)\">a</a>",
	"<a href=\"jav&#x61;script:alert(1)\">a</a>",
	"<a href=\"&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)\">a</a>",
	"<a href=\" javascript:alert(1)\">a</a>",
	"<img src=x onerror=alert(1)>",
	"<img src=\"x\" onerror=\"alert(1)\"/>",
	"<p onclick=\"alert(1)\" style=\"color:red\">p</p>",
	"<div onmouseover='alert(1)'>d</div>",
	"<svg onload=alert(1)><script>alert(1)</script></svg>",
	"<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
	"<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
	"<iframe src=\"https://evil.example\"></iframe>",
	"<object data=\"x.swf\"></object><embed src=x>",
	"<form action=\"https://evil\"><input name=a><button>go</button></form>",
	"<style>body{background:url(javascript:alert(1))}</style>",
	"<link rel=stylesheet href=//evil/x.css><meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">",
	"<details open ontoggle=alert(1)>x</details>",
	"<input type=\"radio\" onfocus=\"alert(1)\" autofocus>",
	"<base href=\"javascript:alert(1)//\">",
	"<!--<script>alert(1)</script>-->",
	"<scr<script>ipt>alert(1)</scr</script>ipt>",
	"`<script>alert(1)</script>`\n\n```html\n<script>alert(1)</script>\n```",
	"{% hint style=\"x\\\" onmouseover=\\\"alert(1)\" %}\nhint\n{% endhint %}",
	"{% hint style=\"info\\\"><script>alert(1)</script>\" %}\nhint\n{% endhint %}",
	"{% tabs %}\n{% tab title=\"<script>alert(1)</script>\" %}\n<img src=x onerror=alert(1)>\n{% endtab %}\n{% endtabs %}",
	"{% embed url=\"javascript:alert(1)\" %}",
	"{% embed url=\"https://x.example/\\\" onclick=\\\"alert(1)\" %}",
	"{% content-ref url=\"javascript:alert(1)\" %}\n[x](javascript:alert(1))\n{% endcontent-ref %}",
	"{% openapi-operation spec=\"a\" path=\"/<script>alert(1)</script>\" method=\"get\\\" onclick=\\\"x\" %}",
	"{% hint style=\"info\" %}\n{% hint style=\"danger\" %}\n<script>alert(1)</script>\n{% tabs %}\n{% tab title=\"a\" %}\n[x](javascript:alert(1))\n",
	"{% hint style=\"info\" %}\n<div>\n{% endhint %}\n<script>alert(1)</script>",
	"<a href=\"https://ok.example\" target=_blank rel=opener>ok</a>",
	"[x](vbscript:msgbox(1)) [y](file:///etc/passwd)",
	"<img src=\"https://ok.example/a.png\" srcset=\"javascript:alert(1)\">",
}

// activeTags are elements that run or load active content.
var activeTags = map[string]bool{"script": true, "iframe": true, "object": true, "embed": true, "svg": true, "math": true,
	"form": true, "style": true, "link": true, "meta": true, "base": true, "button": true, "frame": true, "frameset": true, "applet": true}

// inert reports what in h could run: an active element, an event handler,
// style or srcset attribute, or a URL attribute that is not http(s), mailto
// or relative. It reads h as a browser would (entities decoded), so text
// that merely mentions "javascript:" is fine.
func inert(h string) error {
	z := xhtml.NewTokenizer(strings.NewReader(h))
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return nil
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			tok := z.Token()
			if activeTags[strings.ToLower(tok.Data)] {
				return fmt.Errorf("element <%s>", tok.Data)
			}
			for _, a := range tok.Attr {
				k := strings.ToLower(a.Key)
				if strings.HasPrefix(k, "on") || k == "style" || k == "srcset" || k == "formaction" || k == "action" {
					return fmt.Errorf("attribute %s on <%s>", a.Key, tok.Data)
				}
				if k == "href" || k == "src" || strings.HasSuffix(k, ":href") {
					v := strings.Map(func(r rune) rune {
						if r <= ' ' || r == 0x7f {
							return -1
						}
						return unicode.ToLower(r)
					}, a.Val)
					if i := strings.IndexAny(v, ":/?#"); i > 0 && v[i] == ':' {
						if scheme := v[:i]; scheme != "http" && scheme != "https" && scheme != "mailto" {
							return fmt.Errorf("%s=%q on <%s>", a.Key, a.Val, tok.Data)
						}
					}
				}
			}
		}
	}
}

func TestRenderHTMLHostile(t *testing.T) {
	for _, src := range hostile {
		h := render(t, src, HTMLOptions{})
		if err := inert(h); err != nil {
			t.Errorf("%q renders %v:\n%s", src, err, h)
		}
	}
	// The checker itself catches what it is meant to.
	for _, bad := range []string{`<script>`, `<a href="jav&#x61;script:x">`, `<p onclick="x">`, `<img src=" data:x">`, `<p style="x">`} {
		if inert(bad) == nil {
			t.Errorf("inert(%q) = nil", bad)
		}
	}
}

func TestRenderHTMLKeepsSafeHTML(t *testing.T) {
	h := render(t, "<details><summary>More</summary>\n\n*x*\n\n</details>\n\n<kbd>Ctrl</kbd> <a href=\"https://ok.example\" title=\"t\">ok</a> <img src=\"/files/a.png\" alt=\"a\" width=\"10\">\n", HTMLOptions{})
	for _, want := range []string{"<details><summary>More</summary>", "<em>x</em>", "<kbd>Ctrl</kbd>", `<a href="https://ok.example" title="t">ok</a>`, `<img src="/files/a.png" alt="a" width="10">`} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %s in\n%s", want, h)
		}
	}
}

func TestRenderHTMLBounds(t *testing.T) {
	// Nesting bombs, many tabs and a huge code block render, bounded.
	var tabs strings.Builder
	tabs.WriteString("{% tabs %}\n")
	for range 2000 {
		tabs.WriteString("{% tab title=\"t\" %}\nx\n{% endtab %}\n")
	}
	tabs.WriteString("{% endtabs %}\n")
	for _, src := range []string{
		strings.Repeat("> ", 5000) + "x",
		strings.Repeat("- ", 5000) + "x",
		strings.Repeat("{% hint style=\"info\" %}\n", 1000) + "deep",
		tabs.String(),
		"```go\n" + strings.Repeat("x := 1\n", 20000) + "```\n",
	} {
		render(t, src, HTMLOptions{})
	}
	h := render(t, "```go\n"+strings.Repeat("x := 1\n", 20000)+"```\n", HTMLOptions{})
	if strings.Contains(h, `class="nx"`) {
		t.Errorf("a code block past the highlight bound was highlighted")
	}
}

func TestHighlightCSS(t *testing.T) {
	light, dark := HighlightCSS("light", ""), HighlightCSS("dark", `[data-theme="dark"]`)
	if !strings.Contains(light, ".chroma .nf {") || !strings.Contains(dark, `[data-theme="dark"] .chroma .nf {`) || light == HighlightCSS("dark", "") {
		t.Errorf("light:\n%.300s\ndark:\n%.300s", light, dark)
	}
	for _, line := range strings.Split(strings.TrimSpace(dark), "\n") {
		if !strings.HasPrefix(line, `[data-theme="dark"] `) {
			t.Errorf("unscoped rule %q", line)
		}
	}
}

func FuzzRenderHTML(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add(blocksPage)
	f.Fuzz(func(t *testing.T, src string) {
		r, err := RenderHTML(src, HTMLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		h := string(r.HTML)
		if err := inert(h); err != nil {
			t.Fatalf("%q renders %v:\n%s", src, err, h)
		}
		// And on the raw text: no script tag, handler or script URL in a tag.
		if l := strings.ToLower(h); strings.Contains(l, "<script") || onAttrRE.MatchString(l) || jsAttrRE.MatchString(l) {
			t.Fatalf("%q renders\n%s", src, h)
		}
	})
}

// onAttrRE is an on...= attribute inside a tag.
var onAttrRE = regexp.MustCompile(`<[a-z][^>]*\son[a-z]+\s*=`)

// jsAttrRE is a javascript: URL as an attribute value.
var jsAttrRE = regexp.MustCompile(`<[a-z][^>]*=\s*["']?\s*javascript:`)

func BenchmarkRenderHTML(b *testing.B) {
	page := bigPage + strings.Repeat("{% hint style=\"info\" %}\nA *hint* with [a link](x.md).\n{% endhint %}\n\n{% tabs %}\n{% tab title=\"Go\" %}\n```go\nfmt.Println(1)\n```\n{% endtab %}\n{% tab title=\"Sh\" %}\n```sh\necho 1\n```\n{% endtab %}\n{% endtabs %}\n\n", 100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := RenderHTML(page, HTMLOptions{Link: func(s string) string { return s }}); err != nil {
			b.Fatal(err)
		}
	}
}
