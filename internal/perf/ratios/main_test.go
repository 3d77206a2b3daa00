package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio/folio/internal/importer"
)

// The report puts every row of the issues' tables in one place: measured
// rows with their figure, target and verdict (one line per database for a
// benchmark with per-database sub-benchmarks), missing ones saying why,
// skipped or failed comparisons with their reason once and the
// comparisons it holds for.
func TestReport(t *testing.T) {
	out := `BenchmarkSpaceSearch/sqlite-2   1   51000000 ns/op   5000000 1k-one-ns/op   5500000 9k-one-ns/op   1.100 9k/1k-one   1.800 9k/1k-common
BenchmarkSpaceSearch/postgres-2   1   51000000 ns/op   1.050 9k/1k-one   1.400 9k/1k-common
BenchmarkMembersPageSize/sqlite-2   1   9000000 ns/op   1.020 100k/10k
BenchmarkMergeSpaceSize/sqlite-2   1   300000000 ns/op   1.100 5k/500
BenchmarkMemberPageDepth/sqlite-2   1   300000000 ns/op
BenchmarkRatioMembersTeamsStatements/postgres/small-2   1   9 ns/op   490 stmts/op
BenchmarkRatioMembersTeamsStatements/postgres/large-2   1   9 ns/op   490 stmts/op
BenchmarkRatioSomethingNew/a-2   1   100 ns/op
BenchmarkWritePath/postgres/space-title-2   100   5000000 ns/op   6.000 stmts/op   5.000 today-stmts/op   1.000 vs-today+events   100 B/op   1 allocs/op
BenchmarkRatioSomethingNew/b-2   1   150 ns/op
`
	o := outcome{
		results: []comparison{{key: "space", value: 0.33, detail: "Folio 1 rps"}, {key: "spaces", value: 0.9, invalid: "2 requests failed"},
			{key: "import-sqlite", value: 1.1, detail: "new 0.40 s, ea6637c 0.36 s"}},
		missing: map[string]missing{"tree1k": {reason: "no npm"}, "tree4k": {reason: "no npm"},
			"import-postgres": {reason: "PostgreSQL unavailable: refused"}}}
	var b strings.Builder
	report(&b, "test machine", o, parseBench(out), true)
	got := b.String()
	for _, want := range []string{
		"ratios of issues 11, 25 and 31 (test machine)",
		"GET /v1/spaces/{id} vs bare handler, 8 clients:",
		"0.33× (target ≥ 0.8×)",
		"0.9× (target ≥ 0.9×)   INVALID: 2 requests failed",
		"11 31 GraphQL org → spaces → revision → pages, 1k pages, vs PostGraphile (JIT off):",
		"— (target ≥ 1.5×)   skipped",
		"space search latency, about 9,000 vs 1,000 pages, one hit [sqlite]:",
		"1.1× (target ≤ 1.2×)   meets    [1k-one-ns/op 5000000, 9k-one-ns/op 5500000, 9k/1k-common 1.8]",
		"space search latency, about 9,000 vs 1,000 pages, one hit [postgres]:",
		"1.05× (target ≤ 1.2×)   meets",
		"a common term [sqlite]:",
		"1.8× (target ≤ 1.5×)   misses",
		"a common term [postgres]:",
		"members page latency, 100,000 vs 10,000 members [sqlite]:",
		"1.02× (target ≤ 1.1×)   meets",
		"1.1× (target ≤ 1.2×)   meets",
		"statements, 200 vs 100 members [postgres]:", // the row's name, with the database
		"1× (target = 1×)     meets    [large 490, small 490 stmts/op]",
		"not measured: BenchmarkMemberPageDepth reports no deep/first",
		"not measured: no BenchmarkSearchEngines ran",
		"write statements vs 619e191 + 1 a write [postgres/space-title]:",
		"1× (target = 1×)     meets    [stmts/op 6, today-stmts/op 5]",
		"import of a 1,000-page zip vs ea6637c, SQLite (time new / old):",
		"1.1× (target ≤ 1.2×)   meets    [new 0.40 s, ea6637c 0.36 s]",
		"import of a 1,000-page zip vs ea6637c, PostgreSQL (time new / old):",
		"BenchmarkRatioSomethingNew:",
		"1.5×",
		"skipped: no npm (tree1k, tree4k)\n",
		"skipped: PostgreSQL unavailable: refused (import-postgres)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "no npm"); n != 1 {
		t.Errorf("the reason for skipping is said %d times, want once:\n%s", n, got)
	}
	if strings.Contains(got, "10k/1k") || strings.Contains(got, "issue 11 and 25") {
		t.Errorf("the report still has the old search row or header:\n%s", got)
	}
}

