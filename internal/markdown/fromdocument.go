package markdown

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// FromDocument reads a GitBook structured document (the shape ToDocument
// writes) back as markdown, for bodies sent as documents: headings,
// paragraphs, lists, task lists, code, quotes, dividers, images and links,
// with bold, italic, strikethrough and code marks, and GitBook's blocks
// (hint, tabs, content-ref, embed, openapi-operation, openapi-schemas) as
// their {% %} tags. A block of another type
// is an error naming it, so nothing is silently dropped.
func FromDocument(raw json.RawMessage) (string, error) {
	var d Document
	if err := json.Unmarshal(raw, &d); err != nil {
		return "", fmt.Errorf("is not a document: %v", err)
	}
	if d.Object != "" && d.Object != "document" {
		return "", fmt.Errorf("object must be document, not %q", d.Object)
	}
	var b strings.Builder
	if err := writeBlocks(&b, d.Nodes, ""); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// writeBlocks writes blocks separated by blank lines, each line after
// prefix (a quote's "> " or a list item's indent).
func writeBlocks(b *strings.Builder, nodes []Node, prefix string) error {
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(strings.TrimRight(prefix, " ") + "\n")
		}
		if err := writeBlock(b, n, prefix); err != nil {
			return err
		}
	}
	return nil
}

func writeBlock(b *strings.Builder, n Node, prefix string) error {
	line := func(s string) { b.WriteString(prefix + s + "\n") }
	switch n.Type {
	case "paragraph":
		text := inlines(n.Nodes)
		if _, _, _, isTag := parseTag([]byte(text)); isTag {
			text = "\\" + strings.TrimLeft(text, " ") // text, not a block tag
		}
		line(text)
	case "heading-1", "heading-2", "heading-3":
		level, _ := strconv.Atoi(n.Type[len(n.Type)-1:])
		line(strings.Repeat("#", level) + " " + inlines(n.Nodes))
	case "code":
		syntax := ""
		if n.Data != nil {
			syntax = n.Data.Syntax
		}
		line("```" + syntax)
		for _, l := range n.Nodes {
			line(inlines(l.Nodes))
		}
		line("```")
	case "blockquote":
		return writeBlocks(b, n.Nodes, prefix+"> ")
	case "divider":
		line("---")
	case "images":
		var parts []string
		for _, img := range n.Nodes {
			if img.Data != nil && img.Data.Ref != nil {
				parts = append(parts, "!["+img.Data.Alt+"]("+img.Data.Ref.URL+")")
			}
		}
		line(strings.Join(parts, " "))
	case "list-unordered", "list-ordered", "list-tasks":
		for i, item := range n.Nodes {
			marker := "- "
			if n.Type == "list-ordered" {
				start := 1
				if n.Data != nil && n.Data.Start != nil {
					start = *n.Data.Start
				}
				marker = strconv.Itoa(start+i) + ". "
			}
			if item.Data != nil && item.Data.Checked != nil {
				marker += map[bool]string{true: "[x] ", false: "[ ] "}[*item.Data.Checked]
			}
			var inner strings.Builder
			if err := writeBlocks(&inner, item.Nodes, ""); err != nil {
				return err
			}
			indent := strings.Repeat(" ", len(marker))
			for j, l := range strings.Split(strings.TrimRight(inner.String(), "\n"), "\n") {
				if j == 0 {
					line(marker + l)
				} else {
					line(indent + l)
				}
			}
		}
	case "hint", "tabs", "tabs-item", "content-ref", "embed", "openapi-operation", "openapi-schemas", "if":
		return writeGitBookBlock(b, n, prefix)
	default:
		return fmt.Errorf("block type %q is not supported: send markdown", n.Type)
	}
	return nil
}

// inlines is inline content as markdown: texts with their marks, links and
// inline images.
func inlines(nodes []Node) string {
	var b strings.Builder
	for _, n := range nodes {
		switch {
		case n.Object == "text":
			for _, l := range n.Leaves {
				b.WriteString(marked(l))
			}
		case n.Type == "link":
			url := ""
			if n.Data != nil && n.Data.Ref != nil {
				url = n.Data.Ref.URL
			}
			b.WriteString("[" + inlines(n.Nodes) + "](" + url + ")")
		case n.Type == "inline-image" && n.Data != nil && n.Data.Ref != nil:
			b.WriteString("![" + n.Data.Alt + "](" + n.Data.Ref.URL + ")")
		}
	}
	return b.String()
}

func marked(l Leaf) string {
	s := l.Text
	for _, m := range l.Marks {
		switch m.Type {
		case "code":
			s = "`" + s + "`"
		case "bold":
			s = "**" + s + "**"
		case "italic":
			s = "_" + s + "_"
		case "strikethrough":
			s = "~~" + s + "~~"
		}
	}
	return s
}
