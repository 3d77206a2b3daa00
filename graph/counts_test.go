package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// keptAndReal are the totals list_counts keeps (rows of 0 left out: a
// missing row is 0) and the same totals counted from the rows, by list and
// parent.
func keptAndReal(t testing.TB, s *testkit.Server) (kept, real map[string]int) {
	t.Helper()
	read := func(q string) map[string]int {
		rows, err := s.App.DB.SQL.QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var list, parent string
			var n int
			if err := rows.Scan(&list, &parent, &n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				out[list+" "+parent] = n
			}
		}
		return out
	}
	kept = read(`SELECT list, parent, n FROM list_counts WHERE list <> 'folio:counted'`)
	real = read(`SELECT 'members', organization_id, count(*) FROM members GROUP BY organization_id
		UNION ALL SELECT 'teams', organization_id, count(*) FROM teams GROUP BY organization_id
		UNION ALL SELECT 'change_requests:' || c.status, s.organization_id, count(*)
			FROM change_requests c JOIN spaces s ON s.id = c.space_id WHERE s.deleted_at IS NULL
			GROUP BY c.status, s.organization_id`)
	return kept, real
}

// checkKept fails unless every kept total is the real one, and the REST
// lists of org answer them as their count.
func checkKept(t *testing.T, s *testkit.Server, step, token, org string) {
	t.Helper()
	kept, real := keptAndReal(t, s)
	if fmt.Sprint(kept) != fmt.Sprint(real) {
		t.Fatalf("%s: kept counts %v, real %v", step, kept, real)
	}
	for path, key := range map[string]string{
		"/members?limit=1":                       "members " + org,
		"/teams?limit=1":                         "teams " + org,
		"/change-requests?limit=1":               "change_requests:open " + org,
		"/change-requests?limit=1&status=merged": "change_requests:merged " + org,
	} {
		var page struct{ Count int }
		res := s.Request(t, token, "GET", "/v1/orgs/"+org+path, nil)
		if res.Status != 200 {
			t.Fatalf("%s: GET %s: %d %s", step, path, res.Status, res.Body)
		}
		res.Decode(t, &page)
		if page.Count != real[key] {
			t.Fatalf("%s: GET %s counts %d, want %d", step, path, page.Count, real[key])
		}
	}
}

