package graph_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestAnonymousGraphQL: /graphql with no Authorization header runs as an
// anonymous caller. Every root field answers as for a stranger, whatever
// the object: the viewer is UNAUTHENTICATED, someone's organization, space,
// collection, site or user NOT_FOUND, with nothing of them in the answer and
// nothing failing inside; a mutation is refused before it runs (401, with
// the challenge, and nothing written); __typename answers.
func TestAnonymousGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		bob, org := s.NewUser(t, "bob@example.com", "Bob's")
		sp := s.Call(t, "createSpace", bob.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Private"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 3)
		col := s.MustGraphQL(t, bob.Token, `mutation($o: ID!) { createCollection(organizationId: $o, input: {title: "Shelf"}) { id } }`,
			map[string]any{"o": org})["createCollection"].(map[string]any)["id"].(string)
		site := s.MustGraphQL(t, bob.Token, `mutation($o: ID!) { createSite(organization: $o, input: {title: "Unpublished"}) { id } }`,
			map[string]any{"o": org})["createSite"].(map[string]any)["id"].(string)
		s.MustGraphQL(t, bob.Token, `mutation($o: ID!) { createCustomField(organizationId: $o, input: {name: "team", type: text}) { name } }`,
			map[string]any{"o": org})

		if data := s.MustGraphQL(t, "", `{ __typename }`, nil); data["__typename"] != "Query" {
			t.Fatalf("__typename: %v", data)
		}
		cases := []struct {
			field, query, code string
			path               string // the error's path when it is not [field]
		}{
			{"viewer", `{ viewer { user { id email } } }`, "UNAUTHENTICATED", ""},
			{"organization", `{ organization(id: "` + org + `") { id title } }`, "NOT_FOUND", ""},
			{"space", `{ space(id: "` + sp + `") { id title revision { pages { title } } } }`, "NOT_FOUND", ""},
			{"collection", `{ collection(id: "` + col + `") { id title } }`, "NOT_FOUND", ""},
			{"site", `{ site(id: "` + site + `") { id title } }`, "NOT_FOUND", ""},
			{"publishedSite", `{ publishedSite(id: "` + site + `") { id title } }`, "NOT_FOUND", ""},
			{"user", `{ user(id: "` + bob.ID + `") { id email } }`, "NOT_FOUND", ""},
			{"node", `{ node(id: "` + sp + `") { id } }`, "NOT_FOUND", ""},
			{"nodes", `{ nodes(ids: ["` + sp + `"]) { id } }`, "NOT_FOUND", "[nodes 0]"},
			{"customField", `{ customField(organizationId: "` + org + `", name: "team") { name } }`, "NOT_FOUND", ""},
			{"memberSpaces", `{ memberSpaces(organizationId: "` + org + `", userId: "` + bob.ID + `") { totalCount } }`, "NOT_FOUND", ""},
			{"organizationInviteLink", `{ organizationInviteLink(organizationId: "` + org + `", id: "nope") { id } }`, "NOT_FOUND", ""},
			{"openAPISpec", `{ openAPISpec(organizationId: "` + org + `", slug: "pets") { slug } }`, "NOT_FOUND", ""},
			{"samlProvider", `{ samlProvider(organizationId: "` + org + `", id: "nope") { id } }`, "NOT_FOUND", ""},
			{"translation", `{ translation(organizationId: "` + org + `", id: "nope") { id } }`, "NOT_FOUND", ""},
			{"webhook", `{ webhook(organizationId: "` + org + `", id: "nope") { id } }`, "NOT_FOUND", ""},
			{"customHostname", `{ customHostname(hostname: "docs.example.test") { hostname } }`, "NOT_FOUND", ""},
			{"spaceGitInfo", `{ spaceGitInfo(spaceId: "` + sp + `") { repoName } }`, "NOT_FOUND", ""},
			{"publishedContentByUrl", `{ publishedContentByUrl(url: "` + s.URL + `/s/` + site + `/") { content { siteId } } }`, "NOT_FOUND", ""},
		}
		for _, c := range cases {
			t.Run(c.field, func(t *testing.T) {
				resp := call(t, s, "POST", "/graphql", "", postBody(c.query, nil, nil))
				a := decodeAnswer(t, resp.Body)
				path := c.path
				if path == "" {
					path = "[" + c.field + "]"
				}
				empty := a.Data[c.field] == nil || fmt.Sprint(a.Data[c.field]) == "[<nil>]"
				if resp.Status != 200 || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != c.code ||
					fmt.Sprint(a.Errors[0].Path) != path || !empty {
					t.Fatalf("%d %s", resp.Status, resp.Body)
				}
				for _, secret := range []string{"bob@example.com", "Bob's", "Private", "Shelf", "Unpublished", "Page 0"} {
					if strings.Contains(string(resp.Body), secret) {
						t.Fatalf("the answer shows %q: %s", secret, resp.Body)
					}
				}
			})
		}
		t.Run("every root field is covered", func(t *testing.T) {
			data := s.MustGraphQL(t, bob.Token, `{ __schema { queryType { fields { name } } } }`, nil)
			var fields []struct{ Name string }
			raw, _ := json.Marshal(data["__schema"].(map[string]any)["queryType"].(map[string]any)["fields"])
			_ = json.Unmarshal(raw, &fields)
			// apiInformation answers anyone (TestPublishedContentByURLGraphQL).
			tried := map[string]bool{"apiInformation": true}
			for _, c := range cases {
				tried[c.field] = true
			}
			for _, f := range fields {
				if !tried[f.Name] {
					t.Errorf("root field %s is not tried anonymously here", f.Name)
				}
			}
		})
		t.Run("a mutation", func(t *testing.T) {
			before := s.Snapshot(t)
			resp := call(t, s, "POST", "/graphql", "", postBody(`mutation($o: ID!) { createCollection(organizationId: $o, input: {title: "Anon"}) { id } }`,
				map[string]any{"o": org}, nil))
			e := requestError(t, resp, 401, "UNAUTHENTICATED")
			if !strings.Contains(e.Message, "mutation needs an API token") || resp.Header.Get("WWW-Authenticate") != `Bearer realm="folio"` {
				t.Fatalf("%s %v", e.Message, resp.Header)
			}
			s.Unchanged(t, before)
		})
	})
}
