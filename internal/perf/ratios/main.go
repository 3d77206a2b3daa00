// Command ratios is `make bench`: it runs the Go benchmarks, then the
// side-by-side comparisons — Folio against a bare database/sql handler and
// against PostGraphile on PostgreSQL, and Folio's imports against a binary
// built from ea6637c on both databases — and prints every ratio of issues
// 11, 25 and 31 with its target, from this one run.
//
// The reads need PostgreSQL, the perf directory (../shared/perf: the load
// generator, the bare server, PostGraphile's package files and queries)
// and, for PostGraphile, Node.js and npm (npm ci runs once into the user's
// cache directory); the imports need the repository's history and, for
// their PostgreSQL row, PostgreSQL. A comparison missing one of these is
// skipped with the reason and does not fail the run. Every other reason a
// comparison has no trustworthy figure fails it (FAILED or INVALID, with the
// reason) and the run, and the other comparisons still run, as does a
// failing Go benchmark. -only narrows the comparisons. The Go benchmarks'
// naming convention for ratios is in gobench.go.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

func main() { os.Exit(ratiosMain()) }

// ratiosMain returns the exit status, so the deferred clean-ups run first.
func ratiosMain() int {
	goCmd := flag.String("go", "go", "the go command")
	bench := flag.String("bench", ".", "Go benchmarks to run (go test -bench); empty runs none")
	compare := flag.Bool("compare", true, "run the side-by-side comparisons on PostgreSQL")
	perf := flag.String("perf", "", "the perf directory (default $FOLIO_PERF_DIR, else ../shared/perf)")
	server := flag.String("postgres", "", "PostgreSQL URL of the benchmark database, dropped and created afresh (default: TEST_DATABASE_URL's server, else the local one, database folio_bench)")
	rounds := flag.Int("rounds", 3, "interleaved rounds of each comparison (the median counts)")
	importRounds := flag.Int("import-rounds", 9, "interleaved rounds of the import comparisons, one import of each binary a round (the median counts)")
	duration := flag.Duration("d", 5*time.Second, "length of one load run")
	clients := flag.Int("c", 8, "concurrent clients of the load generator")
	only := flag.String("only", "", "run only these comparisons, comma-separated: keys ("+strings.Join(comparisons, ", ")+") or groups ("+groupNames()+"); default all")
	flag.Parse()
	want, err := selectComparisons(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios: -only:", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := os.Getwd()
	if err == nil {
		_, err = os.Stat(filepath.Join(root, "go.mod"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratios: run from Folio's module directory (make bench):", err)
		return 2
	}
	machine := describeMachine()

	var benchOut string
	benchFailed := false
	if *bench != "" {
		benchOut, benchFailed = runGoBenchmarks(ctx, root, *goCmd, *bench)
	}

	o := outcome{missing: map[string]missing{}}
	if *compare {
		work, err := os.MkdirTemp("", "folio-bench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			return 1
		}
		defer os.RemoveAll(work)
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = work
		}
		s := &sideBySide{root: root, perf: perfDir(root, *perf), work: work, cache: filepath.Join(cache, "folio-perf"),
			server: benchDatabase(*server), goCmd: *goCmd, rounds: *rounds, importRounds: *importRounds, duration: *duration, clients: *clients, want: want, only: *only, log: os.Stdout}
		o = s.run(ctx)
	} else {
		o.fail(unavailable{errors.New("not asked for (-compare=false)")}, comparisons...)
	}

	report(os.Stdout, machine, o, parseBench(benchOut), *bench != "")
	status := 0
	if benchFailed {
		fmt.Println("make bench: the Go benchmarks FAILED (see above)")
		status = 1
	}
	if failed := failures(o); len(failed) > 0 {
		fmt.Printf("make bench: %d comparison(s) FAILED or INVALID (see above):\n", len(failed))
		for _, f := range failed {
			fmt.Println("  " + f)
		}
		status = 1
	}
	return status
}

// runGoBenchmarks runs the benchmarks, showing their output as it comes.
func runGoBenchmarks(ctx context.Context, root, goCmd, pattern string) (string, bool) {
	var buf bytes.Buffer
	cmd := exec.CommandContext(ctx, goCmd, "test", "-run", "^$", "-bench", pattern, "-benchmem", "./...")
	cmd.Dir = root
	cmd.Stdout = io.MultiWriter(os.Stdout, &buf)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	return buf.String(), err != nil
}

func perfDir(root, flagged string) string {
	if flagged != "" {
		return flagged
	}
	if env := os.Getenv("FOLIO_PERF_DIR"); env != "" {
		return env
	}
	return filepath.Join(root, "..", "shared", "perf")
}

// benchDatabase is the database the comparisons own: on the server the
// tests use, never the tests' own database.
func benchDatabase(flagged string) string {
	if flagged != "" {
		return flagged
	}
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/"
	}
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/folio_bench"
	return u.String()
}

// describeMachine names what the figures came from; ratios travel between
// machines better than rates, but not perfectly.
func describeMachine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load " + strings.Fields(string(b))[0] + " at start"
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s, %s%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH,
		runtime.Version(), load, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
}

