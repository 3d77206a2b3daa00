package main

import (
	"strings"
	"testing"
)

// The convention other packages follow: pairs by their /small and /large
// level wherever it is, large over small whatever order they ran in, on a
// custom metric when both report one; benchmarks that report a ratio by
// themselves; a half without its pair yields nothing.
func TestRatios(t *testing.T) {
	out := `goos: linux
pkg: github.com/folio/folio/graph
BenchmarkRatioMembersTeamsStatements/sqlite/small-2         	      10	  51234567 ns/op	       490.0 stmts/op	 123 B/op	 4 allocs/op
BenchmarkRatioMembersTeamsStatements/sqlite/large-2         	       5	  99234567 ns/op	       960.0 stmts/op	 456 B/op	 8 allocs/op
BenchmarkRatioSpaceSearch/large/postgres-2                  	      20	  39000000 ns/op	 2048 B/op	 20 allocs/op
BenchmarkRatioSpaceSearch/small/postgres-2                  	     100	  10000000 ns/op	 1024 B/op	 10 allocs/op
BenchmarkRatioHeapPerAnswer/postgres-2                      	       1	 900000000 ns/op	         11.05 ratio
BenchmarkRatioMerge/sqlite/small-2                          	       1	 284000000 ns/op
BenchmarkSearch/sqlite-2                                    	      30	  51000000 ns/op
--- FAIL: BenchmarkRatioMembersSeek/postgres/large
PASS
`
	got := ratios(parseBench(out))
	want := []struct {
		key, unit string
		value     float64
	}{
		{"BenchmarkRatioHeapPerAnswer/postgres", "ratio", 11.05},
		{"BenchmarkRatioMembersTeamsStatements/sqlite", "stmts/op", 960.0 / 490.0},
		{"BenchmarkRatioSpaceSearch/postgres", "ns/op", 3.9},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d ratios, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.key != w.key || g.unit != w.unit || g.value < w.value-1e-9 || g.value > w.value+1e-9 {
			t.Errorf("ratio %d: got %+v, want %+v", i, g, w)
		}
	}
	if d := got[1].detail; !strings.Contains(d, "large 960") || !strings.Contains(d, "small 490") {
		t.Errorf("detail %q does not show both figures", d)
	}
}

func TestTargets(t *testing.T) {
	for _, c := range []struct {
		t    target
		r    float64
		want bool
	}{
		{target{"≥", 0.8}, 0.8, true}, {target{"≥", 0.8}, 0.79, false},
		{target{"≤", 1.2}, 1.2, true}, {target{"≤", 1.2}, 1.21, false},
		{target{"=", 1}, 1, true}, {target{"=", 1}, 1.01, false},
	} {
		if got := c.t.met(c.r); got != c.want {
			t.Errorf("%v met(%v) = %v", c.t, c.r, got)
		}
	}
}
