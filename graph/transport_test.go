package graph_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/testkit"
)

// call makes a request to the server with the given headers (a token, when
// not empty, as a bearer) and reads the answer.
func call(t *testing.T, s *testkit.Server, method, path, token, body string, headers ...string) *testkit.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &testkit.Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// getQuery is the path of a GET of query with variables and extensions.
func getQuery(query string, vars, extensions map[string]any) string {
	q := url.Values{}
	if query != "" {
		q.Set("query", query)
	}
	if vars != nil {
		b, _ := json.Marshal(vars)
		q.Set("variables", string(b))
	}
	if extensions != nil {
		b, _ := json.Marshal(extensions)
		q.Set("extensions", string(b))
	}
	return "/graphql?" + q.Encode()
}

// postBody is a POST body for query.
func postBody(query string, vars, extensions map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars, "extensions": extensions})
	return string(b)
}

// answer is a GraphQL answer with its keys, to tell "data": null from no
// data at all.
type answer struct {
	keys   map[string]json.RawMessage
	Data   map[string]any
	Errors []testkit.GraphQLError
}

func decodeAnswer(t *testing.T, raw []byte) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal(raw, &a.keys); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	if err := json.Unmarshal(raw, &struct {
		Data   *map[string]any         `json:"data"`
		Errors *[]testkit.GraphQLError `json:"errors"`
	}{&a.Data, &a.Errors}); err != nil {
		t.Fatal(err)
	}
	return a
}

// requestError checks that an answer is a request error: one error with
// code and no data key at all.
func requestError(t *testing.T, resp *testkit.Response, status int, code string) testkit.GraphQLError {
	t.Helper()
	a := decodeAnswer(t, resp.Body)
	if _, has := a.keys["data"]; has || resp.Status != status || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != code {
		t.Fatalf("want %d %s with no data key, got %d %s", status, code, resp.Status, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	return a.Errors[0]
}

func sha(query string) string {
	sum := sha256.Sum256([]byte(query))
	return hex.EncodeToString(sum[:])
}

func persisted(query string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha(query)}}
}

// TestPersistedQueries: Apollo's automatic persisted queries over GET and
// POST. An unknown hash is PERSISTED_QUERY_NOT_FOUND as JSON (not the
// explorer's page); the query sent with its hash is kept and then found by
// its hash alone; a hash that is not the query's is refused; a persisted
// mutation is still refused over GET.
func TestPersistedQueries(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "apq@example.com", "APQ")
		query := `query Org($id: ID!) { organization(id: $id) { id title } }`
		vars := map[string]any{"id": org}

		t.Run("unknown hash over GET", func(t *testing.T) {
			resp := call(t, s, "GET", getQuery("", vars, persisted(query)), u.Token, "")
			e := requestError(t, resp, 200, "PERSISTED_QUERY_NOT_FOUND")
			if e.Message != "PersistedQueryNotFound" { // what Apollo's link looks for
				t.Fatalf("message %q", e.Message)
			}
		})
		t.Run("unknown hash over POST", func(t *testing.T) {
			b, _ := json.Marshal(map[string]any{"variables": vars, "extensions": persisted(query)})
			requestError(t, call(t, s, "POST", "/graphql", u.Token, string(b)), 200, "PERSISTED_QUERY_NOT_FOUND")
		})
		t.Run("sent with its hash, then found by it", func(t *testing.T) {
			resp := call(t, s, "GET", getQuery(query, vars, persisted(query)), u.Token, "")
			a := decodeAnswer(t, resp.Body)
			if resp.Status != 200 || len(a.Errors) > 0 || a.Data["organization"].(map[string]any)["title"] != "APQ" {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			for _, method := range []string{"GET", "POST"} {
				var resp *testkit.Response
				if method == "GET" {
					resp = call(t, s, "GET", getQuery("", vars, persisted(query)), u.Token, "")
				} else {
					b, _ := json.Marshal(map[string]any{"variables": vars, "extensions": persisted(query)})
					resp = call(t, s, "POST", "/graphql", u.Token, string(b))
				}
				a := decodeAnswer(t, resp.Body)
				if resp.Status != 200 || len(a.Errors) > 0 || a.Data["organization"].(map[string]any)["id"] != org {
					t.Fatalf("%s by hash: %d %s", method, resp.Status, resp.Body)
				}
			}
		})
		t.Run("a hash that is not the query's", func(t *testing.T) {
			ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha("{ __typename }")}}
			resp := call(t, s, "POST", "/graphql", u.Token, postBody(query, vars, ext))
			a := decodeAnswer(t, resp.Body)
			if _, has := a.keys["data"]; has || len(a.Errors) != 1 || !strings.Contains(a.Errors[0].Message, "hash does not match") {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
		})
		t.Run("a persisted mutation over GET", func(t *testing.T) {
			mutation := `mutation { updateOrganization(id: "nope", input: {title: "X"}) { id } }`
			// Kept when sent whole over POST (it runs, and finds nothing).
			call(t, s, "POST", "/graphql", u.Token, postBody(mutation, nil, persisted(mutation)))
			resp := call(t, s, "GET", getQuery("", nil, persisted(mutation)), u.Token, "")
			e := requestError(t, resp, 405, "METHOD_NOT_ALLOWED")
			if !strings.Contains(e.Message, "mutation is sent with POST") {
				t.Fatalf("message %q", e.Message)
			}
		})
		t.Run("the explorer without query or extensions", func(t *testing.T) {
			resp := call(t, s, "GET", "/graphql", "", "")
			if resp.Status != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("%d %s", resp.Status, resp.Header.Get("Content-Type"))
			}
		})
	})
}

