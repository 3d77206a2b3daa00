package rest_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/testkit"
)

// TestListOrganizationsPaging walks 120 organizations in pages of 50, in
// both orders: each is seen exactly once, in order, and the last page has
// no `next`.
func TestListOrganizationsPaging(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, _ := s.NewUser(t, "alice@acme.com", "")
		other, _ := s.NewUser(t, "other@else.org", "Not Alice's")
		_ = other
		for i := 0; i < 120; i++ {
			if _, err := s.App.Resolver.CreateOrganization(ctx, alice.ID, model.CreateOrganizationInput{Title: fmt.Sprintf("Org %03d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, order := range []string{"asc", "desc"} {
			var seen []string
			var keys []string
			page, pages := "", 0
			for {
				q := url.Values{"limit": {"50"}, "order": {order}}
				if page != "" {
					q.Set("page", page)
				}
				var env struct {
					Items []struct{ ID, Title, CreatedAt string }
					Count int
					Next  *struct{ Page string }
				}
				s.Call(t, "listOrganizationsForAuthenticatedUser", alice.Token, "GET", "/v1/orgs?"+q.Encode(), nil, 200).Decode(t, &env)
				pages++
				if env.Count != 120 {
					t.Fatalf("count %d, want 120", env.Count)
				}
				for _, it := range env.Items {
					seen = append(seen, it.Title)
					keys = append(keys, it.CreatedAt+" "+it.ID)
				}
				if env.Next == nil {
					if len(env.Items) != 20 {
						t.Fatalf("last page has %d items, want 20", len(env.Items))
					}
					break
				}
				if len(env.Items) != 50 {
					t.Fatalf("page %d has %d items", pages, len(env.Items))
				}
				page = env.Next.Page
			}
			if pages != 3 || len(seen) != 120 {
				t.Fatalf("%s: %d pages, %d items", order, pages, len(seen))
			}
			unique := map[string]bool{}
			for i, title := range seen {
				if unique[title] {
					t.Fatalf("%s: %s seen twice", order, title)
				}
				unique[title] = true
				if strings.HasPrefix(title, "Not") {
					t.Fatalf("another user's organization listed")
				}
				// Sorted by creation time, then id (several share a millisecond).
				if i > 0 && (order == "asc") != (keys[i-1] < keys[i]) {
					t.Fatalf("%s: item %d (%s) is out of order after %s", order, i, keys[i], keys[i-1])
				}
			}
		}

		for _, q := range []string{"limit=0", "limit=1001", "limit=abc", "limit=-1", "page=garbage!!", "page=eyJ0IjoxfQ", "order=sideways"} {
			field := strings.SplitN(q, "=", 2)[0]
			msg := s.Fail(t, "listOrganizationsForAuthenticatedUser", alice.Token, "GET", "/v1/orgs?"+q, nil, 400)
			if !strings.Contains(msg, field) {
				t.Fatalf("%s: message %q does not name %s", q, msg, field)
			}
		}
		// Default limit is 50; 1000 is allowed.
		var env struct{ Items []any }
		s.Call(t, "listOrganizationsForAuthenticatedUser", alice.Token, "GET", "/v1/orgs", nil, 200).Decode(t, &env)
		if len(env.Items) != 50 {
			t.Fatalf("default page has %d items", len(env.Items))
		}
		s.Call(t, "listOrganizationsForAuthenticatedUser", alice.Token, "GET", "/v1/orgs?limit=1000", nil, 200).Decode(t, &env)
		if len(env.Items) != 120 {
			t.Fatalf("limit=1000 gave %d items", len(env.Items))
		}
		s.Fail(t, "listOrganizationsForAuthenticatedUser", "", "GET", "/v1/orgs", nil, 401)
	})
}
