package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/testkit"
)

// testCeiling is FOLIO_MAX_RESPONSE_BYTES in the tests of bounded answers:
// small, so that twice it stands out of the heap's noise, and large against
// one object of an answer.
const testCeiling = 6 << 20

// peakHeapAbove runs do and returns the most the live heap rose above
// where it stood before: the sampler runs collections back to back and
// reads, after each, the heap it found live (/gc/heap/live:bytes). Call it
// under stopTheWorldGC: a concurrent collection counts as live everything
// allocated while it marks, which on a loaded two-core machine is several
// megabytes more or less from one run to the next, so the peak would
// measure the machine's load rather than the request.
func peakHeapAbove(t *testing.T, do func()) uint64 {
	t.Helper()
	if os.Getenv(stwChild) == "" {
		t.Fatal("peakHeapAbove runs under stopTheWorldGC")
	}
	runtime.GC()
	idle := liveHeap()
	var top uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			runtime.GC()
			top = max(top, liveHeap())
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	do()
	close(done)
	wg.Wait()
	return top - min(top, idle)
}

const stwChild = "FOLIO_TEST_STOP_THE_WORLD_GC"

// stopTheWorldGC runs the calling test again in a child process whose
// collections stop the world (GODEBUG=gcstoptheworld=1, which the runtime
// reads only at start), and reports whether it did: the caller returns
// then, its outcome being the child's. In the child it reports false.
func stopTheWorldGC(t *testing.T) bool {
	t.Helper()
	if os.Getenv(stwChild) != "" {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), stwChild+"=1", "GODEBUG="+strings.Trim(os.Getenv("GODEBUG")+",gcstoptheworld=1", ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s with stop-the-world collections: %v\n%s", t.Name(), err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "=== RUN") || strings.Contains(line, "peak heap") {
			t.Log(line)
		}
	}
	return true
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// refusedTooLarge checks that an answer is the one RESPONSE_TOO_LARGE error
// and no data.
func refusedTooLarge(t *testing.T, data map[string]any, errs []testkit.GraphQLError) {
	t.Helper()
	if len(errs) != 1 || errs[0].Extensions["code"] != "RESPONSE_TOO_LARGE" || data != nil {
		t.Fatalf("want one RESPONSE_TOO_LARGE error and no data, got data %.300v errors %+v", data, errs[:min(len(errs), 3)])
	}
	if want := fmt.Sprintf("more than the limit of %d", testCeiling); !strings.Contains(errs[0].Message, want) {
		t.Fatalf("message %q does not say %q", errs[0].Message, want)
	}
}

// largePageAliases is a space with a page of 1 MB of markdown, and a query
// of 398 aliases of its markdown (cost 400, a 400 MB answer).
func largePageAliases(t *testing.T, s *testkit.Server) (token, query string, vars map[string]any) {
	t.Helper()
	u, org := s.NewUser(t, "aliases@example.com", "Aliases")
	sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Big"}, 201).JSON(t)["id"].(string)
	s.Call(t, "updateSpaceById", u.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"editMode": "live"}, 200)
	line := "A line of the big page, long enough to be a paragraph of its own.\n\n"
	md := "# Big\n\n" + strings.Repeat(line, (1<<20-100)/len(line))
	data := s.MustGraphQL(t, u.Token, `mutation($s: ID!, $c: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $s, changes: $c) { revision { pages { pageId } } } }`,
		map[string]any{"s": sp, "c": []any{map[string]any{"operation": "insert_page", "markdown": md}}})
	page := data["updateSpaceContent"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)[0].(map[string]any)["pageId"].(string)
	var set strings.Builder
	for i := range 199 {
		fmt.Fprintf(&set, " m%d: markdown", i)
	}
	query = `query($s: ID!, $p: ID!) { space(id: $s) { revision { a: page(id: $p) {` + set.String() + ` } b: page(id: $p) {` + set.String() + ` } } } }`
	vars = map[string]any{"s": sp, "p": page}
	// One alias passes: the page is there and readable.
	one := s.MustGraphQL(t, u.Token, `query($s: ID!, $p: ID!) { space(id: $s) { revision { page(id: $p) { markdown } } } }`, vars)
	if got := one["space"].(map[string]any)["revision"].(map[string]any)["page"].(map[string]any)["markdown"].(string); len(got) < 1<<19 {
		t.Fatalf("markdown of %d bytes", len(got))
	}
	return u.Token, query, vars
}

