package graph_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestUnauthenticatedGraphQL: a request to /graphql whose Authorization
// header carries no known token is refused with 401 and the challenge in
// GraphQL's error shape, over POST and GET alike; one with no header at all
// runs anonymously (anonymous_test.go). REST keeps GitBook's shape for the
// same refusal.
func TestUnauthenticatedGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		query := `{ viewer { user { id } } }`
		get := "/graphql?query=" + url.QueryEscape(query)
		for _, c := range []struct{ name, header, method, path string }{
			{"POST with an unknown token", "Bearer folio_nobody", "POST", "/graphql"},
			{"POST with another scheme", "Basic Zm9vOmJhcg==", "POST", "/graphql"},
			{"POST with an empty bearer", "Bearer ", "POST", "/graphql"},
			{"GET with an unknown token", "Bearer folio_nobody", "GET", get},
		} {
			t.Run(c.name, func(t *testing.T) {
				var body io.Reader
				if c.method == "POST" {
					body = strings.NewReader(`{"query": "` + query + `"}`)
				}
				req, _ := http.NewRequest(c.method, s.URL+c.path, body)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", c.header)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				raw, _ := io.ReadAll(res.Body)
				var got map[string]any
				if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatalf("%s", raw)
				}
				errs, _ := got["errors"].([]any)
				_, hasData := got["data"]
				if res.StatusCode != 401 || hasData || got["error"] != nil || len(errs) != 1 ||
					errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "UNAUTHENTICATED" {
					t.Fatalf("%d %s", res.StatusCode, raw)
				}
				if h := res.Header.Get("WWW-Authenticate"); h != `Bearer realm="folio"` {
					t.Fatalf("WWW-Authenticate %q", h)
				}
			})
		}
		t.Run("REST keeps GitBook's shape", func(t *testing.T) {
			resp := s.Request(t, "folio_nobody", "GET", "/v1/user", nil)
			var got struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
				Errors any `json:"errors"`
			}
			resp.Decode(t, &got)
			if resp.Status != 401 || got.Error.Code != 401 || got.Error.Message == "" || got.Errors != nil {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			if h := resp.Header.Get("WWW-Authenticate"); h != `Bearer realm="folio"` {
				t.Fatalf("WWW-Authenticate %q", h)
			}
			// REST keeps requiring a token: no header at all is a 401 too.
			if resp := s.Request(t, "", "GET", "/v1/user", nil); resp.Status != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer realm="folio"` {
				t.Fatalf("no token: %d %v", resp.Status, resp.Header)
			}
		})
	})
}