// TestGETCaching: authenticated GET answers are private and revalidated;
// anonymous ones without errors may be kept by shared caches for
// AnonymousMaxAge, anonymous ones with errors not at all; every GET answer
// varies on the credentials and Origin. POST answers are not marked.
func TestGETCaching(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "cache@example.com", "Cache")
	public := fmt.Sprintf("public, max-age=%d", int(graph.AnonymousMaxAge.Seconds()))
	for _, c := range []struct {
		name, token, path, cache string
	}{
		{"authenticated", u.Token, getQuery(`{ viewer { user { id } } }`, nil, nil), "private, no-cache"},
		{"authenticated with errors", u.Token, getQuery(`{ organization(id: "nope") { id } }`, nil, nil), "private, no-cache"},
		{"authenticated request error", u.Token, getQuery(`{ nope }`, nil, nil), "private, no-cache"},
		{"anonymous without errors", "", getQuery(`{ __typename }`, nil, nil), public},
		{"anonymous with errors", "", getQuery(`{ viewer { user { id } } }`, nil, nil), "no-store"},
		{"anonymous request error", "", getQuery(`{ nope }`, nil, nil), "no-store"},
		{"anonymous unknown persisted query", "", getQuery("", nil, persisted(`{ __typename }`)), "no-store"},
		{"anonymous refused before gqlgen", "", getQuery(`{ __typename }`, nil, nil) + "&variables=nope", "no-store"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := call(t, s, "GET", c.path, c.token, "")
			if got := resp.Header.Get("Cache-Control"); got != c.cache {
				t.Fatalf("Cache-Control %q, want %q (%d %s)", got, c.cache, resp.Status, resp.Body)
			}
			if got := resp.Header.Get("Vary"); got != "Authorization, Cookie, Origin" {
				t.Fatalf("Vary %q", got)
			}
		})
	}
	resp := call(t, s, "POST", "/graphql", "", postBody(`{ __typename }`, nil, nil))
	if got := resp.Header.Get("Cache-Control"); got != "" {
		t.Fatalf("POST: Cache-Control %q", got)
	}
}

