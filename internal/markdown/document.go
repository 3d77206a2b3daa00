package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Document is a page in GitBook's document JSON shape:
//
//	{"object":"document","data":{},"nodes":[blocks...]}
//
// All nodes, whatever their object, are Node values; the fields a node does
// not use are zero and left out of its JSON (see Node).
type Document struct {
	Object string       `json:"object"` // "document"
	Data   DocumentData `json:"data"`
	Nodes  []Node       `json:"nodes"`
}

// DocumentData is the document's data; always {} for now.
type DocumentData struct {
	SchemaVersion int `json:"schemaVersion,omitzero"`
}

// Node is a block, inline, text or fragment of a Document.
//
// Blocks ("object":"block") have type, key, data (at least {}) and either
// nodes or, when void (divider, image, table), "isVoid":true. Block types:
//
//	heading-1, heading-2, heading-3  nodes: inline content; meta.id: the heading's anchor (h4-h6 are heading-3)
//	paragraph                        nodes: inline content
//	list-unordered, list-ordered     nodes: list-item blocks; list-ordered has data.start when it is not 1
//	list-tasks                       nodes: list-item blocks with data.checked (a list with any task item)
//	list-item                        nodes: blocks (a tight item's text is a paragraph)
//	code                             data.syntax: the fence's language; nodes: one code-line block per line
//	code-line                        nodes: one text with the line (no marks)
//	blockquote                       nodes: blocks
//	divider                          void; a thematic break
//	images                           nodes: image blocks; a paragraph that holds only images
//	image                            void; data.ref {kind:"url",url}, data.alt; fragments: the image title
//	                                 as a "caption" fragment holding a paragraph, or []
//	table                            void; data.view {type:"grid",columns:[ids],hideHeader:false},
//	                                 data.definition {id: {id,title,type:"text",textAlignment}} with the
//	                                 header cells as titles, data.records {id: {orderIndex,values:{column id:
//	                                 cell text}}} for the body rows; fragments: []. Column ids are c0, c1...,
//	                                 record ids r0, r1..., orderIndex a zero-padded row number; cells are
//	                                 plain text (their marks and links are not kept)
//	hint                             data.style (info, success, warning or danger; info when the tag's
//	                                 style is another); nodes: blocks ({% hint %})
//	tabs                             nodes: tabs-item blocks ({% tabs %}; text outside its tabs is left out)
//	tabs-item                        data.title; nodes: blocks ({% tab title="..." %})
//	content-ref                      void; data.ref {kind:"url",url} ({% content-ref url="..." %})
//	embed                            void; data.url ({% embed url="..." %}; a caption is not kept)
//	openapi-operation                void; data.ref {kind:"openapi",spec}, data.path, data.method (lower case)
//	openapi-schemas                  void; data.ref {kind:"openapi",spec}, data.schemas (names), data.grouped
//	                                 when the tag says grouped="false"
//	if                               data.expression: the condition; nodes: blocks ({% if condition="..." %})
//
// Inline content is text nodes ({"object":"text","leaves":[{"object":"leaf","text":...,"marks":[...]}]}),
// links ({"object":"inline","type":"link","data":{"ref":{"kind":"url","url":href}},"nodes":[text...]})
// and inline images ({"object":"inline","type":"inline-image","isVoid":true,"data":{"ref":...,"alt":...,
// "caption":...}}). Marks are {"object":"mark","type":"bold"|"italic"|"code"|"strikethrough"}, in that
// order. Link hrefs are kept as written (relative paths included); autolinks get the href a renderer
// would give them (mailto: for e-mail, http:// for www.).
type Node struct {
	Object    string     `json:"object"`             // "block", "inline", "text" or "fragment"
	Type      string     `json:"type,omitzero"`      // block or inline type; "caption" for a caption fragment
	Key       string     `json:"key,omitzero"`       // blocks: stable within the document (see ToDocument)
	Fragment  string     `json:"fragment,omitzero"`  // fragments: "caption"
	IsVoid    bool       `json:"isVoid,omitzero"`    // void blocks and inline images
	Data      *Data      `json:"data,omitzero"`      // blocks and inlines
	Meta      *BlockMeta `json:"meta,omitzero"`      // headings
	Nodes     []Node     `json:"nodes,omitzero"`     // non-void blocks, links, fragments
	Leaves    []Leaf     `json:"leaves,omitzero"`    // texts
	Fragments []Node     `json:"fragments,omitzero"` // images and tables
}

