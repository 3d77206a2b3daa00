package graph_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// dashboardQuery is what a front end's dashboard asks for: an
// organization's spaces with their counts, each space's open comments and
// change requests, each change request's author, counts and comments, each
// comment's author, reactions and replies with theirs. Every level is a
// list: its statements must not grow with the number of spaces.
var dashboardQuery = func() string {
	b, err := os.ReadFile("testdata/dashboard.graphql")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// dashboard is an organization seeded for dashboardQuery.
type dashboard struct {
	org, token string
	spaces     []string
}

// seedDashboard makes an organization of n spaces, each with two space
// comments and three change requests (one a draft) of two comments each;
// every comment has three replies and reactions, every reply a reaction.
// Lists of five thus show more than one page's worth nowhere but replies.
func seedDashboard(t *testing.T, s *testkit.Server, n int) dashboard {
	t.Helper()
	admin, org := s.NewUser(t, fmt.Sprintf("admin-%d@dash.com", n), fmt.Sprintf("Dash %d", n))
	editor, _ := s.NewUser(t, fmt.Sprintf("editor-%d@dash.com", n), "")
	s.AddMember(t, org, editor, testkit.RoleOf(access.Edit))
	commenter, _ := s.NewUser(t, fmt.Sprintf("commenter-%d@dash.com", n), "")
	s.AddMember(t, org, commenter, testkit.RoleOf(access.Comment))
	users := []testkit.User{admin, editor, commenter}
	d := dashboard{org: org, token: admin.Token}
	t0 := time.Now().Add(-time.Hour)
	at := func() time.Time { t0 = t0.Add(time.Millisecond); return t0 }
	thread := func(space string, cr *string, i int) []*ent.CommentReactionCreate {
		c := s.Client().Comment.Create().SetSpaceID(space).SetNillableChangeRequestID(cr).SetBody(fmt.Sprint("comment ", i)).
			SetPostedBy(users[i%3].ID).SetRevisionID("").SetCreatedAt(at())
		if i%2 == 1 {
			c.SetStatus("resolved").SetResolvedAt(t0).SetResolvedBy(users[(i+1)%3].ID)
		}
		cm := c.SaveX(testkit.Fixture(context.Background()))
		reactions := []*ent.CommentReactionCreate{
			s.Client().CommentReaction.Create().SetSubjectID(cm.ID).SetSpaceID(space).SetEmoji("👍").SetUserID(users[0].ID).SetCreatedAt(t0),
			s.Client().CommentReaction.Create().SetSubjectID(cm.ID).SetSpaceID(space).SetEmoji("🎉").SetUserID(users[1].ID).SetCreatedAt(t0),
		}
		for j := range 3 {
			rp := s.Client().CommentReply.Create().SetCommentID(cm.ID).SetSpaceID(space).SetNillableChangeRequestID(cr).
				SetBody("reply").SetPostedBy(users[(i+j)%3].ID).SetCreatedAt(at()).SaveX(testkit.Fixture(context.Background()))
			reactions = append(reactions, s.Client().CommentReaction.Create().SetSubjectID(rp.ID).SetSpaceID(space).
				SetEmoji("❤️").SetUserID(users[2].ID).SetCreatedAt(t0))
		}
		return reactions
	}
	for i := range n {
		sp := s.Call(t, "createSpace", admin.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("Space ", i)}, 201).JSON(t)["id"].(string)
		d.spaces = append(d.spaces, sp)
		var reactions []*ent.CommentReactionCreate
		for c := range 2 {
			reactions = append(reactions, thread(sp, nil, c)...)
		}
		for k := range 3 {
			cr := s.Call(t, "createChangeRequest", editor.Token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{"subject": fmt.Sprint("CR ", k)}, 201).JSON(t)["id"].(string)
			if k == 2 {
				s.Client().ChangeRequest.UpdateOneID(cr).SetStatus("draft").ExecX(testkit.Fixture(context.Background()))
			}
			for c := range 2 {
				reactions = append(reactions, thread(sp, &cr, k+c)...)
			}
		}
		s.Client().CommentReaction.CreateBulk(reactions...).ExecX(testkit.Fixture(context.Background()))
	}
	return d
}

