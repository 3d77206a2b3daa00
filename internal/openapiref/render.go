package openapiref

import (
	"encoding/json"
	"html/template"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/folio/folio/internal/markdown"
)

// Bounds of one schema outline: specs nest and recurse (a Pet's owner has
// pets), and a page must stay small however the spec is written.
const (
	maxSchemaDepth = 6   // levels of nested properties shown
	maxSchemaNodes = 400 // properties shown per outline
	maxEnumShown   = 20  // enum values listed
	maxDescBytes   = 16 << 10
)

var esc = template.HTMLEscapeString

// RenderOperation renders one operation of doc: method and path, summary,
// description, parameters, request body and responses with the outline of
// their schemas. The error is Check's when the operation is missing.
func RenderOperation(doc *openapi3.T, path, method string) (template.HTML, error) {
	op, err := findOperation(doc, path, method)
	if err != nil {
		return "", err
	}
	m := strings.ToLower(method)
	var b strings.Builder
	b.WriteString(`<section class="openapi-operation" id="` + esc(operationID(m, path)) + `">`)
	b.WriteString(`<div class="openapi-heading"><span class="openapi-method openapi-method-` + esc(methodClass(m)) + `">` +
		esc(strings.ToUpper(m)) + `</span> <code class="openapi-path">` + esc(path) + `</code>`)
	if op.Deprecated {
		b.WriteString(` <span class="openapi-deprecated">deprecated</span>`)
	}
	b.WriteString(`</div>`)
	if op.Summary != "" {
		b.WriteString(`<p class="openapi-summary"><strong>` + esc(op.Summary) + `</strong></p>`)
	}
	writeDescription(&b, op.Description)

	// Parameters: the path item's, overridden by the operation's.
	params := map[string]*openapi3.Parameter{}
	var order []string
	add := func(ps openapi3.Parameters) {
		for _, p := range ps {
			if p == nil || p.Value == nil {
				continue
			}
			k := p.Value.In + ":" + p.Value.Name
			if _, ok := params[k]; !ok {
				order = append(order, k)
			}
			params[k] = p.Value
		}
	}
	if item := doc.Paths.Value(path); item != nil {
		add(item.Parameters)
	}
	add(op.Parameters)
	if len(order) > 0 {
		b.WriteString(`<h2 class="openapi-section">Parameters</h2><table class="openapi-params"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>`)
		for _, k := range order {
			p := params[k]
			b.WriteString(`<tr><td><code>` + esc(p.Name) + `</code>`)
			if p.Required {
				b.WriteString(` <span class="openapi-required">required</span>`)
			}
			b.WriteString(`</td><td>` + esc(p.In) + `</td><td><span class="openapi-type">`)
			if p.Schema != nil {
				b.WriteString(esc(typeName(p.Schema)))
			} else if len(p.Content) > 0 {
				b.WriteString(esc(strings.Join(sortedKeys(p.Content), ", ")))
			}
			b.WriteString(`</span></td><td>`)
			writeDescription(&b, p.Description)
			b.WriteString(`</td></tr>`)
		}
		b.WriteString(`</tbody></table>`)
	}

	if op.RequestBody != nil && op.RequestBody.Value != nil {
		rb := op.RequestBody.Value
		b.WriteString(`<h2 class="openapi-section">Request body`)
		if rb.Required {
			b.WriteString(` <span class="openapi-required">required</span>`)
		}
		b.WriteString(`</h2>`)
		writeDescription(&b, rb.Description)
		writeContent(&b, rb.Content)
	}

	if op.Responses != nil && op.Responses.Len() > 0 {
		b.WriteString(`<h2 class="openapi-section">Responses</h2><table class="openapi-responses"><tbody>`)
		codes := sortedKeys(op.Responses.Map())
		for _, code := range codes {
			r := op.Responses.Value(code)
			if r == nil || r.Value == nil {
				continue
			}
			b.WriteString(`<tr><td><code class="openapi-status">` + esc(code) + `</code></td><td>`)
			if r.Value.Description != nil {
				writeDescription(&b, *r.Value.Description)
			}
			writeContent(&b, r.Value.Content)
			b.WriteString(`</td></tr>`)
		}
		b.WriteString(`</tbody></table>`)
	}
	b.WriteString(`</section>`)
	return template.HTML(b.String()), nil
}

