package main

// The Go benchmarks measure the ratios that need no other server (statement
// counts, seeks, search, merge, heap). Their names follow one convention,
// which is how this program finds and divides them:
//
//   - BenchmarkRatio<Name> with two sub-benchmarks, the base first and the
//     compared one second (name them /small and /large, or /a and /b). The
//     ratio is second ÷ first. Anything between the name and the last
//     element (a database: BenchmarkRatioSpaceSearch/postgres/large) keys a
//     ratio of its own, printed with it.
//   - The ratio is taken of the first metric both report other than the
//     standard ones (ns/op, B/op, allocs/op, MB/s), e.g.
//     b.ReportMetric(n, "stmts/op"); without one, of ns/op.
//   - A benchmark that is a ratio by itself (peak heap ÷ answer size)
//     reports it as b.ReportMetric(r, "ratio") and needs no pair.
//   - The rows name their benchmarks in table.go; any other
//     BenchmarkRatio… prints after them, without a target.

import (
	"bufio"
	"fmt"
	"regexp"
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

// ratios pairs the BenchmarkRatio lines by the convention above, in the
// order they ran. A pair missing its second half yields nothing.
func ratios(lines []benchLine) []ratio {
	var out []ratio
	var order []string
	pairs := map[string][]benchLine{}
	for _, l := range lines {
		if !strings.HasPrefix(l.name, "BenchmarkRatio") {
			continue
		}
		if v, ok := l.get("ratio"); ok {
			out = append(out, ratio{key: l.name, value: v, unit: "ratio"})
			continue
		}
		parent, _, ok := cutLast(l.name)
		if !ok {
			continue
		}
		if _, seen := pairs[parent]; !seen {
			order = append(order, parent)
		}
		pairs[parent] = append(pairs[parent], l)
	}
	for _, key := range order {
		p := pairs[key]
		if len(p) != 2 {
			continue
		}
		unit := pairUnit(p[0], p[1])
		a, _ := p[0].get(unit)
		b, _ := p[1].get(unit)
		if a == 0 {
			continue
		}
		_, sideA, _ := cutLast(p[0].name)
		_, sideB, _ := cutLast(p[1].name)
		out = append(out, ratio{key: key, value: b / a, unit: unit,
			detail: fmt.Sprintf("%s %s, %s %s %s", sideB, figure(b), sideA, figure(a), unit)})
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

func cutLast(name string) (parent, last string, ok bool) {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}

// figure prints a measurement briefly: whole numbers as such.
func figure(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