// Data is the data of a block or inline; each type uses a few of the fields.
type Data struct {
	Syntax     string                 `json:"syntax,omitzero"`     // code
	Start      *int                   `json:"start,omitzero"`      // list-ordered, when not 1
	Checked    *bool                  `json:"checked,omitzero"`    // list-item of list-tasks
	Ref        *ContentRef            `json:"ref,omitzero"`        // link, image, inline-image
	Alt        string                 `json:"alt,omitzero"`        // image, inline-image
	Caption    string                 `json:"caption,omitzero"`    // inline-image
	View       *TableView             `json:"view,omitzero"`       // table
	Records    map[string]TableRecord `json:"records,omitzero"`    // table
	Definition map[string]TableColumn `json:"definition,omitzero"` // table
	Style      string                 `json:"style,omitzero"`      // hint
	Title      string                 `json:"title,omitzero"`      // tabs-item
	URL        string                 `json:"url,omitzero"`        // embed
	Path       string                 `json:"path,omitzero"`       // openapi-operation
	Method     string                 `json:"method,omitzero"`     // openapi-operation
	Schemas    []string               `json:"schemas,omitzero"`    // openapi-schemas
	Grouped    *bool                  `json:"grouped,omitzero"`    // openapi-schemas, when false
	Expression string                 `json:"expression,omitzero"` // if
}

// ContentRef is what a link or image points at: {"kind":"url","url":...}
// here (resolving links to pages and files is done elsewhere), or for
// OpenAPI blocks {"kind":"openapi","spec":slug}.
type ContentRef struct {
	Kind string `json:"kind"`
	URL  string `json:"url"`
	Spec string `json:"spec,omitzero"`
}

// MarshalJSON writes an openapi reference without its (empty) url.
func (r ContentRef) MarshalJSON() ([]byte, error) {
	if r.Kind == "openapi" {
		return json.Marshal(struct {
			Kind string `json:"kind"`
			Spec string `json:"spec"`
		}{r.Kind, r.Spec})
	}
	type plain ContentRef
	return json.Marshal(plain(r))
}

// TableView is a table's grid view: the column ids in order.
type TableView struct {
	Type       string   `json:"type"` // "grid"
	Columns    []string `json:"columns"`
	HideHeader bool     `json:"hideHeader"`
}

// TableRecord is one body row of a table.
type TableRecord struct {
	OrderIndex string            `json:"orderIndex"`
	Values     map[string]string `json:"values"` // column id -> cell text
}

// TableColumn defines a table column: its header cell text and alignment.
type TableColumn struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Type          string `json:"type"`          // "text"
	TextAlignment string `json:"textAlignment"` // "left", "center" or "right"
}

// BlockMeta is a heading's meta: its anchor.
type BlockMeta struct {
	ID string `json:"id"`
}

// Leaf is a run of text with the same marks.
type Leaf struct {
	Object string `json:"object"` // "leaf"
	Text   string `json:"text"`
	Marks  []Mark `json:"marks"`
}

// Mark is a text mark.
type Mark struct {
	Object string `json:"object"` // "mark"
	Type   string `json:"type"`   // "bold", "italic", "code" or "strikethrough"
}

// FormatVersion is the version of what this package derives from markdown
// (documents, text, sections, links, anchors). Stored derived data carries
// it: bump it whenever the output for some input changes, so that data
// derived by an older converter is computed again rather than served.
const FormatVersion = 3 // 2: GitBook blocks ({% hint %}...); 3: {% if %}

// markOrder is the canonical order of marks on a leaf.
var markOrder = []string{"bold", "italic", "strikethrough", "code"}