// report prints the table: the issues' rows in their order, then any other
// BenchmarkRatio the packages define, then why comparisons have no figure.
func report(w io.Writer, machine string, o outcome, lines []benchLine, benchRan bool) {
	rs := ratios(lines)
	fmt.Fprintf(w, "\nratios of issues 11, 25 and 31 (%s)\n", machine)
	line := func(issues, read, value string, t *target, verdict, detail string) {
		tt := ""
		if t != nil {
			tt = "(" + t.String() + ")"
		}
		if detail != "" {
			detail = "  [" + detail + "]"
		}
		l := fmt.Sprintf("  %s %s %s %s %s%s", pad(issues, -5), pad(read+":", -80), pad(value, 7), pad(tt, -17), pad(verdict, -7), detail)
		fmt.Fprintln(w, strings.TrimRight(l, " "))
	}
	used := map[string]bool{}
	var reasons []string          // why comparisons were skipped or failed, each said once
	keys := map[string][]string{} // reason → the comparisons it holds for
	for _, r := range table {
		t := r.target
		if r.compare != "" {
			measured := false
			for _, c := range o.results {
				if c.key == r.compare {
					measured = true
					verdict := "misses"
					if t.met(c.value) {
						verdict = "meets"
					}
					if c.invalid != "" {
						verdict = "INVALID: " + c.invalid
					}
					line(r.issues, r.read, trim(c.value)+"×", &t, verdict, c.detail)
				}
			}
			if !measured {
				m := o.missing[r.compare]
				verdict := "skipped"
				if m.failed {
					verdict = "FAILED"
				}
				why := verdict + ": " + m.reason
				if !slices.Contains(reasons, why) {
					reasons = append(reasons, why)
				}
				keys[why] = append(keys[why], r.compare)
				line(r.issues, r.read, "—", &t, verdict, "")
			}
			continue
		}
		measured, ran := false, false
		found := rs
		if r.metric != "" {
			found = reported(lines, r.bench, r.metric)
		}
		for _, l := range lines {
			ran = ran || l.name == r.bench || strings.HasPrefix(l.name, r.bench+"/")
		}
		for _, x := range found {
			if x.key != r.bench && !strings.HasPrefix(x.key, r.bench+"/") {
				continue
			}
			measured, used[x.key] = true, true
			read := r.read
			if sub := strings.TrimPrefix(x.key, r.bench); sub != "" {
				read += " [" + strings.TrimPrefix(sub, "/") + "]"
			}
			verdict := "misses"
			if t.met(x.value) {
				verdict = "meets"
			}
			line(r.issues, read, trim(x.value)+"×", &t, verdict, x.detail)
		}
		if !measured {
			why := "not measured: no " + r.bench + " ran (none yet, or -bench left it out)"
			switch {
			case !benchRan:
				why = "not measured: Go benchmarks not run (-bench \"\")"
			case ran && r.metric != "":
				why = "not measured: " + r.bench + " reports no " + r.metric
			}
			line(r.issues, r.read, "—", &t, why, "")
		}
	}
	for _, x := range rs {
		if !used[x.key] {
			line("", x.key, trim(x.value)+"×", nil, "", x.detail)
		}
	}
	for _, why := range reasons {
		fmt.Fprintf(w, "  %s (%s)\n", why, strings.Join(keys[why], ", "))
	}
}

// failures names the comparisons that make the run fail: those that broke
// (not those skipped for want of a tool) and those whose figure cannot be
// trusted (INVALID), each with why.
func failures(o outcome) []string {
	var out []string
	for _, k := range comparisons {
		if m, ok := o.missing[k]; ok && m.failed {
			out = append(out, k+": "+m.reason)
		}
	}
	for _, c := range o.results {
		if c.invalid != "" {
			out = append(out, c.key+": INVALID: "+c.invalid)
		}
	}
	return out
}

// pad widens s to width characters (not bytes: × and ≥ are two or three),
// on the left when width is positive, on the right when negative.
func pad(s string, width int) string {
	left := width > 0
	if !left {
		width = -width
	}
	n := width - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if left {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}
