package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// restReads compares the two REST reads with the bare handler, each on its
// own: a read that fails records its error and the other still runs. A
// failure of the bare server itself is returned.
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
	// The bare server has no /readyz: any answer means it listens.
	if err := bare.waitReady(ctx, bareURL+"/v1/spaces/x", anyAnswer, 30*time.Second); err != nil {
		return err
	}
	for _, r := range []struct{ key, path string }{
		{"space", "/v1/spaces/" + d.space},
		{"spaces", "/v1/orgs/" + d.listOrg + "/spaces?limit=50"},
	} {
		if !s.want[r.key] {
			continue
		}
		if err := s.restRead(ctx, o, r.key, loadgen, folioURL+r.path, bareURL+r.path, folioURL, bareURL, auth); err != nil {
			o.fail(err, r.key)
		}
	}
	return nil
}

// restRead checks that both servers answer the read alike, then times them
// in interleaved rounds.
func (s *sideBySide) restRead(ctx context.Context, o *outcome, key, loadgen, folioRead, bareRead, folioURL, bareURL, auth string) error {
	variants := []variant{
		{name: key + "-folio", args: []string{"-url", folioRead, "-H", auth}},
		{name: key + "-bare", args: []string{"-url", bareRead, "-H", auth}},
	}
	// The bare server must serve the same JSON, or it is not the floor.
	fa, err := fetch(ctx, "GET", folioRead, auth, nil)
	if err != nil {
		return fmt.Errorf("Folio: %w", err)
	}
	ba, err := fetch(ctx, "GET", bareRead, auth, nil)
	if err != nil {
		return fmt.Errorf("bare server: %w", err)
	}
	check := ""
	if at := firstDifference(rebase(fa, folioURL), oldAppURLs(rebase(ba, bareURL)), ""); at != "" {
		check = "the bare server answers differently at " + at
	}
	s.progress(fmt.Sprintf("REST read %s: %d interleaved rounds of %s, %d clients", key, s.rounds, s.duration, s.clients))
	runs, err := s.interleave(ctx, loadgen, variants)
	if err != nil {
		return err
	}
	c := compared(key, runs[key+"-folio"], runs[key+"-bare"], "bare")
	if c.invalid == "" {
		c.invalid = check
	}
	o.results = append(o.results, c)
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

// oldAppURLs writes the bare handler's spaces' urls.app (BASE/s/<id>, what
// Folio answered before /s/ went to published sites) as Folio writes it now
// (BASE/v1/spaces/<id>): the handler in ../shared/perf is not ours to
// change, and the address costs both servers the same.
func oldAppURLs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "app" {
				if id, ok := strings.CutPrefix(s, "BASE/s/"); ok {
					v[k] = "BASE/v1/spaces/" + id
				}
				continue
			}
			oldAppURLs(x)
		}
	case []any:
		for _, x := range v {
			oldAppURLs(x)
		}
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
