package graph_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/ent/revisionchunk"
	"github.com/folio/folio/internal/testkit"
)

// chunkFixture edits one space through change requests and remembers what
// every revision it made held, to check later that revisions never change.
type chunkFixture struct {
	s     *testkit.Server
	token string
	space string
	snaps map[string]string // revision → its pages, flattened
}

// flattenPages writes a page tree as sorted "id parent position title"
// lines.
func flattenPages(v any, parent string, out *[]string) {
	for i, x := range v.([]any) {
		p := x.(map[string]any)
		*out = append(*out, fmt.Sprintf("%s %s %d %s", p["id"], parent, i, p["title"]))
		if kids, ok := p["pages"]; ok && kids != nil {
			flattenPages(kids, p["id"].(string), out)
		}
	}
}

func (f *chunkFixture) pages(t *testing.T, rev string) string {
	t.Helper()
	body := f.s.Call(t, "listPagesInRevisionById", f.token, "GET", "/v1/spaces/"+f.space+"/revisions/"+rev+"/pages", nil, 200).JSON(t)
	var lines []string
	flattenPages(body["pages"], "", &lines)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// titles is the set of titles of a flattened revision.
func titles(flat string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(flat, "\n") {
		if f := strings.SplitN(l, " ", 4); len(f) == 4 {
			out[f[3]] = true
		}
	}
	return out
}

func (f *chunkFixture) openCR(t *testing.T) string {
	t.Helper()
	return f.s.Call(t, "createChangeRequest", f.token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{}, 201).JSON(t)["id"].(string)
}

func (f *chunkFixture) edit(t *testing.T, cr string, changes []any) {
	t.Helper()
	for start := 0; start < len(changes); start += 50 {
		f.s.Call(t, "updateChangeRequestContent", f.token, "POST", "/v1/spaces/"+f.space+"/change-requests/"+cr+"/content",
			map[string]any{"changes": changes[start:min(len(changes), start+50)]}, 200)
		cur := f.s.Client().ChangeRequest.GetX(context.Background(), cr).RevisionID
		f.snaps[cur] = f.pages(t, cur)
	}
}

// merge merges cr and answers the space's new revision.
func (f *chunkFixture) merge(t *testing.T, cr string) string {
	t.Helper()
	f.s.Call(t, "mergeChangeRequest", f.token, "POST", "/v1/spaces/"+f.space+"/change-requests/"+cr+"/merge", nil, 200)
	rev := f.s.Client().Space.GetX(context.Background(), f.space).RevisionID
	f.snaps[rev] = f.pages(t, rev)
	return rev
}

func (f *chunkFixture) buckets(rev string) int {
	return f.s.Client().Revision.GetX(context.Background(), rev).Buckets
}

// idsByTitle maps the titles of a revision's pages to their ids.
func idsByTitle(flat string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(flat, "\n") {
		if f := strings.SplitN(l, " ", 4); len(f) == 4 {
			out[f[3]] = f[0]
		}
	}
	return out
}

// TestChunkedRevisionsAcrossBucketCounts grows a space past doublings of its
// bucket count and shrinks it back, merging change requests made before
// each change of count, and checks every revision's pages: what the edits
// made, and unchanged when read again at the end (revisions share chunks,
// and nothing a later revision writes may show in an earlier one).
func TestChunkedRevisionsAcrossBucketCounts(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "chunks@merge.test", "Chunks")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Chunks"}, 201).JSON(t)["id"].(string)
		f := &chunkFixture{s: s, token: u.Token, space: sp, snaps: map[string]string{}}
		insert := func(from, to int) []any {
			var out []any
			for i := from; i < to; i++ {
				out = append(out, map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": fmt.Sprintf("# P%d\n\nBody %d.\n", i, i)}})
			}
			return out
		}

		// 100 pages: one bucket.
		cr := f.openCR(t)
		f.edit(t, cr, insert(0, 100))
		rev := f.merge(t, cr)
		if n := len(titles(f.snaps[rev])); n != 100 || f.buckets(rev) != 1 {
			t.Fatalf("100 pages: %d pages, %d buckets", n, f.buckets(rev))
		}
		ids := idsByTitle(f.snaps[rev])

		// A change request opened now edits three pages; meanwhile the space
		// grows past 128 pages (4 buckets).
		early := f.openCR(t)
		var changes []any
		for _, i := range []int{1, 2, 3} {
			changes = append(changes, map[string]any{"operation": "update_page", "page": ids[fmt.Sprint("P", i)],
				"document": map[string]any{"markdown": fmt.Sprintf("# Early%d\n", i)}})
		}
		f.edit(t, early, changes)
		grow := f.openCR(t)
		f.edit(t, grow, insert(100, 150))
		rev = f.merge(t, grow)
		if n := len(titles(f.snaps[rev])); n != 150 || f.buckets(rev) != 4 {
			t.Fatalf("150 pages: %d pages, %d buckets", n, f.buckets(rev))
		}
		// Merged across the change of count: base and theirs have 1 bucket, ours 4.
		rev = f.merge(t, early)
		got := titles(f.snaps[rev])
		if len(got) != 150 || !got["Early1"] || !got["Early3"] || got["P1"] || !got["P149"] || f.buckets(rev) != 4 {
			t.Fatalf("early merge: %d pages, %d buckets: %v", len(got), f.buckets(rev), got)
		}

		// Edits with the same bucket count write new chunks for the buckets
		// of the pages they change (a deletion or insertion renumbers its
		// siblings, so these only update).
		cr = f.openCR(t)
		f.edit(t, cr, []any{map[string]any{"operation": "update_page", "page": ids["P50"], "document": map[string]any{"markdown": "# Fifty\n"}},
			map[string]any{"operation": "update_page", "page": ids["P60"], "document": map[string]any{"markdown": "# Sixty\n"}}})
		before := s.Client().RevisionChunk.Query().Where(revisionchunk.RevisionID(rev)).AllX(context.Background())
		rev = f.merge(t, cr)
		after := s.Client().RevisionChunk.Query().Where(revisionchunk.RevisionID(rev)).AllX(context.Background())
		shared := 0
		for _, a := range after {
			for _, b := range before {
				if a.Bucket == b.Bucket && a.ChunkID == b.ChunkID {
					shared++
				}
			}
		}
		if len(after) != 4 || shared < 2 {
			for _, r := range []any{before, after} {
				t.Logf("%v", r)
			}
			t.Fatalf("a merge of two pages shares %d of %d chunks with its parent, want at least 2", shared, len(after))
		}
		got = titles(f.snaps[rev])
		if len(got) != 150 || !got["Fifty"] || !got["Sixty"] || got["P60"] || got["P50"] {
			t.Fatalf("same-count merge: %d pages", len(got))
		}

		// Shrink below 64 pages: back to one bucket, with a change request
		// opened before merged after.
		late := f.openCR(t)
		f.edit(t, late, []any{map[string]any{"operation": "update_page", "page": ids["P5"], "document": map[string]any{"markdown": "# Late\n"}}})
		cr = f.openCR(t)
		var dels []any
		for i := 100; i < 150; i++ {
			dels = append(dels, map[string]any{"operation": "delete_page", "page": idsByTitle(f.snaps[rev])[fmt.Sprint("P", i)]})
		}
		for i := 10; i < 50; i++ {
			dels = append(dels, map[string]any{"operation": "delete_page", "page": ids[fmt.Sprint("P", i)]})
		}
		f.edit(t, cr, dels)
		rev = f.merge(t, cr)
		if n := len(titles(f.snaps[rev])); n != 60 || f.buckets(rev) != 1 {
			t.Fatalf("shrunk: %d pages, %d buckets", n, f.buckets(rev))
		}
		rev = f.merge(t, late)
		got = titles(f.snaps[rev])
		if len(got) != 60 || !got["Late"] || got["P5"] || !got["Fifty"] || !got["Early2"] {
			t.Fatalf("late merge: %d pages: %v", len(got), got)
		}

		// Every revision still holds what it held when it was made.
		for r, want := range f.snaps {
			if got := f.pages(t, r); got != want {
				t.Fatalf("revision %s changed after later merges:\n%s\nwant\n%s", r, got, want)
			}
		}
	})
}

