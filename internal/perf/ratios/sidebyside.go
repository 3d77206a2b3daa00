package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
)

// sideBySide runs Folio next to the servers a user would compare it with,
// over one fresh PostgreSQL database: the bare database/sql handler and
// PostGraphile, both from the perf directory (../shared/perf), driven by
// its load generator in interleaved rounds; and next to Folio at an earlier
// commit, importing the same zip (imports.go).
type sideBySide struct {
	root         string // Folio's module
	perf         string // the perf directory
	work         string // a temporary directory for binaries, data and logs
	cache        string // where PostGraphile's node_modules stay between runs
	server       string // PostgreSQL server URL; its path names the database dropped and created
	goCmd        string
	rounds       int
	importRounds int // imports are short (a second or less): more rounds than the load runs
	duration     time.Duration
	clients      int
	want         map[string]bool // the comparisons to run (-only)
	only         string          // -only as given, to say why others did not run
	log          io.Writer       // progress
}

// comparison is one side-by-side ratio: Folio's median throughput over
// the other server's (reads), or its median time over the other binary's
// (imports).
type comparison struct {
	key     string
	value   float64
	detail  string
	invalid string // why the figure is not to be trusted ("" when it is)
}

// outcome is what the comparisons measured and what they did not.
type outcome struct {
	results []comparison
	missing map[string]missing // key → why not
}

// missing is why a comparison has no figure: something it needs is not
// there (skipped, as make bench goes on without it), or it failed.
type missing struct {
	reason string
	failed bool
}

// unavailable is an error saying that something a comparison needs is
// not installed or not reachable: the comparison is skipped, not failed.
type unavailable struct{ error }

func (o *outcome) fail(err error, keys ...string) {
	var u unavailable
	for _, k := range keys {
		if _, done := o.missing[k]; !done && !o.has(k) {
			o.missing[k] = missing{reason: err.Error(), failed: !errors.As(err, &u)}
		}
	}
}

func (o *outcome) has(key string) bool {
	return slices.ContainsFunc(o.results, func(c comparison) bool { return c.key == key })
}

// comparisons are the keys of the side-by-side results, in the table's order.
var comparisons = []string{"space", "spaces", "tree1k", "tree4k", "import-postgres", "import-sqlite"}

// groups name sets of comparisons for -only.
var groups = map[string][]string{
	"reads":  {"space", "spaces"},
	"trees":  {"tree1k", "tree4k"},
	"import": {"import-postgres", "import-sqlite"},
}

func groupNames() string { return strings.Join(slices.Sorted(maps.Keys(groups)), ", ") }

// selectComparisons reads -only: empty is every comparison.
func selectComparisons(only string) (map[string]bool, error) {
	want := map[string]bool{}
	if strings.TrimSpace(only) == "" {
		for _, k := range comparisons {
			want[k] = true
		}
		return want, nil
	}
	for _, name := range strings.Split(only, ",") {
		name = strings.TrimSpace(name)
		switch {
		case groups[name] != nil:
			for _, k := range groups[name] {
				want[k] = true
			}
		case slices.Contains(comparisons, name):
			want[name] = true
		default:
			return nil, fmt.Errorf("no comparison %q (keys: %s; groups: %s)", name, strings.Join(comparisons, ", "), groupNames())
		}
	}
	return want, nil
}

// wants says whether any of keys is to run.
func (s *sideBySide) wants(keys ...string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { return s.want[k] })
}

// run measures every comparison asked for; each records its own figure or
// error, so one that breaks leaves the others to run. What it cannot
// measure for want of PostgreSQL, npm or the perf directory is skipped with
// the reason; anything else that stops a comparison fails it.
func (s *sideBySide) run(ctx context.Context) outcome {
	o := outcome{missing: map[string]missing{}}
	for _, k := range comparisons {
		if !s.want[k] {
			o.fail(unavailable{fmt.Errorf("not asked for (-only %s)", s.only)}, k)
		}
	}
	s.progress("building Folio")
	folioBin := filepath.Join(s.work, "folio")
	if _, err := run(ctx, s.root, nil, s.goCmd, "build", "-o", folioBin, "."); err != nil {
		o.fail(err, comparisons...)
		return o
	}
	reads := append(slices.Clone(groups["reads"]), groups["trees"]...)
	if s.wants(reads...) {
		if err := s.reads(ctx, &o, folioBin); err != nil {
			o.fail(err, reads...)
		}
	}
	if s.wants(groups["import"]...) {
		s.imports(ctx, &o, folioBin)
	}
	// A comparison with neither a figure nor a reason is this program's bug;
	// it must not pass for a success.
	o.fail(errors.New("no figure and no error recorded (a bug of internal/perf/ratios)"), comparisons...)
	return o
}

