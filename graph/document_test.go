package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestDocumentsGraphQL: Page.evaluatedDocument and Page.metaLinks on a
// revision's page, Space.embed's refusal of a bad URL naming url, and the
// refusal of both page fields inside Revision.pages.
func TestDocumentsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		owner, org := s.NewUser(t, "gql-docs@example.com", "Docs")
		data, errs := s.GraphQL(t, owner.Token, `mutation($o: ID!) { createSpace(organizationId: $o, input: {title: "Guide"}) { id } }`, map[string]any{"o": org})
		if len(errs) > 0 {
			t.Skipf("createSpace: %v", errs)
		}
		space := data["createSpace"].(map[string]any)["id"].(string)
		s.SeedPagesWith(t, space, 2, func(i int) string {
			return "# P\n\n{% if condition=\"visitor.claims.beta == true\" %}\nBeta only.\n{% endif %}\n\nFor all.\n"
		})
		q := `query($s: ID!) { space(id: $s) { embed(url: "notaurl") { type } revision { pages { pages { pageId
			evaluatedDocument metaLinks { canonical { kind page } previous { page } next { page } parent { page } alternates { url } } } } } } }`
		_, errs = s.GraphQL(t, owner.Token, q, map[string]any{"s": space})
		if len(errs) == 0 || !strings.Contains(errs[0].Message, "Revision.pages") && !strings.Contains(errs[0].Message, "url") {
			t.Fatalf("errors: %v", errs)
		}
		q = `query($s: ID!) { space(id: $s) { revision { id pages { pageId pages { pageId } } } } }`
		data, errs = s.GraphQL(t, owner.Token, q, map[string]any{"s": space})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		rev := data["space"].(map[string]any)["revision"].(map[string]any)
		root := rev["pages"].([]any)[0].(map[string]any)
		child := root["pages"].([]any)[0].(map[string]any)["pageId"].(string)
		q = `query($s: ID!, $p: ID!) { space(id: $s) { revision { page(id: $p) { evaluatedDocument stored: evaluatedDocument(evaluated: none)
			metaLinks { canonical { kind page } previous { page } next { page } parent { page } alternates { url } } } } } }`
		data, errs = s.GraphQL(t, owner.Token, q, map[string]any{"s": space, "p": child})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		page := data["space"].(map[string]any)["revision"].(map[string]any)["page"].(map[string]any)
		ev, stored := jsonOf(page["evaluatedDocument"]), jsonOf(page["stored"])
		if strings.Contains(ev, "Beta only.") || !strings.Contains(ev, "For all.") || !strings.Contains(stored, "Beta only.") {
			t.Fatalf("evaluated %s\nstored %s", ev, stored)
		}
		links := jsonOf(page["metaLinks"])
		want := `{"alternates":[],"canonical":{"kind":"page","page":"` + child + `"},"next":null,"parent":{"page":"` + root["pageId"].(string) +
			`"},"previous":{"page":"` + root["pageId"].(string) + `"}}`
		if links != want {
			t.Fatalf("metaLinks %s\nwant %s", links, want)
		}
		_, errs = s.GraphQL(t, owner.Token, `query($s: ID!) { space(id: $s) { embed(url: "notaurl") { type } } }`, map[string]any{"s": space})
		if len(errs) == 0 || !strings.Contains(jsonOf(errs), "url") {
			t.Fatalf("bad url: %v", errs)
		}
	})
}

// jsonOf is v as compact JSON (maps with sorted keys).
func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }
