package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// blockingSite answers nothing until the request's own context ends (the
// fetch was abandoned) and reports each such end on observed. Its fallback
// answer after a long while only keeps a broken build from hanging: it then
// serves markdown and the test fails on the import's answer.
func blockingSite(t *testing.T) (*httptest.Server, <-chan struct{}, <-chan struct{}) {
	started, observed := make(chan struct{}, 8), make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			observed <- struct{}{}
		case <-time.After(15 * time.Second):
			_, _ = w.Write([]byte("# Too late\n"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, started, observed
}

// wait takes one report from ch, failing the test rather than hanging.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("never: %s", what)
	}
}

// TestClientCancelStopsWork: an import whose client goes away stops; the
// site it was fetching sees its request abandoned.
func TestClientCancelStopsWork(t *testing.T) {
	site, started, observed := blockingSite(t)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		body, _ := json.Marshal(map[string]any{"url": site.URL + "/doc.md", "source": "markdown"})
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/v1/spaces/"+f.space+"/content/import", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+f.editor.Token)
		req.Header.Set("Content-Type", "application/json")
		done := make(chan error, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		wait(t, started, "the import reached the site")
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the cancelled import answered")
		}
		wait(t, observed, "the site saw the import's fetch abandoned")
	})
}

// TestRequestDeadline: past FOLIO_REQUEST_TIMEOUT a request's work stops
// (the fetch is abandoned), it answers 503 in the error shape of its API,
// REST and GraphQL alike, and changes nothing.
func TestRequestDeadline(t *testing.T) {
	site, started, observed := blockingSite(t)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		before := s.Snapshot(t)
		timeout := s.App.Config.RequestTimeout
		s.App.Config.RequestTimeout = time.Second
		defer func() { s.App.Config.RequestTimeout = timeout }()

		for _, c := range []struct {
			name, path string
			body       any
		}{
			{"REST import", "/v1/spaces/" + f.space + "/content/import", map[string]any{"url": site.URL + "/doc.md", "source": "markdown"}},
			{"GraphQL import", "/graphql", map[string]any{
				"query":     `mutation($s: ID!, $u: String!) { importContent(spaceId: $s, url: $u, source: markdown) { revision } }`,
				"variables": map[string]any{"s": f.space, "u": site.URL + "/doc.md"}}},
		} {
			r := s.Request(t, f.editor.Token, "POST", c.path, c.body)
			// GitBook's shape from REST, GraphQL's from /graphql.
			var e struct {
				Error  struct{ Code int }
				Errors []testkit.GraphQLError
			}
			var code float64
			if json.Unmarshal(r.Body, &e) == nil && c.path == "/graphql" && len(e.Errors) == 1 &&
				e.Errors[0].Extensions["code"] == "SERVICE_UNAVAILABLE" {
				code, _ = e.Errors[0].Extensions["status"].(float64)
			} else if c.path != "/graphql" {
				code = float64(e.Error.Code)
			}
			if r.Status != 503 || code != 503 ||
				!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Header.Get("X-Request-Id") == "" {
				t.Fatalf("%s past the deadline: %d %s", c.name, r.Status, r.Body)
			}
			wait(t, started, c.name+" reached the site")
			wait(t, observed, c.name+"'s fetch abandoned")
		}
		s.Unchanged(t, before)
	})
}

// lockedBuffer collects log lines written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.b.String()), "\n")
}

// TestInternalErrorLog: a genuine internal error (the database is gone)
// answers 500 without internals, and its log lines, like every line, are
// JSON carrying the request id the caller got.
func TestInternalErrorLog(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			var logs lockedBuffer
			s := testkit.StartLogged(t, kind, &logs)
			u, _ := s.NewUser(t, "ada@example.com", "Acme")
			s.Request(t, u.Token, "GET", "/v1/user", nil) // a line for an ordinary request too
			if err := s.App.DB.SQL.Close(); err != nil {
				t.Fatal(err)
			}
			r := s.Request(t, u.Token, "GET", "/v1/user", nil)
			id := r.Header.Get("X-Request-Id")
			if r.Status != 500 || id == "" || strings.TrimSpace(string(r.Body)) != `{"error":{"code":500,"message":"internal error"}}` {
				t.Fatalf("closed database: %d %s", r.Status, r.Body)
			}
			// Small answers go out only once the handler (and its request
			// line, written as it returns) is done, so both lines are in.
			var errorLine, requestLine map[string]any
			lines := logs.lines()
			for _, line := range lines {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("log line is not JSON: %q", line)
				}
				if rec["request_id"] == nil {
					t.Errorf("log line without request id: %q", line)
				}
				if rec["request_id"] != id {
					continue
				}
				switch rec["msg"] {
				case "internal error":
					errorLine = rec
				case "request":
					requestLine = rec
				}
			}
			if len(lines) < 3 || errorLine == nil || errorLine["level"] != "ERROR" || !strings.Contains(errorLine["err"].(string), "closed") {
				t.Fatalf("no error line for request %s in:\n%s", id, strings.Join(lines, "\n"))
			}
			if requestLine == nil || requestLine["status"] != float64(500) {
				t.Fatalf("no request line for request %s in:\n%s", id, strings.Join(lines, "\n"))
			}
		})
	}
}