// reads compares the REST reads with the bare server and the GraphQL trees
// with PostGraphile, over one Folio on one seeded PostgreSQL database. A
// failure of what they share (the database, Folio, seeding) is returned and
// fails them all; each comparison's own failure is recorded as it happens.
func (s *sideBySide) reads(ctx context.Context, o *outcome, folioBin string) error {
	for _, need := range []string{"bare/main.go", "load/main.go", "q/folio_org_tree.graphql", "q/pgl_org_tree.graphql"} {
		if _, err := os.Stat(filepath.Join(s.perf, need)); err != nil {
			return unavailable{fmt.Errorf("no perf directory at %s (set -perf): %v", s.perf, err)}
		}
	}
	dbURL, err := freshDatabase(s.server, "")
	if err != nil {
		return unavailable{fmt.Errorf("PostgreSQL unavailable: %v", err)}
	}
	s.progress("building the bare server and the load generator")
	bareBin, loadgen := filepath.Join(s.work, "bare"), filepath.Join(s.work, "loadgen")
	for dir, bin := range map[string]string{"bare": bareBin, "load": loadgen} {
		if err := s.buildCopy(ctx, dir, bin); err != nil {
			return err
		}
	}

	env := []string{"DATABASE_URL=" + dbURL, "FOLIO_DATA_DIR=" + filepath.Join(s.work, "data"), "FOLIO_SECRET_KEY=" + secretKey()}
	folio, token, err := startFolio(ctx, "folio", s.root, filepath.Join(s.work, "folio.log"), folioBin, env)
	if err != nil {
		return err
	}
	defer folio.stop()
	c := client{base: folio.url, token: token}
	orgs, err := c.call(ctx, "GET", "/v1/orgs", nil, 200)
	if err != nil {
		return err
	}
	items, _ := orgs["items"].([]any)
	if len(items) != 1 {
		return fmt.Errorf("the new user should be in one organization: %v", orgs)
	}
	trees := s.wants(groups["trees"]...)
	s.progress("seeding through the REST API: 50 spaces; for each GraphQL tree asked for, 10 spaces of 1,000 or 4,000 pages in all")
	start := time.Now()
	d, err := seed(ctx, c, items[0].(map[string]any)["id"].(string), s.want)
	if err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	s.progress(fmt.Sprintf("seeded in %s", time.Since(start).Round(time.Second)))
	if err := analyze(dbURL); err != nil {
		return err
	}

	auth := "Authorization: Bearer " + token
	if s.wants(groups["reads"]...) {
		if err := s.restReads(ctx, o, bareBin, loadgen, dbURL, folio.url, auth, d); err != nil {
			o.fail(err, groups["reads"]...)
		}
	}
	if trees {
		if err := s.trees(ctx, o, loadgen, dbURL, folio.url, auth, d); err != nil {
			o.fail(err, groups["trees"]...)
		}
	}
	return nil
}

// secretKey is this run's FOLIO_SECRET_KEY, which Folio requires on
// PostgreSQL (and earlier commits ignore): 32 random bytes in base64.
var secretKey = sync.OnceValue(func() string {
	key := make([]byte, 32)
	rand.Read(key) // never fails (crypto/rand)
	return base64.StdEncoding.EncodeToString(key)
})

// folioProc is a Folio server this program started, ready for traffic.
type folioProc struct {
	*proc
	url string
}

// startFolio creates a token (and its user's organization) with the
// binary's own command, then serves on a free port until /readyz is 200.
func startFolio(ctx context.Context, name, dir, logPath, bin string, env []string) (*folioProc, string, error) {
	tok, err := run(ctx, dir, env, bin, "token", "create", "--email", "bench@perf.test", "--org", "Bench")
	if err != nil {
		return nil, "", err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	p, err := startProc(name, dir, logPath, append(env, "FOLIO_ADDR="+addr), bin, "serve")
	if err != nil {
		return nil, "", err
	}
	f := &folioProc{proc: p, url: "http://" + addr}
	if err := p.waitReady(ctx, f.url+"/readyz", readyz, 2*time.Minute); err != nil {
		p.stop()
		return nil, "", err
	}
	return f, strings.TrimSpace(string(tok)), nil
}

// freshDatabase drops and creates the database server names, with suffix
// appended to its name, and returns its URL.
func freshDatabase(server, suffix string) (string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return "", fmt.Errorf("%s names no database", server)
	}
	name += suffix
	u.Path = "/" + name
	q := u.Query()
	if !q.Has("sslmode") {
		q.Set("sslmode", "disable")
	}
	q.Set("connect_timeout", "5")
	u.RawQuery = q.Encode()
	admin := *u
	admin.Path = "/postgres"
	db, err := sql.Open("postgres", admin.String())
	if err != nil {
		return "", err
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		return "", err
	}
	for _, stmt := range []string{"DROP DATABASE IF EXISTS " + pq.QuoteIdentifier(name) + " WITH (FORCE)", "CREATE DATABASE " + pq.QuoteIdentifier(name)} {
		if _, err := db.Exec(stmt); err != nil {
			return "", err
		}
	}
	return u.String(), nil
}

// analyze gives the planner the seeded tables' statistics, as autovacuum
// would a while after a real load, so the first rounds plan like the last.
func analyze(dbURL string) error {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("VACUUM ANALYZE")
	return err
}

// buildCopy builds a program of the perf directory from a copy, leaving
// the shared directory untouched.
func (s *sideBySide) buildCopy(ctx context.Context, dir, bin string) error {
	src := filepath.Join(s.work, "src-"+dir)
	if err := os.CopyFS(src, os.DirFS(filepath.Join(s.perf, dir))); err != nil {
		return err
	}
	_, err := run(ctx, src, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, s.goCmd, "build", "-o", bin, ".")
	return err
}

// fetch makes one request and returns its decoded JSON answer; a status
// other than 200 or a GraphQL error is an error.
func fetch(ctx context.Context, method, u, auth string, body []byte) (map[string]any, error) {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if k, v, ok := strings.Cut(auth, ":"); ok {
		req.Header.Set(k, strings.TrimSpace(v))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil {
		return nil, fmt.Errorf("%s %s: %d %.300s", method, u, resp.StatusCode, b)
	}
	if errs, ok := out["errors"]; ok {
		return nil, fmt.Errorf("%s %s: %.300v", method, u, errs)
	}
	return out, nil
}

func (s *sideBySide) progress(msg string) { fmt.Fprintln(s.log, "ratios:", msg) }
