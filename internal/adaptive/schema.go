package adaptive

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/folio/folio/internal/textcheck"
)

// referenceSchema is the reference's SiteAdaptiveJSONSchema with the schemas
// it refers to, cut from reference/gitbook-openapi-v0.143.2-subset.json
// (TestReferenceSchemaIsTheReferences keeps the cut honest).
//
//go:embed reference_schema.json
var referenceSchema []byte

var (
	metaOnce   sync.Once
	metaSchema *jsonschema.Schema
	metaErr    error
)

// meta compiles referenceSchema once; a failure is a bug of the package,
// which its tests catch.
func meta() (*jsonschema.Schema, error) {
	metaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(referenceSchema))
		if err != nil {
			metaErr = fmt.Errorf("adaptive: reference schema: %w", err)
			return
		}
		const url = "https://folio.invalid/adaptive/site-adaptive-json-schema.json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			metaErr = fmt.Errorf("adaptive: reference schema: %w", err)
			return
		}
		metaSchema, metaErr = c.Compile(url)
	})
	return metaSchema, metaErr
}

// Claim types, the values of a claim's "type".
const (
	TypeBoolean = "boolean"
	TypeString  = "string"
	TypeNumber  = "number"
	TypeArray   = "array"
	TypeObject  = "object"
)

// Schema is a site's adaptive schema: the document as the caller sent it
// (compacted) and the claims it declares.
type Schema struct {
	raw  []byte
	root *claimNode
}

// claimNode is a claim of the schema: a leaf (boolean, string, number,
// array) or an object of claims (`unsigned`, or a nested group).
type claimNode struct {
	path        string
	names       []string // path split at its dots, for Eval
	typ         string
	description string
	enum        []string   // a string claim's allowed values (nil: any)
	items       *claimNode // an array's items (a primitive)
	children    map[string]*claimNode
}

// Claim describes one claim a condition can read.
type Claim struct {
	// Path is the claim's name under visitor.claims, dotted for the claims
	// of an object: "plan", "unsigned.isBeta".
	Path string
	// Type is boolean, string, number or array.
	Type string
	// Items is the type of an array's items: boolean, string or number.
	Items string
	// Enum lists the allowed values of a string claim (or of an array's
	// string items); nil when any string is allowed.
	Enum        []string
	Description string
}

// EmptySchema is the schema of a site that has none: an object without
// claims. It carries `additionalProperties: false` because the reference's
// SiteAdaptiveJSONSchema requires that key, so that a GET of a site without a
// schema answers a document the reference (and ParseSchema) accepts.
func EmptySchema() *Schema {
	return &Schema{
		raw:  []byte(`{"type":"object","properties":{},"additionalProperties":false}`),
		root: &claimNode{typ: TypeObject, children: map[string]*claimNode{}},
	}
}

// JSON is the schema document, compacted, in the caller's key order.
func (s *Schema) JSON() []byte {
	return bytes.Clone(s.raw)
}

// MarshalJSON writes the schema document as JSON() has it, so that a Schema
// can stand for `jsonSchema` in an answer.
func (s *Schema) MarshalJSON() ([]byte, error) {
	return s.JSON(), nil
}

// Claims lists the schema's leaf claims (those a condition can read), sorted
// by path.
func (s *Schema) Claims() []Claim {
	var out []Claim
	eachLeaf(s.root, func(c *claimNode) {
		cl := Claim{Path: c.path, Type: c.typ, Description: c.description, Enum: c.enum}
		if c.items != nil {
			cl.Items, cl.Enum = c.items.typ, c.items.enum
		}
		out = append(out, cl)
	})
	// By the whole path, as Condition.Claims: "a-b" before "a.b".
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// eachLeaf calls fn for each leaf claim below n (objects are walked, not
// passed), in name order.
func eachLeaf(n *claimNode, fn func(*claimNode)) {
	for _, name := range sortedNames(n.children) {
		c := n.children[name]
		if c.typ == TypeObject {
			eachLeaf(c, fn)
			continue
		}
		fn(c)
	}
}

// ParseSchema validates a site's adaptive JSON schema (raw JSON, the value of
// `jsonSchema`) against the reference's SiteAdaptiveJSONSchema and returns it.
// Errors are an *Error whose Field is the JSON path of what is wrong inside
// the document.
func ParseSchema(raw []byte) (*Schema, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, &Error{Message: fmt.Sprintf("is larger than %d bytes", MaxSchemaBytes)}
	}
	if f := textcheck.JSON(raw); f != nil {
		return nil, &Error{Field: f.Path, Message: f.Problem}
	}
	if err := checkDepth(raw); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &Error{Message: "is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, &Error{Message: "must be a JSON object"}
	}
	sch, err := meta()
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, explain(ve, doc)
		}
		return nil, &Error{Message: err.Error()}
	}
	root, err := buildClaims(doc.(map[string]any))
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, &Error{Message: "is not valid JSON"}
	}
	return &Schema{raw: compact.Bytes(), root: root}, nil
}