// RenderSchemas renders the named component schemas of doc, each with its
// outline. The error is Check's when one is missing.
func RenderSchemas(doc *openapi3.T, names []string) (template.HTML, error) {
	var b strings.Builder
	b.WriteString(`<section class="openapi-schemas">`)
	for _, name := range names {
		s := schemaByName(doc, name)
		if s == nil {
			return "", Check(doc, markdown.SpecRef{Kind: "openapi-schemas", Schemas: []string{name}})
		}
		b.WriteString(`<div class="openapi-schema" id="` + esc("schema-"+markdown.Slug(name)) + `"><h2 class="openapi-section"><code>` + esc(name) + `</code> <span class="openapi-type">` + esc(typeName(&openapi3.SchemaRef{Value: s.Value})) + `</span></h2>`)
		writeDescription(&b, s.Value.Description)
		o := &outliner{b: &b}
		o.children(s.Value, 0, map[*openapi3.Schema]bool{s.Value: true})
		b.WriteString(`</div>`)
	}
	b.WriteString(`</section>`)
	return template.HTML(b.String()), nil
}

// writeContent writes each media type of a body with its schema outline.
func writeContent(b *strings.Builder, content openapi3.Content) {
	for _, mt := range sortedKeys(content) {
		m := content[mt]
		b.WriteString(`<div class="openapi-media"><code class="openapi-media-type">` + esc(mt) + `</code>`)
		if m != nil && m.Schema != nil && m.Schema.Value != nil {
			b.WriteString(` <span class="openapi-type">` + esc(typeName(m.Schema)) + `</span>`)
			o := &outliner{b: b}
			o.children(m.Schema.Value, 0, map[*openapi3.Schema]bool{m.Schema.Value: true})
		}
		b.WriteString(`</div>`)
	}
}

// outliner writes nested lists of a schema's properties, within the bounds.
type outliner struct {
	b     *strings.Builder
	nodes int
}

// children writes the properties of s (of its items for an array; of every
// part for allOf; of each variant for oneOf/anyOf) as a list.
func (o *outliner) children(s *openapi3.Schema, depth int, path map[*openapi3.Schema]bool) {
	if depth >= maxSchemaDepth || o.nodes >= maxSchemaNodes {
		return
	}
	if s.Items != nil && s.Items.Value != nil && len(s.Properties) == 0 {
		if !path[s.Items.Value] {
			path[s.Items.Value] = true
			o.children(s.Items.Value, depth, path)
			delete(path, s.Items.Value)
		}
		return
	}
	props, required := collectProperties(s)
	variants := append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...)
	if len(props) == 0 && len(variants) == 0 {
		return
	}
	o.b.WriteString(`<ul class="openapi-schema-tree">`)
	for _, name := range sortedKeys(props) {
		if o.nodes >= maxSchemaNodes {
			o.b.WriteString(`<li class="openapi-truncated">…</li>`)
			break
		}
		o.nodes++
		p := props[name]
		o.b.WriteString(`<li><code>` + esc(name) + `</code> <span class="openapi-type">` + esc(typeName(p)) + `</span>`)
		if required[name] {
			o.b.WriteString(` <span class="openapi-required">required</span>`)
		}
		if p.Value != nil {
			o.facts(p.Value)
			if !path[p.Value] {
				path[p.Value] = true
				o.children(p.Value, depth+1, path)
				delete(path, p.Value)
			}
		}
		o.b.WriteString(`</li>`)
	}
	if len(variants) > 0 {
		kind := "One of"
		if len(s.OneOf) == 0 {
			kind = "Any of"
		}
		o.b.WriteString(`<li>` + kind + `:<ul class="openapi-schema-tree">`)
		for _, v := range variants {
			if o.nodes >= maxSchemaNodes || v == nil || v.Value == nil {
				continue
			}
			o.nodes++
			o.b.WriteString(`<li><span class="openapi-type">` + esc(typeName(v)) + `</span>`)
			if !path[v.Value] {
				path[v.Value] = true
				o.children(v.Value, depth+1, path)
				delete(path, v.Value)
			}
			o.b.WriteString(`</li>`)
		}
		o.b.WriteString(`</ul></li>`)
	}
	o.b.WriteString(`</ul>`)
}

