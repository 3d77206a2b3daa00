package graph_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/testkit"
)

// seedSpaces stores n spaces under parent (nil: the root) with a change
// request and an open comment each, straight through ent.
func seedSpaces(t *testing.T, s *testkit.Server, orgID string, parent *string, n int) {
	t.Helper()
	ctx := context.Background()
	builders := make([]*ent.SpaceCreate, n)
	for i := range builders {
		builders[i] = s.Client().Space.Create().SetOrganizationID(orgID).SetNillableParentID(parent).
			SetTitle(fmt.Sprintf("Space %d", i)).SetPosition(float64(i)).SetShareKey(ids.New()).SetDefaultLevel("inherit")
	}
	spaces := s.Client().Space.CreateBulk(builders...).SaveX(ctx)
	for _, sp := range spaces {
		s.Client().ChangeRequest.Create().SetSpaceID(sp.ID).SetNumber(1).SetStatus("draft").ExecX(ctx)
		s.Client().Comment.Create().SetSpaceID(sp.ID).ExecX(ctx)
	}
}

// TestListingSpacesStatementCount: listing 500 spaces with their counts and
// permissions takes as many statements as listing 5.
func TestListingSpacesStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(n int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("u%d@example.com", n), "Org")
			reader, _ := s.NewUser(t, fmt.Sprintf("reader%d@example.com", n), "")
			s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
			coll := s.Client().Collection.Create().SetOrganizationID(org).SetPosition(0).SetDefaultLevel(collection.DefaultLevelEdit).SaveX(context.Background())
			seedSpaces(t, s, org, nil, n/2)
			seedSpaces(t, s, org, &coll.ID, n-n/2)
			_ = u
			before := s.Statements()
			var list struct {
				Items []struct {
					ChangeRequestsDraft int
					Comments            int
					Permissions         struct{ View, Edit bool }
				}
			}
			s.Call(t, "listSpacesInOrganizationById", reader.Token, http.MethodGet, "/v1/orgs/"+org+"/spaces?limit=1000", nil, 200).Decode(t, &list)
			if len(list.Items) != n {
				t.Fatalf("%d spaces listed, want %d", len(list.Items), n)
			}
			edits := 0
			for _, it := range list.Items {
				if it.ChangeRequestsDraft != 1 || it.Comments != 1 || !it.Permissions.View {
					t.Fatalf("space counts or permissions: %+v", it)
				}
				if it.Permissions.Edit {
					edits++
				}
			}
			if edits != n-n/2 {
				t.Fatalf("%d spaces editable by the reader, want %d (those in the edit collection)", edits, n-n/2)
			}
			return s.Statements() - before
		}
		five, many := count(5), count(500)
		if five != many {
			t.Fatalf("statements: %d for 5 spaces, %d for 500", five, many)
		}
		t.Logf("%d statements for 5 and for 500 spaces", five)
	})
}

// TestCollectionTreeStatementCount: a collection tree read in one GraphQL
// query costs statements by depth, not by the number of collections and
// spaces.
func TestCollectionTreeStatementCount(t *testing.T) {
	const query = `query($id: ID!) { organization(id: $id) { collections(nested: false) { edges { node { title permissions { view }
		spaces { totalCount edges { node { title changeRequestCount comments permissions { edit } } } }
		collections { edges { node { title
			spaces { edges { node { title changeRequestsOpen permissions { admin } } } }
			collections { edges { node { title spaces { edges { node { title } } } } } } } } } } } } } }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		count := func(width int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("w%d@example.com", width), "Org")
			spaces := 0
			for i := 0; i < width; i++ {
				top := s.Client().Collection.Create().SetOrganizationID(org).SetPosition(float64(i)).SetDefaultLevel("inherit").SaveX(ctx)
				seedSpaces(t, s, org, &top.ID, width)
				for j := 0; j < width; j++ {
					mid := s.Client().Collection.Create().SetOrganizationID(org).SetParentID(top.ID).SetPosition(float64(j)).SetDefaultLevel("inherit").SaveX(ctx)
					seedSpaces(t, s, org, &mid.ID, 2)
					leaf := s.Client().Collection.Create().SetOrganizationID(org).SetParentID(mid.ID).SetPosition(0).SetDefaultLevel("read").SaveX(ctx)
					seedSpaces(t, s, org, &leaf.ID, 1)
					spaces += 3
				}
				spaces += width
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"id": org})
			tops := data["organization"].(map[string]any)["collections"].(map[string]any)["edges"].([]any)
			if len(tops) != width {
				t.Fatalf("%d top-level collections, want %d", len(tops), width)
			}
			return s.Statements() - before
		}
		small, large := count(1), count(6)
		if small != large {
			t.Fatalf("statements: %d for a 1-wide tree, %d for a 6-wide tree", small, large)
		}
		t.Logf("%d statements for both trees", small)
	})
}