// TestChunkedMergesConcurrently merges change requests at once: each merge
// either lands or answers 409 (the space moved meanwhile) and lands on
// retry; the result holds every change.
func TestChunkedMergesConcurrently(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "race@merge.test", "Race")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Race"}, 201).JSON(t)["id"].(string)
		f := &chunkFixture{s: s, token: u.Token, space: sp, snaps: map[string]string{}}
		var inserts []any
		for i := 0; i < 200; i++ {
			inserts = append(inserts, map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": fmt.Sprintf("# P%d\n", i)}})
		}
		cr := f.openCR(t)
		f.edit(t, cr, inserts)
		ids := idsByTitle(f.snaps[f.merge(t, cr)])
		var crs []string
		for i := 0; i < 4; i++ {
			cr := f.openCR(t)
			f.edit(t, cr, []any{map[string]any{"operation": "update_page", "page": ids[fmt.Sprint("P", i*7)],
				"document": map[string]any{"markdown": fmt.Sprintf("# Raced%d\n", i)}}})
			crs = append(crs, cr)
		}
		var wg sync.WaitGroup
		for _, cr := range crs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for try := 0; try < 20; try++ {
					r := s.Request(t, u.Token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/merge", nil)
					switch r.Status {
					case 200:
						return
					case 409:
						time.Sleep(time.Duration(try+1) * 5 * time.Millisecond)
					default:
						t.Errorf("merge: %d %s", r.Status, r.Body)
						return
					}
				}
				t.Errorf("merge of %s never landed", cr)
			}()
		}
		wg.Wait()
		rev := s.Client().Space.GetX(context.Background(), sp).RevisionID
		got := titles(f.pages(t, rev))
		for i := 0; i < 4; i++ {
			if !got[fmt.Sprint("Raced", i)] || got[fmt.Sprint("P", i*7)] {
				t.Fatalf("change %d missing after concurrent merges: %v", i, got)
			}
		}
		if len(got) != 200 {
			t.Fatalf("%d pages, want 200", len(got))
		}
	})
}

