package graph_test

import (
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// treeCacheMetrics reads the tree cache's series from the server's
// /metrics, over HTTP: hits, misses and pages held.
func treeCacheMetrics(t *testing.T, s *testkit.Server) (hits, misses, pages float64) {
	t.Helper()
	text := s.Metrics(t)
	value := func(name string) float64 {
		v, ok := testkit.Sample(text, name)
		if !ok {
			t.Fatalf("/metrics has no %s", name)
		}
		return v
	}
	return value("folio_tree_cache_hits_total"), value("folio_tree_cache_misses_total"), value("folio_tree_cache_pages")
}

const spaceTree = `query($id: ID!) { space(id: $id) { revision { pages { id title path pages { id title path } } } } }`

// TestTreeCacheSharedByAPIs: a revision's tree is built once and kept
// across requests: a second read of it, through GraphQL or REST, sends the
// statements of the first but the two that read pages (the chunk map and
// the rows), and the cache's hits and misses say so.
func TestTreeCacheSharedByAPIs(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "cache@example.com", "Cache")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Kept"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 50)
		read := func() (int64, int64) {
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, spaceTree, map[string]any{"id": sp})
			gql := s.Statements() - before
			roots := data["space"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)
			if len(roots) != 5 || len(roots[0].(map[string]any)["pages"].([]any)) != 9 {
				t.Fatalf("tree: %v", roots)
			}
			before = s.Statements()
			body := s.Call(t, "listPages", u.Token, "GET", "/v1/spaces/"+sp+"/content/pages", nil, 200).JSON(t)
			if n := len(body["pages"].([]any)); n != 5 {
				t.Fatalf("REST tree: %d roots", n)
			}
			return gql, s.Statements() - before
		}
		hits0, misses0, _ := treeCacheMetrics(t, s)
		coldGQL, warmREST := read() // GraphQL builds the tree, REST finds it kept
		hits1, misses1, pages := treeCacheMetrics(t, s)
		warmGQL, warmREST2 := read()
		hits2, misses2, _ := treeCacheMetrics(t, s)
		if coldGQL-warmGQL != 2 || warmREST != warmREST2 {
			t.Errorf("GraphQL statements cold %d, kept %d (want 2 fewer); REST %d then %d (want the same)", coldGQL, warmGQL, warmREST, warmREST2)
		}
		if misses1-misses0 != 1 || hits1-hits0 != 1 || misses2 != misses1 || hits2-hits1 != 2 || pages < 50 {
			t.Errorf("hits %v→%v→%v, misses %v→%v→%v, pages %v", hits0, hits1, hits2, misses0, misses1, misses2, pages)
		}

		// REST first, on a fresh revision: it builds the tree for both.
		s.SeedPages(t, sp, 50)
		before := s.Statements()
		s.Call(t, "listPages", u.Token, "GET", "/v1/spaces/"+sp+"/content/pages", nil, 200)
		coldREST := s.Statements() - before
		if coldREST-warmREST != 2 {
			t.Errorf("REST statements cold %d, kept %d: want 2 fewer", coldREST, warmREST)
		}
		before = s.Statements()
		s.MustGraphQL(t, u.Token, spaceTree, map[string]any{"id": sp})
		if n := s.Statements() - before; n != warmGQL {
			t.Errorf("GraphQL after REST built the tree: %d statements, want %d", n, warmGQL)
		}
	})
}

// TestTreeCacheBound: FOLIO_TREE_CACHE_PAGES bounds the pages kept; the
// least recently read tree goes first, and a tree larger than the bound is
// not kept.
func TestTreeCacheBound(t *testing.T) {
	t.Setenv("FOLIO_TREE_CACHE_PAGES", "60")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "bound@example.com", "Bound")
		space := func(pages int) string {
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "S"}, 201).JSON(t)["id"].(string)
			s.SeedPages(t, sp, pages)
			return sp
		}
		a, b, big := space(40), space(30), space(70)
		// kept tells whether reading sp's tree found it kept.
		kept := func(sp string) bool {
			t.Helper()
			hits, misses, _ := treeCacheMetrics(t, s)
			s.MustGraphQL(t, u.Token, spaceTree, map[string]any{"id": sp})
			hits2, misses2, pages := treeCacheMetrics(t, s)
			if pages > 60 {
				t.Fatalf("%v pages kept, over the bound of 60", pages)
			}
			if hits2-hits+misses2-misses != 1 {
				t.Fatalf("one tree read: hits %v→%v, misses %v→%v", hits, hits2, misses, misses2)
			}
			return hits2 > hits
		}
		steps := []struct {
			sp   string
			want bool
		}{
			{a, false}, {a, true}, // built, then kept
			{b, false}, // 40 + 30 > 60: a goes
			{a, false}, // b goes
			{a, true},
			{big, false}, {big, false}, // 70 pages: never kept
			{a, true}, // and a stayed
		}
		for i, st := range steps {
			if got := kept(st.sp); got != st.want {
				t.Fatalf("step %d: kept %v, want %v", i, got, st.want)
			}
		}
	})
}

// TestTreeCacheOff: FOLIO_TREE_CACHE_PAGES=0 keeps no tree.
func TestTreeCacheOff(t *testing.T) {
	t.Setenv("FOLIO_TREE_CACHE_PAGES", "0")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "none@example.com", "None")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "S"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 10)
		var counts []int64
		for i := 0; i < 2; i++ {
			before := s.Statements()
			s.MustGraphQL(t, u.Token, spaceTree, map[string]any{"id": sp})
			counts = append(counts, s.Statements()-before)
		}
		if _, _, pages := treeCacheMetrics(t, s); counts[0] != counts[1] || pages != 0 {
			t.Errorf("with 0: statements %v (want the same twice), %v pages kept", counts, pages)
		}
	})
}
