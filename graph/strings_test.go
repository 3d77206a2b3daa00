package graph_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestStringsWithNULOrInvalidUTF8AreBadUserInput: variables and literal
// arguments holding NUL or invalid UTF-8 are refused with BAD_USER_INPUT
// naming the argument before any resolver runs (PostgreSQL failed with an
// internal error, SQLite stored them), alike on both databases, and
// nothing changes.
func TestStringsWithNULOrInvalidUTF8AreBadUserInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		space := s.MustGraphQL(t, admin.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook"}) { id } }`,
			map[string]any{"org": org})["createSpace"].(map[string]any)["id"].(string)
		cr := s.MustGraphQL(t, admin.Token, `mutation($s: ID!) { createChangeRequest(spaceId: $s) { id } }`,
			map[string]any{"s": space})["createChangeRequest"].(map[string]any)["id"].(string)
		cases := []struct {
			name, query string
			vars        map[string]any
			field, text string // extensions.field, and a piece of the message
		}{
			{"variable", `mutation($org: ID!, $in: CreateSpaceInput!) { createSpace(organizationId: $org, input: $in) { id } }`,
				map[string]any{"org": org, "in": map[string]any{"title": "a\x00b"}}, "in.title", "variable $in.title contains a NUL character"},
			{"literal", `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "a\u0000b"}) { id } }`,
				map[string]any{"org": org}, "input.title", "argument input.title of createSpace contains a NUL character"},
			{"markdown in a list", `mutation($s: ID!, $cr: String!, $md: String!) { updateChangeRequestContent(spaceId: $s, id: $cr,
				changes: [{operation: insert_page, title: "Intro", markdown: $md}]) { id } }`,
				map[string]any{"s": space, "cr": cr, "md": "# Intro\n\x00"}, "md", "variable $md contains a NUL character"},
			{"literal markdown", `mutation($s: ID!, $cr: String!) { updateChangeRequestContent(spaceId: $s, id: $cr,
				changes: [{operation: insert_page, markdown: "# Intro"}, {operation: insert_page, markdown: "\u0000"}]) { id } }`,
				map[string]any{"s": space, "cr": cr}, "changes[1].markdown", "argument changes[1].markdown of updateChangeRequestContent"},
			{"search in a fragment", `query($s: ID!) { space(id: $s) { ...F } } fragment F on Space { search(query: "x\u0000") { totalCount } }`,
				map[string]any{"s": space}, "query", "argument query of search contains a NUL character"},
			{"id", `query { space(id: "\u0000") { id } }`, nil, "id", "argument id of space contains a NUL character"},
		}
		before := s.Snapshot(t)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				data, errs := s.GraphQL(t, admin.Token, c.query, c.vars)
				if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || errs[0].Extensions["field"] != c.field ||
					!strings.Contains(errs[0].Message, c.text) || data != nil {
					t.Fatalf("data %v, errors %+v; want one BAD_USER_INPUT on %s saying %q", data, errs, c.field, c.text)
				}
			})
		}
		t.Run("invalid UTF-8 in a GET document", func(t *testing.T) {
			q := url.Values{"query": {`query { space(id: "caf` + "\xe9" + `") { id } }`}}
			resp := s.Request(t, admin.Token, "GET", "/graphql?"+q.Encode(), nil)
			var out struct {
				Data   any
				Errors []testkit.GraphQLError
			}
			if err := json.Unmarshal(resp.Body, &out); err != nil {
				t.Fatalf("%v: %s", err, resp.Body)
			}
			if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(out.Errors[0].Message, "not valid UTF-8") {
				t.Fatalf("%s", resp.Body)
			}
		})
		// encoding/json would have turned these into U+FFFD silently.
		for name, title := range map[string]string{"invalid UTF-8 variable": "caf\xe9", "lone surrogate variable": `\ud800`} {
			t.Run(name, func(t *testing.T) {
				body := `{"query":"mutation($org: ID!, $in: CreateSpaceInput!) { createSpace(organizationId: $org, input: $in) { id } }",` +
					`"variables":{"org":"` + org + `","in":{"title":"` + title + `"}}}`
				var out struct {
					Data   any
					Errors []testkit.GraphQLError
				}
				resp := s.Request(t, admin.Token, "POST", "/graphql", body)
				if err := json.Unmarshal(resp.Body, &out); err != nil {
					t.Fatalf("%v: %s", err, resp.Body)
				}
				if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || out.Errors[0].Extensions["field"] != "in.title" ||
					!strings.Contains(out.Errors[0].Message, "variable $in.title is not valid UTF-8") || out.Data != nil {
					t.Fatalf("%s", resp.Body)
				}
			})
		}
		s.Unchanged(t, before)
	})
}