// TestRequestErrorsHaveNoData: errors raised before execution are answered
// with errors and no data key (GraphQL over HTTP), with the statuses they
// had; an error during execution keeps data.
func TestRequestErrorsHaveNoData(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	u, _ := s.NewUser(t, "nodata@example.com", "NoData")
	for _, c := range []struct {
		name, query string
		status      int
		code        string
	}{
		{"parse", `{ viewer {`, 422, "GRAPHQL_PARSE_FAILED"},
		{"validation", `{ nope }`, 422, "GRAPHQL_VALIDATION_FAILED"},
		{"no operation", ``, 422, "GRAPHQL_VALIDATION_FAILED"},
		{"depth", "{ __schema { types { fields { type { " + strings.Repeat("ofType { ", 20) + "name" + strings.Repeat(" }", 20) + " } } } } }", 200, "QUERY_TOO_DEEP"},
		{"cost", `{viewer{organizations{spaces(first:1000){edges{node{organization{spaces(first:1000){edges{node{id}}}}}}}}}}`, 200, "QUERY_TOO_COMPLEX"},
		{"document bounds", "{ viewer { user { " + strings.Repeat("id ", graph.MaxSelections+1) + "} } }", 200, "DOCUMENT_TOO_LARGE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			requestError(t, call(t, s, "POST", "/graphql", u.Token, postBody(c.query, nil, nil)), c.status, c.code)
		})
	}
	t.Run("bad text in a variable", func(t *testing.T) {
		body := `{"query": "query($t: String!) { organization(id: $t) { id } }", "variables": {"t": "a\u0000b"}}`
		requestError(t, call(t, s, "POST", "/graphql", u.Token, body), 200, "BAD_USER_INPUT")
	})
	t.Run("graphql-response+json", func(t *testing.T) {
		resp := call(t, s, "POST", "/graphql", u.Token, postBody(`{ nope }`, nil, nil), "Accept", "application/graphql-response+json")
		a := decodeAnswer(t, resp.Body)
		if _, has := a.keys["data"]; has || resp.Status != 400 || resp.Header.Get("Content-Type") != "application/graphql-response+json" {
			t.Fatalf("%d %s %s", resp.Status, resp.Header.Get("Content-Type"), resp.Body)
		}
	})
	t.Run("execution errors keep data", func(t *testing.T) {
		resp := call(t, s, "POST", "/graphql", u.Token, postBody(`{ organization(id: "nope") { id } }`, nil, nil))
		a := decodeAnswer(t, resp.Body)
		if _, has := a.keys["data"]; !has || resp.Status != 200 || len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
	})
}

// TestBatchedOperations: a JSON array of operations answers the array of
// their answers in order, each run as a single one would be (an operation
// refused before execution answers its errors and no data, the others
// run); mutations run in order and what follows a mutation reads what it
// wrote. A batch is bounded by MaxBatch operations and, together, by
// MaxComplexity; past either it is refused whole and nothing runs.
func TestBatchedOperations(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "batch@example.com", "Batch")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Before"}, 201).JSON(t)["id"].(string)
		read := map[string]any{"query": `query($s: ID!) { space(id: $s) { title } }`, "variables": map[string]any{"s": sp}}
		rename := func(title string) map[string]any {
			return map[string]any{"query": `mutation($s: ID!, $t: String!) { updateSpace(id: $s, input: {title: $t}) { title } }`,
				"variables": map[string]any{"s": sp, "t": title}}
		}
		batch := func(ops ...map[string]any) *testkit.Response {
			b, _ := json.Marshal(ops)
			return call(t, s, "POST", "/graphql", u.Token, string(b))
		}
		title := func(a map[string]any, field string) any {
			return a["data"].(map[string]any)[field].(map[string]any)["title"]
		}

		resp := batch(read, rename("First"), read, map[string]any{"query": "{ nope }"}, rename("Second"), read)
		var got []map[string]any
		if err := json.Unmarshal(resp.Body, &got); err != nil || resp.Status != 200 || len(got) != 6 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		if title(got[0], "space") != "Before" || title(got[1], "updateSpace") != "First" || title(got[2], "space") != "First" ||
			title(got[4], "updateSpace") != "Second" || title(got[5], "space") != "Second" {
			t.Fatalf("answers out of order or stale: %s", resp.Body)
		}
		if _, has := got[3]["data"]; has || got[3]["errors"] == nil {
			t.Fatalf("the refused operation: %v", got[3])
		}

		t.Run("more than MaxBatch", func(t *testing.T) {
			ops := make([]map[string]any, graph.MaxBatch+1)
			for i := range ops {
				ops[i] = rename(fmt.Sprint("Too many ", i))
			}
			e := requestError(t, batch(ops...), 400, "BAD_USER_INPUT")
			if want := fmt.Sprintf("the batch has %d operations, more than the limit of %d", graph.MaxBatch+1, graph.MaxBatch); !strings.Contains(e.Message, want) {
				t.Fatalf("message %q", e.Message)
			}
			requestError(t, call(t, s, "POST", "/graphql", u.Token, "[]"), 400, "BAD_USER_INPUT")
		})
		t.Run("costs added up", func(t *testing.T) {
			// Each is within MaxComplexity (aliases of 4 million each, as many
			// as fit), both together are not.
			var b strings.Builder
			b.WriteString("{ viewer { ")
			for i := 0; i < int(graph.MaxComplexity/4_100_000); i++ {
				fmt.Fprintf(&b, "a%d: organizations { spaces(first: 1000) { edges { node { id title } } } } ", i)
			}
			b.WriteString("} }")
			costly := map[string]any{"query": b.String()}
			if _, errs := s.GraphQL(t, u.Token, b.String(), nil); len(errs) != 0 {
				t.Fatalf("alone: %+v", errs)
			}
			before := s.Snapshot(t)
			e := requestError(t, batch(rename("Never"), costly, costly), 400, "QUERY_TOO_COMPLEX")
			if !strings.Contains(e.Message, fmt.Sprintf("limit of %d", graph.MaxComplexity)) {
				t.Fatalf("message %q", e.Message)
			}
			s.Unchanged(t, before)
		})
		t.Run("not over GET or multipart", func(t *testing.T) {
			b, _ := json.Marshal([]map[string]any{read, read})
			resp := call(t, s, "POST", "/graphql", u.Token, string(b), "Accept", "multipart/mixed;deferSpec=20220824, application/json")
			if err := json.Unmarshal(resp.Body, &got); err != nil || len(got) != 2 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
		})
	})
}

