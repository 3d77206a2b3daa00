package markdown

import (
	"fmt"
	"strings"
)

// writeGitBookBlock writes a GitBook block as its {% %} tags, the way
// blocks.go reads them back.
func writeGitBookBlock(b *strings.Builder, n Node, prefix string) error {
	line := func(s string) { b.WriteString(prefix + s + "\n") }
	d := n.Data
	if d == nil {
		d = &Data{}
	}
	ref := func() *ContentRef {
		if d.Ref != nil {
			return d.Ref
		}
		return &ContentRef{}
	}
	body := func(name string, nodes []Node) error {
		if err := writeBlocks(b, nodes, prefix); err != nil {
			return err
		}
		line("{% end" + name + " %}")
		return nil
	}
	switch n.Type {
	case "hint":
		line(blockTag("hint", "style", HintStyle(d.Style)))
		return body("hint", n.Nodes)
	case "tabs":
		line("{% tabs %}")
		for i, item := range n.Nodes {
			if item.Type != "tabs-item" {
				return fmt.Errorf("a tabs block holds tabs-item blocks, not %q", item.Type)
			}
			if i > 0 {
				line("")
			}
			if err := writeGitBookBlock(b, item, prefix); err != nil {
				return err
			}
		}
		line("{% endtabs %}")
	case "tabs-item":
		title := ""
		if d != nil {
			title = d.Title
		}
		line(blockTag("tab", "title", title))
		return body("tab", n.Nodes)
	case "if":
		if d.Expression == "" {
			return fmt.Errorf("an if block needs data.expression")
		}
		line(blockTag("if", "condition", d.Expression))
		return body("if", n.Nodes)
	case "content-ref":
		u := ref().URL
		if u == "" {
			return fmt.Errorf("a content-ref block needs data.ref.url")
		}
		line(blockTag("content-ref", "url", u))
		line("[" + escapeLinkText(u) + "](" + linkDestination(u) + ")")
		line("{% endcontent-ref %}")
	case "embed":
		if d.URL == "" {
			return fmt.Errorf("an embed block needs data.url")
		}
		line(blockTag("embed", "url", d.URL))
	case "openapi-operation":
		if ref().Spec == "" || d.Path == "" || d.Method == "" {
			return fmt.Errorf("an openapi-operation block needs data.ref.spec, data.path and data.method")
		}
		line(blockTag("openapi-operation", "spec", ref().Spec, "path", d.Path, "method", strings.ToLower(d.Method)))
	case "openapi-schemas":
		if ref().Spec == "" || len(d.Schemas) == 0 {
			return fmt.Errorf("an openapi-schemas block needs data.ref.spec and data.schemas")
		}
		kv := []string{"spec", ref().Spec, "schemas", strings.Join(d.Schemas, ",")}
		if d.Grouped != nil && !*d.Grouped {
			kv = append(kv, "grouped", "false")
		}
		line(blockTag("openapi-schemas", kv...))
	}
	return nil
}

// escapeLinkText escapes what would end or format a link's text.
func escapeLinkText(s string) string {
	return strings.NewReplacer("\\", "\\\\", "[", "\\[", "]", "\\]", "*", "\\*", "_", "\\_", "`", "\\`").Replace(s)
}

// linkDestination writes a link destination, in angle brackets when it holds
// spaces or parentheses.
func linkDestination(u string) string {
	if strings.ContainsAny(u, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(u) + ">"
	}
	return u
}
