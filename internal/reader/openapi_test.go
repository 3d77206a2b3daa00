package reader_test

import (
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// petsSpec is an OpenAPI document whose one operation is summarized as
// summary.
func petsSpec(summary string) string {
	return "openapi: 3.0.3\ninfo: {title: Pets, version: '1'}\npaths:\n  /pets:\n    get:\n      summary: " + summary +
		"\n      parameters:\n        - {name: limit, in: query, schema: {type: integer}}\n" +
		"      responses:\n        '200': {description: the pets}\n"
}

// TestReaderOpenAPIBlocks: a published page's API reference block shows the
// operation from the spec's latest version, and shows the next version
// once the spec is processed again (the page's ETag changes with it).
func TestReaderOpenAPIBlocks(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, nil)
			d := newDocs(t, s.Server)
			spec := "/orgs/" + d.org + "/openapi/pets"
			processed := func(want string) {
				t.Helper()
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
					got := api(t, s.Server, d.token, "GET", spec, nil, 200)
					if got["processingState"] == "complete" && got["lastVersion"] != want {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("spec not processed: %v", got)
					}
				}
			}
			api(t, s.Server, d.token, "POST", "/orgs/"+d.org+"/openapi",
				map[string]any{"slug": "pets", "source": map[string]any{"text": petsSpec("List all pets")}}, 201)
			processed("")
			seed(t, s.Server, d.apiSpace, []pg{{title: "Reference", slug: "reference",
				md: "# Reference\n\n{% openapi-operation spec=\"pets\" path=\"/pets\" method=\"get\" %}\n[pets](https://example.com)\n{% endopenapi-operation %}\n"}})

			first := get(t, s.URL, "", "/s/docs/api/").must(t, 200, "reference")
			first.has(t, "reference", "/pets", "List all pets", "limit")
			first.hasNot(t, "reference", "<script")
			get(t, s.URL, "", "/s/docs/api/", "If-None-Match", first.header.Get("ETag")).must(t, 304, "unchanged")

			version := api(t, s.Server, d.token, "GET", spec, nil, 200)["lastVersion"]
			api(t, s.Server, d.token, "PUT", spec, map[string]any{"source": map[string]any{"text": petsSpec("List every pet")}}, 200)
			processed(version.(string))
			next := get(t, s.URL, "", "/s/docs/api/", "If-None-Match", first.header.Get("ETag")).must(t, 200, "new version")
			next.has(t, "new version", "List every pet")
			if strings.Contains(next.body, "List all pets") {
				t.Error("the page still shows the old version")
			}
		})
	}
}
