package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/internal/paging"
)

// The cost of an operation is the most field values its answer can hold:
// every field counts 1 each time it can appear, so a list multiplies the
// cost of its elements by the most elements it can have (see cost_caps.go);
// the meta-fields (__typename, __schema, __type) cost nothing:
//
//   - a connection (a field with `first`) multiplies its children by
//     `first`, or by paging.DefaultLimit when `first` is absent;
//   - a revision's page tree (Revision.pages { pages { pages … } }) holds at
//     most MaxPagesPerRevision pages however deep the query nests, so it
//     costs MaxPagesPerRevision × the largest per-page cost of its levels,
//     once (aliases of `pages` side by side add up, as their copies do);
//   - any other list of objects multiplies by its documented cap.
//
// Cost and depth are computed in one pass over the document, each fragment
// once (its relative cost and depth are memoized), so the work is linear in
// the document whatever the fragments spread: a fragment spread twice by a
// fragment spread twice… costs its true (exponential) amount without being
// expanded.
const (
	// MaxDepth is the deepest nesting of fields an operation may have.
	MaxDepth = 20
	// MaxComplexity is the highest cost an operation may have: what the
	// costliest query a real front end makes needs, with a fifth more for
	// headroom. Every list of the schema is bounded (cost_caps.go), so the
	// costs of reference queries are their true bounds
	// (cost_internal_test.go, TestCostOfLegitimateQueries):
	//   - a docs site's navigation at the caps: one site's 20 sections × 10
	//     site spaces, each with its space's 4-level page tree (10,000 pages
	//     a revision), with its groups and root site spaces: 10.0 million,
	//     the largest, which sets the limit;
	//   - the organization tree (organization → spaces(first: 100) →
	//     revision → a 4-level page tree, 4 fields a page): 5.0 million;
	//   - the standard introspection query: 0 (meta-fields are free: Apollo
	//     adds __typename everywhere; introspection answers are bounded by
	//     the schema and the response ceiling);
	//   - a dashboard of 50 spaces (first: 50) with 5 change requests, 5
	//     comments and 5 replies each, their authors, counts and reactions
	//     (dashboard_test.go): 1.0 million;
	//   - a space's links with their pages (at most 1,000 targets × 100
	//     pages, LinksResult.more and LinkUsage.morePages counting the
	//     rest): 0.2 million;
	// refused:
	//   - two sites' navigations at the caps in one query: 20 million (one
	//     query per site);
	//   - the space → organization → spaces cycle four times around at the
	//     default page size (6 million spaces): 25.5 million;
	//   - three levels of organization → spaces(first: 1000): 4 × 10^12;
	//   - the 30-fragment bomb: 2^31.
	// It was 25,000,000 while links' items and pages were unbounded (1,000 ×
	// 10,000 pages).
	MaxComplexity = 12_000_000
)

// costCeiling stops the arithmetic before it overflows: any cost at the
// ceiling is far over MaxComplexity anyway.
const costCeiling = math.MaxInt64 / 4

func addCost(a, b int64) int64 {
	if a >= costCeiling-b {
		return costCeiling
	}
	return a + b
}

func mulCost(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a >= costCeiling/b {
		return costCeiling
	}
	return a * b
}

// setCost is what a selection set costs once: own is the cost of one
// instance, counting each Page.pages field in it as 1; nested is, for a
// Page selection, the sum over its Page.pages fields of the per-page cost of
// their levels; depth is the deepest chain of fields below.
type setCost struct {
	own, nested int64
	depth       int
}

// perPage is the most a page of a tree selected by this set costs: its own
// fields, or what the levels below cost per page, whichever is more.
func (c setCost) perPage() int64 { return max(c.own, c.nested) }

// single is what one instance costs outside a tree: its own fields, plus
// its subpage trees, each bounded by the pages of a revision.
func (c setCost) single() int64 {
	return addCost(c.own, mulCost(MaxPagesPerRevision, c.nested))
}

// costWalker computes an operation's cost and depth, each fragment once.
type costWalker struct {
	caps      *listCaps
	vars      map[string]any
	fragments map[string]*ast.FragmentDefinition
	memo      map[string]*setCost
	// visits counts fragment evaluations by name, for tests: each is 1.
	visits map[string]int
}

func newCostWalker(caps *listCaps, doc *ast.QueryDocument, vars map[string]any) *costWalker {
	w := &costWalker{caps: caps, vars: vars, fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)),
		memo: make(map[string]*setCost, len(doc.Fragments)), visits: map[string]int{}}
	for _, f := range doc.Fragments {
		w.fragments[f.Name] = f
	}
	return w
}

// operation is the cost and depth of op.
func (w *costWalker) operation(op *ast.OperationDefinition) (cost int64, depth int) {
	c := w.set(op.SelectionSet)
	return c.single(), c.depth
}