// ToDocument converts markdown (a leading frontmatter block is skipped, as
// Parse skips it) to GitBook's document shape; see Node for the blocks.
//
// Every block gets a key: 12 hex digits of a hash of its content (type, text,
// marks, data and children), with an occurrence number to tell apart blocks
// that are alike. The same
// markdown always gives the same keys, and editing one block leaves the keys
// of the blocks unlike it unchanged.
func ToDocument(src string) Document {
	p := parseBody(src)
	c := &converter{p: p, anchors: map[ast.Node]string{}}
	a := newAnchorer()
	walkLeaves(p, func(l leaf) bool {
		if l.heading != nil {
			c.anchors[l.heading] = a.next(l.text)
		}
		return true
	})
	doc := Document{Object: "document", Nodes: c.blocks(p.root)}
	k := keyer{seen: map[[32]byte]int{}, used: map[string]bool{}}
	for i := range doc.Nodes {
		k.assign(&doc.Nodes[i])
	}
	return doc
}

type converter struct {
	p       *parsed
	anchors map[ast.Node]string
}

func newBlock(typ string, nodes []Node) Node {
	if nodes == nil {
		nodes = []Node{}
	}
	return Node{Object: "block", Type: typ, Data: &Data{}, Nodes: nodes}
}

func textNode(s string, marks []Mark) Node {
	if marks == nil {
		marks = []Mark{}
	}
	return Node{Object: "text", Leaves: []Leaf{{Object: "leaf", Text: s, Marks: marks}}}
}

// blocks converts the block children of n.
func (c *converter) blocks(n ast.Node) []Node {
	out := []Node{}
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		if b, ok := c.block(ch); ok {
			out = append(out, b)
		}
	}
	return out
}

func (c *converter) block(n ast.Node) (Node, bool) {
	src := c.p.src
	switch n := n.(type) {
	case *ast.Heading:
		level := min(max(n.Level, 1), 3)
		b := newBlock("heading-"+strconv.Itoa(level), c.inlines(n))
		b.Meta = &BlockMeta{ID: c.anchors[n]}
		return b, true
	case *ast.Paragraph, *ast.TextBlock:
		if imgs := imageOnly(n, src); imgs != nil {
			nodes := []Node{}
			for _, img := range imgs {
				nodes = append(nodes, imageBlock(unescape(img.Destination), inlineText(img, src), unescape(img.Title)))
			}
			return newBlock("images", nodes), true
		}
		return newBlock("paragraph", c.inlines(n)), true
	case *ast.List:
		return c.list(n), true
	case *ast.Blockquote:
		return newBlock("blockquote", c.blocks(n)), true
	case *ast.ThematicBreak:
		b := newBlock("divider", nil)
		b.Nodes, b.IsVoid = nil, true
		return b, true
	case *ast.FencedCodeBlock:
		b := codeBlock(n, src)
		b.Data.Syntax = string(n.Language(src))
		return b, true
	case *ast.CodeBlock:
		return codeBlock(n, src), true
	case *east.Table:
		return tableBlock(n, src), true
	case *ast.HTMLBlock:
		html := htmlBlockSource(n, src)
		if imgs := htmlImages(html); len(imgs) > 0 {
			return newBlock("images", imgs), true
		}
		if t := htmlText(html); t != "" {
			return newBlock("paragraph", []Node{textNode(t, nil)}), true
		}
		return Node{}, false
	case *ast.LinkReferenceDefinition:
		return Node{}, false
	case *BlockNode:
		return c.gitbookBlock(n)
	default:
		if n.Type() != ast.TypeBlock {
			return Node{}, false
		}
		if f := n.FirstChild(); f != nil && f.Type() == ast.TypeBlock {
			return newBlock("blockquote", c.blocks(n)), true
		}
		return newBlock("paragraph", c.inlines(n)), true
	}
}

// list converts a list; a list with any task item is a list-tasks.
func (c *converter) list(n *ast.List) Node {
	tasks := false
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		if taskBox(it) != nil {
			tasks = true
		}
	}
	typ := "list-unordered"
	switch {
	case tasks:
		typ = "list-tasks"
	case n.IsOrdered():
		typ = "list-ordered"
	}
	b := newBlock(typ, nil)
	if typ == "list-ordered" && n.Start != 1 {
		start := n.Start
		b.Data.Start = &start
	}
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		item := newBlock("list-item", c.blocks(it))
		if len(item.Nodes) == 0 {
			item.Nodes = []Node{newBlock("paragraph", []Node{textNode("", nil)})}
		}
		if tasks {
			checked := false
			if box := taskBox(it); box != nil {
				checked = box.IsChecked
			}
			item.Data.Checked = &checked
		}
		b.Nodes = append(b.Nodes, item)
	}
	return b
}

