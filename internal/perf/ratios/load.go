package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// variant is one server and request for the load generator.
type variant struct {
	name string
	args []string // loadgen arguments: -url first, then its value
}

// loadRun is one loadgen result line.
type loadRun struct {
	RPS    float64 `json:"rps"`
	P50    float64 `json:"p50"`
	Errors int     `json:"errors"`
	Non2xx int     `json:"non2xx"`
}

// interleave runs every variant once a round, A, B, A, B, …, so a change
// in the machine's load falls on both sides of each ratio alike.
func (s *sideBySide) interleave(ctx context.Context, loadgen string, variants []variant) (map[string][]loadRun, error) {
	runs := map[string][]loadRun{}
	for range s.rounds {
		for _, v := range variants {
			args := append([]string{loadgen, "-c", fmt.Sprint(s.clients), "-d", s.duration.String(), "-label", v.name}, v.args...)
			out, err := run(ctx, s.work, nil, args...)
			if err != nil {
				return nil, err
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			var r loadRun
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
				return nil, fmt.Errorf("%s: loadgen said %q", v.name, out)
			}
			fmt.Fprintf(s.log, "ratios: %-20s %8.1f rps  p50 %7.2f ms\n", v.name, r.RPS, r.P50)
			runs[v.name] = append(runs[v.name], r)
		}
	}
	return runs, nil
}

// compared is Folio's median throughput over the other's, with the
// per-round ratios to show how steady the figure is.
func compared(key string, folio, other []loadRun, otherName string) comparison {
	c := comparison{key: key}
	if len(folio) == 0 || len(folio) != len(other) {
		c.invalid = "no runs"
		return c
	}
	fm, om := median(folio), median(other)
	c.value = fm / om
	var per []string
	failed := 0
	for i := range folio {
		per = append(per, trim(folio[i].RPS/other[i].RPS))
		failed += folio[i].Errors + folio[i].Non2xx + other[i].Errors + other[i].Non2xx
	}
	c.detail = fmt.Sprintf("Folio %s rps, %s %s rps; rounds %s", rate(fm), otherName, rate(om), strings.Join(per, " "))
	if failed > 0 {
		c.invalid = fmt.Sprintf("%d requests failed", failed)
	}
	return c
}

func median(runs []loadRun) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = r.RPS
	}
	return medianOf(v)
}

func medianOf(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// rate prints a throughput with the digits that mean something: whole
// requests from 100 a second, tenths below (a 4k-page tree runs a few).
func rate(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