// checkDepth refuses, in one pass over the tokens and before the document
// is decoded and validated (both recursive), documents nested deeper than
// MaxSchemaDepth and objects with a key twice: the decoder would keep the
// last value, while the stored document, handed back as written, would
// mean something else to a reader that keeps the first.
func checkDepth(raw []byte) error {
	type frame struct {
		object    bool
		keys      map[string]bool
		expectKey bool
		part      pathPart // the key or index of the value being read
		index     int
	}
	var stack []*frame
	// path names the value being read in the top frame.
	path := func() []pathPart {
		parts := make([]pathPart, len(stack))
		for i, f := range stack {
			parts[i] = f.part
		}
		return parts
	}
	// value notes that a value starts in the top frame.
	value := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expectKey = true
			return
		}
		top.part = pathPart{name: strconv.Itoa(top.index), index: true}
		top.index++
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &Error{Message: "is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			value()
			if len(stack) >= MaxSchemaDepth {
				return &Error{Field: joinPath(path()), Message: fmt.Sprintf("nests JSON values deeper than %d levels", MaxSchemaDepth)}
			}
			f := &frame{object: tok == json.Delim('{'), expectKey: tok == json.Delim('{')}
			if f.object {
				f.keys = map[string]bool{}
			}
			stack = append(stack, f)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if key, ok := tok.(string); ok && top.object && top.expectKey {
				top.part = pathPart{name: key}
				if top.keys[key] {
					return &Error{Field: joinPath(path()), Message: "is given twice"}
				}
				top.keys[key] = true
				top.expectKey = false
				continue
			}
		}
		value()
	}
}

// buildClaims reads the claims of a document the reference schema accepted,
// so its shape is known; it checks what the reference leaves open: claim
// names and the number of claims.
func buildClaims(doc map[string]any) (*claimNode, error) {
	count := 0
	var build func(props map[string]any, prefix string, field []pathPart) (map[string]*claimNode, error)
	build = func(props map[string]any, prefix string, field []pathPart) (map[string]*claimNode, error) {
		children := make(map[string]*claimNode, len(props))
		for _, name := range sortedNames(props) {
			f := append(append([]pathPart(nil), field...), pathPart{name: name})
			if msg := nameProblem(name); msg != "" {
				return nil, &Error{Field: joinPath(field), Message: fmt.Sprintf("claim name %q %s", name, msg)}
			}
			count++
			if count > MaxClaims {
				return nil, &Error{Field: joinPath(field), Message: fmt.Sprintf("declares more than %d claims", MaxClaims)}
			}
			def := props[name].(map[string]any)
			n := primitive(def)
			n.path = prefix + name
			n.names = strings.Split(n.path, ".")
			switch n.typ {
			case TypeArray:
				n.items = primitive(def["items"].(map[string]any))
			case TypeObject:
				sub, _ := def["properties"].(map[string]any)
				var err error
				n.children, err = build(sub, n.path+".", append(f, pathPart{name: "properties"}))
				if err != nil {
					return nil, err
				}
			}
			children[name] = n
		}
		return children, nil
	}
	props, _ := doc["properties"].(map[string]any)
	children, err := build(props, "", []pathPart{{name: "properties"}})
	if err != nil {
		return nil, err
	}
	return &claimNode{typ: TypeObject, children: children}, nil
}

// primitive reads type, description and enum of a claim definition.
func primitive(def map[string]any) *claimNode {
	n := &claimNode{}
	n.typ, _ = def["type"].(string)
	n.description, _ = def["description"].(string)
	if values, ok := def["enum"].([]any); ok {
		n.enum = make([]string, 0, len(values))
		for _, v := range values {
			s, _ := v.(string)
			n.enum = append(n.enum, s)
		}
	}
	return n
}

// nameProblem says why a claim name cannot be used. A dot would make the
// dotted claim paths (Claims, RemovedClaims) ambiguous.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case len(name) > MaxClaimNameLength:
		return fmt.Sprintf("is longer than %d bytes", MaxClaimNameLength)
	case strings.Contains(name, "."):
		return "contains a dot"
	}
	return ""
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// RemovedClaims lists, sorted, the leaf claims of old that next no longer
// has with the same type: a condition that reads one of them may no longer
// compile against next. A claim that became something else (a string turned
// into an object of claims, a number into a string) counts as removed, since
// conditions written for it are wrong now. A nil schema has no claims.
func RemovedClaims(old, next *Schema) []string {
	if old == nil {
		return nil
	}
	var have map[string]Claim
	if next != nil {
		have = map[string]Claim{}
		for _, c := range next.Claims() {
			have[c.Path] = c
		}
	}
	var out []string
	for _, c := range old.Claims() {
		n, ok := have[c.Path]
		if !ok || n.Type != c.Type || n.Items != c.Items {
			out = append(out, c.Path)
		}
	}
	return out
}
