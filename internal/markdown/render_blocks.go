package markdown

import (
	"bytes"
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// htmlRenderer renders GitBook blocks and code for one RenderHTML call.
type htmlRenderer struct {
	opt       HTMLOptions
	p         *parsed
	hl        highlighter
	tabGroups map[ast.Node]int // tabs block -> its group number
	tabIndex  map[ast.Node]int // tab -> its place among its tabs' tabs
	groups    int
}

func (r *htmlRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindBlock, r.block)
	reg.Register(ast.KindFencedCodeBlock, r.code)
	reg.Register(ast.KindCodeBlock, r.code)
	reg.Register(east.KindTaskCheckBox, r.taskBox)
}

// taskBox is a task list's check box, named for assistive technology (a
// form control without a name is an accessibility fault).
func (r *htmlRenderer) taskBox(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if n.(*east.TaskCheckBox).IsChecked {
		_, _ = w.WriteString(`<input checked disabled type="checkbox" aria-label="Done"> `)
	} else {
		_, _ = w.WriteString(`<input disabled type="checkbox" aria-label="Not done"> `)
	}
	return ast.WalkContinue, nil
}

func (r *htmlRenderer) code(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	lang := ""
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		lang = string(f.Language(src))
	}
	var buf bytes.Buffer
	r.hl.write(&buf, linesText(n, src), lang)
	buf.WriteByte('\n')
	_, _ = w.Write(buf.Bytes())
	return ast.WalkSkipChildren, nil
}

// esc escapes text and attribute values.
func esc(s string) string { return html.EscapeString(s) }

func (r *htmlRenderer) block(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*BlockNode)
	if fn := r.opt.Blocks[n.Name]; fn != nil {
		if !entering {
			return ast.WalkContinue, nil
		}
		h, err := fn(Block{Name: n.Name, Attrs: n.Attrs, Body: n.Body(src)})
		if err != nil {
			return ast.WalkStop, err
		}
		_, _ = w.WriteString(string(h) + "\n")
		return ast.WalkSkipChildren, nil
	}
	switch n.Name {
	case "hint":
		if entering {
			_, _ = w.WriteString(`<div class="hint hint-` + HintStyle(n.Attrs["style"]) + `" role="note">` + "\n")
		} else {
			_, _ = w.WriteString("</div>\n")
		}
	case "tabs":
		if entering {
			r.groups++
			r.tabGroups[n] = r.groups
			i := 0
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if b, ok := c.(*BlockNode); ok && b.Name == "tab" {
					r.tabIndex[b] = i
					i++
				}
			}
			_, _ = w.WriteString(`<div class="tabs">` + "\n")
		} else {
			_, _ = w.WriteString("</div>\n")
		}
	case "tab":
		if !entering {
			_, _ = w.WriteString("</div>\n")
			return ast.WalkContinue, nil
		}
		group := r.tabGroups[n.Parent()]
		index := r.tabIndex[n]
		first := index == 0
		name := r.opt.IDPrefix + "gbtabs_" + strconv.Itoa(group)
		id := name + "_" + strconv.Itoa(index)
		checked := ""
		if first {
			checked = " checked"
		}
		title := n.Attrs["title"]
		if title == "" {
			title = "Tab " + strconv.Itoa(index+1)
		}
		_, _ = w.WriteString(`<input type="radio" class="tab-input" name="` + esc(name) + `" id="` + esc(id) + `"` + checked + `>` +
			`<label class="tab-label" for="` + esc(id) + `">` + esc(title) + `</label>` + "\n" +
			`<div class="tab-panel">` + "\n")
	case "content-ref":
		if !entering {
			return ast.WalkContinue, nil
		}
		u := n.Attrs["url"]
		title := ""
		for c := n.FirstChild(); c != nil && title == ""; c = c.NextSibling() {
			title = inlineText(c, src)
		}
		if title == "" {
			title = u
		}
		if r.opt.Link != nil {
			u = r.opt.Link(u)
		}
		_, _ = w.WriteString(`<div class="content-ref"><a class="content-ref-link" href="` + esc(u) + `">` + esc(title) + "</a></div>\n")
		return ast.WalkSkipChildren, nil
	case "embed":
		if entering {
			u := n.Attrs["url"]
			_, _ = w.WriteString(`<div class="embed"><a class="embed-link" href="` + esc(u) + `">` + esc(u) + "</a>\n")
			if !n.Void && n.FirstChild() != nil {
				_, _ = w.WriteString(`<div class="embed-caption">` + "\n")
			}
		} else {
			if !n.Void && n.FirstChild() != nil {
				_, _ = w.WriteString("</div>\n")
			}
			_, _ = w.WriteString("</div>\n")
		}
	case "openapi-operation":
		if entering {
			_, _ = w.WriteString(DefaultOperationHTML(n.Attrs["method"], n.Attrs["path"]) + "\n")
		}
		return ast.WalkSkipChildren, nil
	case "if":
		// HTML has no visitor to evaluate the condition for: a conditional
		// block is left out (fail closed). Visitors' documents are evaluated
		// by graph (getPageDocumentInRevisionById?evaluated=true).
		return ast.WalkSkipChildren, nil
	case "openapi-schemas":
		if entering {
			_, _ = w.WriteString(DefaultSchemasHTML(SchemaNames(n.Attrs["schemas"])) + "\n")
		}
		return ast.WalkSkipChildren, nil
	}
	return ast.WalkContinue, nil
}

// DefaultOperationHTML is the inert box an openapi-operation block shows
// when no renderer is given (or its spec cannot be read): method and path.
func DefaultOperationHTML(method, path string) string {
	m := strings.ToLower(method)
	return `<div class="openapi-operation openapi-unresolved"><span class="openapi-method openapi-method-` + esc(methodClass(m)) + `">` +
		esc(strings.ToUpper(m)) + `</span> <code class="openapi-path">` + esc(path) + `</code></div>`
}

// DefaultSchemasHTML is the inert box of an openapi-schemas block without a
// renderer: the schema names.
func DefaultSchemasHTML(names []string) string {
	var b strings.Builder
	b.WriteString(`<div class="openapi-schemas openapi-unresolved">`)
	for i, s := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`<code class="openapi-schema-name">` + esc(s) + `</code>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

// methodClass keeps a method usable in a class name.
func methodClass(m string) string {
	switch m {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return m
	}
	return "other"
}