// TestBatchOperationOverTheCeilingStopsAlone: in a batch, the operation
// whose answer passes the ceiling is stopped and answers RESPONSE_TOO_LARGE;
// the operations before and after it answer as usual, each with a count of
// its own.
func TestBatchOperationOverTheCeilingStopsAlone(t *testing.T) {
	t.Setenv("FOLIO_MAX_RESPONSE_BYTES", fmt.Sprint(testCeiling))
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		token, query, vars := largePageAliases(t, s)
		small := map[string]any{"query": `query($s: ID!) { space(id: $s) { title } }`, "variables": map[string]any{"s": vars["s"]}}
		resp := s.Request(t, token, "POST", "/graphql", []any{small, map[string]any{"query": query, "variables": vars}, small})
		var answers []struct {
			Data   map[string]any
			Errors []testkit.GraphQLError
		}
		if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &answers) != nil || len(answers) != 3 {
			t.Fatalf("answer %d %.300s", resp.Status, resp.Body)
		}
		refusedTooLarge(t, answers[1].Data, answers[1].Errors)
		for _, i := range []int{0, 2} {
			if len(answers[i].Errors) > 0 || answers[i].Data["space"].(map[string]any)["title"] != "Big" {
				t.Fatalf("operation %d: %+v", i, answers[i])
			}
		}
	})
}

// TestDeferredPartOverTheCeilingStops: an answer in parts (@defer) counts
// all its parts together: the initial part, small, arrives; the deferred
// fragment of 398 aliases of a 1 MB page is stopped at the ceiling and its
// part is the RESPONSE_TOO_LARGE error, with no data, ending the stream.
func TestDeferredPartOverTheCeilingStops(t *testing.T) {
	t.Setenv("FOLIO_MAX_RESPONSE_BYTES", fmt.Sprint(testCeiling))
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		token, query, vars := largePageAliases(t, s)
		query = strings.Replace(query, "{ space(id: $s) { revision {", `{ space(id: $s) { title ... @defer(label: "big") { revision {`, 1) + " }"
		resp := call(t, s, "POST", "/graphql", token, postBody(query, vars, nil), "Accept", "multipart/mixed;deferSpec=20220824, application/json")
		parts := readParts(t, resp)
		if len(parts) != 2 || !parts[0].HasNext || parts[0].Data["space"].(map[string]any)["title"] != "Big" {
			t.Fatalf("%d parts: %.500s", len(parts), resp.Body)
		}
		last := parts[1]
		if last.HasNext || len(last.Incremental) != 1 || last.Incremental[0].Data != nil || len(resp.Body) > 10_000 {
			t.Fatalf("deferred part: %.500s", resp.Body)
		}
		if !strings.Contains(string(resp.Body), `"RESPONSE_TOO_LARGE"`) {
			t.Fatalf("no RESPONSE_TOO_LARGE: %.500s", resp.Body)
		}
	})
}

// TestAliasesOfALargePageStopAtTheCeiling: 398 aliases of a page's 1 MB
// markdown (a query of cost 400, a 400 MB answer) are refused with
// RESPONSE_TOO_LARGE as soon as the answer passes the ceiling, with the heap
// never more than twice the ceiling above idle. Every alias counts,
// although they share one string.
func TestAliasesOfALargePageStopAtTheCeiling(t *testing.T) {
	if stopTheWorldGC(t) {
		return
	}
	t.Setenv("FOLIO_MAX_RESPONSE_BYTES", fmt.Sprint(testCeiling))
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		token, query, vars := largePageAliases(t, s)
		var data map[string]any
		var errs []testkit.GraphQLError
		peak := peakHeapAbove(t, func() { data, errs = s.GraphQL(t, token, query, vars) })
		refusedTooLarge(t, data, errs)
		t.Logf("peak heap above idle: %.1f MB (ceiling %.1f MB)", float64(peak)/(1<<20), float64(testCeiling)/(1<<20))
		if peak > 2*testCeiling {
			t.Fatalf("peak heap above idle %d bytes, more than twice the ceiling (%d)", peak, testCeiling)
		}
	})
}

