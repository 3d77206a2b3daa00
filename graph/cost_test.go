package graph_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/introspection"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/skiplog"
	"github.com/folio/folio/internal/testkit"
)

// refusedBeforeSQL posts query and checks that it is refused with code and
// that it ran no more SQL than a query that reads nothing (the token
// lookups of every request).
func refusedBeforeSQL(t *testing.T, s *testkit.Server, token, query string, vars map[string]any, code string) string {
	t.Helper()
	before := s.Statements()
	s.MustGraphQL(t, token, `{ __typename }`, nil)
	perRequest := s.Statements() - before

	before = s.Statements()
	data, errs := s.GraphQL(t, token, query, vars)
	if len(errs) != 1 || errs[0].Extensions["code"] != code || data != nil {
		t.Fatalf("want one %s error and no data, got data %v errors %+v", code, data, errs[:min(len(errs), 3)])
	}
	if n := s.Statements() - before; n != perRequest {
		t.Fatalf("%d statements for the refused query, want %d (the token lookups alone)", n, perRequest)
	}
	return errs[0].Message
}

// The fan-out (organization → spaces(first: 1000) → organization → …, 168
// bytes) and the space → organization → spaces cycle are refused by their
// cost before any SQL runs.
func TestListFanOutAndCycleRefusedByCost(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "fan@example.com", "Fan")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)

		fanOut := `{viewer{organizations{spaces(first:1000){edges{node{organization{spaces(first:1000){edges{node{organization{spaces(first:1000){edges{node{id title}}}}}}}}}}}}}}`
		msg := refusedBeforeSQL(t, s, u.Token, fanOut, nil, "QUERY_TOO_COMPLEX")
		if !strings.Contains(msg, fmt.Sprintf("limit of %d", graph.MaxComplexity)) || !strings.Contains(msg, "4004004001002") {
			t.Fatalf("message: %s", msg)
		}

		// Four times around at the default page size: 50^4 spaces.
		cycle := `query($s: ID!) { space(id: $s) { organization { spaces { edges { node { organization { spaces { edges { node {
			organization { spaces { edges { node { organization { spaces { edges { node { id title } } } } } } } } } } } } } } } } } }`
		msg = refusedBeforeSQL(t, s, u.Token, cycle, map[string]any{"s": sp}, "QUERY_TOO_COMPLEX")
		if !strings.Contains(msg, "25510203") {
			t.Fatalf("message: %s", msg)
		}
	})
}

// fragmentBomb is n fragments each spreading the next one twice (1.3 KB for
// 30): expanded, 2^30 copies of the last.
func fragmentBomb(n int) string {
	var b strings.Builder
	b.WriteString("query { viewer { user { ...f0 } } }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment f%d on User { id ...f%d ...f%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment f%d on User { id }\n", n)
	return b.String()
}

// The fragment bomb is refused by its cost, computed without expanding it
// (before, the complexity and depth walks expanded every spread: minutes).
func TestFragmentBombRefused(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "bomb@example.com", "Bomb")
	msg := refusedBeforeSQL(t, s, u.Token, fragmentBomb(30), nil, "QUERY_TOO_COMPLEX")
	if !strings.Contains(msg, "2147483649") {
		t.Fatalf("message: %s", msg)
	}
}

// Repeated fields are refused before validation, whose work grows with
// their square: an unknown field among them is not even reported.
func TestDocumentBoundsBeforeValidation(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "doc@example.com", "Doc")
	repeated := "{ viewer { user { nope " + strings.Repeat("id ", 3000) + "} } }"
	msg := refusedBeforeSQL(t, s, u.Token, repeated, nil, "DOCUMENT_TOO_LARGE")
	if want := fmt.Sprintf("query has 3003 fields, more than the limit of %d", graph.MaxFields); msg != want {
		t.Fatalf("message %q, want %q", msg, want)
	}
	wide := "{ viewer { user { " + strings.Repeat("id ", graph.MaxSelections+1) + "} } }"
	msg = refusedBeforeSQL(t, s, u.Token, wide, nil, "DOCUMENT_TOO_LARGE")
	if !strings.Contains(msg, fmt.Sprintf("%d selections, more than the limit of %d", graph.MaxSelections+1, graph.MaxSelections)) {
		t.Fatalf("message: %s", msg)
	}
	// Just within the bounds: validated and answered, and again from the
	// query cache.
	within := "{ viewer { user { " + strings.Repeat("id ", graph.MaxSelections) + "} } }"
	for i := 0; i < 2; i++ {
		if data := s.MustGraphQL(t, u.Token, within, nil); data["viewer"].(map[string]any)["user"].(map[string]any)["id"] != u.ID {
			t.Fatalf("data: %v", data)
		}
	}
}

