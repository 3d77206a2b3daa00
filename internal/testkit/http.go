package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Response is an answer read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value (map, slice, ...).
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return v
}

// Decode decodes the body into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode body: %v\n%s", err, r.Body)
	}
}

// Request sends a request with an optional bearer token and body. A body
// that is a string or []byte is sent as is; anything else as JSON.
func (s *Server) Request(t testing.TB, token, method, path string, body any) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// Call is Request for a documented REST operation: the answer must carry
// the expected status, and its body must match the operation's response
// schema in the reference (or the error shape, for failures).
func (s *Server) Call(t testing.TB, operationID, token, method, path string, body any, wantStatus int) *Response {
	t.Helper()
	resp := s.Request(t, token, method, path, body)
	if resp.Status != wantStatus {
		t.Fatalf("%s %s: status %d, want %d\n%s", method, path, resp.Status, wantStatus, resp.Body)
	}
	CheckContract(t, operationID, method, path, resp)
	return resp
}

// Fail calls an operation that must fail with status and the error shape,
// and returns the error message.
func (s *Server) Fail(t testing.TB, operationID, token, method, path string, body any, wantStatus int) string {
	t.Helper()
	resp := s.Call(t, operationID, token, method, path, body, wantStatus)
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	resp.Decode(t, &e)
	return e.Error.Message
}

// GraphQL runs a GraphQL operation and returns data and errors.
func (s *Server) GraphQL(t testing.TB, token, query string, vars map[string]any) (data map[string]any, errs []GraphQLError) {
	t.Helper()
	resp := s.Request(t, token, http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars})
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []GraphQLError `json:"errors"`
	}
	resp.Decode(t, &out)
	return out.Data, out.Errors
}

// GraphQLError is one entry of a GraphQL response's errors.
type GraphQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// MustGraphQL is GraphQL for operations that must succeed.
func (s *Server) MustGraphQL(t testing.TB, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	data, errs := s.GraphQL(t, token, query, vars)
	if len(errs) > 0 {
		t.Fatalf("graphql errors: %+v", errs)
	}
	return data
}
