package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	root     string // Folio's module
	perf     string // the perf directory
	work     string // a temporary directory for binaries, data and logs
	cache    string // where PostGraphile's node_modules stay between runs
	server   string // PostgreSQL server URL; its path names the database dropped and created
	goCmd    string
	rounds   int
	duration time.Duration
	clients  int
	log      io.Writer // progress
}

// comparison is one side-by-side ratio: Folio's median throughput over
// the other server's.
type comparison struct {
	key     string
	value   float64
	detail  string
	invalid string // why the figure is not to be trusted ("" when it is)
}

// outcome is what the comparisons measured and what they had to skip.
type outcome struct {
	results []comparison
	skipped map[string]string // key → reason
}

func (o *outcome) skip(reason string, keys ...string) {
	for _, k := range keys {
		if _, done := o.skipped[k]; !done && !o.has(k) {
			o.skipped[k] = reason
		}
	}
}

func (o *outcome) has(key string) bool {
	return slices.ContainsFunc(o.results, func(c comparison) bool { return c.key == key })
}

// run measures every comparison it can; what it cannot measure it skips
// with the reason, so `make bench` goes on without PostgreSQL, npm or the
// perf directory.
func (s *sideBySide) run(ctx context.Context) outcome {
	o := outcome{skipped: map[string]string{}}
	all := []string{"space", "spaces", "tree1k", "tree4k"}
	if err := s.measure(ctx, &o); err != nil {
		o.skip(err.Error(), all...)
	}
	return o
}

func (s *sideBySide) measure(ctx context.Context, o *outcome) error {
	for _, need := range []string{"bare/main.go", "load/main.go", "q/folio_org_tree.graphql", "q/pgl_org_tree.graphql"} {
		if _, err := os.Stat(filepath.Join(s.perf, need)); err != nil {
			return fmt.Errorf("no perf directory at %s (set -perf): %v", s.perf, err)
		}
	}
	dbURL, err := s.freshDatabase()
	if err != nil {
		return fmt.Errorf("PostgreSQL unavailable: %v", err)
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
		o.skip(err.Error(), "space", "spaces")
	}
	if err := s.trees(ctx, o, loadgen, dbURL, folioURL, auth, d); err != nil {
		o.skip(err.Error(), "tree1k", "tree4k")
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

// restReads compares the two REST reads with the bare handler.
func (s *sideBySide) restReads(ctx context.Context, o *outcome, bareBin, loadgen, dbURL, folioURL, auth string, d dataset) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	bare, err := startProc("bare", s.work, filepath.Join(s.work, "bare.log"), nil, bareBin, "-addr", addr, "-db", dbURL, "-mode", "min")
	if err != nil {
		return err
	}
	defer bare.stop()
	bareURL := "http://" + addr
	if err := bare.waitReady(ctx, bareURL+"/v1/spaces/x", 30*time.Second); err != nil {
		return err
	}
	space, spaces := "/v1/spaces/"+d.space, "/v1/orgs/"+d.listOrg+"/spaces?limit=50"
	variants := []variant{
		{name: "space-folio", args: []string{"-url", folioURL + space, "-H", auth}},
		{name: "space-bare", args: []string{"-url", bareURL + space, "-H", auth}},
		{name: "spaces-folio", args: []string{"-url", folioURL + spaces, "-H", auth}},
		{name: "spaces-bare", args: []string{"-url", bareURL + spaces, "-H", auth}},
	}
	// The bare server must serve the same JSON, or it is not the floor.
	checks := map[string]string{}
	for i := 0; i < len(variants); i += 2 {
		fa, err := fetch(ctx, "GET", variants[i].args[1], auth, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", variants[i].name, err)
		}
		ba, err := fetch(ctx, "GET", variants[i+1].args[1], auth, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", variants[i+1].name, err)
		}
		key, _, _ := strings.Cut(variants[i].name, "-")
		if at := firstDifference(rebase(fa, folioURL), rebase(ba, bareURL), ""); at != "" {
			checks[key] = "the bare server answers differently at " + at
		}
	}
	s.progress(fmt.Sprintf("REST reads: %d interleaved rounds of %s, %d clients", s.rounds, s.duration, s.clients))
	runs, err := s.interleave(ctx, loadgen, variants)
	if err != nil {
		return err
	}
	for _, key := range []string{"space", "spaces"} {
		c := compared(key, runs[key+"-folio"], runs[key+"-bare"], "bare")
		if c.invalid == "" {
			c.invalid = checks[key]
		}
		o.results = append(o.results, c)
	}
	return nil
}

// rebase replaces a server's own address in an answer's URLs, so two
// servers' answers compare equal when they say the same.
func rebase(v any, base string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = rebase(x, base)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = rebase(x, base)
		}
		return out
	case string:
		return strings.ReplaceAll(v, base, "BASE")
	}
	return v
}

// firstDifference is the path of the first place two JSON values differ,
// "" when they are equal.
func firstDifference(a, b any, path string) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return where(path)
		}
		keys := slices.Sorted(maps.Keys(a))
		for k := range bm {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if at := firstDifference(a[k], bm[k], path+"/"+k); at != "" {
				return at
			}
		}
		return ""
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			return where(path)
		}
		for i := range a {
			if at := firstDifference(a[i], bs[i], fmt.Sprintf("%s/%d", path, i)); at != "" {
				return at
			}
		}
		return ""
	}
	if a != b {
		return where(path)
	}
	return ""
}