// TestKeptCounts: every write path that adds or removes a member, a team
// or a change request of an organization (or moves one between the lists
// an admin sees: a status change, a space deleted, restored, moved or
// purged) keeps the kept totals equal to a count of the rows, in its own
// transaction (a refused write changes none), and the lists answer them.
func TestKeptCounts(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		t.Cleanup(clock.Reset)
		admin, org := s.NewUser(t, "admin@kept.test", "Kept")
		_, other := s.NewUser(t, "admin@kept.test", "Other")
		check := func(step string) { t.Helper(); checkKept(t, s, step, admin.Token, org) }
		must := func(method, path string, body any, status int) map[string]any {
			t.Helper()
			res := s.Request(t, admin.Token, method, path, body)
			if res.Status != status {
				t.Fatalf("%s %s: %d, want %d\n%s", method, path, res.Status, status, res.Body)
			}
			if len(res.Body) == 0 {
				return nil
			}
			return res.JSON(t)
		}
		check("organizations created")

		// Members: joining by email domain, removal, a refused removal.
		must("PATCH", "/v1/orgs/"+org, map[string]any{"emailDomains": []string{"kept.test"}, "defaultRole": "edit"}, 200)
		var joined []testkit.User
		for i := range 3 {
			u, _ := s.NewUser(t, fmt.Sprintf("m%d@kept.test", i), "")
			if res := s.Request(t, u.Token, "POST", "/v1/orgs/"+org+"/join", nil); res.Status != 204 {
				t.Fatalf("join: %d %s", res.Status, res.Body)
			}
			joined = append(joined, u)
		}
		check("members joined")
		must("DELETE", "/v1/orgs/"+org+"/members/"+joined[0].ID, nil, 204)
		check("member removed")
		if res := s.Request(t, admin.Token, "DELETE", "/v1/orgs/"+org+"/members/"+admin.ID, nil); res.Status != 409 {
			t.Fatalf("the last admin left: %d", res.Status)
		}
		check("refused removal")
		// Rows written by SQL, outside Folio's writes, are counted too.
		seedMembersAs(t, s, org, "kept", 25, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		check("members inserted by SQL")

		// Teams.
		team := must("PUT", "/v1/orgs/"+org+"/teams", map[string]any{"title": "One", "members": []string{joined[1].ID}}, 201)["id"].(string)
		must("PUT", "/v1/orgs/"+org+"/teams", map[string]any{"title": "Two"}, 201)
		check("teams created")
		must("DELETE", "/v1/orgs/"+org+"/teams/"+team, nil, 204)
		check("team deleted")

		// Change requests, as admins see them: by status, in live spaces.
		space := must("POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "S"}, 201)["id"].(string)
		moved := must("POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "M"}, 201)["id"].(string)
		var crs []string
		for _, sp := range []string{space, space, space, moved} {
			crs = append(crs, must("POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{"subject": "cr"}, 201)["id"].(string))
		}
		check("change requests created")
		must("PATCH", "/v1/spaces/"+space+"/change-requests/"+crs[0], map[string]any{"status": "archived"}, 200)
		must("PATCH", "/v1/spaces/"+space+"/change-requests/"+crs[1], map[string]any{"subject": "same status"}, 200)
		check("status changed")
		must("POST", "/v1/spaces/"+space+"/change-requests/"+crs[2]+"/merge", map[string]any{}, 200)
		check("merged")
		must("POST", "/v1/spaces/"+moved+"/transfer", map[string]any{"organization": other}, 200)
		check("space moved to another organization")
		must("DELETE", "/v1/spaces/"+space, nil, 205)
		check("space deleted")
		must("POST", "/v1/spaces/"+space+"/restore", nil, 200)
		check("space restored")
		must("DELETE", "/v1/spaces/"+space, nil, 205)
		clock.Advance(8 * 24 * time.Hour)
		if _, err := s.App.Resolver.PurgeDeletedSpaces(context.Background()); err != nil {
			t.Fatal(err)
		}
		check("space purged")
	})
}

// TestScopedListsCountInPage: a list filtered by access (an organization's
// spaces, for a member who is not an admin) counts in the statement that
// reads its page: a full page costs what a page that is not full does, and
// every page, after a cursor too, says the same total.
func TestScopedListsCountInPage(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		admin, org := s.NewUser(t, "admin@scoped.test", "Scoped")
		member, _ := s.NewUser(t, "member@scoped.test", "")
		s.AddMember(t, org, member, testkit.RoleOf("read"))
		list := func(path string) (int, int, string, int64) {
			t.Helper()
			var page struct {
				Count int
				Items []any
				Next  *struct{ Page string }
			}
			before := s.Statements()
			res := s.Request(t, member.Token, "GET", path, nil)
			used := s.Statements() - before
			if res.Status != 200 {
				t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
			}
			res.Decode(t, &page)
			next := ""
			if page.Next != nil {
				next = page.Next.Page
			}
			return page.Count, len(page.Items), next, used
		}
		path := "/v1/orgs/" + org + "/spaces?limit=3"
		for i := range 3 {
			if res := s.Request(t, admin.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("S", i)}); res.Status != 201 {
				t.Fatalf("create space: %d %s", res.Status, res.Body)
			}
		}
		count, items, _, notFull := list(path)
		if count != 3 || items != 3 {
			t.Fatalf("3 spaces: count %d, %d items", count, items)
		}
		for i := range 4 {
			s.Request(t, admin.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("T", i)})
		}
		count, items, next, full := list(path)
		if count != 7 || items != 3 || next == "" {
			t.Fatalf("7 spaces: count %d, %d items, next %q", count, items, next)
		}
		if full != notFull {
			t.Fatalf("a full page ran %d statements, one that is not %d: the count is a statement of its own", full, notFull)
		}
		count, items, _, _ = list(path + "&page=" + next)
		if count != 7 || items != 3 {
			t.Fatalf("second page: count %d, %d items", count, items)
		}
	})
}
