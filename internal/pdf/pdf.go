// Package pdf renders pages to a PDF document: headings, paragraphs, lists,
// code, tables and images, with a page break before each page. Pages come as
// the markdown engine's structured documents (stored once per body, so
// printing parses nothing). It uses go-pdf/fpdf (pure Go) with embedded
// TrueType fonts when they are installed (fonts.go), else core fonts.
package pdf

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"

	"github.com/folio/folio/internal/markdown"
)

// Page is one page to print; Depth indents its title in the outline.
type Page struct {
	Title    string
	Document markdown.Document
	Depth    int
}

// Image gives the bytes and type ("PNG", "JPG", "GIF") of an image source,
// or ok false to print its alt text instead.
type Image func(src string) (data []byte, kind string, ok bool)

// Render prints pages into a PDF document. It stops between lines (see
// layout.go) once ctx is done (its client left, its request's time ran
// out), with ctx's cause, and answers ErrTooManyPages past MaxPages.
func Render(ctx context.Context, title string, pages []Page, image Image) ([]byte, error) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetTitle(title, true)
	doc.SetCreator("Folio", true)
	doc.SetMargins(20, 20, 20)
	doc.SetAutoPageBreak(true, 20)
	r := &renderer{ctx: ctx, doc: doc, tr: doc.UnicodeTranslatorFromDescriptor(""), image: image}
	r.useFonts(pages)
	for _, p := range pages {
		if !r.next() {
			break
		}
		doc.AddPage()
		r.setFont(false, false, false, 11)
		doc.Bookmark(r.tr(p.Title), p.Depth, -1)
		r.heading(p.Title, 1)
		skipTitle := true
		for _, n := range p.Document.Nodes {
			// The page title is printed already: skip a leading heading that repeats it.
			if skipTitle && strings.HasPrefix(n.Type, "heading-") && strings.TrimSpace(plain(n)) == p.Title {
				skipTitle = false
				continue
			}
			skipTitle = false
			r.block(n, 0)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		return nil, fmt.Errorf("render pdf: %w", err)
	}
	return buf.Bytes(), nil
}

type renderer struct {
	ctx   context.Context
	err   error // why the layout stopped: ctx's cause, ErrTooManyPages
	doc   *fpdf.Fpdf
	tr    func(string) string
	image Image
	n     int
	// utf8: the TrueType fonts are registered and text is written as is;
	// cjk: the CJK font is registered too (only when the pages need it: it
	// is large).
	utf8, cjk bool
}

// useFonts registers the installed TrueType fonts the pages need.
func (r *renderer) useFonts(pages []Page) {
	f := loadFonts()
	if f.sans == nil {
		return
	}
	r.utf8 = true
	r.tr = func(s string) string { return s }
	r.doc.AddUTF8FontFromBytes(familySans, "", f.sans)
	r.doc.AddUTF8FontFromBytes(familySans, "B", f.sansBold)
	r.doc.AddUTF8FontFromBytes(familyMono, "", f.mono)
	if f.cjk == nil {
		return
	}
	for _, p := range pages {
		if hasCJK(p.Title) || hasCJK(documentText(p.Document)) {
			r.doc.AddUTF8FontFromBytes(familyCJK, "", f.cjk)
			r.cjk = true
			return
		}
	}
}

// setFont picks the font for text: bold, monospaced, CJK.
func (r *renderer) setFont(bold, mono, cjk bool, size float64) {
	style := ""
	if bold {
		style = "B"
	}
	switch {
	case !r.utf8 && mono:
		r.doc.SetFont("Courier", "", size)
	case !r.utf8:
		r.doc.SetFont("Helvetica", style, size)
	case cjk && r.cjk:
		r.doc.SetFont(familyCJK, "", size)
	case mono:
		r.doc.SetFont(familyMono, "", size)
	default:
		r.doc.SetFont(familySans, style, size)
	}
}

// write flows text from the current position, wrapping at the margins; it
// ends the line.
func (r *renderer) write(s string, bold bool, size, h float64) {
	r.flow(s, bold, false, size, h, false)
}

