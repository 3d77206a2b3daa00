package markdown

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Document is GitBook's structured document of a page:
// {"object":"document","nodes":[blocks]}.
type Document struct {
	Object string   `json:"object"`
	Data   struct{} `json:"data"`
	Nodes  []Node   `json:"nodes"`
}

// Node is a block ("object":"block"), an inline ("object":"inline", links)
// or a text run ("object":"text" with leaves). Blocks carry a key that is
// stable for the same text at the same place.
type Node struct {
	Object string         `json:"object"`
	Type   string         `json:"type,omitempty"`
	Key    string         `json:"key,omitempty"`
	Data   map[string]any `json:"data,omitempty"`
	Nodes  []Node         `json:"nodes,omitempty"`
	Leaves []Leaf         `json:"leaves,omitempty"`
}

// Leaf is a run of text with its marks (bold, italic, code, strikethrough).
type Leaf struct {
	Object string `json:"object"`
	Text   string `json:"text"`
	Marks  []Mark `json:"marks"`
}

// Mark is a style of a leaf.
type Mark struct {
	Object string `json:"object"`
	Type   string `json:"type"`
}

// ToDocument converts markdown to the structured document. Block types:
// heading-1..3 (deeper headings are heading-3), paragraph, list-unordered,
// list-ordered, list-tasks with list-item (data.checked for tasks), code
// with code-line children (data.syntax), blockquote, table (data.header:
// the header cells; data.rows: the rows of cell text), images with image
// children (data.src, data.alt), divider. Links are inlines with
// data.ref {kind: url, url}.
func ToDocument(src string) Document {
	doc, source := parse(Parse(src).Body)
	c := converter{source: source}
	out := Document{Object: "document", Nodes: []Node{}}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if b, ok := c.block(n, fmt.Sprint(len(out.Nodes))); ok {
			out.Nodes = append(out.Nodes, b)
		}
	}
	return out
}

type converter struct{ source []byte }

func blockKey(path, text string) string {
	sum := sha256.Sum256([]byte(path + "\x00" + text))
	return hex.EncodeToString(sum[:])[:12]
}

func (c converter) newBlock(typ, path string, n ast.Node) Node {
	return Node{Object: "block", Type: typ, Key: blockKey(path, typ+plain(n, c.source))}
}

func (c converter) block(n ast.Node, path string) (Node, bool) {
	switch t := n.(type) {
	case *ast.Heading:
		level := min(max(t.Level, 1), 3)
		b := c.newBlock(fmt.Sprintf("heading-%d", level), path, n)
		b.Nodes = c.inlines(n)
		return b, true
	case *ast.Paragraph, *ast.TextBlock:
		if img, ok := soleImage(n); ok {
			b := c.newBlock("images", path, n)
			b.Nodes = []Node{{Object: "block", Type: "image", Key: blockKey(path+".0", string(img.Destination)),
				Data: map[string]any{"src": string(img.Destination), "alt": plain(img, c.source)}}}
			return b, true
		}
		b := c.newBlock("paragraph", path, n)
		b.Nodes = c.inlines(n)
		return b, true
	case *ast.List:
		typ := "list-unordered"
		if t.IsOrdered() {
			typ = "list-ordered"
		}
		if isTaskList(t) {
			typ = "list-tasks"
		}
		b := c.newBlock(typ, path, n)
		i := 0
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			li := c.newBlock("list-item", fmt.Sprintf("%s.%d", path, i), item)
			if typ == "list-tasks" {
				li.Data = map[string]any{"checked": taskChecked(item)}
			}
			j := 0
			for child := item.FirstChild(); child != nil; child = child.NextSibling() {
				if cb, ok := c.block(child, fmt.Sprintf("%s.%d.%d", path, i, j)); ok {
					li.Nodes = append(li.Nodes, cb)
					j++
				}
			}
			b.Nodes = append(b.Nodes, li)
			i++
		}
		return b, true
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		b := c.newBlock("code", path, n)
		if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
			b.Data = map[string]any{"syntax": string(f.Language(c.source))}
		}
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			line := strings.TrimRight(string(seg.Value(c.source)), "\n")
			b.Nodes = append(b.Nodes, Node{Object: "block", Type: "code-line", Key: blockKey(fmt.Sprintf("%s.%d", path, i), line),
				Nodes: []Node{textNode(line, nil)}})
		}
		return b, true
	case *ast.Blockquote:
		b := c.newBlock("blockquote", path, n)
		i := 0
		for child := n.FirstChild(); child != nil; child = child.NextSibling() {
			if cb, ok := c.block(child, fmt.Sprintf("%s.%d", path, i)); ok {
				b.Nodes = append(b.Nodes, cb)
				i++
			}
		}
		return b, true
	case *ast.ThematicBreak:
		return c.newBlock("divider", path, n), true
	case *east.Table:
		b := c.newBlock("table", path, n)
		var header []string
		var rows [][]string
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []string
			for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
				cells = append(cells, strings.TrimSpace(plain(cell, c.source)))
			}
			if _, ok := row.(*east.TableHeader); ok {
				header = cells
			} else {
				rows = append(rows, cells)
			}
		}
		if rows == nil {
			rows = [][]string{}
		}
		b.Data = map[string]any{"header": header, "rows": rows}
		return b, true
	case *ast.HTMLBlock:
		b := c.newBlock("paragraph", path, n)
		var sb strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			sb.Write(seg.Value(c.source))
		}
		b.Nodes = []Node{textNode(strings.TrimSpace(sb.String()), nil)}
		return b, true
	}
	return Node{}, false
}

