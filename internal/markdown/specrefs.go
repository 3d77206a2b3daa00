package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// SpecRef is what an openapi-operation or openapi-schemas block points at.
type SpecRef struct {
	Kind    string   // "openapi-operation" or "openapi-schemas"
	Spec    string   // the spec's slug
	Path    string   // openapi-operation: e.g. /pets/{id}
	Method  string   // openapi-operation: lower case
	Schemas []string // openapi-schemas: the names
	Line    int      // 1-based line of the block's tag in the source
}

// SpecRefOf reads a block's attributes as a SpecRef (Line not set).
func SpecRefOf(name string, attrs map[string]string) SpecRef {
	r := SpecRef{Kind: name, Spec: attrs["spec"]}
	switch name {
	case "openapi-operation":
		r.Path, r.Method = attrs["path"], strings.ToLower(attrs["method"])
	case "openapi-schemas":
		r.Schemas = SchemaNames(attrs["schemas"])
	}
	return r
}

// SpecRefs lists the openapi blocks of a page in document order, for link
// checking and for the index of which pages embed which spec. Line counts
// lines of src as given, frontmatter included.
func SpecRefs(src string) []SpecRef {
	p := parseBody(src)
	out := []SpecRef{}
	_ = ast.Walk(p.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*BlockNode); ok && entering && strings.HasPrefix(b.Name, "openapi-") {
			r := SpecRefOf(b.Name, b.Attrs)
			r.Line = p.line(b.bodyStart - 1)
			out = append(out, r)
		}
		return ast.WalkContinue, nil
	})
	return out
}

// SpecSlugs is the distinct spec slugs a page's openapi blocks name, in
// order of first use.
func SpecSlugs(src string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range SpecRefs(src) {
		if !seen[r.Spec] {
			seen[r.Spec] = true
			out = append(out, r.Spec)
		}
	}
	return out
}

// DocumentSpecRefs lists the openapi blocks of a document (as ToDocument
// writes them), depth first, without lines: what SpecRefs gives, read from
// a stored document instead of the markdown.
func DocumentSpecRefs(d Document) []SpecRef {
	var out []SpecRef
	var walk func(nodes []Node)
	walk = func(nodes []Node) {
		for _, n := range nodes {
			if (n.Type == "openapi-operation" || n.Type == "openapi-schemas") && n.Data != nil && n.Data.Ref != nil {
				out = append(out, SpecRef{Kind: n.Type, Spec: n.Data.Ref.Spec, Path: n.Data.Path, Method: n.Data.Method, Schemas: n.Data.Schemas})
			}
			walk(n.Nodes)
		}
	}
	walk(d.Nodes)
	return out
}

// Tag is the block's opening tag as FromDocument writes it.
func (r SpecRef) Tag() string {
	if r.Kind == "openapi-schemas" {
		return blockTag(r.Kind, "spec", r.Spec, "schemas", strings.Join(r.Schemas, ","))
	}
	return blockTag("openapi-operation", "spec", r.Spec, "path", r.Path, "method", r.Method)
}
