package main

// The Go benchmarks measure the ratios that need no other server (statement
// counts, seeks, search, merge, heap). A benchmark gives a ratio one of two
// ways, and this program finds it by its name:
//
//   - It runs both sides itself, in turns, and reports their ratio as a
//     metric: b.ReportMetric(large/small, "10k/1k"). Interleaving in one
//     benchmark is the steadier measure. A row of table.go names the
//     benchmark and that metric; a BenchmarkRatio… may also report a
//     metric named "ratio", which needs no row to be printed.
//   - Or it is BenchmarkRatio<Name> with two sub-benchmarks named /small
//     and /large (or /a and /b), and the ratio is large ÷ small (b ÷ a),
//     of the first metric both report other than the standard ones (ns/op,
//     B/op, allocs/op, MB/s), e.g. b.ReportMetric(n, "stmts/op"); without
//     one, of ns/op. Other levels, before or after (a database:
//     BenchmarkRatioX/postgres/large, or …/large/postgres), key a ratio of
//     their own, printed with it.
//
// The rows name their benchmarks in table.go; any other
// BenchmarkRatio… prints after them, without a target.

import (
	"bufio"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// benchLine is one result line of `go test -bench` output.
type benchLine struct {
	name    string // without the -GOMAXPROCS suffix
	metrics []metric
}

type metric struct {
	value float64
	unit  string
}

// ratio is one figure computed from benchmark lines.
type ratio struct {
	key    string // BenchmarkRatio<Name>[/sub…]
	value  float64
	unit   string // the metric divided, or "ratio"
	detail string // the two figures it came from
}

var (
	resultLine = regexp.MustCompile(`^(Benchmark\S+)\s+\d+\s+(.+)$`)
	procs      = regexp.MustCompile(`-\d+$`)
)

// parseBench reads the result lines of `go test -bench` output.
func parseBench(out string) []benchLine {
	var lines []benchLine
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := resultLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		fields := strings.Fields(m[2])
		var ms []metric
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			ms = append(ms, metric{v, fields[i+1]})
		}
		lines = append(lines, benchLine{name: procs.ReplaceAllString(m[1], ""), metrics: ms})
	}
	return lines
}

var standardUnits = map[string]bool{"ns/op": true, "B/op": true, "allocs/op": true, "MB/s": true}

// sides are the sub-benchmark names of a pair: 0 the base, 1 the compared.
var sides = map[string]int{"small": 0, "large": 1, "a": 0, "b": 1}

// ratios pairs the BenchmarkRatio lines by the convention above, in the
// order they ran. A pair missing a half yields nothing.
func ratios(lines []benchLine) []ratio {
	var out []ratio
	var order []string
	pairs := map[string]*[2]*benchLine{}
	names := map[string][2]string{}
	for _, l := range lines {
		if !strings.HasPrefix(l.name, "BenchmarkRatio") {
			continue
		}
		if v, ok := l.get("ratio"); ok {
			out = append(out, ratio{key: l.name, value: v, unit: "ratio"})
			continue
		}
		key, side, name, ok := pairKey(l.name)
		if !ok {
			continue
		}
		if pairs[key] == nil {
			pairs[key] = &[2]*benchLine{}
			order = append(order, key)
		}
		pairs[key][side] = &l
		n := names[key]
		n[side] = name
		names[key] = n
	}
	for _, key := range order {
		p := pairs[key]
		if p[0] == nil || p[1] == nil {
			continue
		}
		unit := pairUnit(*p[0], *p[1])
		a, _ := p[0].get(unit)
		b, _ := p[1].get(unit)
		if a == 0 {
			continue
		}
		out = append(out, ratio{key: key, value: b / a, unit: unit,
			detail: fmt.Sprintf("%s %s, %s %s %s", names[key][1], figure(b), names[key][0], figure(a), unit)})
	}
	return out
}

// pairKey splits a benchmark's name into its pair's key and its side.
func pairKey(name string) (key string, side int, sideName string, ok bool) {
	parts := strings.Split(name, "/")
	for i, p := range parts[1:] {
		if s, found := sides[p]; found {
			return strings.Join(slices.Delete(slices.Clone(parts), i+1, i+2), "/"), s, p, true
		}
	}
	return "", 0, "", false
}

// reported is the ratios that the benchmark named bench (any of its
// sub-benchmarks) reports as metric, with its other figures as detail.
func reported(lines []benchLine, bench, metric string) []ratio {
	var out []ratio
	for _, l := range lines {
		if l.name != bench && !strings.HasPrefix(l.name, bench+"/") {
			continue
		}
		v, ok := l.get(metric)
		if !ok {
			continue
		}
		var detail []string
		for _, m := range l.metrics {
			if m.unit != metric && !standardUnits[m.unit] {
				detail = append(detail, m.unit+" "+figure(m.value))
			}
		}
		out = append(out, ratio{key: l.name, value: v, unit: metric, detail: strings.Join(detail, ", ")})
	}
	return out
}

// pairUnit is the metric a pair is compared on.
func pairUnit(a, b benchLine) string {
	for _, m := range a.metrics {
		if _, ok := b.get(m.unit); ok && !standardUnits[m.unit] {
			return m.unit
		}
	}
	return "ns/op"
}

func (l benchLine) get(unit string) (float64, bool) {
	for _, m := range l.metrics {
		if m.unit == unit {
			return m.value, true
		}
	}
	return 0, false
}

// figure prints a measurement briefly: whole numbers as such.
func figure(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
