package reader

// PLACEHOLDER until branch render lands internal/markdown.RenderHTML: plain
// goldmark, raw HTML escaped (goldmark's default), links rewritten.

import (
	"bytes"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/folio/folio/internal/markdown"
)

type heading struct {
	ID, Title string
	Level     int
}

var placeholderMD = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()))

func renderMarkdown(src string, rewrite func(dest string, image bool) string) (template.HTML, []heading) {
	body := []byte(markdown.Parse(src).Body)
	doc := placeholderMD.Parser().Parse(text.NewReader(body))
	var outline []heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.Destination = []byte(rewrite(string(n.Destination), false))
		case *ast.Image:
			n.Destination = []byte(rewrite(string(n.Destination), true))
		case *ast.Heading:
			if id, ok := n.AttributeString("id"); ok && n.Level >= 2 && n.Level <= 3 {
				outline = append(outline, heading{ID: string(id.([]byte)), Title: string(n.Text(body)), Level: n.Level})
			}
		}
		return ast.WalkContinue, nil
	})
	var buf bytes.Buffer
	_ = placeholderMD.Renderer().Render(&buf, body, doc)
	return template.HTML(buf.String()), outline
}