// The standard introspection query, the organization tree of the
// performance suite and a site-sized set of page trees all pass.
func TestLegitimateQueriesPass(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, org := s.NewUser(t, "legit@example.com", "Legit")
	for i := 0; i < 3; i++ {
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("S%d", i)}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 30)
	}
	data := s.MustGraphQL(t, u.Token, introspection.Query, nil)
	if types := data["__schema"].(map[string]any)["types"].([]any); len(types) < 50 {
		t.Fatalf("%d types", len(types))
	}

	orgTree, err := os.ReadFile("/work/shared/perf/q/folio_org_tree.graphql")
	if err != nil {
		skiplog.Skip(t, "cost of the perf suite's queries", "perf suite absent: "+err.Error())
	}
	data = s.MustGraphQL(t, u.Token, string(orgTree), map[string]any{"org": org})
	spaces := data["organization"].(map[string]any)["spaces"].(map[string]any)
	if spaces["totalCount"] != 3.0 {
		t.Fatalf("spaces: %v", spaces)
	}
	roots := spaces["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)
	if len(roots) != 3 || len(roots[0].(map[string]any)["pages"].([]any)) != 9 {
		t.Fatalf("tree: %v", roots)
	}

	// Sites do not exist yet: a site of 20 sections × 5 site spaces shows
	// 100 page trees, the shape of 100 spaces' trees, 5 levels deep.
	level := "id title slug path"
	for i := 0; i < 4; i++ {
		level = "id title slug path pages { " + level + " }"
	}
	site := `query($org: ID!) { organization(id: $org) { spaces(first: 100) { edges { node { id title revision { pages { ` + level + ` } } } } } } }`
	data = s.MustGraphQL(t, u.Token, site, map[string]any{"org": org})
	if n := len(data["organization"].(map[string]any)["spaces"].(map[string]any)["edges"].([]any)); n != 3 {
		t.Fatalf("%d spaces", n)
	}
}

// An answer over FOLIO_MAX_RESPONSE_BYTES is replaced by RESPONSE_TOO_LARGE.
func TestResponseCeiling(t *testing.T) {
	t.Setenv("FOLIO_MAX_RESPONSE_BYTES", "2000")
	s := testkit.Start(t, "sqlite")
	u, org := s.NewUser(t, "ceiling@example.com", "Ceiling")
	sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
	s.SeedPages(t, sp, 100)

	tree := `query($s: ID!) { space(id: $s) { revision { pages { id title pages { id title } } } } }`
	data, errs := s.GraphQL(t, u.Token, tree, map[string]any{"s": sp})
	if len(errs) != 1 || errs[0].Extensions["code"] != "RESPONSE_TOO_LARGE" || data != nil {
		t.Fatalf("data %v errors %+v", data, errs)
	}
	if !strings.Contains(errs[0].Message, "more than the limit of 2000") {
		t.Fatalf("message: %s", errs[0].Message)
	}
	// A small answer passes.
	data = s.MustGraphQL(t, u.Token, `query($s: ID!) { space(id: $s) { title } }`, map[string]any{"s": sp})
	if data["space"].(map[string]any)["title"] != "Docs" {
		t.Fatalf("data: %v", data)
	}
}

// A revision holds at most MaxPagesPerRevision pages: a batch that would
// pass it is refused naming `changes`, and nothing changes.
func TestPagesPerRevisionCap(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "cap@example.com", "Cap")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, graph.MaxPagesPerRevision-1)
		s.Call(t, "updateSpaceById", u.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"editMode": "live"}, 200)
		insert := `mutation($s: ID!, $c: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $s, changes: $c) { revision { id } } }`
		page := func(title string) map[string]any {
			return map[string]any{"operation": "insert_page", "markdown": "# " + title + "\n"}
		}
		// Up to the cap: accepted.
		data := s.MustGraphQL(t, u.Token, insert, map[string]any{"s": sp, "c": []any{page("Last")}})
		rev := data["updateSpaceContent"].(map[string]any)["revision"].(map[string]any)["id"].(string)

		before := s.Snapshot(t)
		_, errs := s.GraphQL(t, u.Token, insert, map[string]any{"s": sp, "c": []any{page("One more")}})
		want := fmt.Sprintf("changes: the content would hold %d pages, more than the limit of %d a revision", graph.MaxPagesPerRevision+1, graph.MaxPagesPerRevision)
		if len(errs) != 1 || errs[0].Message != want || errs[0].Extensions["field"] != "changes" || errs[0].Extensions["status"] != 400.0 {
			t.Fatalf("errors %+v, want %q", errs, want)
		}
		s.Unchanged(t, before)
		data = s.MustGraphQL(t, u.Token, `query($s: ID!) { space(id: $s) { revision { id } } }`, map[string]any{"s": sp})
		if data["space"].(map[string]any)["revision"].(map[string]any)["id"] != rev {
			t.Fatalf("revision moved: %v", data)
		}
	})
}

