package app

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestPanicShape: a panic below the request log answers 500 in the shape of
// the API asked, GraphQL's for /graphql (with extensions.code) and
// GitBook's elsewhere, over the app's own middleware order. No route of
// the app panics on purpose, so the chain is built here around one that does.
func TestPanicShape(t *testing.T) {
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	h := graphQLErrors(graphQLPath)(requestLog(slog.New(slog.DiscardHandler))(boom))
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct{ path, want string }{
		{"/graphql", `{"errors":[{"message":"internal error","extensions":{"code":"INTERNAL_SERVER_ERROR","status":500}}]}`},
		{"/v1/user", `{"error":{"code":500,"message":"internal error"}}`},
	} {
		resp, err := http.Post(srv.URL+c.path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got, want any
		if resp.StatusCode != 500 || json.Unmarshal(raw, &got) != nil || json.Unmarshal([]byte(c.want), &want) != nil ||
			string(mustJSON(got)) != string(mustJSON(want)) || resp.Header.Get(RequestIDHeader) == "" {
			t.Errorf("%s: %d %s, want %s", c.path, resp.StatusCode, raw, c.want)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