// fanOut is organization → spaces(first: n) → organization → spaces… levels
// deep, each space with its id and title.
func fanOut(levels, n int) string {
	node := "id title"
	for range levels - 1 {
		node = fmt.Sprintf("id title organization { spaces(first: %d) { edges { node { %s } } } }", n, node)
	}
	return fmt.Sprintf(`query($org: ID!) { organization(id: $org) { spaces(first: %d) { edges { node { %s } } } } }`, n, node)
}

// fanOutAtTheLimit is the widest four-level fan-out the cost limit lets
// through (graph.MaxComplexity, whatever it is): the costs are the server's,
// asked of an organization that does not exist, so a probe that passes
// reads nothing.
func fanOutAtTheLimit(t *testing.T, s *testkit.Server, token string) (query string, n int) {
	t.Helper()
	passes := func(n int) bool {
		_, errs := s.GraphQL(t, token, fanOut(4, n), map[string]any{"org": "nowhere"})
		if len(errs) != 1 {
			t.Fatalf("probe: %+v", errs)
		}
		switch errs[0].Extensions["code"] {
		case "QUERY_TOO_COMPLEX":
			return false
		case "NOT_FOUND":
			return true
		}
		t.Fatalf("probe: %+v", errs)
		return false
	}
	lo, hi := 1, 1000 // passes(lo), !passes(hi)
	if !passes(lo) || passes(hi) {
		t.Fatalf("the cost limit (%d) is outside what the probe can find", graph.MaxComplexity)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if passes(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return fanOut(4, lo), lo
}

// TestFanOutAtTheCostLimitStopsAtTheCeiling: the widest four-level fan-out
// the cost limit allows, over an organization with that many spaces (n^4
// spaces of 100 bytes of JSON each: 570 MB at the limit of 25,000,000), is
// refused with RESPONSE_TOO_LARGE once the answer passes the ceiling, with
// the heap never more than twice the ceiling above idle.
func TestFanOutAtTheCostLimitStopsAtTheCeiling(t *testing.T) {
	if stopTheWorldGC(t) {
		return
	}
	t.Setenv("FOLIO_MAX_RESPONSE_BYTES", fmt.Sprint(testCeiling))
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "fanout@example.com", "Fan-out")
		query, n := fanOutAtTheLimit(t, s, u.Token)
		for i := range n {
			title := fmt.Sprintf("Space %02d %s", i, strings.Repeat("x", 40))
			s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201)
		}
		// n^4 spaces of at least this many bytes each.
		leaf := len(`{"node":{"id":"","title":""}},`) + 20 + 49
		if size := n * n * n * n * leaf; size <= testCeiling {
			t.Fatalf("the fan-out at the cost limit (%d spaces a level) answers %d bytes, not more than the ceiling: the test needs a larger fan-out", n, size)
		}
		var data map[string]any
		var errs []testkit.GraphQLError
		peak := peakHeapAbove(t, func() { data, errs = s.GraphQL(t, u.Token, query, map[string]any{"org": org}) })
		refusedTooLarge(t, data, errs)
		t.Logf("%d spaces a level; peak heap above idle: %.1f MB (ceiling %.1f MB)", n, float64(peak)/(1<<20), float64(testCeiling)/(1<<20))
		if peak > 2*testCeiling {
			t.Fatalf("peak heap above idle %d bytes, more than twice the ceiling (%d)", peak, testCeiling)
		}
	})
}

// stoppableQuery reads a space, its organization, the organization's
// spaces and their revisions: four rounds of loads, each waiting for the
// one before.
const stoppableQuery = `query($s: ID!) { space(id: $s) { title organization { title spaces(first: 5) { edges { node { title revision { id pages { id } } } } } } } }`