func soleImage(n ast.Node) (*ast.Image, bool) {
	if n.ChildCount() != 1 {
		return nil, false
	}
	img, ok := n.FirstChild().(*ast.Image)
	return img, ok
}

func isTaskList(l *ast.List) bool {
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		if first := item.FirstChild(); first != nil && first.FirstChild() != nil {
			if _, ok := first.FirstChild().(*east.TaskCheckBox); ok {
				return true
			}
		}
	}
	return false
}

func taskChecked(item ast.Node) bool {
	if first := item.FirstChild(); first != nil && first.FirstChild() != nil {
		if box, ok := first.FirstChild().(*east.TaskCheckBox); ok {
			return box.IsChecked
		}
	}
	return false
}

func textNode(s string, marks []Mark) Node {
	if marks == nil {
		marks = []Mark{}
	}
	return Node{Object: "text", Leaves: []Leaf{{Object: "leaf", Text: s, Marks: marks}}}
}

// inlines converts the inline children of a block to text runs and links.
func (c converter) inlines(n ast.Node) []Node {
	var out []Node
	var walk func(n ast.Node, marks []Mark)
	walk = func(n ast.Node, marks []Mark) {
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			switch t := ch.(type) {
			case *ast.Text:
				s := string(t.Segment.Value(c.source))
				if t.SoftLineBreak() || t.HardLineBreak() {
					s += "\n"
				}
				out = append(out, textNode(s, append([]Mark(nil), marks...)))
			case *ast.String:
				out = append(out, textNode(string(t.Value), append([]Mark(nil), marks...)))
			case *ast.CodeSpan:
				out = append(out, textNode(plain(t, c.source), append(append([]Mark(nil), marks...), Mark{"mark", "code"})))
			case *ast.Emphasis:
				kind := "italic"
				if t.Level >= 2 {
					kind = "bold"
				}
				walk(t, append(append([]Mark(nil), marks...), Mark{"mark", kind}))
			case *east.Strikethrough:
				walk(t, append(append([]Mark(nil), marks...), Mark{"mark", "strikethrough"}))
			case *ast.Link:
				out = append(out, Node{Object: "inline", Type: "link",
					Data:  map[string]any{"ref": map[string]any{"kind": "url", "url": string(t.Destination)}},
					Nodes: []Node{textNode(plain(t, c.source), append([]Mark(nil), marks...))}})
			case *ast.AutoLink:
				u := string(t.URL(c.source))
				out = append(out, Node{Object: "inline", Type: "link",
					Data:  map[string]any{"ref": map[string]any{"kind": "url", "url": u}},
					Nodes: []Node{textNode(string(t.Label(c.source)), nil)}})
			case *ast.Image:
				out = append(out, Node{Object: "inline", Type: "inline-image",
					Data: map[string]any{"src": string(t.Destination), "alt": plain(t, c.source)}})
			case *east.TaskCheckBox:
			default:
				walk(ch, marks)
			}
		}
	}
	walk(n, nil)
	if out == nil {
		out = []Node{textNode("", nil)}
	}
	return out
}