// taskBox is the check box that starts a list item, if any.
func taskBox(item ast.Node) *east.TaskCheckBox {
	first := item.FirstChild()
	if first == nil {
		return nil
	}
	box, _ := first.FirstChild().(*east.TaskCheckBox)
	return box
}

func codeBlock(n ast.Node, src []byte) Node {
	b := newBlock("code", nil)
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSuffix(string(seg.Value(src)), "\n")
		b.Nodes = append(b.Nodes, newBlock("code-line", []Node{textNode(line, nil)}))
	}
	return b
}

func tableBlock(t *east.Table, src []byte) Node {
	b := newBlock("table", nil)
	b.Nodes, b.IsVoid, b.Fragments = nil, true, []Node{}
	view := &TableView{Type: "grid", Columns: []string{}}
	b.Data.View = view
	b.Data.Definition = map[string]TableColumn{}
	b.Data.Records = map[string]TableRecord{}
	row := 0
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		header := r.Kind() == east.KindTableHeader
		values := map[string]string{}
		col := 0
		for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
			id := "c" + strconv.Itoa(col)
			text := inlineText(cell, src)
			if header {
				align := "left"
				if col < len(t.Alignments) {
					switch t.Alignments[col] {
					case east.AlignCenter:
						align = "center"
					case east.AlignRight:
						align = "right"
					}
				}
				view.Columns = append(view.Columns, id)
				b.Data.Definition[id] = TableColumn{ID: id, Title: text, Type: "text", TextAlignment: align}
			} else {
				values[id] = text
			}
			col++
		}
		if !header {
			b.Data.Records["r"+strconv.Itoa(row)] = TableRecord{OrderIndex: fmt.Sprintf("%06d", row), Values: values}
			row++
		}
	}
	return b
}

func imageBlock(url, alt, caption string) Node {
	img := newBlock("image", nil)
	img.Nodes, img.IsVoid, img.Fragments = nil, true, []Node{}
	img.Data.Ref = &ContentRef{Kind: "url", URL: url}
	img.Data.Alt = alt
	if caption != "" {
		img.Fragments = []Node{{Object: "fragment", Fragment: "caption", Type: "caption",
			Nodes: []Node{newBlock("paragraph", []Node{textNode(caption, nil)})}}}
	}
	return img
}

// imageOnly returns the images of a paragraph that holds nothing but images
// and white space, else nil.
func imageOnly(n ast.Node, src []byte) []*ast.Image {
	var imgs []*ast.Image
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Image:
			imgs = append(imgs, c)
		case *ast.Text:
			if strings.TrimSpace(string(c.Segment.Value(src))) != "" {
				return nil
			}
		default:
			return nil
		}
	}
	return imgs
}

var (
	htmlLinkTagRE = regexp.MustCompile(`(?is)<(a|img)\b[^>]*>`)
	imgTagRE      = regexp.MustCompile(`(?is)<img\b[^>]*>`)
	figcaptionRE  = regexp.MustCompile(`(?is)<figcaption\b[^>]*>(.*?)</figcaption>`)
	figureRE      = regexp.MustCompile(`(?is)^\s*(<figure\b|<img\b|<p\b[^>]*>\s*<img\b|<picture\b)`)
)

// htmlImages reads an HTML block that is a figure or an image (as GitBook
// exports images) into image blocks; nil when it is other HTML.
func htmlImages(html string) []Node {
	if !figureRE.MatchString(html) {
		return nil
	}
	caption := ""
	if m := figcaptionRE.FindStringSubmatch(html); m != nil {
		caption = htmlText(m[1])
	}
	rest := tagRE.ReplaceAllString(figcaptionRE.ReplaceAllString(html, ""), "")
	if strings.TrimSpace(rest) != "" {
		return nil // text besides the images: keep it as text
	}
	var out []Node
	for _, tag := range imgTagRE.FindAllString(html, -1) {
		attrs := htmlAttrs(tag)
		if attrs["src"] == "" {
			continue
		}
		out = append(out, imageBlock(attrs["src"], attrs["alt"], caption))
	}
	return out
}

