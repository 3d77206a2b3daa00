package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

type crList struct {
	Items []map[string]any
	Count int
	Next  *struct{ Page string }
}

// TestOrganizationChangeRequests: the change requests of the spaces the
// caller can read, one status at a time (default open), newest first, with
// an exact count, keyset pages and the creator and contributor filters.
func TestOrganizationChangeRequests(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		org := "/v1/orgs/" + f.org + "/change-requests"
		secret := f.createSpace(t, map[string]any{"title": "Secret"})["id"].(string)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+secret, map[string]any{"defaultLevel": nil}, 200)
		open := f.newCR(t, "Open")
		f.edit(t, open, insertPage("# P\n", nil))
		archived := f.newCR(t, "Archived")
		s.Call(t, "updateChangeRequestById", f.editor.Token, "PATCH", f.crPath(archived), map[string]any{"status": "archived"}, 200)
		hidden := s.Call(t, "createChangeRequest", f.admin.Token, "POST", "/v1/spaces/"+secret+"/change-requests", map[string]any{"subject": "Hidden"}, 201).JSON(t)["id"].(string)
		guest, _ := s.NewUser(t, "guest@else.org", "")
		s.AddMember(t, f.org, guest, nil)

		list := func(u testkit.User, query string) []string {
			t.Helper()
			var out crList
			s.Call(t, "listChangeRequestsForOrganization", u.Token, "GET", org+query, nil, 200).Decode(t, &out)
			var ids []string
			for _, it := range out.Items {
				ids = append(ids, it["id"].(string))
			}
			if out.Count != len(ids) && !strings.Contains(query, "limit=") {
				t.Fatalf("%s: count %d for %v", query, out.Count, ids)
			}
			return ids
		}
		check := func(u testkit.User, query string, want ...string) {
			t.Helper()
			if got := list(u, query); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s %s: %v, want %v", u.Email, query, got, want)
			}
		}
		check(f.reader, "", open)
		check(f.reader, "?status=archived", archived)
		check(f.reader, "?status=merged")
		check(f.admin, "", hidden, open)
		check(f.admin, "?order=asc", open, hidden)
		check(f.admin, "?creator="+f.admin.ID, hidden)
		check(f.admin, "?contributor="+f.editor.ID, open)
		check(f.admin, "?contributor="+f.admin.ID)
		check(guest, "")

		// Keyset pages: one item each, the count of the whole list.
		var page crList
		s.Call(t, "listChangeRequestsForOrganization", f.admin.Token, "GET", org+"?limit=1", nil, 200).Decode(t, &page)
		if page.Count != 2 || len(page.Items) != 1 || page.Items[0]["id"] != hidden || page.Next == nil {
			t.Fatalf("first page: %+v", page)
		}
		next := page.Next.Page
		page = crList{}
		s.Call(t, "listChangeRequestsForOrganization", f.admin.Token, "GET", org+"?limit=1&page="+next, nil, 200).Decode(t, &page)
		if page.Count != 2 || len(page.Items) != 1 || page.Items[0]["id"] != open || page.Next != nil {
			t.Fatalf("second page: %+v", page)
		}

		for _, c := range []struct{ query, field string }{{"?status=closed", "status"}, {"?limit=0", "limit"}, {"?page=bogus", "page"}} {
			if msg := s.Fail(t, "listChangeRequestsForOrganization", f.reader.Token, "GET", org+c.query, nil, 400); !strings.Contains(msg, c.field) {
				t.Fatalf("%s: %s", c.query, msg)
			}
			s.Fail(t, "listChangeRequestsForOrganization", f.stranger.Token, "GET", org+c.query, nil, 404)
		}
		s.Fail(t, "listChangeRequestsForOrganization", f.stranger.Token, "GET", org, nil, 404)
		s.Fail(t, "listChangeRequestsForOrganization", f.reader.Token, "GET", "/v1/orgs/"+f.strangerOrg+"/change-requests", nil, 404)
	})
}

// TestOrganizationChangeRequestsStatements: the list costs the same for 2
// change requests in 2 spaces as for 6 in 3.
func TestOrganizationChangeRequestsStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(spaces, perSpace int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("u%d@example.com", spaces), "Org")
			for i := 0; i < spaces; i++ {
				sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("S", i)}, 201).JSON(t)["id"].(string)
				for j := 0; j < perSpace; j++ {
					s.Call(t, "createChangeRequest", u.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{}, 201)
				}
			}
			before := s.Statements()
			var out crList
			s.Call(t, "listChangeRequestsForOrganization", u.Token, "GET", "/v1/orgs/"+org+"/change-requests", nil, 200).Decode(t, &out)
			if out.Count != spaces*perSpace || len(out.Items) != spaces*perSpace {
				t.Fatalf("%d items, count %d", len(out.Items), out.Count)
			}
			return s.Statements() - before
		}
		small, large := count(2, 1), count(3, 2)
		if small != large {
			t.Fatalf("statements: %d for 2 change requests, %d for 6", small, large)
		}
	})
}

// TestUserByID: a user is visible to anyone sharing an organization with
// them, guests included, and to themselves; to everyone else 404.
func TestUserByID(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		guest, _ := s.NewUser(t, "guest@else.org", "")
		s.AddMember(t, f.org, guest, nil)
		for _, c := range []struct{ viewer, user testkit.User }{
			{f.reader, f.editor}, {guest, f.admin}, {f.admin, guest}, {f.stranger, f.stranger},
		} {
			u := s.Call(t, "getUserById", c.viewer.Token, "GET", "/v1/users/"+c.user.ID, nil, 200).JSON(t)
			if u["id"] != c.user.ID || u["email"] != c.user.Email || u["object"] != "user" {
				t.Fatalf("%s reads %s: %v", c.viewer.Email, c.user.Email, u)
			}
		}
		for _, c := range []struct {
			viewer testkit.User
			id     string
		}{{f.stranger, f.reader.ID}, {f.reader, f.stranger.ID}, {guest, f.stranger.ID}, {f.reader, "nope"}} {
			s.Fail(t, "getUserById", c.viewer.Token, "GET", "/v1/users/"+c.id, nil, 404)
		}
		// GraphQL's user(id:) follows the same rule.
		if d := s.MustGraphQL(t, guest.Token, `query($id: ID!) { user(id: $id) { email } }`, map[string]any{"id": f.admin.ID}); d["user"].(map[string]any)["email"] != f.admin.Email {
			t.Fatalf("graphql user: %v", d)
		}
		if _, errs := s.GraphQL(t, f.stranger.Token, `query($id: ID!) { user(id: $id) { email } }`, map[string]any{"id": f.admin.ID}); len(errs) == 0 {
			t.Fatalf("a stranger read a user over GraphQL")
		}
	})
}
