package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The import comparison: Folio now against a binary built from
// importCommit, each importing the same zip of importPages pages into a
// new space, in interleaved rounds, on each database. Issue 31 found
// imports 2.3–2.5× slower than there with no feature to explain it.
const (
	importCommit   = "ea6637c"
	importPages    = 1000
	importChapters = 10 // folders of the zip, each a chapter page with 99 pages under it
)

// importSide is one of the two servers of an import comparison.
type importSide struct {
	name string // "new" or the commit
	c    client
	org  string
	took []float64 // seconds, a round each
}

// imports runs the import comparisons asked for, each recording its own
// figure or error.
func (s *sideBySide) imports(ctx context.Context, o *outcome, newBin string) {
	keys := []string{}
	for _, k := range groups["import"] {
		if s.want[k] {
			keys = append(keys, k)
		}
	}
	zipData, err := importZip()
	if err != nil {
		o.fail(err, keys...)
		return
	}
	zipURL, stop, err := serveZip(zipData)
	if err != nil {
		o.fail(err, keys...)
		return
	}
	defer stop()
	oldBin, err := s.buildAt(ctx, importCommit)
	if err != nil {
		o.fail(fmt.Errorf("building Folio at %s: %w", importCommit, err), keys...)
		return
	}
	for _, key := range keys {
		c, err := s.importCompare(ctx, key, oldBin, newBin, zipURL)
		if err != nil {
			o.fail(err, key)
			continue
		}
		o.results = append(o.results, c)
	}
}

// buildAt builds Folio as it was at commit, from `git archive` into the
// work directory (the repository and its worktrees are left alone; the
// module cache is shared, so the build needs no network when the commit's
// modules are there).
func (s *sideBySide) buildAt(ctx context.Context, commit string) (string, error) {
	src, tarball, bin := filepath.Join(s.work, "src-"+commit), filepath.Join(s.work, commit+".tar"), filepath.Join(s.work, "folio-"+commit)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if _, err := run(ctx, s.root, nil, "git", "archive", "--format=tar", "-o", tarball, commit); err != nil {
		return "", err
	}
	if _, err := run(ctx, src, nil, "tar", "-xf", tarball); err != nil {
		return "", err
	}
	s.progress("building Folio at " + commit + " (the import comparison's other side)")
	if _, err := run(ctx, src, []string{"GOWORK=off"}, s.goCmd, "build", "-o", bin, "."); err != nil {
		return "", err
	}
	return bin, nil
}

// importCompare starts both binaries over fresh databases of one kind
// (key import-postgres or import-sqlite) and times their imports.
func (s *sideBySide) importCompare(ctx context.Context, key, oldBin, newBin, zipURL string) (comparison, error) {
	kind := strings.TrimPrefix(key, "import-")
	sides := []*importSide{{name: importCommit}, {name: "new"}}
	for i, bin := range []string{oldBin, newBin} {
		side := sides[i]
		tag := "old"
		if side.name == "new" {
			tag = "new"
		}
		env := []string{"FOLIO_ALLOW_PRIVATE_FETCH=true", "FOLIO_DATA_DIR=" + filepath.Join(s.work, key+"-"+tag), "FOLIO_SECRET_KEY=" + secretKey()}
		if kind == "postgres" {
			dbURL, err := freshDatabase(s.server, "_import_"+tag)
			if err != nil {
				return comparison{}, unavailable{fmt.Errorf("PostgreSQL unavailable: %v", err)}
			}
			env = append(env, "DATABASE_URL="+dbURL)
		} else {
			env = append(env, "DATABASE_URL=") // SQLite, whatever the caller's environment says
		}
		f, token, err := startFolio(ctx, "Folio "+side.name, s.work, filepath.Join(s.work, key+"-"+tag+".log"), bin, env)
		if err != nil {
			return comparison{}, fmt.Errorf("%s: %w", side.name, err)
		}
		defer f.stop()
		side.c = client{base: f.url, token: token}
		orgs, err := side.c.call(ctx, "GET", "/v1/orgs", nil, 200)
		if err != nil {
			return comparison{}, fmt.Errorf("%s: %w", side.name, err)
		}
		items, _ := orgs["items"].([]any)
		if len(items) != 1 {
			return comparison{}, fmt.Errorf("%s: the new user should be in one organization: %v", side.name, orgs)
		}
		side.org, _ = items[0].(map[string]any)["id"].(string)
	}
	s.progress(fmt.Sprintf("imports on %s: a first one each (untimed), then %d interleaved rounds", kind, s.importRounds))
	var wrong []string
	for _, side := range sides { // warms each server, and shows what it imports
		if _, n, err := side.importOnce(ctx, zipURL); err != nil {
			return comparison{}, fmt.Errorf("%s: %w", side.name, err)
		} else if n != importPages {
			wrong = append(wrong, fmt.Sprintf("%s imported %d pages, not %d", side.name, n, importPages))
		}
	}
	for r := range s.importRounds {
		order := []*importSide{sides[0], sides[1]}
		if r%2 == 1 { // old, new; new, old: what one import leaves behind falls on both
			order[0], order[1] = order[1], order[0]
		}
		for _, side := range order {
			took, n, err := side.importOnce(ctx, zipURL)
			if err != nil {
				return comparison{}, fmt.Errorf("%s: %w", side.name, err)
			}
			if n != importPages {
				wrong = append(wrong, fmt.Sprintf("%s imported %d pages, not %d", side.name, n, importPages))
			}
			side.took = append(side.took, took.Seconds())
			fmt.Fprintf(s.log, "ratios: %-20s %8.2f s  %d pages\n", key+"-"+side.name, took.Seconds(), n)
		}
	}
	return importRatio(key, sides[0].took, sides[1].took, wrong), nil
}