var attrRE = regexp.MustCompile(`(?is)\s([a-z][a-z0-9_:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)

// htmlAttrs reads the attributes of one HTML tag (lower-case names, character
// references resolved).
func htmlAttrs(tag string) map[string]string {
	attrs := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(tag, -1) {
		name := strings.ToLower(m[1])
		if _, dup := attrs[name]; !dup {
			attrs[name] = resolve([]byte(m[2]+m[3]+m[4]), false)
		}
	}
	return attrs
}

// inlines converts the inline content of a block.
func (c *converter) inlines(n ast.Node) []Node {
	b := &inlineBuilder{src: c.p.src}
	b.walk(n, nil)
	return b.finish()
}

// inlineBuilder gathers text into leaves (merging runs with equal marks) and
// text nodes between links and inline images. The text of the leaf being
// built grows in a builder: appending to a string would copy it each time,
// and a paragraph of n lines would cost n^2.
type inlineBuilder struct {
	src    []byte
	nodes  []Node
	leaves []Leaf
	cur    strings.Builder // text of the open leaf
	marks  []Mark          // marks of the open leaf
	open   bool
}

func (b *inlineBuilder) text(s string, marks []Mark) {
	if s == "" {
		return
	}
	if b.open && slices.Equal(b.marks, marks) {
		b.cur.WriteString(s)
		return
	}
	b.closeLeaf()
	if marks == nil {
		marks = []Mark{}
	}
	b.open, b.marks = true, slices.Clone(marks)
	b.cur.WriteString(s)
}

// closeLeaf ends the open leaf.
func (b *inlineBuilder) closeLeaf() {
	if b.open {
		b.leaves = append(b.leaves, Leaf{Object: "leaf", Text: b.cur.String(), Marks: b.marks})
		b.cur.Reset()
		b.open, b.marks = false, nil
	}
}

func (b *inlineBuilder) flush() {
	b.closeLeaf()
	if len(b.leaves) > 0 {
		b.nodes = append(b.nodes, Node{Object: "text", Leaves: b.leaves})
		b.leaves = nil
	}
}

func (b *inlineBuilder) inline(n Node) {
	b.flush()
	b.nodes = append(b.nodes, n)
}

// finish returns the nodes, trimming white space at the ends of the content;
// empty content is one empty text.
func (b *inlineBuilder) finish() []Node {
	b.flush()
	if n := len(b.nodes); n > 0 {
		if first := &b.nodes[0]; first.Object == "text" {
			first.Leaves[0].Text = strings.TrimLeft(first.Leaves[0].Text, " \t\n")
		}
		if last := &b.nodes[n-1]; last.Object == "text" {
			l := &last.Leaves[len(last.Leaves)-1]
			l.Text = strings.TrimRight(l.Text, " \t\n")
		}
	}
	var out []Node
	for _, n := range b.nodes {
		if n.Object == "text" {
			n.Leaves = slices.DeleteFunc(n.Leaves, func(l Leaf) bool { return l.Text == "" })
			if len(n.Leaves) == 0 {
				continue
			}
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		out = []Node{textNode("", nil)}
	}
	return out
}

// withMark is marks plus one more, in canonical order.
func withMark(marks []Mark, typ string) []Mark {
	for _, m := range marks {
		if m.Type == typ {
			return marks
		}
	}
	out := append(slices.Clone(marks), Mark{Object: "mark", Type: typ})
	slices.SortFunc(out, func(a, b Mark) int {
		return slices.Index(markOrder, a.Type) - slices.Index(markOrder, b.Type)
	})
	return out
}

func (b *inlineBuilder) walk(n ast.Node, marks []Mark) {
	src := b.src
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			s := unescape(c.Segment.Value(src))
			if c.HardLineBreak() {
				s += "\n"
			} else if c.SoftLineBreak() {
				s += " "
			}
			b.text(s, marks)
		case *ast.String:
			if c.IsCode() || c.IsRaw() {
				b.text(string(c.Value), marks)
			} else {
				b.text(unescape(c.Value), marks)
			}
		case *ast.CodeSpan:
			b.text(codeSpanText(c, src), withMark(marks, "code"))
		case *ast.Emphasis:
			typ := "italic"
			if c.Level >= 2 {
				typ = "bold"
			}
			b.walk(c, withMark(marks, typ))
		case *east.Strikethrough:
			b.walk(c, withMark(marks, "strikethrough"))
		case *ast.Link:
			inner := &inlineBuilder{src: src}
			inner.walk(c, marks)
			b.inline(linkNode(unescape(c.Destination), inner.finish()))
		case *ast.AutoLink:
			b.inline(linkNode(autoLinkURL(c, src), []Node{textNode(string(c.Label(src)), marks)}))
		case *ast.Image:
			d := &Data{Ref: &ContentRef{Kind: "url", URL: unescape(c.Destination)}, Alt: inlineText(c, src), Caption: unescape(c.Title)}
			b.inline(Node{Object: "inline", Type: "inline-image", IsVoid: true, Data: d})
		case *ast.RawHTML:
			if isBreakTag(rawHTMLText(c, src)) {
				b.text("\n", marks)
			}
		case *east.TaskCheckBox:
		default:
			b.walk(c, marks)
		}
	}
}

func linkNode(url string, nodes []Node) Node {
	return Node{Object: "inline", Type: "link", Data: &Data{Ref: &ContentRef{Kind: "url", URL: url}}, Nodes: nodes}
}

// keyer gives blocks their keys.
type keyer struct {
	seen map[[32]byte]int // content digest -> blocks met with it
	used map[string]bool  // keys handed out
}

// assign keys the blocks of n's subtree, children first, and returns a digest
// of n's content: its type, text and data, and its children's digests. Each
// node is hashed once, so deep documents cost no more than wide ones.
func (k *keyer) assign(n *Node) [32]byte {
	h := sha256.New()
	h.Write([]byte(n.Object + "\x00" + n.Type + "\x00" + n.Fragment + "\x00"))
	for _, l := range n.Leaves {
		h.Write([]byte(l.Text + "\x00"))
		for _, m := range l.Marks {
			h.Write([]byte(m.Type + "\x00"))
		}
	}
	if d := n.Data; d != nil {
		if d.Ref != nil {
			h.Write([]byte("\x01" + d.Ref.URL + "\x00" + d.Alt + "\x00" + d.Caption + "\x00"))
		}
		h.Write([]byte("\x04" + d.Style + "\x00" + d.Title + "\x00" + d.URL + "\x00" + d.Path + "\x00" + d.Method + "\x00"))
		if d.Ref != nil {
			h.Write([]byte(d.Ref.Spec + "\x00"))
		}
		for _, s := range d.Schemas {
			h.Write([]byte(s + "\x00"))
		}
		if d.Grouped != nil {
			h.Write([]byte(strconv.FormatBool(*d.Grouped)))
		}
		if d.View != nil {
			for _, id := range d.View.Columns {
				h.Write([]byte("\x02" + d.Definition[id].Title + "\x00"))
			}
			for i := 0; i < len(d.Records); i++ {
				r := d.Records["r"+strconv.Itoa(i)]
				for _, id := range d.View.Columns {
					h.Write([]byte("\x03" + r.Values[id] + "\x00"))
				}
			}
		}
	}
	for i := range n.Nodes {
		d := k.assign(&n.Nodes[i])
		h.Write(d[:])
	}
	for i := range n.Fragments {
		d := k.assign(&n.Fragments[i])
		h.Write(d[:])
	}
	var digest [32]byte
	h.Sum(digest[:0])
	if n.Object == "block" {
		for {
			k.seen[digest]++
			sum := sha256.Sum256(append(digest[:], strconv.Itoa(k.seen[digest])...))
			key := hex.EncodeToString(sum[:6])
			if !k.used[key] {
				k.used[key] = true
				n.Key = key
				break
			}
		}
	}
	return digest
}
