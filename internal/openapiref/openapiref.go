// Package openapiref renders GitBook's API reference blocks
// ({% openapi-operation %} and {% openapi-schemas %}, read by
// internal/markdown) from a parsed OpenAPI document, and checks that the
// operation or schemas a block names exist. It knows nothing of storage:
// callers hand it the document, or a SpecLookup that finds one by slug.
//
// Its HTML is meant to pass through markdown.RenderHTML's Blocks hook, which
// sanitizes it with the rest of the page; the texts of the spec are escaped
// here anyway, and descriptions (CommonMark) are rendered by RenderHTML.
package openapiref

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/folio/folio/internal/markdown"
)

// SpecLookup finds the latest parsed version of an OpenAPI spec by slug,
// within the organization the caller has in mind. It answers (nil, nil)
// when there is no such spec or it has no version yet; an error is a
// failure to look (a database error), not a missing spec.
type SpecLookup func(ctx context.Context, slug string) (*openapi3.T, error)

// Problems a block may have; Check wraps them with details.
var (
	ErrUnknownSpec      = errors.New("unknown OpenAPI spec")
	ErrUnknownPath      = errors.New("unknown path")
	ErrUnknownMethod    = errors.New("unknown method")
	ErrUnknownSchema    = errors.New("unknown schema")
	ErrIncompleteTarget = errors.New("incomplete block")
)

// Check reports whether the operation (path and method) or the schemas a
// block names exist in doc (nil doc: the spec is unknown). The error wraps
// one of the Err values above and names what is missing.
func Check(doc *openapi3.T, ref markdown.SpecRef) error {
	if doc == nil {
		return fmt.Errorf("%w %q", ErrUnknownSpec, ref.Spec)
	}
	switch ref.Kind {
	case "openapi-operation":
		_, err := findOperation(doc, ref.Path, ref.Method)
		return err
	case "openapi-schemas":
		if len(ref.Schemas) == 0 {
			return fmt.Errorf("%w: no schemas named", ErrIncompleteTarget)
		}
		for _, name := range ref.Schemas {
			if schemaByName(doc, name) == nil {
				return fmt.Errorf("%w %q in spec %q", ErrUnknownSchema, name, ref.Spec)
			}
		}
	}
	return nil
}

func findOperation(doc *openapi3.T, path, method string) (*openapi3.Operation, error) {
	if path == "" || method == "" {
		return nil, fmt.Errorf("%w: path and method are required", ErrIncompleteTarget)
	}
	if doc.Paths == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownPath, path)
	}
	item := doc.Paths.Value(path)
	if item == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownPath, path)
	}
	op := item.GetOperation(strings.ToUpper(method))
	if op == nil {
		return nil, fmt.Errorf("%w %s for path %q", ErrUnknownMethod, strings.ToUpper(method), path)
	}
	return op, nil
}

func schemaByName(doc *openapi3.T, name string) *openapi3.SchemaRef {
	if doc.Components == nil {
		return nil
	}
	s := doc.Components.Schemas[name]
	if s == nil || s.Value == nil {
		return nil
	}
	return s
}

// Blocks is the Blocks hook of markdown.HTMLOptions for a page: each
// openapi block is rendered from the spec lookup finds, or, when the spec,
// path, method or schema is missing, as the inert default box with a note
// saying what is missing. A lookup error fails the render.
func Blocks(ctx context.Context, lookup SpecLookup) map[string]markdown.BlockRenderer {
	// One page may name a spec many times: look it up once.
	cache := map[string]*openapi3.T{}
	get := func(slug string) (*openapi3.T, error) {
		if doc, ok := cache[slug]; ok {
			return doc, nil
		}
		doc, err := lookup(ctx, slug)
		if err != nil {
			return nil, err
		}
		cache[slug] = doc
		return doc, nil
	}
	render := func(b markdown.Block) (template.HTML, error) {
		ref := markdown.SpecRefOf(b.Name, b.Attrs)
		doc, err := get(ref.Spec)
		if err != nil {
			return "", err
		}
		if err := Check(doc, ref); err != nil {
			return unresolved(ref, err), nil
		}
		if ref.Kind == "openapi-schemas" {
			return RenderSchemas(doc, ref.Schemas)
		}
		return RenderOperation(doc, ref.Path, ref.Method)
	}
	return map[string]markdown.BlockRenderer{"openapi-operation": render, "openapi-schemas": render}
}

// unresolved is the inert box of a block whose target is missing, with a
// note naming the problem.
func unresolved(ref markdown.SpecRef, err error) template.HTML {
	box := markdown.DefaultOperationHTML(ref.Method, ref.Path)
	if ref.Kind == "openapi-schemas" {
		box = markdown.DefaultSchemasHTML(ref.Schemas)
	}
	note := `<p class="openapi-missing">` + template.HTMLEscapeString(capitalize(err.Error())) + ".</p>"
	return template.HTML(strings.Replace(box, "</div>", note+"</div>", 1))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
