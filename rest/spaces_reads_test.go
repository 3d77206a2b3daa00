package rest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/internal/testkit"
)

// A space's counts come from one statement for any number of spaces; each
// space gets its own, whether read alone or in a list.
func TestSpaceCounts(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		busy := f.createSpace(t, map[string]any{"title": "Busy"})["id"].(string)
		quiet := f.createSpace(t, map[string]any{"title": "Quiet"})["id"].(string)
		idle := f.createSpace(t, map[string]any{"title": "Idle"})["id"].(string)
		for i, st := range []changerequest.Status{"open", "open", "draft", "merged", "archived"} {
			s.Client().ChangeRequest.Create().SetSpaceID(busy).SetNumber(i + 1).SetStatus(st).ExecX(testkit.Fixture(context.Background()))
		}
		s.Client().ChangeRequest.Create().SetSpaceID(quiet).SetNumber(1).SetStatus("draft").ExecX(testkit.Fixture(context.Background()))
		for _, st := range []comment.Status{"open", "open", "open", "resolved"} {
			s.Client().Comment.Create().SetSpaceID(busy).SetStatus(st).ExecX(testkit.Fixture(context.Background()))
		}
		s.Client().Comment.Create().SetSpaceID(quiet).SetStatus("resolved").ExecX(testkit.Fixture(context.Background()))
		want := map[string][4]float64{busy: {5, 2, 1, 3}, quiet: {1, 0, 1, 0}, idle: {0, 0, 0, 0}}
		check := func(sp map[string]any) {
			t.Helper()
			got := [4]float64{sp["changeRequests"].(float64), sp["changeRequestsOpen"].(float64),
				sp["changeRequestsDraft"].(float64), sp["comments"].(float64)}
			if got != want[sp["id"].(string)] {
				t.Fatalf("%s: changeRequests, open, draft, comments = %v, want %v", sp["title"], got, want[sp["id"].(string)])
			}
		}
		for id := range want {
			check(s.Call(t, "getSpaceById", f.reader.Token, "GET", "/v1/spaces/"+id, nil, 200).JSON(t))
		}
		list := s.Call(t, "listSpacesInOrganizationById", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/spaces", nil, 200).JSON(t)
		for _, it := range list["items"].([]any) {
			check(it.(map[string]any))
		}
	})
}

// A space read waits on its loaders in as few rounds as its depth needs:
// the space with its counts (the caller's membership came with
// authentication), then the collections above it when it is in one
// (issue 11: at most two). Statements: the token's user with its
// memberships, the space with its counts, and the organization's
// collections for a space in one; the bare handler's floor is two.
func TestSpaceReadRounds(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		root := f.createSpace(t, map[string]any{"title": "Root"})["id"].(string)
		coll := f.createCollection(t, map[string]any{"title": "Guides"})["id"].(string)
		nested := f.createSpace(t, map[string]any{"title": "Nested", "parent": coll})["id"].(string)
		for _, c := range []struct {
			name, id                   string
			wantRounds, wantStatements int
		}{{"root", root, 1, 2}, {"in a collection", nested, 2, 3}} {
			t.Run(c.name, func(t *testing.T) {
				var body map[string]any
				before := s.Statements()
				st := s.Loads(func() {
					body = s.Call(t, "getSpaceById", f.reader.Token, "GET", "/v1/spaces/"+c.id, nil, 200).JSON(t)
				})
				if body["id"] != c.id || body["permissions"].(map[string]any)["view"] != true {
					t.Fatalf("read: %v", body)
				}
				t.Logf("%d rounds, %d batches, %d statements", st.Rounds(), st.Batches(), s.Statements()-before)
				if st.Rounds() > 2 || st.Rounds() != c.wantRounds {
					t.Fatalf("GET /v1/spaces/{id} waited on %d rounds of loads (%d batches), want %d", st.Rounds(), st.Batches(), c.wantRounds)
				}
				if n := s.Statements() - before; n != int64(c.wantStatements) {
					t.Fatalf("GET /v1/spaces/{id} ran %d statements, want %d", n, c.wantStatements)
				}
			})
		}
	})
}

// Listing an organization's spaces costs the same rounds and statements
// for 5 spaces as for 50: the token's user with its memberships, the
// organization's spaces with their counts (one statement), and (some space
// being in one) its collections.
func TestOrganizationSpacesCostFlat(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		coll := f.createCollection(t, map[string]any{"title": "Guides"})["id"].(string)
		f.createSpace(t, map[string]any{"title": "Nested", "parent": coll})
		list := func(n int) (rounds, batches int, statements int64) {
			var body map[string]any
			before := s.Statements()
			st := s.Loads(func() {
				body = s.Call(t, "listSpacesInOrganizationById", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/spaces?limit=50", nil, 200).JSON(t)
			})
			statements = s.Statements() - before
			if got := len(body["items"].([]any)); got != n {
				t.Fatalf("listed %d spaces, want %d", got, n)
			}
			return st.Rounds(), st.Batches(), statements
		}
		for len(f.listIDs(t)) < 5 {
			f.createSpace(t, map[string]any{"title": fmt.Sprintf("S%d", len(f.listIDs(t)))})
		}
		r5, b5, n5 := list(5)
		for i := 5; i < 50; i++ {
			f.createSpace(t, map[string]any{"title": fmt.Sprintf("S%d", i)})
		}
		r50, b50, n50 := list(50)
		t.Logf("%d rounds, %d batches, %d statements", r50, b50, n50)
		if r5 != r50 || b5 != b50 || n5 != n50 || r50 > 2 || n50 != 3 {
			t.Fatalf("5 spaces: %d rounds, %d batches, %d statements; 50 spaces: %d rounds, %d batches, %d statements; want equal, at most 2 rounds, 3 statements",
				r5, b5, n5, r50, b50, n50)
		}
	})
}

// listIDs lists the ids of the organization's spaces, as its admin.
func (f spaceFixture) listIDs(t *testing.T) []string {
	t.Helper()
	body := f.s.Call(t, "listSpacesInOrganizationById", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/spaces?limit=100", nil, 200).JSON(t)
	var ids []string
	for _, it := range body["items"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}
