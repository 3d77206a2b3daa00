package markdown

import "strings"

// hintStyles are the styles a hint may have; another is read as info.
var hintStyles = map[string]bool{"info": true, "success": true, "warning": true, "danger": true}

// HintStyle is the style a hint tag's style attribute gives: info unless it
// is one of info, success, warning or danger.
func HintStyle(s string) string {
	if hintStyles[s] {
		return s
	}
	return "info"
}

// SchemaNames splits an openapi-schemas block's schemas attribute
// ("A, B,C") into names, empty ones left out.
func SchemaNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// gitbookBlock converts a GitBook block to its document block.
func (c *converter) gitbookBlock(n *BlockNode) (Node, bool) {
	void := func(typ string) Node {
		b := newBlock(typ, nil)
		b.Nodes, b.IsVoid = nil, true
		return b
	}
	withBody := func(typ string) Node {
		b := newBlock(typ, c.blocks(n))
		if len(b.Nodes) == 0 {
			b.Nodes = []Node{newBlock("paragraph", []Node{textNode("", nil)})}
		}
		return b
	}
	switch n.Name {
	case "hint":
		b := withBody("hint")
		b.Data.Style = HintStyle(n.Attrs["style"])
		return b, true
	case "tabs":
		b := newBlock("tabs", nil)
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			if tab, ok := ch.(*BlockNode); ok && tab.Name == "tab" {
				item, _ := c.gitbookBlock(tab)
				b.Nodes = append(b.Nodes, item)
			}
		}
		return b, true
	case "if":
		b := withBody("if")
		b.Data.Expression = n.Attrs["condition"]
		return b, true
	case "tab":
		b := withBody("tabs-item")
		b.Data.Title = n.Attrs["title"]
		return b, true
	case "content-ref":
		b := void("content-ref")
		b.Data.Ref = &ContentRef{Kind: "url", URL: n.Attrs["url"]}
		return b, true
	case "embed":
		b := void("embed")
		b.Data.URL = n.Attrs["url"]
		return b, true
	case "openapi-operation":
		b := void("openapi-operation")
		b.Data.Ref = &ContentRef{Kind: "openapi", Spec: n.Attrs["spec"]}
		b.Data.Path = n.Attrs["path"]
		b.Data.Method = strings.ToLower(n.Attrs["method"])
		return b, true
	case "openapi-schemas":
		b := void("openapi-schemas")
		b.Data.Ref = &ContentRef{Kind: "openapi", Spec: n.Attrs["spec"]}
		b.Data.Schemas = SchemaNames(n.Attrs["schemas"])
		if b.Data.Schemas == nil {
			b.Data.Schemas = []string{}
		}
		if n.Attrs["grouped"] == "false" {
			f := false
			b.Data.Grouped = &f
		}
		return b, true
	}
	return Node{}, false
}
