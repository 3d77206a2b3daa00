package graph

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/introspection"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/folio/folio/graph/generated"
	"github.com/folio/folio/internal/paging"
)

var testSchema = generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()

// walk validates query against the schema and runs the cost walker on its
// first operation, as the handler does.
func walk(t testing.TB, query string, vars map[string]any) (cost int64, depth int, w *costWalker) {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		t.Fatal(err)
	}
	if errs := validator.Validate(testSchema, doc); len(errs) > 0 {
		t.Fatalf("invalid query: %v", errs)
	}
	w = newCostWalker(newListCaps(testSchema), doc, vars)
	cost, depth = w.operation(doc.Operations[0])
	return cost, depth, w
}

// fragmentBomb is n fragments each spreading the next one twice: expanded,
// 2^n copies of the last one.
func fragmentBomb(n int) string {
	var b strings.Builder
	b.WriteString("query { viewer { user { ...f0 } } }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment f%d on User { id ...f%d ...f%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment f%d on User { id }\n", n)
	return b.String()
}

func TestCostWalkerVisitsEachFragmentOnce(t *testing.T) {
	cost, depth, w := walk(t, fragmentBomb(30), nil)
	if len(w.visits) != 31 {
		t.Fatalf("%d fragments visited, want 31", len(w.visits))
	}
	for name, n := range w.visits {
		if n != 1 {
			t.Fatalf("fragment %s visited %d times", name, n)
		}
	}
	// viewer + user + the expansion: fragment i costs 2^(n-i+1) - 1 ids.
	if want := int64(2 + (1<<31 - 1)); cost != want {
		t.Fatalf("cost %d, want %d", cost, want)
	}
	if depth != 3 {
		t.Fatalf("depth %d, want 3", depth)
	}
	if cost <= MaxComplexity {
		t.Fatal("the fragment bomb is within the complexity limit")
	}
}

// Every list of objects of the schema has a documented cap, and every field
// with `first` returns a connection.
func TestListCapsDocumented(t *testing.T) {
	caps := newListCaps(testSchema)
	if len(caps.undocumented) > 0 {
		t.Fatalf("lists of objects without a cap in listFieldCaps: %v", caps.undocumented)
	}
	for _, typ := range testSchema.Types {
		for _, f := range typ.Fields {
			if f.Arguments.ForName("first") != nil && !strings.HasSuffix(f.Type.Name(), "Connection") {
				t.Errorf("%s.%s takes first but returns %s", typ.Name, f.Name, f.Type.Name())
			}
		}
	}
	for key := range listFieldCaps {
		typ, field, _ := strings.Cut(key, ".")
		if testSchema.Types[typ] == nil || testSchema.Types[typ].Fields.ForName(field) == nil {
			t.Errorf("listFieldCaps names %s, which the schema lacks", key)
		}
	}
}

// pageTree selects levels of pages, each with id title slug path.
func pageTree(levels int) string {
	s := "id title slug path"
	for i := 1; i < levels; i++ {
		s = "id title slug path pages { " + s + " }"
	}
	return "pages { " + s + " }"
}

