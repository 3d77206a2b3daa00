// Package pdf renders pages of markdown to a PDF document: headings,
// paragraphs, lists, code, tables and images, with a page break before each
// page. It uses go-pdf/fpdf (pure Go, core fonts: text is written in the
// cp1252 code page, so characters outside it print as "?").
package pdf

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-pdf/fpdf"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/folio/folio/internal/markdown"
)

// Page is one page to print; Depth indents its title in the outline.
type Page struct {
	Title    string
	Markdown string
	Depth    int
}

// Image gives the bytes and type ("PNG", "JPG", "GIF") of an image source,
// or ok false to print its alt text instead.
type Image func(src string) (data []byte, kind string, ok bool)

var parser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// Render prints pages into a PDF document.
func Render(title string, pages []Page, image Image) ([]byte, error) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetTitle(title, true)
	doc.SetCreator("Folio", true)
	doc.SetMargins(20, 20, 20)
	doc.SetAutoPageBreak(true, 20)
	r := &renderer{doc: doc, tr: doc.UnicodeTranslatorFromDescriptor(""), image: image}
	for _, p := range pages {
		doc.AddPage()
		doc.Bookmark(r.tr(p.Title), p.Depth, -1)
		r.heading(p.Title, 1)
		body := markdown.Parse(p.Markdown).Body
		source := []byte(body)
		root := parser.Parse(text.NewReader(source))
		skipTitle := true
		for n := root.FirstChild(); n != nil; n = n.NextSibling() {
			// The page title is printed already: skip a leading heading that repeats it.
			if h, ok := n.(*ast.Heading); ok && skipTitle && strings.TrimSpace(plain(h, source)) == p.Title {
				skipTitle = false
				continue
			}
			skipTitle = false
			r.block(n, source, 0)
		}
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		return nil, fmt.Errorf("render pdf: %w", err)
	}
	return buf.Bytes(), nil
}

type renderer struct {
	doc   *fpdf.Fpdf
	tr    func(string) string
	image Image
	n     int
}

const lineHeight = 5.5

func (r *renderer) width() float64 {
	w, _ := r.doc.GetPageSize()
	l, _, rt, _ := r.doc.GetMargins()
	return w - l - rt
}

func (r *renderer) heading(s string, level int) {
	size := map[int]float64{1: 20, 2: 16, 3: 13}[min(max(level, 1), 3)]
	r.doc.SetFont("Helvetica", "B", size)
	r.doc.MultiCell(0, size*0.5, r.tr(s), "", "L", false)
	r.doc.Ln(2)
}

func (r *renderer) paragraph(s string, indent float64) {
	r.doc.SetFont("Helvetica", "", 11)
	l, _, _, _ := r.doc.GetMargins()
	r.doc.SetX(l + indent)
	r.doc.MultiCell(r.width()-indent, lineHeight, r.tr(s), "", "L", false)
	r.doc.Ln(1.5)
}

func (r *renderer) block(n ast.Node, source []byte, indent float64) {
	switch t := n.(type) {
	case *ast.Heading:
		r.heading(plain(t, source), t.Level+1)
	case *ast.Paragraph, *ast.TextBlock:
		if img, ok := n.FirstChild().(*ast.Image); ok && n.ChildCount() == 1 {
			r.picture(string(img.Destination), plain(img, source))
			return
		}
		r.paragraph(plain(n, source), indent)
	case *ast.List:
		i := t.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			marker := "-"
			if t.IsOrdered() {
				marker = fmt.Sprintf("%d.", i)
				i++
			}
			first := true
			for c := item.FirstChild(); c != nil; c = c.NextSibling() {
				if first {
					r.paragraph(marker+" "+plain(c, source), indent+4)
					first = false
					continue
				}
				r.block(c, source, indent+8)
			}
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(source))
		}
		r.doc.SetFont("Courier", "", 9.5)
		r.doc.SetFillColor(242, 242, 242)
		r.doc.MultiCell(0, 4.5, r.tr(strings.TrimRight(b.String(), "\n")), "", "L", true)
		r.doc.Ln(2)
	case *ast.Blockquote:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.block(c, source, indent+6)
		}
	case *ast.ThematicBreak:
		l, _, _, _ := r.doc.GetMargins()
		y := r.doc.GetY() + 2
		r.doc.Line(l, y, l+r.width(), y)
		r.doc.Ln(5)
	case *east.Table:
		r.table(t, source)
	}
}

func (r *renderer) table(t *east.Table, source []byte) {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, plain(cell, source))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return
	}
	w := r.width() / float64(len(rows[0]))
	for i, cells := range rows {
		style := ""
		if i == 0 {
			style = "B"
		}
		r.doc.SetFont("Helvetica", style, 10)
		for _, c := range cells {
			r.doc.CellFormat(w, 7, r.tr(c), "1", 0, "L", false, 0, "")
		}
		r.doc.Ln(7)
	}
	r.doc.Ln(2)
}

func (r *renderer) picture(src, alt string) {
	data, kind, ok := r.image(src)
	if ok {
		name := fmt.Sprintf("img%d", r.n)
		r.n++
		info := r.doc.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: kind, ReadDpi: true}, bytes.NewReader(data))
		if r.doc.Ok() && info != nil {
			w := min(r.width(), info.Width())
			r.doc.ImageOptions(name, -1, -1, w, 0, true, fpdf.ImageOptions{ImageType: kind}, 0, "")
			r.doc.Ln(2)
			return
		}
		r.doc.ClearError()
	}
	r.paragraph("["+alt+"]", 0)
}

// plain is the text of a node.
func plain(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
			if t.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.URL(source))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
