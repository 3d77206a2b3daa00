package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"
)

// sideBySide runs Folio next to the servers a user would compare it with,
// over one fresh PostgreSQL database: the bare database/sql handler and
// PostGraphile, both from the perf directory (../shared/perf), driven by
// its load generator in interleaved rounds.
type sideBySide struct {
	root      string // Folio's module
	perf      string // the perf directory
	work      string // a temporary directory for binaries, data and logs
	cache     string // where PostGraphile's node_modules stay between runs
	server    string // PostgreSQL server URL; its path names the database dropped and created
	goCmd     string
	rounds    int
	duration  time.Duration
	clients   int
	withTrees bool      // compare the GraphQL trees with PostGraphile too
	log       io.Writer // progress
}

// comparison is one side-by-side ratio: Folio's median throughput over
// the other server's.
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

// comparisons are the keys of the side-by-side results.
var comparisons = []string{"space", "spaces", "tree1k", "tree4k"}

// run measures every comparison it can; what it cannot measure it says
// why, and it goes on without PostgreSQL, npm or the perf directory.
func (s *sideBySide) run(ctx context.Context) outcome {
	o := outcome{missing: map[string]missing{}}
	if err := s.measure(ctx, &o); err != nil {
		o.fail(err, comparisons...)
	}
	return o
}

func (s *sideBySide) measure(ctx context.Context, o *outcome) error {
	for _, need := range []string{"bare/main.go", "load/main.go", "q/folio_org_tree.graphql", "q/pgl_org_tree.graphql"} {
		if _, err := os.Stat(filepath.Join(s.perf, need)); err != nil {
			return unavailable{fmt.Errorf("no perf directory at %s (set -perf): %v", s.perf, err)}
		}
	}
	dbURL, err := s.freshDatabase()
	if err != nil {
		return unavailable{fmt.Errorf("PostgreSQL unavailable: %v", err)}
	}
	s.progress("building Folio, the bare server and the load generator")
	folioBin, bareBin, loadgen := filepath.Join(s.work, "folio"), filepath.Join(s.work, "bare"), filepath.Join(s.work, "loadgen")
	if _, err := run(ctx, s.root, nil, s.goCmd, "build", "-o", folioBin, "."); err != nil {
		return err
	}
	for dir, bin := range map[string]string{"bare": bareBin, "load": loadgen} {
		if err := s.buildCopy(ctx, dir, bin); err != nil {
			return err
		}
	}

	env := []string{"DATABASE_URL=" + dbURL, "FOLIO_DATA_DIR=" + filepath.Join(s.work, "data")}
	tok, err := run(ctx, s.root, env, folioBin, "token", "create", "--email", "bench@perf.test", "--org", "Bench")
	if err != nil {
		return err
	}
	token := strings.TrimSpace(string(tok))
	folioAddr, err := freeAddr()
	if err != nil {
		return err
	}
	folio, err := startProc("folio", s.root, filepath.Join(s.work, "folio.log"), append(env, "FOLIO_ADDR="+folioAddr), folioBin, "serve")
	if err != nil {
		return err
	}
	defer folio.stop()
	folioURL := "http://" + folioAddr
	if err := folio.waitReady(ctx, folioURL+"/v1/user", time.Minute); err != nil {
		return err
	}
	c := client{base: folioURL, token: token}
	orgs, err := c.call(ctx, "GET", "/v1/orgs", nil, 200)
	if err != nil {
		return err
	}
	items, _ := orgs["items"].([]any)
	if len(items) != 1 {
		return fmt.Errorf("the new user should be in one organization: %v", orgs)
	}
	s.progress("seeding: 50 spaces, then 10 spaces of 1,000 pages and 10 of 4,000 (through the REST API)")
	start := time.Now()
	d, err := seed(ctx, c, items[0].(map[string]any)["id"].(string))
	if err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	s.progress(fmt.Sprintf("seeded in %s", time.Since(start).Round(time.Second)))
	if err := analyze(dbURL); err != nil {
		return err
	}

	auth := "Authorization: Bearer " + token
	if err := s.restReads(ctx, o, bareBin, loadgen, dbURL, folioURL, auth, d); err != nil {
		o.fail(err, "space", "spaces")
	}
	if !s.withTrees {
		o.fail(unavailable{errors.New("not asked for (-trees=false)")}, "tree1k", "tree4k")
	} else if err := s.trees(ctx, o, loadgen, dbURL, folioURL, auth, d); err != nil {
		o.fail(err, "tree1k", "tree4k")
	}
	return nil
}

// freshDatabase drops and creates the benchmark database and returns its URL.
func (s *sideBySide) freshDatabase() (string, error) {
	u, err := url.Parse(s.server)
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return "", fmt.Errorf("%s names no database", s.server)
	}
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
