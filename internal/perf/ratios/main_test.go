package main

import (
	"strings"
	"testing"
)

// The report puts every row of the table in one place: measured
// rows with their figure, target and verdict, missing ones saying why,
// skipped or failed comparisons with their reason once.
func TestReport(t *testing.T) {
	out := `BenchmarkSpaceSearch/sqlite-2   1   51000000 ns/op   5000000 1k-ns/op   19500000 10k-ns/op   3.900 10k/1k
BenchmarkMergeSpaceSize/sqlite-2   1   300000000 ns/op   1.100 5k/500
BenchmarkRatioMembersTeamsStatements/postgres/small-2   1   9 ns/op   490 stmts/op
BenchmarkRatioMembersTeamsStatements/postgres/large-2   1   9 ns/op   490 stmts/op
BenchmarkRatioSomethingNew/a-2   1   100 ns/op
BenchmarkWritePath/postgres/space-title-2   100   5000000 ns/op   6.000 stmts/op   5.000 today-stmts/op   1.000 vs-today+events   100 B/op   1 allocs/op
BenchmarkRatioSomethingNew/b-2   1   150 ns/op
`
	o := outcome{results: []comparison{{key: "space", value: 0.33, detail: "Folio 1 rps"}, {key: "spaces", value: 0.9, invalid: "2 requests failed"}},
		missing: map[string]missing{"tree1k": {reason: "no npm"}, "tree4k": {reason: "PostGraphile exited", failed: true}}}
	var b strings.Builder
	report(&b, "test machine", o, parseBench(out), true)
	got := b.String()
	for _, want := range []string{
		"GET /v1/spaces/{id} vs bare handler, 8 clients:",
		"0.33× (target ≥ 0.8×)",
		"INVALID: 2 requests failed",
		"space search, 10,000 vs 1,000 pages (one hit) [sqlite]:",
		"3.9× (target ≤ 1.2×)   misses   [1k-ns/op 5000000, 10k-ns/op 19500000]",
		"1.1× (target ≤ 1.2×)   meets",
		"statements, 200 vs 100 members [postgres]:", // the row's name, with the database
		"1× (target = 1×)     meets    [large 490, small 490 stmts/op]",
		"not measured: no BenchmarkMemberPageDepth ran",
		"issue 25 write statements vs 619e191 + 1 a write [postgres/space-title]:",
		"1× (target = 1×)     meets    [stmts/op 6, today-stmts/op 5]",
		"BenchmarkRatioSomethingNew:",
		"1.5×",
		"skipped: no npm\n",
		"FAILED: PostGraphile exited\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "no npm"); n != 1 {
		t.Errorf("the reason for skipping is said %d times, want once:\n%s", n, got)
	}
}