// documentText is the text of a whole document.
func documentText(d markdown.Document) string {
	var b strings.Builder
	for _, n := range d.Nodes {
		b.WriteString(plain(n))
		b.WriteByte('\n')
		var walk func(n markdown.Node)
		walk = func(n markdown.Node) {
			if n.Data != nil && n.Data.Definition != nil {
				for _, def := range n.Data.Definition {
					b.WriteString(def.Title)
				}
				for _, rec := range n.Data.Records {
					for _, v := range rec.Values {
						b.WriteString(v)
					}
				}
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		}
		walk(n)
	}
	return b.String()
}

const lineHeight = 5.5

func (r *renderer) width() float64 {
	w, _ := r.doc.GetPageSize()
	l, _, rt, _ := r.doc.GetMargins()
	return w - l - rt
}

func (r *renderer) heading(s string, level int) {
	size := map[int]float64{1: 20, 2: 16, 3: 13}[min(max(level, 1), 3)]
	r.write(s, true, size, size*0.5)
	r.doc.Ln(2)
}

func (r *renderer) paragraph(s string, indent float64) {
	l, _, _, _ := r.doc.GetMargins()
	// Wrapped lines keep the indent: the left margin moves for the block.
	r.doc.SetLeftMargin(l + indent)
	r.doc.SetX(l + indent)
	r.write(s, false, 11, lineHeight)
	r.doc.SetLeftMargin(l)
	r.doc.Ln(1.5)
}

func (r *renderer) block(n markdown.Node, indent float64) {
	switch n.Type {
	case "heading-1", "heading-2", "heading-3":
		level, _ := strconv.Atoi(strings.TrimPrefix(n.Type, "heading-"))
		r.heading(plain(n), level+1)
	case "paragraph":
		r.paragraph(plain(n), indent)
	case "images":
		for _, img := range n.Nodes {
			if img.Data != nil && img.Data.Ref != nil {
				r.picture(img.Data.Ref.URL, img.Data.Alt)
			}
		}
	case "list-unordered", "list-ordered", "list-tasks":
		i := 1
		if n.Data != nil && n.Data.Start != nil {
			i = *n.Data.Start
		}
		for _, item := range n.Nodes {
			marker := "-"
			if n.Type == "list-ordered" {
				marker = fmt.Sprintf("%d.", i)
				i++
			}
			for j, c := range item.Nodes {
				if j == 0 {
					r.paragraph(marker+" "+plain(c), indent+4)
					continue
				}
				r.block(c, indent+8)
			}
		}
	case "code":
		r.doc.SetFillColor(242, 242, 242)
		for _, l := range n.Nodes {
			r.flow(plain(l), false, true, 9.5, 4.5, true)
		}
		r.doc.Ln(2)
	case "blockquote":
		for _, c := range n.Nodes {
			r.block(c, indent+6)
		}
	case "divider":
		if !r.next() {
			return
		}
		l, _, _, _ := r.doc.GetMargins()
		y := r.doc.GetY() + 2
		r.doc.Line(l, y, l+r.width(), y)
		r.doc.Ln(5)
	case "table":
		r.table(n)
	case "hint", "tabs":
		// GitBook blocks: their content, indented like a quote.
		for _, c := range n.Nodes {
			r.block(c, indent+6)
		}
	case "tabs-item":
		if n.Data != nil && n.Data.Title != "" {
			r.paragraph(n.Data.Title, indent)
		}
		for _, c := range n.Nodes {
			r.block(c, indent)
		}
	case "content-ref", "embed":
		if d := n.Data; d != nil && d.Ref != nil && d.Ref.URL != "" {
			r.paragraph(d.Ref.URL, indent)
		} else if d != nil && d.URL != "" {
			r.paragraph(d.URL, indent)
		}
	case "openapi-operation":
		if d := n.Data; d != nil {
			r.paragraph(strings.ToUpper(d.Method)+" "+d.Path, indent)
		}
	}
}

func (r *renderer) table(n markdown.Node) {
	d := n.Data
	if d == nil || d.View == nil || len(d.View.Columns) == 0 {
		return
	}
	cols := d.View.Columns
	rows := make([][]string, 0, len(d.Records)+1)
	header := make([]string, len(cols))
	for i, id := range cols {
		header[i] = d.Definition[id].Title
	}
	rows = append(rows, header)
	for i := 0; i < len(d.Records); i++ {
		rec := d.Records["r"+strconv.Itoa(i)]
		cells := make([]string, len(cols))
		for j, id := range cols {
			cells[j] = rec.Values[id]
		}
		rows = append(rows, cells)
	}
	w := r.width() / float64(len(cols))
	for i, cells := range rows {
		if !r.next() {
			return
		}
		style := ""
		if i == 0 {
			style = "B"
		}
		for _, c := range cells {
			r.setFont(style == "B", false, hasCJK(c), 10)
			r.doc.CellFormat(w, 7, r.tr(c), "1", 0, "L", false, 0, "")
		}
		r.doc.Ln(7)
	}
	r.doc.Ln(2)
}

func (r *renderer) picture(src, alt string) {
	if !r.next() {
		return
	}
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

// plain is the text of a node: its leaves, and the alt text of its images.
func plain(n markdown.Node) string {
	var b strings.Builder
	var walk func(n markdown.Node)
	walk = func(n markdown.Node) {
		for _, l := range n.Leaves {
			b.WriteString(l.Text)
		}
		if n.Type == "inline-image" && n.Data != nil {
			b.WriteString(n.Data.Alt)
		}
		for _, c := range n.Nodes {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
