package main

import (
	"fmt"
	"math"
)

// target is a row's goal: the ratio at least, at most or exactly a value.
type target struct {
	op    string // "≥", "≤" or "="
	value float64
}

func (t target) String() string { return fmt.Sprintf("target %s %s×", t.op, trim(t.value)) }

// met says whether r reaches the target. Equal means equal: statement
// counts are whole numbers, so 1× is exact or it is not.
func (t target) met(r float64) bool {
	switch t.op {
	case "≥":
		return r >= t.value
	case "≤":
		return r <= t.value
	default:
		return math.Abs(r-t.value) < 1e-9
	}
}

// row is one line of the table and where its figure comes from: either a
// side-by-side comparison this program runs (compare) or a Go benchmark
// (bench), which reports the ratio as metric or, without one, follows the
// BenchmarkRatio pair convention (gobench.go). A target compares any
// ratio: throughput against an anchor (higher is better, ≥) or the time or
// statements of one system at two sizes or versions (lower is better, ≤).
type row struct {
	issues  string // the issues whose table holds the row, with its target from the last
	read    string
	compare string // key of a side-by-side result
	bench   string // name of a Benchmark function
	metric  string
	target  target
}

// table is the issues' rows, in their order: issue 11's reads (targets
// raised by issue 31), issue 25's write path, then issue 31's. The
// benchmark names are the convention the packages' benchmarks follow (see
// gobench.go); a row whose benchmark does not exist yet prints as not
// measured.
var table = []row{
	{issues: "11", read: "GET /v1/spaces/{id} vs bare handler, 8 clients", compare: "space", target: target{"≥", 0.8}},
	{issues: "11 31", read: "GET /v1/orgs/{id}/spaces?limit=50 vs bare handler", compare: "spaces", target: target{"≥", 0.9}},
	{issues: "11 31", read: "GraphQL org → spaces → revision → pages, 1k pages, vs PostGraphile (JIT off)", compare: "tree1k", target: target{"≥", 1.5}},
	{issues: "11", read: "GraphQL org → spaces → revision → pages, 4k pages, vs PostGraphile (JIT off)", compare: "tree4k", target: target{"≥", 1}},
	{issues: "11", read: "peak heap above idle / size of one 38 MB answer", bench: "BenchmarkTreeLargeAnswer", metric: "peak/answer", target: target{"≤", 2}},
	{issues: "11", read: "org → members → user + teams, statements, 200 vs 100 members", bench: "BenchmarkRatioMembersTeamsStatements", target: target{"=", 1}},
	{issues: "11", read: "page bodies in a tree, statements, 2× vs 1× the spaces", bench: "BenchmarkRatioPageBodiesStatements", target: target{"=", 1}},
	{issues: "11", read: "members page after row 50,000 of 100,000 vs page 1", bench: "BenchmarkMemberPageDepth", metric: "deep/first", target: target{"≤", 1.2}},
	{issues: "11", read: "merge of 10 pages, 5,000- vs 500-page space (SQLite in the issue)", bench: "BenchmarkMergeSpaceSize", metric: "5k/500", target: target{"≤", 1.2}},
	// Issue 25: a write's events cost it one INSERT. The time against the
	// commit before events is measured by hand (README, Performance);
	// this row holds the statements to today's plus that one.
	{issues: "25", read: "write statements vs 619e191 + 1 a write", bench: "BenchmarkWritePath", metric: "vs-today+events", target: target{"=", 1}},
	// Issue 31: search, members pages and imports that do not grow with
	// what they do not show (the space, the hits, the members, the commit).
	{issues: "31", read: "space search latency, about 9,000 vs 1,000 pages, one hit", bench: "BenchmarkSpaceSearch", metric: "9k/1k-one", target: target{"≤", 1.2}},
	{issues: "31", read: "space search latency, about 9,000 vs 1,000 pages, a common term", bench: "BenchmarkSpaceSearch", metric: "9k/1k-common", target: target{"≤", 1.5}},
	{issues: "31", read: "common-term search latency, SQLite vs PostgreSQL", bench: "BenchmarkSearchEngines", metric: "sqlite/postgres", target: target{"≤", 1.5}},
	{issues: "31", read: "members page latency, 100,000 vs 10,000 members", bench: "BenchmarkMembersPageSize", metric: "100k/10k", target: target{"≤", 1.1}},
	{issues: "31", read: "import of a 1,000-page zip vs ea6637c, PostgreSQL (time new / old)", compare: "import-postgres", target: target{"≤", 1.2}},
	{issues: "31", read: "import of a 1,000-page zip vs ea6637c, SQLite (time new / old)", compare: "import-sqlite", target: target{"≤", 1.2}},
}

// trim prints a ratio with two decimals, without trailing zeros.
func trim(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