// TestPurgeLeavesNoOrphanChunks purges a space whose duplicate shares its
// chunks: the duplicate keeps its pages, and no page row is left in a chunk
// that no revision names.
func TestPurgeLeavesNoOrphanChunks(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		u, org := s.NewUser(t, "purge@merge.test", "Purge")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Gone"}, 201).JSON(t)["id"].(string)
		f := &chunkFixture{s: s, token: u.Token, space: sp, snaps: map[string]string{}}
		var inserts []any
		for i := 0; i < 150; i++ {
			inserts = append(inserts, map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": fmt.Sprintf("# P%d\n", i)}})
		}
		cr := f.openCR(t)
		f.edit(t, cr, inserts)
		ids := idsByTitle(f.snaps[f.merge(t, cr)])
		cr = f.openCR(t)
		f.edit(t, cr, []any{map[string]any{"operation": "update_page", "page": ids["P1"], "document": map[string]any{"markdown": "# One\n"}}})
		want := f.snaps[f.merge(t, cr)]

		dup := s.Call(t, "duplicateSpace", u.Token, "POST", "/v1/spaces/"+sp+"/duplicate", nil, 201).JSON(t)["id"].(string)
		s.Call(t, "deleteSpaceById", u.Token, "DELETE", "/v1/spaces/"+sp, nil, 205)
		s.Client().Space.UpdateOneID(sp).SetDeletedAt(time.Now().Add(-365 * 24 * time.Hour)).ExecX(testkit.Fixture(context.Background()))
		if _, err := s.App.Resolver.PurgeDeletedSpaces(ctx); err != nil {
			t.Fatal(err)
		}
		dupRev := s.Client().Space.GetX(ctx, dup).RevisionID
		g := &chunkFixture{s: s, token: u.Token, space: dup}
		if got := g.pages(t, dupRev); got != want {
			t.Fatalf("the duplicate's pages changed with the purge:\n%s\nwant\n%s", got, want)
		}
		named := map[string]bool{}
		for _, m := range s.Client().RevisionChunk.Query().AllX(ctx) {
			named[m.ChunkID] = true
		}
		for _, p := range s.Client().Page.Query().AllX(ctx) {
			if !named[p.ChunkID] {
				t.Fatalf("page row %s of chunk %s, which no revision names", p.ID, p.ChunkID)
			}
		}
		// The search index kept the duplicate's pages only; on SQLite its
		// rowid map follows it row for row.
		if s.App.DB.Dialect == "sqlite3" {
			var rows, mapped, gone int
			q := "SELECT (SELECT count(*) FROM search_pages), (SELECT count(*) FROM search_rows r JOIN search_pages p ON p.rowid = r.rid " +
				"AND p.space_id = r.space_id AND p.page_id = r.page_id), (SELECT count(*) FROM search_rows WHERE space_id = ?)"
			if err := s.App.DB.SQL.QueryRowContext(ctx, q, sp).Scan(&rows, &mapped, &gone); err != nil {
				t.Fatal(err)
			}
			if rows != mapped || rows == 0 || gone != 0 {
				t.Fatalf("search index: %d rows, %d mapped, %d of the purged space", rows, mapped, gone)
			}
		}
	})
}
