package openapiref

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/folio/folio/internal/markdown"
)

func petstore(t testing.TB) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile("testdata/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestRenderOperation(t *testing.T) {
	doc := petstore(t)
	h, err := RenderOperation(doc, "/pets", "GET")
	if err != nil {
		t.Fatal(err)
	}
	s := string(h)
	for _, want := range []string{
		`<section class="openapi-operation" id="op-get-pets">`,
		`<span class="openapi-method openapi-method-get">GET</span> <code class="openapi-path">/pets</code>`,
		`<strong>List pets</strong>`, `Lists <strong>all</strong> pets.`,
		`<code>X-Trace</code>`, `<code>limit</code>`, `integer (int32)`, `<td>query</td>`,
		`<code class="openapi-status">200</code>`, `array of Pet`,
		`<code>name</code> <span class="openapi-type">string</span> <span class="openapi-required">required</span>`,
		`<code>owner</code> <span class="openapi-type">Owner</span>`,
		`one of &#34;available&#34;, &#34;sold&#34;`,
		`<code class="openapi-status">default</code>`, `<code>code</code> <span class="openapi-type">integer</span> <span class="openapi-required">required</span>`, `<code>message</code>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	// Recursion (Pet -> Owner -> Pet) stops.
	if n := strings.Count(s, "<code>owner</code>"); n != 1 {
		t.Errorf("owner shown %d times", n)
	}

	h, err = RenderOperation(doc, "/pets", "post")
	if err != nil || !strings.Contains(string(h), "Request body <span class=\"openapi-required\">required</span>") || !strings.Contains(string(h), "application/json") {
		t.Errorf("post: %v\n%s", err, h)
	}
	for _, c := range []struct {
		path, method string
		err          error
	}{{"/nope", "get", ErrUnknownPath}, {"/pets", "delete", ErrUnknownMethod}, {"", "get", ErrIncompleteTarget}} {
		if _, err := RenderOperation(doc, c.path, c.method); !errors.Is(err, c.err) {
			t.Errorf("%s %s: %v, want %v", c.method, c.path, err, c.err)
		}
	}
}

func TestRenderSchemas(t *testing.T) {
	doc := petstore(t)
	h, err := RenderSchemas(doc, []string{"Pet", "Error", "Shape"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="schema-pet"`, `<code>Pet</code> <span class="openapi-type">object</span>`, `<code>tags</code> <span class="openapi-type">array of string</span>`, `One of:`, `<span class="openapi-type">Owner</span>`} {
		if !strings.Contains(string(h), want) {
			t.Errorf("missing %s in\n%s", want, h)
		}
	}
	if _, err := RenderSchemas(doc, []string{"Pet", "Nope"}); !errors.Is(err, ErrUnknownSchema) {
		t.Errorf("unknown schema: %v", err)
	}
}

func TestCheck(t *testing.T) {
	doc := petstore(t)
	for _, c := range []struct {
		ref markdown.SpecRef
		doc *openapi3.T
		err error
	}{
		{markdown.SpecRef{Kind: "openapi-operation", Spec: "p", Path: "/pets/{petId}", Method: "get"}, doc, nil},
		{markdown.SpecRef{Kind: "openapi-operation", Spec: "p", Path: "/pets/{id}", Method: "get"}, doc, ErrUnknownPath},
		{markdown.SpecRef{Kind: "openapi-operation", Spec: "p", Path: "/pets", Method: "patch"}, doc, ErrUnknownMethod},
		{markdown.SpecRef{Kind: "openapi-operation", Spec: "p", Path: "/pets", Method: "get"}, nil, ErrUnknownSpec},
		{markdown.SpecRef{Kind: "openapi-schemas", Spec: "p", Schemas: []string{"Pet", "Owner"}}, doc, nil},
		{markdown.SpecRef{Kind: "openapi-schemas", Spec: "p", Schemas: []string{"Cat"}}, doc, ErrUnknownSchema},
	} {
		if err := Check(c.doc, c.ref); !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%+v: %v, want %v", c.ref, err, c.err)
		}
	}
}

