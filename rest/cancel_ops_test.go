package rest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/testkit"
)

// Every long operation stops once its request (or job) is cancelled: these
// tests cancel each midway and count the SQL statements sent after the
// cancel (none). PDF layout, which sends no SQL, is counted in laid-out
// units instead (pdf_bounds_test.go); the backup in blobs copied
// (internal/app).

// statements counts the statements run sends.
func statements(s *testkit.Server, run func()) int64 {
	start := s.Statements()
	run()
	return s.Statements() - start
}

// cancelMidway runs run with a context that is cancelled when half of full
// (the statements of the same work done whole) have been counted: that
// statement waits for its own context to end (the server saw the client
// leave) before it is sent. Run must then fail, and no statement may follow
// the cancel.
func cancelMidway(t *testing.T, s *testkit.Server, full int64, run func(ctx context.Context) error) {
	t.Helper()
	n := max(full/2, 1)
	t.Logf("whole: %d statements; cancelled at %d", full, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fired atomic.Bool
	var at atomic.Int64
	start := s.Statements()
	restore := s.App.DB.Counter.OnStatement(func(sctx context.Context) {
		if s.Statements()-start < n || !fired.CompareAndSwap(false, true) {
			return
		}
		cancel()
		at.Store(s.Statements())
		select {
		case <-sctx.Done():
		case <-time.After(10 * time.Second): // not the cancelled work's statement: the count below fails
		}
	})
	err := run(ctx)
	s.Served()
	restore()
	if !fired.Load() {
		t.Fatalf("%d statements, fewer than the %d of the whole work", s.Statements()-start, n)
	}
	if err == nil {
		t.Fatal("the cancelled work succeeded")
	}
	if after := s.Statements() - at.Load(); after != 0 {
		t.Fatalf("%d statements after the cancel (at %d of %d)", after, n, full)
	}
}

// request sends a request whose client may leave: it answers an error
// when no answer came.
func request(s *testkit.Server, method, token, path string, body any) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var a answer
		if method == "GET" {
			a = get(ctx, s, token, path)
		} else {
			a = post(ctx, s, token, path, body)
		}
		if a.err != nil {
			return a.err
		}
		return fmt.Errorf("answered %d %s", a.status, a.body)
	}
}

func TestCancelledMergeStops(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		twin := f
		twin.space = f.createSpace(t, map[string]any{"title": "Twin"})["id"].(string)
		var changes []map[string]any
		for i := range 8 {
			changes = append(changes, insertPage(fmt.Sprintf("# Page %d\n\nText of page %d.\n", i, i), nil))
		}
		whole, cut := twin.newCR(t, "Pages"), f.newCR(t, "Pages")
		twin.edit(t, whole, changes...)
		f.edit(t, cut, changes...)
		full := statements(s, func() { twin.merge(t, whole, 200) })
		before := s.Snapshot(t)
		cancelMidway(t, s, full, request(s, "POST", f.editor.Token, f.crPath(cut)+"/merge", nil))
		s.Unchanged(t, before)
	})
}

func TestCancelledImportStops(t *testing.T) {
	doc := "# Imported\n\n" + strings.Repeat("A paragraph of imported text.\n\n", 50)
	site := serveBytes(t, map[string][]byte{"/doc.md": []byte(doc)})
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		twin := f.createSpace(t, map[string]any{"title": "Twin"})["id"].(string)
		body := map[string]any{"url": site.URL + "/doc.md", "source": "markdown"}
		full := statements(s, func() {
			s.Call(t, "importContent", f.editor.Token, "POST", "/v1/spaces/"+twin+"/content/import", body, 201)
		})
		before := s.Snapshot(t)
		cancelMidway(t, s, full, request(s, "POST", f.editor.Token, "/v1/spaces/"+f.space+"/content/import", body))
		s.Unchanged(t, before)
	})
}

func TestCancelledSearchStops(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Pages")
		var changes []map[string]any
		for i := range 12 {
			changes = append(changes, insertPage(fmt.Sprintf("# Install %d\n\nHow to install part %d.\n", i, i), nil))
		}
		f.edit(t, cr, changes...)
		f.merge(t, cr, 200)
		path := "/v1/orgs/" + f.org + "/search?query=install"
		full := statements(s, func() { s.Call(t, "searchOrganizationContent", f.reader.Token, "GET", path, nil, 200) })
		cancelMidway(t, s, full, request(s, "GET", f.reader.Token, path, nil))
	})
}

// OpenAPI processing is a job: its context ends when the server shuts
// down. Cut while it fetches the spec, it writes nothing more (the spec
// stays in progress and the job runs again later).
func TestCancelledOpenAPIProcessingStops(t *testing.T) {
	var paths strings.Builder
	for i := range 30 {
		fmt.Fprintf(&paths, "  /items%d:\n    get:\n      summary: Item %d\n      responses: {'200': {description: ok}}\n", i, i)
	}
	text := "openapi: 3.0.3\ninfo: {title: Items, version: '1'}\npaths:\n" + paths.String()
	// The source cancels the job that fetches it (when there is one to
	// cancel) and answers: the processing sees its context end midway.
	var cancelJob atomic.Pointer[context.CancelFunc]
	var atCancel atomic.Int64
	var cur atomic.Pointer[testkit.Server]
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := cancelJob.Swap(nil); c != nil {
			(*c)()
			atCancel.Store(cur.Load().Statements())
		}
		_, _ = io.WriteString(w, text)
	}))
	defer src.Close()
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		cur.Store(s)
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		ctx := context.Background()
		job := func(slug string) jobs.Job {
			s.Call(t, "createOpenAPISpec", admin.Token, "POST", "/v1/orgs/"+org+"/openapi", map[string]any{"slug": slug, "source": map[string]any{"url": src.URL + "/" + slug + ".yaml"}}, 201)
			spec := s.Client().OpenAPISpec.Query().Where(openapispec.Slug(slug)).OnlyX(ctx)
			return jobs.Job{Kind: "openapi", Payload: spec.ID + ":" + fmt.Sprint(spec.Generation)}
		}
		whole, cut := job("whole"), job("cut")
		if err := s.App.Resolver.ProcessOpenAPISpec(ctx, whole); err != nil {
			t.Fatal(err)
		}
		if got := s.Client().OpenAPISpec.Query().Where(openapispec.Slug("whole")).OnlyX(ctx); got.ProcessingState != openapispec.ProcessingStateComplete {
			t.Fatalf("whole: %s", got.ProcessingState)
		}
		jctx, cancel := context.WithCancel(ctx)
		defer cancel()
		cancelJob.Store(&cancel)
		if err := s.App.Resolver.ProcessOpenAPISpec(jctx, cut); err == nil {
			t.Fatal("the cancelled processing succeeded")
		}
		if cancelJob.Load() != nil {
			t.Fatal("the processing never fetched its source")
		}
		if after := s.Statements() - atCancel.Load(); after != 0 {
			t.Fatalf("%d statements after the cancel", after)
		}
		if n := s.Client().OpenAPISpecVersion.Query().CountX(ctx); n != 1 {
			t.Fatalf("%d versions: the cut processing wrote one", n)
		}
	})
}