// A comparison that broke is FAILED with its reason, fails the run and
// leaves the others measured; one skipped for want of a tool does not fail
// it; an INVALID figure does.
func TestFailures(t *testing.T) {
	o := outcome{missing: map[string]missing{}}
	o.results = append(o.results, comparison{key: "space", value: 1.2})
	o.fail(unavailable{errorString("no npm")}, "tree1k", "tree4k")
	o.fail(errorString("loadgen: exit status 1"), "spaces")
	o.fail(errorString("Folio ea6637c exited"), "import-postgres", "space") // space has its figure already
	o.results = append(o.results, comparison{key: "import-sqlite", value: 1.1, invalid: "new imported 999 pages, not 1000"})
	o.fail(errorString("no figure and no error recorded"), comparisons...)
	if m := o.missing["tree1k"]; m.failed || m.reason != "no npm" {
		t.Errorf("tree1k: %+v, want skipped for want of npm", m)
	}
	if _, ok := o.missing["space"]; ok {
		t.Errorf("space has a figure and a reason: %+v", o.missing["space"])
	}
	got := strings.Join(failures(o), "\n")
	want := "spaces: loadgen: exit status 1\nimport-postgres: Folio ea6637c exited\nimport-sqlite: INVALID: new imported 999 pages, not 1000"
	if got != want {
		t.Errorf("failures:\n%s\nwant:\n%s", got, want)
	}
	var b strings.Builder
	report(&b, "m", o, nil, false)
	for _, line := range []string{"FAILED: loadgen: exit status 1 (spaces)", "FAILED: Folio ea6637c exited (import-postgres)", "skipped: no npm (tree1k, tree4k)"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "no figure and no error") {
		t.Errorf("every comparison had a figure or a reason, yet:\n%s", b.String())
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestSelectComparisons(t *testing.T) {
	all, err := selectComparisons("")
	if err != nil || len(all) != len(comparisons) {
		t.Fatalf("default selection: %v, %v", all, err)
	}
	got, err := selectComparisons("import, spaces")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !got["import-postgres"] || !got["import-sqlite"] || !got["spaces"] {
		t.Errorf("import,spaces selects %v", got)
	}
	if _, err := selectComparisons("tree2k"); err == nil || !strings.Contains(err.Error(), `"tree2k"`) {
		t.Errorf("an unknown name: %v", err)
	}
}

// Folio answers 503 while it migrates: not ready until /readyz is 200. A
// server without /readyz is ready at any answer. A server that exits is
// reported at once, with its log.
func TestWaitReady(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "migrating the database", http.StatusServiceUnavailable)
			return
		}
	}))
	defer srv.Close()
	p := &proc{name: "folio", log: t.TempDir() + "/log", done: make(chan struct{})}
	if err := p.waitReady(context.Background(), srv.URL, readyz, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("ready after %d answers, want 3", n)
	}
	calls.Store(0)
	if err := p.waitReady(context.Background(), srv.URL, anyAnswer, 10*time.Second); err != nil || calls.Load() != 1 {
		t.Errorf("any answer: %v after %d calls", err, calls.Load())
	}
	calls.Store(-1000)
	err := p.waitReady(context.Background(), srv.URL, readyz, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "503 migrating the database") {
		t.Errorf("never ready: %v", err)
	}
	close(p.done)
	if err := p.waitReady(context.Background(), srv.URL, readyz, 10*time.Second); err == nil || !strings.Contains(err.Error(), "folio exited") {
		t.Errorf("exited: %v", err)
	}
}

// The import zip holds importPages pages in importChapters chapters, as
// the importer reads it, and the comparison counts an answer's pages.
func TestImportZip(t *testing.T) {
	data, err := importZip()
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.Zip(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != importChapters || res.Count() != importPages {
		t.Errorf("%d roots, %d pages; want %d, %d", len(res.Pages), res.Count(), importChapters, importPages)
	}
	answer := []any{map[string]any{"pages": []any{map[string]any{}, map[string]any{"pages": []any{map[string]any{}}}}}, map[string]any{}}
	if n := countPages(answer); n != 5 {
		t.Errorf("countPages = %d, want 5", n)
	}
}

// An import's figure is new over old of the median times; a round whose
// import lacked pages makes it INVALID.
func TestImportRatio(t *testing.T) {
	c := importRatio("import-sqlite", []float64{0.4, 0.36, 0.5}, []float64{0.9, 0.72, 0.8}, nil)
	if c.value < 2-1e-9 || c.value > 2+1e-9 || c.invalid != "" || !strings.Contains(c.detail, "rounds 2.25 2 1.6") {
		t.Errorf("%+v", c)
	}
	if c := importRatio("import-sqlite", []float64{1}, []float64{1}, []string{"new imported 999 pages, not 1000"}); c.invalid == "" {
		t.Errorf("a short import is not INVALID: %+v", c)
	}
}
