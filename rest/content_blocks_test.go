package rest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// blocksMarkdown is a page using GitBook's block syntax.
const blocksMarkdown = "# Blocks\n\n{% hint style=\"warning\" %}\nMind the **gap**.\n{% endhint %}\n\n" +
	"{% tabs %}\n{% tab title=\"Go\" %}\n```go\nfmt.Println(1)\n```\n{% endtab %}\n\n{% tab title=\"Shell\" %}\nRun it.\n{% endtab %}\n{% endtabs %}\n\n" +
	"{% content-ref url=\"other.md\" %}\n[other.md](other.md)\n{% endcontent-ref %}\n\n" +
	"{% embed url=\"https://www.example.com/video\" %}\nA caption\n{% endembed %}\n\n" +
	"{% openapi-operation spec=\"petstore\" path=\"/pets\" method=\"get\" %}\n[OpenAPI petstore](https://example.com/pets.yaml)\n{% endopenapi-operation %}\n\n" +
	"{% openapi-schemas spec=\"petstore\" schemas=\"Pet,Error\" %}\n"

// TestPageBlocksRoundTrip: a page holding GitBook blocks reads back
// verbatim as markdown, and as the reference's document blocks (checked
// against the reference by s.Call); a comment sent as a document with those
// blocks is stored as their tags.
func TestPageBlocksRoundTrip(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newCommentFixture(t, s)
		cr := f.newCR(t, "blocks")
		f.edit(t, cr, insertPage(blocksMarkdown, nil))
		f.merge(t, cr, 200)
		var id string
		for _, p := range f.tree(t, "/v1/spaces/"+f.space+"/content/pages") {
			if p.Title == "Blocks" {
				id = p.ID
			}
		}
		if id == "" {
			t.Fatal("page not found")
		}
		if got := f.markdownOf(t, id); got != blocksMarkdown {
			t.Errorf("markdown read back:\n%s\nwant\n%s", got, blocksMarkdown)
		}
		var page struct {
			Document struct {
				Nodes []struct {
					Type   string
					IsVoid bool
					Data   map[string]any
					Nodes  []struct {
						Type string
						Data map[string]any
					}
				}
			}
		}
		r := s.Call(t, "getPageById", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/"+id+"?format=document", nil, 200)
		r.Decode(t, &page)
		testkit.CheckSchema(t, "JSONDocument", r.JSON(t)["document"]) // getPageById's body is not contract-checked
		var types []string
		for _, n := range page.Document.Nodes {
			types = append(types, n.Type)
		}
		if got := strings.Join(types, " "); got != "heading-1 hint tabs content-ref embed openapi-operation openapi-schemas" {
			t.Fatalf("blocks: %s", got)
		}
		nodes := page.Document.Nodes
		js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
		if nodes[1].Data["style"] != "warning" || nodes[2].Nodes[1].Type != "tabs-item" || nodes[2].Nodes[1].Data["title"] != "Shell" ||
			js(nodes[3].Data["ref"]) != `{"kind":"url","url":"other.md"}` || nodes[4].Data["url"] != "https://www.example.com/video" ||
			js(nodes[5].Data) != `{"method":"get","path":"/pets","ref":{"kind":"openapi","spec":"petstore"}}` ||
			js(nodes[6].Data) != `{"ref":{"kind":"openapi","spec":"petstore"},"schemas":["Pet","Error"]}` || !nodes[5].IsVoid {
			t.Errorf("document: %s", js(nodes))
		}

		// A document body with blocks becomes their tags.
		doc := map[string]any{"object": "document", "nodes": []any{
			map[string]any{"object": "block", "type": "hint", "data": map[string]any{"style": "success"}, "nodes": []any{
				map[string]any{"object": "block", "type": "paragraph", "nodes": []any{map[string]any{"object": "text", "leaves": []any{map[string]any{"object": "leaf", "text": "Done."}}}}}}},
			map[string]any{"object": "block", "type": "openapi-operation", "isVoid": true, "data": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": "petstore"}, "path": "/pets", "method": "POST"}},
		}}
		c := f.post(t, "postCommentInSpace", f.commenter.Token, f.spacePath(), map[string]any{"body": map[string]any{"document": doc}, "page": id})
		want := "{% hint style=\"success\" %}\nDone.\n{% endhint %}\n\n{% openapi-operation spec=\"petstore\" path=\"/pets\" method=\"post\" %}\n"
		if got := c["body"].(map[string]any)["markdown"]; got != want {
			t.Errorf("comment body %q, want %q", got, want)
		}
		msg := s.Fail(t, "postCommentInSpace", f.commenter.Token, "POST", f.spacePath()+"/comments", map[string]any{"body": map[string]any{"document": map[string]any{
			"object": "document", "nodes": []any{map[string]any{"object": "block", "type": "embed", "isVoid": true, "data": map[string]any{}}}}}, "page": id}, 400)
		if !strings.Contains(msg, "body.document") || !strings.Contains(msg, "data.url") {
			t.Errorf("embed without url: %q", msg)
		}
	})
}