// facts writes a property's description, enum values and default.
func (o *outliner) facts(s *openapi3.Schema) {
	if s.Description != "" {
		d := s.Description
		if len(d) > 500 {
			d = d[:500] + "…"
		}
		o.b.WriteString(` <span class="openapi-description">` + esc(d) + `</span>`)
	}
	if len(s.Enum) > 0 {
		var vals []string
		for i, v := range s.Enum {
			if i == maxEnumShown {
				vals = append(vals, "…")
				break
			}
			vals = append(vals, jsonText(v))
		}
		o.b.WriteString(` <span class="openapi-enum">one of ` + esc(strings.Join(vals, ", ")) + `</span>`)
	}
	if s.Default != nil {
		o.b.WriteString(` <span class="openapi-default">default ` + esc(jsonText(s.Default)) + `</span>`)
	}
}

// collectProperties is s's properties with those of its allOf parts.
func collectProperties(s *openapi3.Schema) (map[string]*openapi3.SchemaRef, map[string]bool) {
	props := map[string]*openapi3.SchemaRef{}
	required := map[string]bool{}
	var walk func(s *openapi3.Schema, depth int)
	walk = func(s *openapi3.Schema, depth int) {
		if s == nil || depth > maxSchemaDepth {
			return
		}
		for k, v := range s.Properties {
			if v != nil {
				props[k] = v
			}
		}
		for _, r := range s.Required {
			required[r] = true
		}
		for _, part := range s.AllOf {
			if part != nil {
				walk(part.Value, depth+1)
			}
		}
	}
	walk(s, 0)
	return props, required
}

// typeName is a short type for a schema: its component name when it is a
// reference, "array of X", the type with its format, or "object".
func typeName(r *openapi3.SchemaRef) string {
	if r == nil {
		return ""
	}
	if name := refName(r.Ref); name != "" {
		return name
	}
	s := r.Value
	if s == nil {
		return ""
	}
	if s.Type != nil && s.Type.Is("array") || (s.Type == nil && s.Items != nil) {
		if s.Items != nil {
			return "array of " + typeName(s.Items)
		}
		return "array"
	}
	var t string
	if s.Type != nil && len(s.Type.Slice()) > 0 {
		t = strings.Join(s.Type.Slice(), " | ")
	} else if len(s.Properties) > 0 || len(s.AllOf) > 0 {
		t = "object"
	} else if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		t = "one of"
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	if s.Nullable {
		t += " | null"
	}
	return strings.TrimSpace(t)
}

// refName is the last part of a local component reference.
func refName(ref string) string {
	if i := strings.LastIndex(ref, "/"); i >= 0 && strings.Contains(ref, "#/") {
		return ref[i+1:]
	}
	return ""
}

// writeDescription writes a CommonMark description as sanitized HTML.
func writeDescription(b *strings.Builder, d string) {
	if strings.TrimSpace(d) == "" {
		return
	}
	if len(d) > maxDescBytes {
		d = d[:maxDescBytes]
	}
	r, err := markdown.RenderHTML(d, markdown.HTMLOptions{})
	if err != nil {
		b.WriteString(`<p>` + esc(d) + `</p>`)
		return
	}
	b.WriteString(`<div class="openapi-description">` + string(r.HTML) + `</div>`)
}

func jsonText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(raw)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// operationID is the anchor of an operation box: method and path slugged.
func operationID(method, path string) string {
	return "op-" + markdown.Slug(method+" "+path)
}

func methodClass(m string) string {
	switch m {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return m
	}
	return "other"
}
