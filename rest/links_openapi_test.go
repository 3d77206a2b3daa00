package rest_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/ent/openapispecversion"
	"github.com/folio/folio/internal/testkit"
)

const petstoreSpec = `openapi: 3.0.3
info: {title: Petstore, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200": {description: ok}
components:
  schemas:
    Pet: {type: object}
`

// TestOpenAPIBlockLinks: API reference blocks are reported by the links
// operations like links: ok when the organization's spec has the block's
// operation or schemas in its latest version, broken for an unknown spec
// (or one without a version yet), path, method or schema; a new version of
// the spec changes the status with no edit of the page.
func TestOpenAPIBlockLinks(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)
		liveEdit(t, s, f.editor.Token, f.space, insertPage("# API\n\n"+
			"{% openapi-operation spec=\"petstore\" path=\"/pets\" method=\"get\" %}\n\n"+
			"{% openapi-operation spec=\"petstore\" path=\"/pets\" method=\"post\" %}\n\n"+
			"{% openapi-operation spec=\"petstore\" path=\"/owners\" method=\"get\" %}\n\n"+
			"{% openapi-schemas spec=\"petstore\" schemas=\"Pet\" %}\n\n"+
			"{% openapi-schemas spec=\"petstore\" schemas=\"Pet,Owner\" %}\n\n"+
			"{% openapi-operation spec=\"nosuchspec\" path=\"/pets\" method=\"get\" %}\n\n"+
			"[site](https://example.com)\n", nil))

		type usage struct {
			Status          string
			TargetReference map[string]any
		}
		read := func() (map[string]string, int, int) {
			var links struct {
				Items []usage
				Stats struct {
					Total  int
					Broken struct{ Total int }
				}
			}
			s.Call(t, "listSpaceLinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/links", nil, 200).Decode(t, &links)
			out := map[string]string{}
			for _, it := range links.Items {
				u, _ := it.TargetReference["url"].(string)
				if it.TargetReference["kind"] != "url" {
					t.Fatalf("target %v", it.TargetReference)
				}
				out[u] = it.Status
			}
			return out, links.Stats.Total, links.Stats.Broken.Total
		}
		status := func(m map[string]string, part string) string {
			var hits []string
			for u, st := range m {
				if strings.Contains(u, part) {
					hits = append(hits, st)
				}
			}
			sort.Strings(hits)
			return strings.Join(hits, ",")
		}

		// No spec yet: every block is broken.
		m, total, broken := read()
		if total != 7 || broken != 6 || status(m, `https://example.com`) != "ok" {
			t.Fatalf("before the spec: %d/%d %v", broken, total, m)
		}

		// The spec with a version.
		spec := s.Client().OpenAPISpec.Create().SetOrganizationID(f.org).SetSlug("petstore").SetSourceText(petstoreSpec).SaveX(testkit.Fixture(context.Background()))
		v := s.Client().OpenAPISpecVersion.Create().SetSpecID(spec.ID).SetHash("h1").SetRoot("spec.yaml").
			SetFormat(openapispecversion.FormatYaml).SetFiles(map[string]string{"spec.yaml": petstoreSpec}).SetPublicKey("k1").SaveX(testkit.Fixture(context.Background()))
		s.Client().OpenAPISpec.UpdateOne(spec).SetLastVersionID(v.ID).ExecX(testkit.Fixture(context.Background()))
		m, total, broken = read()
		want := map[string]string{
			`{% openapi-operation spec="petstore" path="/pets" method="get" %}`:   "ok",
			`{% openapi-operation spec="petstore" path="/pets" method="post" %}`:  "broken",
			`{% openapi-operation spec="petstore" path="/owners" method="get" %}`: "broken",
			`{% openapi-schemas spec="petstore" schemas="Pet" %}`:                 "ok",
			`{% openapi-schemas spec="petstore" schemas="Pet,Owner" %}`:           "broken",
			`{% openapi-operation spec="nosuchspec" path="/pets" method="get" %}`: "broken",
			`https://example.com`: "ok",
		}
		if total != 7 || broken != 4 || len(m) != len(want) {
			t.Fatalf("with the spec: %d/%d %v", broken, total, m)
		}
		for u, st := range want {
			if m[u] != st {
				t.Errorf("%s: %q, want %q", u, m[u], st)
			}
		}

		// A new version with POST /pets and Owner: fixed without editing.
		v2spec := strings.Replace(petstoreSpec, "    get:\n", "    post:\n      responses:\n        \"201\": {description: created}\n    get:\n", 1) +
			"    Owner: {type: object}\n"
		v2 := s.Client().OpenAPISpecVersion.Create().SetSpecID(spec.ID).SetHash("h2").SetRoot("spec.yaml").
			SetFormat(openapispecversion.FormatYaml).SetFiles(map[string]string{"spec.yaml": v2spec}).SetPublicKey("k2").SaveX(testkit.Fixture(context.Background()))
		s.Client().OpenAPISpec.UpdateOne(spec).SetLastVersionID(v2.ID).ExecX(testkit.Fixture(context.Background()))
		m, _, broken = read()
		if broken != 2 || status(m, `method="post"`) != "ok" || status(m, `schemas="Pet,Owner"`) != "ok" {
			t.Fatalf("after a new version: %d %v", broken, m)
		}

		// GraphQL: kind openapi, the tag as url.
		data := s.MustGraphQL(t, f.reader.Token, `query($sp: ID!) { space(id: $sp) { links(status: broken) { broken items { target { status kind url } } } } }`, map[string]any{"sp": f.space})
		items := data["space"].(map[string]any)["links"].(map[string]any)["items"].([]any)
		var kinds []string
		for _, it := range items {
			tg := it.(map[string]any)["target"].(map[string]any)
			kinds = append(kinds, tg["kind"].(string)+" "+tg["url"].(string))
		}
		sort.Strings(kinds)
		if strings.Join(kinds, "|") != `openapi {% openapi-operation spec="nosuchspec" path="/pets" method="get" %}|openapi {% openapi-operation spec="petstore" path="/owners" method="get" %}` {
			t.Errorf("graphql: %v", kinds)
		}
	})
}
