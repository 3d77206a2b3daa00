package graph_test

import (
	"net/url"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestUnauthenticatedGraphQL: a request to /graphql with no token or an
// unknown one is refused with 401 in GraphQL's error shape, over POST and
// GET alike; REST keeps GitBook's shape for the same refusal.
func TestUnauthenticatedGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		query := `{ viewer { user { id } } }`
		get := "/graphql?query=" + url.QueryEscape(query)
		for _, c := range []struct{ name, token, method, path string }{
			{"POST without a token", "", "POST", "/graphql"},
			{"POST with an unknown token", "folio_nobody", "POST", "/graphql"},
			{"GET without a token", "", "GET", get},
			{"GET with an unknown token", "folio_nobody", "GET", get},
		} {
			t.Run(c.name, func(t *testing.T) {
				var body any
				if c.method == "POST" {
					body = map[string]any{"query": query}
				}
				resp := s.Request(t, c.token, c.method, c.path, body)
				var got struct {
					Data   any                    `json:"data"`
					Error  any                    `json:"error"`
					Errors []testkit.GraphQLError `json:"errors"`
				}
				resp.Decode(t, &got)
				if resp.Status != 401 || got.Error != nil || got.Data != nil || len(got.Errors) != 1 ||
					got.Errors[0].Message == "" || got.Errors[0].Extensions["code"] != "UNAUTHENTICATED" {
					t.Fatalf("%d %s", resp.Status, resp.Body)
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
		})
	})
}
