package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
)

// client speaks Folio's REST API as the benchmark's user.
type client struct {
	base, token string
}

func (c client) call(ctx context.Context, method, path string, body any, want int) (map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
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
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %d %.300s", method, path, resp.StatusCode, b)
	}
	var out map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return out, nil
}

// dataset is what the comparisons read: an organization of 50 spaces for
// the REST reads, and two organizations of 10 spaces whose page trees hold
// 1,000 and 4,000 pages for the GraphQL trees.
type dataset struct {
	listOrg, space       string
	tree1kOrg, tree4kOrg string
}

const (
	listSpaces   = 50
	treeSpaces   = 10
	pagesPerRoot = 10 // a root, 3 chapters, each with a section and a detail: 4 levels
)

// seed builds the dataset through Folio's own API, as a user would.
// listOrg is the organization `folio token create --org` made; a tree
// organization is seeded only when its comparison is wanted.
func seed(ctx context.Context, c client, listOrg string, want map[string]bool) (dataset, error) {
	d := dataset{listOrg: listOrg}
	for i := range listSpaces {
		sp, err := c.call(ctx, "POST", "/v1/orgs/"+listOrg+"/spaces", map[string]any{"title": fmt.Sprintf("Space %d", i)}, 201)
		if err != nil {
			return d, err
		}
		d.space = sp["id"].(string)
	}
	type job struct {
		org          string
		space, roots int
	}
	var jobs []job
	for _, o := range []struct {
		key   string
		org   *string
		roots int
	}{{"tree1k", &d.tree1kOrg, 1000 / treeSpaces / pagesPerRoot}, {"tree4k", &d.tree4kOrg, 4000 / treeSpaces / pagesPerRoot}} {
		if !want[o.key] {
			continue
		}
		org, err := c.call(ctx, "POST", "/v1/orgs", map[string]any{"title": fmt.Sprintf("Tree %d", o.roots*treeSpaces*pagesPerRoot)}, 201)
		if err != nil {
			return d, err
		}
		*o.org = org["id"].(string)
		for s := range treeSpaces {
			jobs = append(jobs, job{*o.org, s, o.roots})
		}
	}
	// A few spaces at a time: seeding is bound by the server, not by us.
	work := make(chan job)
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				errs <- seedSpace(ctx, c, j.org, j.space, j.roots)
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return d, err
		}
	}
	return d, nil
}

// seedSpace creates a live space of roots page trees, 50 pages a request.
func seedSpace(ctx context.Context, c client, org string, n, roots int) error {
	sp, err := c.call(ctx, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("Docs %d", n), "editMode": "live"}, 201)
	if err != nil {
		return err
	}
	id := sp["id"].(string)
	r := rand.New(rand.NewPCG(uint64(n), uint64(roots)))
	var batch []any
	for k := range roots {
		batch = append(batch, pageTree(r, k)...)
		if len(batch) >= 50 || k == roots-1 {
			if _, err := c.call(ctx, "POST", "/v1/spaces/"+id+"/content", map[string]any{"changes": batch}, 200); err != nil {
				return err
			}
			batch = nil
		}
	}
	return nil
}

// pageTree is the changes inserting one root of pagesPerRoot pages.
func pageTree(r *rand.Rand, root int) []any {
	var changes []any
	add := func(ref, into, title string) {
		c := map[string]any{"operation": "insert_page", "ref": ref, "document": map[string]any{"markdown": markdownPage(r, title)}}
		if into != "" {
			c["into"] = into
		}
		changes = append(changes, c)
	}
	rootRef := fmt.Sprintf("r%d", root)
	add(rootRef, "", fmt.Sprintf("Guide %d", root))
	for a := range 3 {
		chapter := fmt.Sprintf("%sc%d", rootRef, a)
		add(chapter, rootRef, fmt.Sprintf("Chapter %d.%d", root, a))
		add(chapter+"s", chapter, fmt.Sprintf("Section %d.%d.1", root, a))
		add(chapter+"sd", chapter+"s", fmt.Sprintf("Detail %d.%d.1.1", root, a))
	}
	return changes
}

var words = strings.Fields(`the of and to in is for that on with as are this by be it an or from at which can
you your data api server client request response token user space page search index query database table
column row cursor change merge revision content document markdown heading section list code example install
configure deploy cluster node network latency cache memory storage backup restore schema field value error
retry timeout webhook event stream queue worker job permission role admin member team organization release`)

// markdownPage is a page of two sections of ordinary prose, a few hundred
// words, the size of a typical documentation page's body.
func markdownPage(r *rand.Rand, title string) string {
	var b strings.Builder
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		s := strings.Join(w, " ")
		return strings.ToUpper(s[:1]) + s[1:]
	}
	para := func() {
		for range 2 + r.IntN(3) {
			b.WriteString(sentence(6+r.IntN(12)) + ". ")
		}
		b.WriteString("\n\n")
	}
	b.WriteString("# " + title + "\n\n")
	para()
	for range 2 {
		b.WriteString("## " + sentence(3) + "\n\n")
		para()
		if r.IntN(3) == 0 {
			for range 3 {
				b.WriteString("- " + sentence(5) + "\n")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