func (w *costWalker) set(set ast.SelectionSet) setCost {
	var out setCost
	add := func(c setCost) {
		out.own = addCost(out.own, c.own)
		out.nested = addCost(out.nested, c.nested)
		out.depth = max(out.depth, c.depth)
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			add(w.field(s))
		case *ast.InlineFragment:
			add(w.set(s.SelectionSet))
		case *ast.FragmentSpread:
			add(w.fragment(s.Name))
		}
	}
	return out
}

// fragment is a fragment's cost, computed on its first spread only. A
// fragment met again while being computed (a cycle, which validation has
// refused already) costs nothing rather than looping.
func (w *costWalker) fragment(name string) setCost {
	if c, ok := w.memo[name]; ok {
		return *c
	}
	def := w.fragments[name]
	if def == nil {
		return setCost{}
	}
	w.memo[name] = &setCost{}
	w.visits[name]++
	c := w.set(def.SelectionSet)
	w.memo[name] = &c
	return c
}

func (w *costWalker) field(f *ast.Field) setCost {
	if metaField(f.Name) {
		// Free, and only as deep as it nests: the response ceiling bounds
		// an introspection answer (a few hundred kilobytes for the whole
		// schema), and __typename is what clients add everywhere.
		out := setCost{depth: 1}
		if len(f.SelectionSet) > 0 {
			out.depth = w.set(f.SelectionSet).depth + 1
		}
		return out
	}
	if len(f.SelectionSet) == 0 {
		return setCost{own: 1, depth: 1}
	}
	child := w.set(f.SelectionSet)
	out := setCost{depth: child.depth + 1}
	switch rule := w.caps.rule(f.Definition); rule.kind {
	case inTree:
		// A level of a page tree: counted by the tree's root, once.
		out.own, out.nested = 1, child.perPage()
	case treeRoot:
		out.own = addCost(1, mulCost(MaxPagesPerRevision, child.perPage()))
	case connection:
		out.own = addCost(1, mulCost(w.first(f), child.single()))
	default:
		out.own = addCost(1, mulCost(rule.cap, child.single()))
	}
	return out
}

// metaField reports whether name is one of GraphQL's meta-fields:
// __typename, which costs nothing (Apollo Client and urql add it to every
// selection set, so a query that passes as written must pass through
// them), and the introspection fields __schema and __type, whose answers
// the schema bounds.
func metaField(name string) bool {
	return name == "__typename" || name == "__schema" || name == "__type"
}

// first is the page size a connection asks for: paging.DefaultLimit when
// absent, at most paging.MaxLimit (larger values are refused by the
// resolver with a clear error naming `first`, so they need not be refused
// here as too complex).
// A connection paged backward (the audit log's `last`) costs the larger
// of the two.
func (w *costWalker) first(f *ast.Field) int64 {
	n := w.pageSize(f, "first")
	if f.Arguments.ForName("last") != nil {
		n = max(n, w.pageSize(f, "last"))
	}
	return n
}

// pageSize is the value of a connection's page-size argument name, as
// first describes.
func (w *costWalker) pageSize(f *ast.Field, name string) int64 {
	arg := f.Arguments.ForName(name)
	if arg == nil {
		return paging.DefaultLimit
	}
	v, err := arg.Value.Value(w.vars)
	if err != nil || v == nil {
		return paging.DefaultLimit
	}
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int:
		n = int64(x)
	case int32:
		n = int64(x)
	case float64:
		n = int64(x)
	case json.Number:
		if n, err = x.Int64(); err != nil {
			return paging.MaxLimit
		}
	default:
		return paging.MaxLimit
	}
	return min(max(n, 1), paging.MaxLimit)
}

// costLimit refuses operations deeper than MaxDepth or costlier than
// MaxComplexity after validation and before any resolver runs.
type costLimit struct{ caps *listCaps }

func (costLimit) ExtensionName() string                          { return "CostLimit" }
func (costLimit) Validate(schema graphql.ExecutableSchema) error { return nil }

func (l costLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	cost, depth := newCostWalker(l.caps, oc.Doc, oc.Variables).operation(oc.Operation)
	oc.Stats.SetExtension(costStat, cost)
	if depth > MaxDepth {
		return limitError("QUERY_TOO_DEEP", "query is nested %d fields deep, deeper than the limit of %d", depth, MaxDepth)
	}
	if cost > MaxComplexity {
		return limitError("QUERY_TOO_COMPLEX", "query complexity %s is over the limit of %d: its answer could hold that many fields (ask for smaller pages with first, or fewer nested lists)", costString(cost), MaxComplexity)
	}
	return nil
}

func costString(c int64) string {
	if c >= costCeiling {
		return fmt.Sprintf("over %d", int64(costCeiling))
	}
	return fmt.Sprint(c)
}

func limitError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": code}
	return err
}
