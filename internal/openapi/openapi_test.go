package openapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func memFetch(files map[string]string) Fetch {
	return func(_ context.Context, u string) ([]byte, error) {
		for name, text := range files {
			if strings.HasSuffix(u, "/"+name) {
				return []byte(text), nil
			}
		}
		return nil, fmt.Errorf("the server answered 404 Not Found")
	}
}

const root31 = `openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                $ref: "schemas/pet.yaml"
`

func TestMultiFile(t *testing.T) {
	res, p := Process(context.Background(), Source{URL: "http://x/api/openapi.yaml"},
		memFetch(map[string]string{"openapi.yaml": root31, "schemas/pet.yaml": "type: object\nproperties:\n  name: {type: string}\n"}), Limits{})
	if p != nil {
		t.Fatal(p)
	}
	if len(res.Files) != 2 || res.Root != "openapi.yaml" || res.Format != "yaml" || res.Doc.Paths.Find("/pets") == nil {
		t.Fatalf("%+v", res)
	}
}

func TestTextRelativeRef(t *testing.T) {
	_, p := Process(context.Background(), Source{Text: root31}, nil, Limits{})
	if p == nil || p.Code != ParseError || !strings.Contains(p.Errors[0].Message, "schemas/pet.yaml") || p.Errors[0].Line != 12 {
		t.Fatalf("%+v", p)
	}
}

func TestBroken(t *testing.T) {
	_, p := Process(context.Background(), Source{Text: "openapi: 3.0.3\ninfo: [\n  bad"}, nil, Limits{})
	if p == nil || p.Code != ParseError || p.Errors[0].Line == 0 {
		t.Fatalf("%+v", p)
	}
	t.Log(p)
}

func TestSwagger2(t *testing.T) {
	res, p := Process(context.Background(), Source{Text: `{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`}, nil, Limits{})
	if p != nil {
		t.Fatal(p)
	}
	if res.Format != "json" || res.Doc.Paths.Find("/a") == nil {
		t.Fatal(res)
	}
}

func TestAliasBomb(t *testing.T) {
	bomb := "openapi: 3.0.0\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
	_, p := Process(context.Background(), Source{Text: bomb}, nil, Limits{YAMLNodes: 10000})
	if p == nil || !strings.Contains(p.Errors[0].Message, "aliases") {
		t.Fatalf("%+v", p)
	}
}
