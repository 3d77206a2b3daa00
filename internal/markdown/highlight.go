package markdown

import (
	"bytes"
	"html"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// Code is highlighted on the server with chroma, as CSS classes (never
// inline styles, which the sanitizer removes and a CSP would refuse): the
// page carries the stylesheet of HighlightCSS.
//
// Highlighting is bounded: a block longer than maxHighlightBlock, or past
// maxHighlightPage highlighted bytes on one page, is shown as plain text in
// the same <pre class="chroma"><code> shape.
const (
	maxHighlightBlock = 64 << 10
	maxHighlightPage  = 256 << 10
)

// highlightStyles are the chroma styles of the light and dark themes.
var highlightStyles = map[string]string{"light": "github", "dark": "github-dark"}

var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithCSSComments(false), chromahtml.TabWidth(4))

// HighlightCSS is the stylesheet of highlighted code for theme "light" or
// "dark" (another theme is light). Every rule is scoped under scope when it
// is not empty, e.g. HighlightCSS("dark", `[data-theme="dark"]`) or inside
// a prefers-color-scheme media query the caller writes.
func HighlightCSS(theme, scope string) string {
	name, ok := highlightStyles[theme]
	if !ok {
		name = highlightStyles["light"]
	}
	var buf bytes.Buffer
	_ = codeFormatter.WriteCSS(&buf, styles.Get(name))
	if scope == "" {
		return buf.String()
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if strings.HasPrefix(line, ".") {
			out.WriteString(scope + " ")
		}
		out.WriteString(line)
	}
	return out.String()
}

// highlighter highlights the code blocks of one render, within its budget.
type highlighter struct{ spent int }

// write writes code as <pre class="chroma"><code>…</code></pre>, with
// class-annotated spans when lang names a known lexer and the budget allows.
func (h *highlighter) write(buf *bytes.Buffer, code, lang string) {
	var lexer chroma.Lexer
	if lang != "" && len(code) <= maxHighlightBlock && h.spent+len(code) <= maxHighlightPage {
		lexer = lexers.Get(lang)
	}
	if lexer != nil {
		it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
		if err == nil {
			var out bytes.Buffer
			if codeFormatter.Format(&out, styles.Get(highlightStyles["light"]), it) == nil {
				h.spent += len(code)
				buf.Write(out.Bytes())
				return
			}
		}
	}
	buf.WriteString(`<pre class="chroma"><code>`)
	buf.WriteString(html.EscapeString(code))
	buf.WriteString("</code></pre>")
}