// TestDashboardStatements: the dashboard costs the same statements for 1,
// 10 and 50 spaces on every one of 20 runs, with every processor busy (a
// count that depended on how dataloader batches fall would vary); so do
// the other fields of spaces, change requests and comments under the list
// (nested_test.go), over the same organizations.
func TestDashboardStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		sizes := []int{1, 10, 50}
		boards := map[int]dashboard{}
		for _, n := range sizes {
			boards[n] = seedDashboard(t, s, n)
		}
		t.Run("dashboard", func(t *testing.T) {
			checked := map[int]bool{}
			assertFlat(t, s, sizes, 20, func(n int) {
				d := boards[n]
				data := s.MustGraphQL(t, d.token, dashboardQuery, map[string]any{"org": d.org, "first": 50})
				if !checked[n] {
					checked[n] = true
					checkDashboard(t, data, n)
				}
			})
		})
		t.Run("space fields", func(t *testing.T) { spaceFieldsFlat(t, s, sizes, boards) })
		t.Run("change request by number", func(t *testing.T) { changeRequestByNumberFlat(t, s, sizes, boards) })
	})
}

// assertFlat measures the statements read(n) costs for each size, runs
// times over, with every processor busy (testkit.UnderLoad), and fails
// unless every count equals the first: a nested read's statements must
// grow neither with the number of parents nor vary with goroutine timing.
func assertFlat(t *testing.T, s *testkit.Server, sizes []int, runs int, read func(n int)) {
	t.Helper()
	stop := testkit.UnderLoad(t)
	defer stop()
	counts := map[int][]int64{}
	for range runs {
		for _, n := range sizes {
			before := s.Statements()
			read(n)
			counts[n] = append(counts[n], s.Statements()-before)
		}
	}
	stop()
	t.Logf("statements by size: %v", counts)
	want := counts[sizes[0]][0]
	for _, n := range sizes {
		for run, c := range counts[n] {
			if c != want {
				t.Fatalf("size %d, run %d: %d statements, want %d as for size %d (all: %v)", n, run, c, want, sizes[0], counts)
			}
		}
	}
}

// checkDashboard checks that the answer holds what was seeded.
func checkDashboard(t *testing.T, data map[string]any, n int) {
	t.Helper()
	spaces := dig(data, "organization", "spaces")
	if dig(spaces, "totalCount") != float64(n) || len(dig(spaces, "edges").([]any)) != n {
		t.Fatalf("%d spaces: %v", n, dig(spaces, "totalCount"))
	}
	for _, e := range dig(spaces, "edges").([]any) {
		sp := dig(e, "node")
		if dig(sp, "changeRequestCount") != float64(3) || dig(sp, "changeRequestsOpen") != float64(2) || dig(sp, "changeRequestsDraft") != float64(1) {
			t.Fatalf("space counts: %v %v %v", dig(sp, "changeRequestCount"), dig(sp, "changeRequestsOpen"), dig(sp, "changeRequestsDraft"))
		}
		if dig(sp, "comments", "totalCount") != float64(1) || dig(sp, "openComments") != float64(1) {
			t.Fatalf("space comments: %v", dig(sp, "comments"))
		}
		crs := dig(sp, "changeRequests")
		if dig(crs, "totalCount") != float64(2) || len(dig(crs, "edges").([]any)) != 2 {
			t.Fatalf("change requests: %v", crs)
		}
		for _, ce := range dig(crs, "edges").([]any) {
			cr := dig(ce, "node")
			if dig(cr, "createdBy", "id") == nil || dig(cr, "comments", "totalCount") != float64(2) || dig(cr, "openComments") != float64(1) {
				t.Fatalf("change request: %v", cr)
			}
			for _, me := range dig(cr, "comments", "edges").([]any) {
				c := dig(me, "node")
				if dig(c, "postedBy", "id") == nil || dig(c, "replies", "totalCount") != float64(3) ||
					len(dig(c, "replies", "edges").([]any)) != 3 || len(dig(c, "reactions").([]any)) != 2 ||
					dig(c, "replies", "edges", 0, "node", "postedBy", "id") == nil {
					t.Fatalf("comment: %v", c)
				}
			}
		}
	}
}