// part is one part of a multipart answer, decoded.
type part struct {
	Data        map[string]any         `json:"data"`
	Errors      []testkit.GraphQLError `json:"errors"`
	HasNext     bool                   `json:"hasNext"`
	Incremental []struct {
		Data  map[string]any `json:"data"`
		Path  []any          `json:"path"`
		Label string         `json:"label"`
	} `json:"incremental"`
}

// readParts reads a multipart/mixed answer whose parts are JSON.
func readParts(t *testing.T, resp *testkit.Response) []part {
	t.Helper()
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" || params["deferspec"] != "20220824" {
		t.Fatalf("%d Content-Type %q: %s", resp.Status, resp.Header.Get("Content-Type"), resp.Body)
	}
	mr := multipart.NewReader(strings.NewReader(string(resp.Body)), params["boundary"])
	var parts []part
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("part %d: %v\n%s", len(parts), err, resp.Body)
		}
		if ct := p.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("part Content-Type %q", ct)
		}
		var got part
		if err := json.NewDecoder(p).Decode(&got); err != nil {
			t.Fatalf("part %d: %v\n%s", len(parts), err, resp.Body)
		}
		parts = append(parts, got)
	}
	return parts
}

// TestDeferOverMultipart: a @defer query sent with Accept: multipart/mixed
// is answered in parts (deferSpec=20220824): the initial answer with
// hasNext, then the deferred fragment, a page tree streamed in place of
// its place-holder as in a JSON answer. Over GET too. A client that reads
// only JSON is told to ask for multipart (406, no data).
func TestDeferOverMultipart(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "defer@example.com", "Defer")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Deferred"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 30)
		query := `query($s: ID!) { space(id: $s) { title ... @defer(label: "tree") { revision { pages { title pages { title } } } } } }`
		vars := map[string]any{"s": sp}
		accept := "multipart/mixed;deferSpec=20220824, application/json"

		check := func(t *testing.T, resp *testkit.Response) {
			t.Helper()
			if resp.Status != 200 {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "private, no-cache" {
				t.Fatalf("Cache-Control %q", cc)
			}
			parts := readParts(t, resp)
			if len(parts) != 2 {
				t.Fatalf("%d parts: %s", len(parts), resp.Body)
			}
			first := parts[0]
			if !first.HasNext || first.Data["space"].(map[string]any)["title"] != "Deferred" || first.Data["space"].(map[string]any)["revision"] != nil {
				t.Fatalf("initial part: %+v", first)
			}
			last := parts[1]
			if last.HasNext || len(last.Incremental) != 1 || last.Incremental[0].Label != "tree" || fmt.Sprint(last.Incremental[0].Path) != "[space]" {
				t.Fatalf("deferred part: %+v", last)
			}
			pages := last.Incremental[0].Data["revision"].(map[string]any)["pages"].([]any)
			children := 0
			for _, p := range pages {
				children += len(p.(map[string]any)["pages"].([]any))
			}
			if len(pages) != 3 || children != 27 {
				t.Fatalf("the streamed tree: %v", pages)
			}
		}
		t.Run("POST", func(t *testing.T) {
			check(t, call(t, s, "POST", "/graphql", u.Token, postBody(query, vars, nil), "Accept", accept))
		})
		t.Run("GET", func(t *testing.T) {
			check(t, call(t, s, "GET", getQuery(query, vars, nil), u.Token, "", "Accept", accept))
		})
		t.Run("JSON only", func(t *testing.T) {
			resp := call(t, s, "POST", "/graphql", u.Token, postBody(query, vars, nil))
			if e := requestError(t, resp, 406, "NOT_ACCEPTABLE"); !strings.Contains(e.Message, "multipart/mixed") {
				t.Fatalf("message %q", e.Message)
			}
			// @defer(if: false) defers nothing: plain JSON.
			off := strings.Replace(query, `@defer(label: "tree")`, `@defer(if: false)`, 1)
			if data := s.MustGraphQL(t, u.Token, off, vars); data["space"].(map[string]any)["revision"] == nil {
				t.Fatalf("data: %v", data)
			}
		})
		t.Run("no @defer: plain JSON, whatever Accept allows", func(t *testing.T) {
			// urql accepts multipart/mixed on every request.
			plain := strings.Replace(query, `... @defer(label: "tree") {`, `... {`, 1)
			resp := call(t, s, "POST", "/graphql", u.Token, postBody(plain, vars, nil), "Accept", accept)
			if ct := resp.Header.Get("Content-Type"); resp.Status != 200 || !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("%d %s: %s", resp.Status, ct, resp.Body)
			}
		})
		t.Run("request error over multipart", func(t *testing.T) {
			resp := call(t, s, "POST", "/graphql", u.Token, postBody(`{ nope }`, nil, nil), "Accept", accept)
			requestError(t, resp, 422, "GRAPHQL_VALIDATION_FAILED")
		})
	})
}