// importRatio is the new binary's median import time over the old one's,
// with the per-round ratios; it is INVALID when an import did not yield the
// zip's pages.
func importRatio(key string, old, new []float64, wrong []string) comparison {
	c := comparison{key: key}
	if len(old) == 0 || len(old) != len(new) {
		c.invalid = "no runs"
		return c
	}
	om, nm := medianOf(old), medianOf(new)
	c.value = nm / om
	var per []string
	for i := range old {
		per = append(per, trim(new[i]/old[i]))
	}
	c.detail = fmt.Sprintf("new %.2f s, %s %.2f s; rounds %s", nm, importCommit, om, strings.Join(per, " "))
	if len(wrong) > 0 {
		c.invalid = strings.Join(wrong, "; ")
	}
	return c
}

// importOnce imports the zip into a new space and returns how long the
// request took and how many pages the space then holds. An import is one
// request on both sides: it answers 201 once the revision is written and
// indexed (no job to poll), so the request's time is the import's.
func (side *importSide) importOnce(ctx context.Context, zipURL string) (time.Duration, int, error) {
	sp, err := side.c.call(ctx, "POST", "/v1/orgs/"+side.org+"/spaces", map[string]any{"title": "Import"}, 201)
	if err != nil {
		return 0, 0, err
	}
	id, _ := sp["id"].(string)
	start := time.Now()
	if _, err := side.c.call(ctx, "POST", "/v1/spaces/"+id+"/content/import", map[string]any{"url": zipURL, "source": "zip"}, 201); err != nil {
		return 0, 0, err
	}
	took := time.Since(start)
	pages, err := side.c.call(ctx, "GET", "/v1/spaces/"+id+"/content/pages", nil, 200)
	if err != nil {
		return 0, 0, err
	}
	return took, countPages(pages["pages"]), nil
}

// countPages counts the pages of a content/pages answer, subpages included.
func countPages(v any) int {
	pages, _ := v.([]any)
	n := len(pages)
	for _, p := range pages {
		if m, ok := p.(map[string]any); ok {
			n += countPages(m["pages"])
		}
	}
	return n
}

// importZip is the archive both binaries import: a SUMMARY.md listing
// importChapters folders, each a chapter (its README.md) with its pages
// nested under it, importPages pages in all, the prose the seeded spaces
// hold. Both versions read SUMMARY.md the same way (titles from its links,
// nesting from its indentation).
func importZip() ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	r := rand.New(rand.NewPCG(31, importPages))
	add := func(name, body string) error {
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		_, err = w.Write([]byte(body))
		return err
	}
	var summary strings.Builder
	summary.WriteString("# Summary\n\n")
	perChapter := importPages / importChapters
	for ch := 1; ch <= importChapters; ch++ {
		dir := fmt.Sprintf("chapter-%02d", ch)
		title := fmt.Sprintf("Chapter %d", ch)
		fmt.Fprintf(&summary, "* [%s](%s/README.md)\n", title, dir)
		if err := add(dir+"/README.md", markdownPage(r, title)); err != nil {
			return nil, err
		}
		for p := 1; p < perChapter; p++ {
			title := fmt.Sprintf("Page %d.%d", ch, p)
			name := fmt.Sprintf("%s/page-%03d.md", dir, p)
			fmt.Fprintf(&summary, "  * [%s](%s)\n", title, name)
			if err := add(name, markdownPage(r, title)); err != nil {
				return nil, err
			}
		}
	}
	if err := add("SUMMARY.md", summary.String()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serveZip serves data on a loopback address (the servers fetch imports by
// URL: FOLIO_ALLOW_PRIVATE_FETCH lets them) until stop.
func serveZip(data []byte) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Write(data)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "ratios: serving the import zip:", err)
		}
	}()
	return "http://" + ln.Addr().String() + "/docs.zip", func() { srv.Close() }, nil
}
