package graph_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// send is a request with the Content-Type given (none when empty), for the
// refusals testkit's Request cannot provoke.
func send(t *testing.T, s *testkit.Server, token, method, path, contentType, body string) *testkit.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &testkit.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// checkGraphQLShape: the answer has status and, as its whole body, a
// GraphQL request error {"errors": [{"message", "extensions": {"code",
// "status"}}]} with code.
func checkGraphQLShape(t *testing.T, resp *testkit.Response, status int, code string) {
	t.Helper()
	var body map[string]json.RawMessage
	var errs []testkit.GraphQLError
	if resp.Status != status || json.Unmarshal(resp.Body, &body) != nil || body["error"] != nil ||
		json.Unmarshal(body["errors"], &errs) != nil || len(errs) != 1 || errs[0].Message == "" ||
		errs[0].Extensions["code"] != code || errs[0].Extensions["status"] != float64(status) {
		t.Fatalf("want %d %s in GraphQL's shape, got %d %s", status, code, resp.Status, resp.Body)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("headers: %v", resp.Header)
	}
}

// checkGitBookShape: the answer has status and GitBook's error shape.
func checkGitBookShape(t *testing.T, resp *testkit.Response, status int) {
	t.Helper()
	var e struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Errors any `json:"errors"`
	}
	if resp.Status != status || json.Unmarshal(resp.Body, &e) != nil || e.Error == nil ||
		e.Error.Code != status || e.Error.Message == "" || e.Errors != nil {
		t.Fatalf("want %d in GitBook's shape, got %d %s", status, resp.Status, resp.Body)
	}
}

// TestGraphQLRefusalShape: whatever refuses a request to /graphql before
// the executor runs (the body limit, the deadline, routing, a body that is
// no GraphQL request) answers in GraphQL's shape with extensions.code and
// its own status; the same refusal of a REST request keeps GitBook's shape.
func TestGraphQLRefusalShape(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		tok := alice.Token
		const query = `{ viewer { user { id } } }`
		huge := `{"query":"` + strings.Repeat(" ", int(s.App.Config.MaxBodyBytes)) + `{ viewer { user { id } } }"}`

		t.Run("body over the limit", func(t *testing.T) {
			checkGraphQLShape(t, send(t, s, tok, "POST", "/graphql", "application/json", huge), 413, "PAYLOAD_TOO_LARGE")
			checkGitBookShape(t, send(t, s, tok, "PATCH", "/v1/orgs/"+acme, "application/json",
				`{"title":"`+strings.Repeat("a", int(s.App.Config.MaxBodyBytes))+`"}`), 413)
		})
		t.Run("past the deadline", func(t *testing.T) {
			timeout := s.App.Config.RequestTimeout
			s.App.Config.RequestTimeout = time.Nanosecond
			defer func() { s.App.Config.RequestTimeout = timeout }()
			resp := send(t, s, tok, "POST", "/graphql", "application/json", `{"query":"`+query+`"}`)
			checkGraphQLShape(t, resp, 503, "SERVICE_UNAVAILABLE")
			if resp.Header.Get("Retry-After") == "" {
				t.Fatal("503 without Retry-After")
			}
			checkGitBookShape(t, send(t, s, tok, "GET", "/v1/user", "", ""), 503)
		})
		t.Run("method", func(t *testing.T) {
			for _, method := range []string{"PUT", "DELETE", "PATCH"} {
				checkGraphQLShape(t, send(t, s, tok, method, "/graphql", "application/json", `{"query":"`+query+`"}`), 405, "METHOD_NOT_ALLOWED")
			}
			// A mutation over GET, named or the only operation, runs nothing.
			for _, q := range []string{
				`mutation { updateOrganization(id: "` + acme + `", input: {title: "Renamed"}) { id } }`,
				`query Q { viewer { user { id } } } mutation M { updateOrganization(id: "` + acme + `", input: {title: "Renamed"}) { id } }&operationName=M`,
			} {
				query, rest, _ := strings.Cut(q, "&")
				path := "/graphql?query=" + url.QueryEscape(query)
				if rest != "" {
					path += "&" + rest
				}
				checkGraphQLShape(t, send(t, s, tok, "GET", path, "", ""), 405, "METHOD_NOT_ALLOWED")
			}
			if title := s.Client().Organization.GetX(context.Background(), acme).Title; title != "Acme" {
				t.Fatalf("a mutation over GET renamed the organization to %q", title)
			}
			checkGitBookShape(t, send(t, s, tok, "PUT", "/v1/user", "", ""), 405)
		})
		t.Run("Content-Type", func(t *testing.T) {
			for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/graphql"} {
				checkGraphQLShape(t, send(t, s, tok, "POST", "/graphql", ct, `{"query":"`+query+`"}`), 400, "BAD_USER_INPUT")
			}
		})
		t.Run("upgrade", func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL+"/graphql?query="+url.QueryEscape(query), nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			checkGraphQLShape(t, &testkit.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, 400, "BAD_USER_INPUT")
		})
		t.Run("malformed JSON", func(t *testing.T) {
			for _, body := range []string{`{"query":`, `[1,2]`, `{"query":"{ viewer { user { id } } }","variables":"x"}`, ``} {
				checkGraphQLShape(t, send(t, s, tok, "POST", "/graphql", "application/json", body), 400, "BAD_USER_INPUT")
			}
			checkGitBookShape(t, send(t, s, tok, "PATCH", "/v1/orgs/"+acme, "application/json", `{"title":`), 400)
		})
		t.Run("no query", func(t *testing.T) {
			// The executor's own answer: a document with no operation.
			for _, body := range []string{`{}`, `{"query":""}`, `{"variables":{}}`} {
				resp := send(t, s, tok, "POST", "/graphql", "application/json", body)
				var got struct{ Errors []testkit.GraphQLError }
				if resp.Status != 422 || json.Unmarshal(resp.Body, &got) != nil || len(got.Errors) != 1 ||
					got.Errors[0].Message == "" || got.Errors[0].Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" {
					t.Fatalf("%s: %d %s", body, resp.Status, resp.Body)
				}
			}
		})
		t.Run("GET with malformed variables", func(t *testing.T) {
			for _, param := range []string{"variables", "extensions"} {
				path := "/graphql?query=" + url.QueryEscape(query) + "&" + param + "=" + url.QueryEscape("{nope")
				checkGraphQLShape(t, send(t, s, tok, "GET", path, "", ""), 400, "BAD_USER_INPUT")
			}
		})
		t.Run("a well-formed request still runs", func(t *testing.T) {
			if data := s.MustGraphQL(t, tok, query, nil); data["viewer"] == nil {
				t.Fatalf("viewer: %v", data)
			}
			resp := send(t, s, tok, "POST", "/graphql", "application/json; charset=utf-8", `{"query":"`+query+`","variables":null}`)
			if resp.Status != 200 || !strings.Contains(string(resp.Body), `"viewer"`) {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
		})
	})
}