// TestDeferredStreamEndsWhenTheClientLeaves: a client that leaves while
// the server still owes a deferred part ends the stream: the handler
// returns (gqlgen drops a deferred part whose context ended, and a
// transport that kept waiting for it held the handler and its connection
// forever), and the loader batch the part was waiting on runs no SQL.
func TestDeferredStreamEndsWhenTheClientLeaves(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "leaves@example.com", "Leaves")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Deferred"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 30)
		query := `query($s: ID!) { space(id: $s) { title ... @defer(label: "tree") { revision { pages { title markdown } } } } }`

		// Every batch the deferred part runs waits until the client left.
		reached, gone := make(chan struct{}), make(chan struct{})
		var statements int64
		var once sync.Once
		stop := s.OnLoaders(func(l *loader.Loaders) {
			l.Stats().HoldBatches(func(ctx context.Context) {
				if fc := graphql.GetFieldContext(ctx); fc == nil || !strings.Contains(fc.Path().String(), "revision") {
					return
				}
				once.Do(func() { statements = s.Statements(); close(reached) })
				<-gone
				<-loader.Request(ctx).Done() // the server saw the client leave
			})
		})
		defer stop()

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/graphql", strings.NewReader(postBody(query, map[string]any{"s": sp}, nil)))
		req.Header.Set("Authorization", "Bearer "+u.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "multipart/mixed;deferSpec=20220824, application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// The initial part arrives; the deferred one is held.
		first := make([]byte, 64)
		if _, err := io.ReadAtLeast(resp.Body, first, 16); err != nil {
			t.Fatalf("initial part: %v", err)
		}
		<-reached
		cancel()
		close(gone)

		served := make(chan struct{})
		go func() { s.Served(); close(served) }()
		select {
		case <-served:
		case <-time.After(30 * time.Second): // not a timing assertion: a handler that never returns
			t.Fatal("the handler still waits for the deferred part after the client left")
		}
		if n := s.Statements(); n != statements {
			t.Errorf("%d statements ran after the client left", n-statements)
		}
	})
}