func TestCostOfLegitimateQueries(t *testing.T) {
	orgTree, err := os.ReadFile("/work/shared/perf/q/folio_org_tree.graphql")
	if err != nil {
		orgTree = []byte(`query($org: ID!) { organization(id: $org) { id title spaces(first: 100) { totalCount edges { node { id title revision { id ` + pageTree(4) + ` } } } } } }`)
	}
	dashboard, err := os.ReadFile("testdata/dashboard.graphql") // at first: 50 (the default)
	if err != nil {
		t.Fatal(err)
	}
	var largest int64
	for _, q := range []struct{ name, query string }{
		{"introspection", introspection.Query},
		{"organization tree", string(orgTree)},
		// 100 spaces' trees, the shape of a site of 20 sections × 5 site spaces.
		{"100 space trees", `query { organization(id: "o") { spaces(first: 100) { edges { node { id title revision { ` + pageTree(6) + ` } } } } } }`},
		// A site at the caps (20 sections × 10 site spaces) with a page
		// tree per site space, and its groups and root site spaces: a docs
		// front end's navigation, the costliest legitimate query.
		{"site tree", `query { site(id: "x") { id title sectionGroups { title sections { title } } siteSpaces { path }
			sections { id title siteSpaces { id path space { id title revision { ` + pageTree(4) + ` } } } } } }`},
		{"links with their pages", `query { space(id: "s") { links { total more items { target { status kind url pageId } pages { id title } morePages } } } }`},
		// The dashboard of 50 spaces (dashboard_test.go).
		{"dashboard", string(dashboard)},
		{"viewer", `{ viewer { user { id } organizations { id title permissions { admin } } } }`},
	} {
		cost, depth, _ := walk(t, q.query, map[string]any{"org": "o"})
		t.Logf("%s: cost %d, depth %d", q.name, cost, depth)
		if cost > MaxComplexity || depth > MaxDepth {
			t.Errorf("%s refused: cost %d, depth %d", q.name, cost, depth)
		}
		largest = max(largest, cost)
	}
	// The limit is what the costliest legitimate query needs, with
	// headroom, not a multiple of it: lists without bounds would show here.
	if MaxComplexity > largest*3/2 {
		t.Errorf("MaxComplexity %d is more than 1.5 × the costliest legitimate query (%d)", MaxComplexity, largest)
	}
}

func TestCostOfAbusiveQueries(t *testing.T) {
	// The fan-out: 275 bytes at most.
	fanOut := `{viewer{organizations{spaces(first:1000){edges{node{organization{spaces(first:1000){edges{node{organization{spaces(first:1000){edges{node{id title}}}}}}}}}}}}}}`
	// The cycle space → organization → spaces, at the default page size.
	cycle := `query($s: ID!) { space(id: $s) { organization { spaces { edges { node { organization { spaces { edges { node { organization { spaces { edges { node { organization { spaces { edges { node { id title } } } } } } } } } } } } } } } } } }`
	for _, q := range []struct{ name, query string }{
		{"fan-out", fanOut},
		{"cycle", cycle},
		{"fragment bomb", fragmentBomb(30)},
		// Two sites' navigations at the caps: a front end asks one site's.
		{"two site trees", `query { organization(id: "o") { sites(first: 2) { edges { node { id title sectionGroups { title sections { title } } siteSpaces { path }
			sections { id title siteSpaces { id path space { id title revision { ` + pageTree(4) + ` } } } } } } } } }`},
		// Aliases side by side copy the tree at every level.
		{"aliased page tree", aliasedTree(12)},
	} {
		if len(q.query) > 275 && q.name == "fan-out" {
			t.Fatalf("fan-out is %d bytes", len(q.query))
		}
		cost, _, _ := walk(t, q.query, map[string]any{"s": "s"})
		t.Logf("%s: cost %s", q.name, costString(cost))
		if cost <= MaxComplexity {
			t.Errorf("%s accepted: cost %d", q.name, cost)
		}
	}
}

// A page tree costs the pages of a revision once, however deep it nests.
func TestPageTreeCostsItsBoundOnce(t *testing.T) {
	q := func(levels int) string {
		return `query { space(id: "s") { revision { ` + pageTree(levels) + ` } } }`
	}
	two, _, _ := walk(t, q(2), nil)
	ten, _, _ := walk(t, q(10), nil)
	// space + revision + pages + 10,000 pages of 5 fields (4 and pages).
	if want := int64(3 + MaxPagesPerRevision*5); two != want || ten != want {
		t.Fatalf("costs %d (2 levels) and %d (10 levels), want %d", two, ten, want)
	}
}

func TestConnectionCostsFirst(t *testing.T) {
	q := `query($n: Int) { organization(id: "o") { spaces(first: $n) { edges { node { id } } } } }`
	for _, c := range []struct {
		vars map[string]any
		n    int64
	}{
		{nil, paging.DefaultLimit},
		{map[string]any{"n": 10}, 10},
		{map[string]any{"n": int64(7)}, 7},
		{map[string]any{"n": 1 << 40}, paging.MaxLimit}, // refused by the resolver, naming first
	} {
		cost, _, _ := walk(t, q, c.vars)
		// organization + spaces + n × (edges + node + id)
		if want := 2 + c.n*3; cost != want {
			t.Errorf("first %v: cost %d, want %d", c.vars, cost, want)
		}
	}
}