var activeRE = regexp.MustCompile(`(?i)<script|<[a-z][^>]*\son[a-z]+=|<[a-z][^>]*javascript:`)

// A page's openapi blocks render from the spec through RenderHTML, which
// sanitizes them; a missing spec or operation shows the inert box with a
// note; the spec is looked up once per page.
func TestBlocksInPage(t *testing.T) {
	doc := petstore(t)
	lookups := 0
	lookup := func(_ context.Context, slug string) (*openapi3.T, error) {
		lookups++
		if slug == "petstore" {
			return doc, nil
		}
		return nil, nil
	}
	src := "# API\n\n{% openapi-operation spec=\"petstore\" path=\"/pets/{petId}\" method=\"get\" %}\n[petstore](x)\n{% endopenapi-operation %}\n\n" +
		"{% openapi-operation spec=\"petstore\" path=\"/nope\" method=\"get\" %}\n\n" +
		"{% openapi-operation spec=\"gone\" path=\"/pets\" method=\"get\" %}\n\n" +
		"{% openapi-schemas spec=\"petstore\" schemas=\"Pet\" %}\n"
	r, err := markdown.RenderHTML(src, markdown.HTMLOptions{Blocks: Blocks(context.Background(), lookup)})
	if err != nil {
		t.Fatal(err)
	}
	h := string(r.HTML)
	for _, want := range []string{
		`<section class="openapi-operation" id="op-get-pets-petid">`, `Info for a pet &#34;&lt;img src=x onerror=alert(1)&gt;&#34;`,
		`<p class="openapi-missing">Unknown path &#34;/nope&#34;.</p>`,
		`<p class="openapi-missing">Unknown OpenAPI spec &#34;gone&#34;.</p>`,
		`<section class="openapi-schemas">`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %s in\n%s", want, h)
		}
	}
	if lookups != 2 {
		t.Errorf("%d lookups, want 2 (one per spec)", lookups)
	}
	if m := activeRE.FindString(h); m != "" {
		t.Errorf("active content %q in\n%s", m, h)
	}
	boom := errors.New("db down")
	if _, err := markdown.RenderHTML(src, markdown.HTMLOptions{Blocks: Blocks(context.Background(), func(context.Context, string) (*openapi3.T, error) { return nil, boom })}); !errors.Is(err, boom) {
		t.Errorf("lookup error: %v", err)
	}
}

// A spec that nests deeply or widely still renders a bounded outline.
func TestOutlineBounded(t *testing.T) {
	doc := &openapi3.T{OpenAPI: "3.0.0", Components: &openapi3.Components{Schemas: openapi3.Schemas{}}}
	root := &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: openapi3.Schemas{}}
	for i := range 2000 {
		child := &openapi3.Schema{Type: &openapi3.Types{"object"}, Properties: openapi3.Schemas{"x": {Value: root}}}
		root.Properties["p"+strings.Repeat("a", i%50)+string(rune('a'+i%26))+itoa(i)] = &openapi3.SchemaRef{Value: child}
	}
	doc.Components.Schemas["Big"] = &openapi3.SchemaRef{Value: root}
	h, err := RenderSchemas(doc, []string{"Big"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(h), "<li>"); n > maxSchemaNodes+1 {
		t.Errorf("%d items", n)
	}
}

func itoa(i int) string {
	return strings.TrimLeft(strings.Repeat("0", 4)+string(rune('0'+i/1000%10))+string(rune('0'+i/100%10))+string(rune('0'+i/10%10))+string(rune('0'+i%10)), "")
}

func BenchmarkRenderOperation(b *testing.B) {
	doc := petstore(b)
	for b.Loop() {
		if _, err := RenderOperation(doc, "/pets", "get"); err != nil {
			b.Fatal(err)
		}
	}
}