// heldAtSecondBatch posts stoppableQuery and holds the request's second
// loader batch until the request's context ends: the client leaves as soon
// as the batch is held when leave is set, else the request's deadline ends
// it. It returns the batches and statements counted when the batch was
// held and once the server's handler has returned, and the answer's status
// and body (none when the client left).
func heldAtSecondBatch(t *testing.T, s *testkit.Server, token, space string, leave bool) (held, after [2]int64, status int, body []byte) {
	t.Helper()
	var stats *loader.Stats
	reached := make(chan struct{})
	stop := s.OnLoaders(func(l *loader.Loaders) {
		stats = l.Stats()
		var n atomic.Int32
		stats.HoldBatches(func(ctx context.Context) {
			if n.Add(1) == 2 {
				held = [2]int64{int64(stats.Batches()), s.Statements()}
				close(reached)
				<-ctx.Done()
			}
		})
	})
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type answer struct {
		status int
		body   []byte
	}
	answered := make(chan answer, 1)
	go func() {
		b, _ := json.Marshal(map[string]any{"query": stoppableQuery, "variables": map[string]any{"s": space}})
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/graphql", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{}
			return
		}
		defer resp.Body.Close()
		b, _ = io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, b}
	}()
	<-reached
	if leave {
		cancel()
	}
	a := <-answered
	s.Served()
	return held, [2]int64{int64(stats.Batches()), s.Statements()}, a.status, a.body
}

// stoppableSpace is a space of an organization of three spaces of 20 pages
// each, and the batches stoppableQuery runs on it when left alone.
func stoppableSpace(t *testing.T, s *testkit.Server, email string) (token, space string, whole int) {
	t.Helper()
	u, org := s.NewUser(t, email, "Stoppable")
	for i := range 3 {
		space = s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("Space ", i)}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, space, 20)
	}
	whole = s.Loads(func() { s.MustGraphQL(t, u.Token, stoppableQuery, map[string]any{"s": space}) }).Batches()
	if whole < 4 {
		t.Fatalf("the query runs %d batches in all: too few to show it stops after the first", whole)
	}
	return u.Token, space, whole
}

// TestClientThatLeavesStopsTheReads: a client that leaves while a loader
// batch of its query is queued stops the query there: the batch runs no
// SQL, and no later round of loads starts (the query left alone runs
// more batches).
func TestClientThatLeavesStopsTheReads(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		token, space, whole := stoppableSpace(t, s, "leaves@example.com")
		held, after, status, _ := heldAtSecondBatch(t, s, token, space, true)
		t.Logf("batches: %d for the whole query, %d when the client left, %d after", whole, held[0], after[0])
		if status != 0 {
			t.Fatalf("the client got an answer (%d)", status)
		}
		if after != held {
			t.Fatalf("after the client left: %d batches and %d statements, want %d and %d (none more)", after[0], after[1], held[0], held[1])
		}
	})
}

// TestRequestDeadlineStopsTheReads: a request whose FOLIO_REQUEST_TIMEOUT
// passes while a loader batch is queued stops there as well, and answers
// the deadline's 503.
func TestRequestDeadlineStopsTheReads(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		token, space, whole := stoppableSpace(t, s, "deadline@example.com")
		timeout := s.App.Config.RequestTimeout
		s.App.Config.RequestTimeout = 200 * time.Millisecond
		defer func() { s.App.Config.RequestTimeout = timeout }()
		held, after, status, body := heldAtSecondBatch(t, s, token, space, false)
		t.Logf("batches: %d for the whole query, %d at the deadline, %d after", whole, held[0], after[0])
		if status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"SERVICE_UNAVAILABLE"`) {
			t.Fatalf("answer %d %s, want the deadline's 503", status, body)
		}
		if after != held {
			t.Fatalf("after the deadline: %d batches and %d statements, want %d and %d (none more)", after[0], after[1], held[0], held[1])
		}
	})
}