func TestDocumentBounds(t *testing.T) {
	check := func(q string) string {
		doc, err := parser.ParseQuery(&ast.Source{Input: q})
		if err != nil {
			t.Fatal(err)
		}
		if e := checkDocument(doc); e != nil {
			return e.Message
		}
		return ""
	}
	repeated := func(n int) string { return "{ viewer { user { " + strings.Repeat("id ", n) + "} } }" }
	if msg := check(repeated(MaxSelections - 2)); msg != "" {
		t.Fatalf("refused: %s", msg)
	}
	if msg := check(repeated(MaxSelections + 1)); !strings.Contains(msg, fmt.Sprintf("%d selections", MaxSelections+1)) {
		t.Fatalf("wide set: %q", msg)
	}
	// Inline fragments count with the set they are in.
	if msg := check("{ viewer { user { " + strings.Repeat("... on User { id } ", MaxSelections+1) + "} } }"); !strings.Contains(msg, "selections") {
		t.Fatalf("inline fragments: %q", msg)
	}
	nested := "{ viewer { " + strings.Repeat("user { "+strings.Repeat("id ", 40)+"} ", 40) + "} }"
	if msg := check(nested); !strings.Contains(msg, fmt.Sprintf("%d fields, more than the limit of %d", 1+40*41, MaxFields)) {
		t.Fatalf("many fields: %q", msg)
	}
}

// aliasedTree selects pages under two aliases at each of n levels: each page
// of the revision can appear 2^n times.
func aliasedTree(n int) string {
	var b strings.Builder
	b.WriteString(`query { space(id: "s") { revision { pages { ...p0 } } } }` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment p%d on Page { id a: pages { ...p%d } b: pages { ...p%d } }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment p%d on Page { id }\n", n)
	return b.String()
}

// __typename, __schema and __type cost nothing: a query with __typename in
// every selection set (as Apollo Client and urql send it) costs what it
// costs as written, and introspection nothing, at the depth it nests.
func TestMetaFieldsCostNothing(t *testing.T) {
	plain := `query { organization(id: "o") { id spaces(first: 100) { edges { node { id revision { ` + pageTree(4) + ` } } } } } }`
	typed := `query { __typename organization(id: "o") { __typename id spaces(first: 100) { __typename edges { __typename node { __typename id
		revision { __typename pages { __typename id title slug path pages { __typename id title slug path pages { __typename id title slug path
		pages { __typename id title slug path } } } } } } } } } }`
	want, wantDepth, _ := walk(t, plain, nil)
	got, depth, _ := walk(t, typed, nil)
	if got != want || depth != wantDepth {
		t.Fatalf("with __typename: cost %d depth %d, as written: cost %d depth %d", got, depth, want, wantDepth)
	}
	if cost, depth, _ := walk(t, introspection.Query, nil); cost != 0 || depth != 15 {
		t.Fatalf("introspection: cost %d depth %d, want 0 and its nesting (15)", cost, depth)
	}
	if cost, _, _ := walk(t, `{ __type(name: "Space") { name fields { name type { name ofType { name } } } } }`, nil); cost != 0 {
		t.Fatalf("__type: cost %d", cost)
	}
	// A real field under a meta-field's sibling still counts.
	if cost, _, _ := walk(t, `{ __typename viewer { user { id } } }`, nil); cost != 3 {
		t.Fatalf("viewer beside __typename: cost %d, want 3", cost)
	}
}

// TestConnectionCostsLast: a connection paged backward (the audit log's
// last/before) costs the larger of first and last.
func TestConnectionCostsLast(t *testing.T) {
	q := `query($f: Int, $l: Int) { organization(id: "o") { auditEvents(first: $f, last: $l) { edges { node { id } } } } }`
	for _, c := range []struct {
		vars map[string]any
		n    int64
	}{
		{map[string]any{"l": 90}, 90},
		{map[string]any{"l": 3}, paging.DefaultLimit}, // first absent counts as its default
		{map[string]any{"f": 5, "l": 80}, 80},
	} {
		cost, _, _ := walk(t, q, c.vars)
		if want := 2 + c.n*3; cost != want {
			t.Errorf("%v: cost %d, want %d", c.vars, cost, want)
		}
	}
}