func TestQueryLimits(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	alice, _ := s.NewUser(t, "alice@acme.com", "Acme")

	// Introspection nests as deep as one likes: { __schema { types { fields
	// { type { ofType ... { name } } } } } } has depth 5 + the ofType chain.
	nested := func(depth int) string {
		inner := "name"
		for i := 0; i < depth-5; i++ {
			inner = "ofType { " + inner + " }"
		}
		return "{ __schema { types { fields { type { " + inner + " } } } } }"
	}
	if _, errs := s.GraphQL(t, alice.Token, nested(graph.MaxDepth), nil); len(errs) != 0 {
		t.Fatalf("query at the depth limit refused: %+v", errs)
	}
	before := s.Statements()
	_, errs := s.GraphQL(t, alice.Token, nested(graph.MaxDepth+1), nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "QUERY_TOO_DEEP" {
		t.Fatalf("query past the depth limit: %+v", errs)
	}
	// Fragments count as the fields they expand to.
	_, errs = s.GraphQL(t, alice.Token, "query { ...f } fragment f on Query "+nested(graph.MaxDepth+1), nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "QUERY_TOO_DEEP" {
		t.Fatalf("deep query through a fragment: %+v", errs)
	}
	// Only the token lookups ran (one statement per request, Authenticate):
	// nothing for the refused queries themselves.
	if n := s.Statements() - before; n != 2 {
		t.Fatalf("%d statements for two refused queries, want 2 for the token lookups", n)
	}

	// Complexity: a few aliases of a costly field (4 million each).
	const costly = "organizations { spaces(first: 1000) { edges { node { id title } } } } "
	aliases := func(n int) string {
		var b strings.Builder
		b.WriteString("{ viewer { ")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "a%d: %s", i, costly)
		}
		b.WriteString("} }")
		return b.String()
	}
	_, errs = s.GraphQL(t, alice.Token, aliases(10), nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "QUERY_TOO_COMPLEX" || !strings.Contains(errs[0].Message, "complexity") {
		t.Fatalf("costly query: %+v", errs[:min(len(errs), 1)])
	}
	// Tokens: a flood is refused before it is parsed whole.
	_, errs = s.GraphQL(t, alice.Token, aliases(graph.MaxTokens/10), nil)
	if len(errs) != 1 || errs[0].Extensions["code"] != "DOCUMENT_TOO_LARGE" || !strings.Contains(errs[0].Message, "token limit") {
		t.Fatalf("token flood: %+v", errs[:min(len(errs), 1)])
	}
}

// A query within the cost limit as written passes with __typename in every
// selection set, as Apollo Client and urql send it: __typename is free
// (before, these 6 aliases cost 24 million as written and 30 million with
// __typename).
func TestTypenameIsFree(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "typename@example.com", "Typename")
	var plain, typed strings.Builder
	plain.WriteString("{ viewer { ")
	typed.WriteString("{ __typename viewer { __typename ")
	// Aliases of about 4 million each, as many as the limit allows.
	n := int(graph.MaxComplexity / 4_100_000)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&plain, "a%d: organizations { spaces(first: 1000) { edges { node { id title } } } } ", i)
		fmt.Fprintf(&typed, "a%d: organizations { __typename spaces(first: 1000) { __typename edges { __typename node { __typename id title } } } } ", i)
	}
	plain.WriteString("} }")
	typed.WriteString("} }")
	for _, q := range []string{plain.String(), typed.String()} {
		data := s.MustGraphQL(t, u.Token, q, nil)
		if got := len(data["viewer"].(map[string]any)[fmt.Sprint("a", n-1)].([]any)); got != 1 {
			t.Fatalf("%d organizations", got)
		}
	}
}
