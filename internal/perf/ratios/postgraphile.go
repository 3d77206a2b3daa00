package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/lib/pq"
)

// trees compares the GraphQL org tree with PostGraphile's answer to the
// same rows (q/ in the perf directory holds both queries), each tree on its
// own. PostGraphile's connections run with PostgreSQL's JIT off (PGOPTIONS):
// JIT compiles its large single statements at a cost that varies with the
// planner's estimates, and the target is against PostGraphile
// without it, a steadier and harder floor. A failure of PostGraphile itself
// is returned.
func (s *sideBySide) trees(ctx context.Context, o *outcome, loadgen, dbURL, folioURL, auth string, d dataset) error {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return unavailable{fmt.Errorf("PostGraphile needs Node.js and npm: %s not found", tool)}
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
		[]string{"NODE_OPTIONS=--require=" + filepath.Join(modules, "polyfill.cjs"), "PGOPTIONS=-c jit=off"},
		"node", filepath.Join(modules, "node_modules", ".bin", "postgraphile"),
		"-P", "postgraphile/presets/amber", "-c", dbURL, "-s", "public", "-n", "127.0.0.1", "-p", port)
	if err != nil {
		return err
	}
	defer pgl.stop()
	pglURL := "http://" + addr + "/graphql"
	if err := pgl.waitReady(ctx, pglURL, anyAnswer, 2*time.Minute); err != nil {
		return err
	}
	// Asked of PostGraphile itself, so the setting is its connections'.
	jit, err := fetch(ctx, "POST", pglURL, "", []byte(`{"query":"{ folioBenchJit }"}`))
	if err != nil {
		return fmt.Errorf("PostGraphile's JIT setting: %w", err)
	}
	if v, _ := jit["data"].(map[string]any)["folioBenchJit"].(string); v != "off" {
		return fmt.Errorf("PostGraphile's connections run with jit = %q, want off (PGOPTIONS not honoured?)", v)
	}
	folioQuery, err := os.ReadFile(filepath.Join(s.perf, "q", "folio_org_tree.graphql"))
	if err != nil {
		return err
	}
	pglQuery, err := os.ReadFile(filepath.Join(s.perf, "q", "pgl_org_tree.graphql"))
	if err != nil {
		return err
	}
	// The shared query names the relation of the pages table from before
	// chunks; a revision's pages are now the view revision_pages
	// (smartComments), whose relation PostGraphile names after it.
	pglQuery = []byte(strings.ReplaceAll(string(pglQuery), "pagesByRevisionId", "revisionPagesByRevisionId"))
	for _, t := range []struct{ key, org string }{{"tree1k", d.tree1kOrg}, {"tree4k", d.tree4kOrg}} {
		if !s.want[t.key] {
			continue
		}
		if err := s.tree(ctx, o, t.key, t.org, loadgen, folioURL, pglURL, auth, folioQuery, pglQuery); err != nil {
			o.fail(err, t.key)
		}
	}
	return nil
}

var rowID = regexp.MustCompile(`rowId: "[^"]*"`)

// tree checks that Folio and PostGraphile answer one organization's tree
// with the same pages, then times them in interleaved rounds.
func (s *sideBySide) tree(ctx context.Context, o *outcome, key, org, loadgen, folioURL, pglURL, auth string, folioQuery, pglQuery []byte) error {
	fb, _ := json.Marshal(map[string]any{"query": string(folioQuery), "variables": map[string]any{"org": org}})
	pb, _ := json.Marshal(map[string]any{"query": rowID.ReplaceAllString(string(pglQuery), `rowId: "`+org+`"`)})
	ff, pf := filepath.Join(s.work, key+"-folio.json"), filepath.Join(s.work, key+"-postgraphile.json")
	if err := os.WriteFile(ff, fb, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(pf, pb, 0o644); err != nil {
		return err
	}
	// Both answers must hold the same pages, or the race is not fair.
	fa, err := fetch(ctx, "POST", folioURL+"/graphql", auth, fb)
	if err != nil {
		return fmt.Errorf("Folio: %w", err)
	}
	pa, err := fetch(ctx, "POST", pglURL, "", pb)
	if err != nil {
		return fmt.Errorf("PostGraphile: %w", err)
	}
	check := ""
	if nf, np := pagesIn(fa), pagesIn(pa); nf != np || nf == 0 {
		check = fmt.Sprintf("the answers differ: Folio %d pages, PostGraphile %d", nf, np)
	}
	variants := []variant{
		{name: key + "-folio", args: []string{"-url", folioURL + "/graphql", "-X", "POST", "-body", ff, "-H", auth}},
		{name: key + "-postgraphile", args: []string{"-url", pglURL, "-X", "POST", "-body", pf}},
	}
	s.progress(fmt.Sprintf("GraphQL tree %s: %d interleaved rounds of %s, %d clients", key, s.rounds, s.duration, s.clients))
	runs, err := s.interleave(ctx, loadgen, variants)
	if err != nil {
		return err
	}
	c := compared(key, runs[key+"-folio"], runs[key+"-postgraphile"], "PostGraphile")
	if c.invalid == "" {
		c.invalid = check
	}
	o.results = append(o.results, c)
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
		return "", unavailable{fmt.Errorf("installing PostGraphile (npm ci): %w", err)}
	}
	return dir, nil
}

// smartComments declares to PostGraphile the relations ent keeps without a
// foreign key, so it offers the same joins Folio's schema has, and adds
// the function that tells its JIT setting.
func smartComments(dbURL string) error {
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	// A revision's pages are the rows of the chunks its map names
	// (revision_chunks): the view revision_pages joins them, as Folio's
	// reads do, and gives PostGraphile the relation revision → pages.
	if _, err := db.Exec(`CREATE OR REPLACE VIEW revision_pages AS SELECT m.revision_id, p.page_id, p.parent_page_id, ` +
		`p.position, p.kind, p.title, p.emoji, p.slug, p.description, p.hidden, p.href, p.content_hash, p.created_at, p.updated_at ` +
		`FROM revision_chunks m JOIN pages p ON p.chunk_id = m.chunk_id`); err != nil {
		return err
	}
	if _, err := db.Exec(`COMMENT ON VIEW revision_pages IS E'@foreignKey (revision_id) references revisions (id)'`); err != nil {
		return err
	}
	// Query.folioBenchJit: the JIT setting of the connection PostGraphile
	// answers on, so the benchmark can see that PGOPTIONS took effect.
	if _, err := db.Exec(`CREATE OR REPLACE FUNCTION folio_bench_jit() RETURNS text LANGUAGE sql STABLE AS $$ SELECT current_setting('jit') $$`); err != nil {
		return err
	}
	for _, table := range []string{"spaces"} {
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