// where names the root "/", which "" (no difference) cannot.
func where(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// trees compares the GraphQL org tree with PostGraphile's answer to the
// same rows (q/ in the perf directory holds both queries).
func (s *sideBySide) trees(ctx context.Context, o *outcome, loadgen, dbURL, folioURL, auth string, d dataset) error {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("PostGraphile needs Node.js and npm: %s not found", tool)
		}
	}
	modules, err := s.installPostGraphile(ctx)
	if err != nil {
		return err
	}
	if err := smartComments(dbURL); err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	_, port, _ := strings.Cut(addr, ":")
	pgl, err := startProc("PostGraphile", modules, filepath.Join(s.work, "postgraphile.log"),
		[]string{"NODE_OPTIONS=--require=" + filepath.Join(modules, "polyfill.cjs")},
		"node", filepath.Join(modules, "node_modules", ".bin", "postgraphile"),
		"-P", "postgraphile/presets/amber", "-c", dbURL, "-s", "public", "-n", "127.0.0.1", "-p", port)
	if err != nil {
		return err
	}
	defer pgl.stop()
	pglURL := "http://" + addr + "/graphql"
	if err := pgl.waitReady(ctx, pglURL, 2*time.Minute); err != nil {
		return err
	}
	folioQuery, err := os.ReadFile(filepath.Join(s.perf, "q", "folio_org_tree.graphql"))
	if err != nil {
		return err
	}
	pglQuery, err := os.ReadFile(filepath.Join(s.perf, "q", "pgl_org_tree.graphql"))
	if err != nil {
		return err
	}
	rowID := regexp.MustCompile(`rowId: "[^"]*"`)
	var variants []variant
	checks := map[string]string{}
	for _, t := range []struct{ key, org string }{{"tree1k", d.tree1kOrg}, {"tree4k", d.tree4kOrg}} {
		fb, _ := json.Marshal(map[string]any{"query": string(folioQuery), "variables": map[string]any{"org": t.org}})
		pb, _ := json.Marshal(map[string]any{"query": rowID.ReplaceAllString(string(pglQuery), `rowId: "`+t.org+`"`)})
		ff, pf := filepath.Join(s.work, t.key+"-folio.json"), filepath.Join(s.work, t.key+"-postgraphile.json")
		if err := os.WriteFile(ff, fb, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(pf, pb, 0o644); err != nil {
			return err
		}
		// Both answers must hold the same pages, or the race is not fair.
		fa, err := fetch(ctx, "POST", folioURL+"/graphql", auth, fb)
		if err != nil {
			return fmt.Errorf("%s, Folio: %w", t.key, err)
		}
		pa, err := fetch(ctx, "POST", pglURL, "", pb)
		if err != nil {
			return fmt.Errorf("%s, PostGraphile: %w", t.key, err)
		}
		nf, np := pagesIn(fa), pagesIn(pa)
		if nf != np || nf == 0 {
			checks[t.key] = fmt.Sprintf("the answers differ: Folio %d pages, PostGraphile %d", nf, np)
		}
		variants = append(variants,
			variant{name: t.key + "-folio", args: []string{"-url", folioURL + "/graphql", "-X", "POST", "-body", ff, "-H", auth}},
			variant{name: t.key + "-postgraphile", args: []string{"-url", pglURL, "-X", "POST", "-body", pf}})
	}
	s.progress(fmt.Sprintf("GraphQL trees: %d interleaved rounds of %s, %d clients", s.rounds, s.duration, s.clients))
	runs, err := s.interleave(ctx, loadgen, variants)
	if err != nil {
		return err
	}
	for _, key := range []string{"tree1k", "tree4k"} {
		c := compared(key, runs[key+"-folio"], runs[key+"-postgraphile"], "PostGraphile")
		if c.invalid == "" {
			c.invalid = checks[key]
		}
		o.results = append(o.results, c)
	}
	return nil
}

// installPostGraphile runs npm ci once into a cache directory and again
// only when the perf directory's lock file changes.
func (s *sideBySide) installPostGraphile(ctx context.Context) (string, error) {
	dir := filepath.Join(s.cache, "postgraphile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(s.perf, "package-lock.json"))
	if err != nil {
		return "", err
	}
	installed, _ := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	_, binErr := os.Stat(filepath.Join(dir, "node_modules", ".bin", "postgraphile"))
	for _, f := range []string{"package.json", "package-lock.json", "polyfill.cjs"} {
		b, err := os.ReadFile(filepath.Join(s.perf, f))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return "", err
		}
	}
	if binErr == nil && string(installed) == string(lock) {
		return dir, nil
	}
	s.progress("npm ci (PostGraphile, once) in " + dir)
	if _, err := run(ctx, dir, nil, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
		return "", fmt.Errorf("installing PostGraphile: %w", err)
	}
	return dir, nil
}

// smartComments declares to PostGraphile the relations ent keeps without a
// foreign key, so it offers the same joins Folio's schema has.
func smartComments(dbURL string) error {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, table := range []string{"spaces", "pages"} {
		var fks int
		if err := db.QueryRow(`SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = $1::regclass AND confrelid = 'revisions'::regclass`, table).Scan(&fks); err != nil {
			return err
		}
		if fks > 0 {
			continue
		}
		if _, err := db.Exec(`COMMENT ON TABLE ` + pq.QuoteIdentifier(table) + ` IS E'@foreignKey (revision_id) references revisions (id)'`); err != nil {
			return err
		}
	}
	return nil
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

// pagesIn counts the pages of a tree answer: both queries ask every page,
// and only pages, for its slug.
func pagesIn(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["slug"]; ok {
			n++
		}
		for _, x := range v {
			n += pagesIn(x)
		}
	case []any:
		for _, x := range v {
			n += pagesIn(x)
		}
	}
	return n
}

func (s *sideBySide) progress(msg string) { fmt.Fprintln(s.log, "ratios:", msg) }
