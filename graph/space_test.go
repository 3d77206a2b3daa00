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
	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
)

// seedSpaces stores n spaces under parent (nil: the root) with a change
// request and an open comment each, straight through ent.
func seedSpaces(t *testing.T, s *testkit.Server, orgID string, parent *string, n int) {
	t.Helper()
	builders := make([]*ent.SpaceCreate, n)
	for i := range builders {
		builders[i] = s.Client().Space.Create().SetOrganizationID(orgID).SetNillableParentID(parent).
			SetTitle(fmt.Sprintf("Space %d", i)).SetPosition(float64(i)).SetShareKeySealed(s.Seal(secrets.SpaceShareKey, ids.New())).SetDefaultLevel("inherit")
	}
	spaces := s.Client().Space.CreateBulk(builders...).SaveX(testkit.Fixture(context.Background()))
	for _, sp := range spaces {
		s.Client().ChangeRequest.Create().SetSpaceID(sp.ID).SetNumber(1).SetStatus("draft").ExecX(testkit.Fixture(context.Background()))
		s.Client().Comment.Create().SetSpaceID(sp.ID).ExecX(testkit.Fixture(context.Background()))
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
			coll := s.Client().Collection.Create().SetOrganizationID(org).SetPosition(0).SetDefaultLevel(collection.DefaultLevelEdit).SaveX(testkit.Fixture(context.Background()))
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
	// Pages of 20: four levels at the default 50 would cost 20 million,
	// past the cost limit (a sidebar asks for what it shows).
	const query = `query($id: ID!) { organization(id: $id) { collections(nested: false, first: 20) { edges { node { title permissions { view }
		spaces(first: 20) { totalCount edges { node { title changeRequestCount openComments permissions { edit } } } }
		collections(first: 20) { edges { node { title
			spaces(first: 20) { edges { node { title changeRequestsOpen permissions { admin } } } }
			collections(first: 20) { edges { node { title spaces(first: 20) { edges { node { title } } } } } } } } } } } } } }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(width int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("w%d@example.com", width), "Org")
			spaces := 0
			for i := 0; i < width; i++ {
				top := s.Client().Collection.Create().SetOrganizationID(org).SetPosition(float64(i)).SetDefaultLevel("inherit").SaveX(testkit.Fixture(context.Background()))
				seedSpaces(t, s, org, &top.ID, width)
				for j := 0; j < width; j++ {
					mid := s.Client().Collection.Create().SetOrganizationID(org).SetParentID(top.ID).SetPosition(float64(j)).SetDefaultLevel("inherit").SaveX(testkit.Fixture(context.Background()))
					seedSpaces(t, s, org, &mid.ID, 2)
					leaf := s.Client().Collection.Create().SetOrganizationID(org).SetParentID(mid.ID).SetPosition(0).SetDefaultLevel("read").SaveX(testkit.Fixture(context.Background()))
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

func TestSpacesAndCollectionsInGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		admin, org := s.NewUser(t, "admin@acme.com", "Acme")
		reader, _ := s.NewUser(t, "reader@acme.com", "")
		s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
		stranger, _ := s.NewUser(t, "stranger@else.org", "Else")

		data := s.MustGraphQL(t, admin.Token, `mutation($org: ID!) {
			c: createCollection(organizationId: $org, input: {title: "Guides"}) { id title permissions { admin } }
		}`, map[string]any{"org": org})
		coll := data["c"].(map[string]any)["id"].(string)
		data = s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $coll: ID!) {
			a: createSpace(organizationId: $org, input: {title: "A", parent: $coll}) { id parent { title } }
			b: createSpace(organizationId: $org, input: {title: "B", parent: $coll, emoji: "📘"}) { id visibility defaultLevel }
		}`, map[string]any{"org": org, "coll": coll})
		a := data["a"].(map[string]any)["id"].(string)
		if data["a"].(map[string]any)["parent"].(map[string]any)["title"] != "Guides" || data["b"].(map[string]any)["defaultLevel"] != "inherit" {
			t.Fatalf("created: %v", data)
		}
		b := data["b"].(map[string]any)["id"].(string)
		s.MustGraphQL(t, admin.Token, `mutation($a: ID!, $b: ID!) {
			moveSpace(id: $a, input: {position: {after: {type: space, space: $b}}}) { id }
		}`, map[string]any{"a": a, "b": b})

		data = s.MustGraphQL(t, reader.Token, `query($org: ID!, $coll: ID!) {
			organization(id: $org) {
				spaces(first: 10) { totalCount edges { node { title permissions { view edit } } } }
				collections { edges { node { title spaces { edges { node { title } } } } } }
			}
			collection(id: $coll) { title permissions { view create } }
			node(id: $coll) { ... on Collection { title } }
		}`, map[string]any{"org": org, "coll": coll})
		o := data["organization"].(map[string]any)
		if o["spaces"].(map[string]any)["totalCount"] != 2.0 {
			t.Fatalf("spaces: %v", o["spaces"])
		}
		tree := o["collections"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
		if edges := tree["spaces"].(map[string]any)["edges"].([]any); len(edges) != 2 ||
			edges[0].(map[string]any)["node"].(map[string]any)["title"] != "B" {
			t.Fatalf("collection spaces, B moved before A: %v", tree)
		}
		if data["node"].(map[string]any)["title"] != "Guides" || data["collection"].(map[string]any)["permissions"].(map[string]any)["create"] != false {
			t.Fatalf("collection: %v / %v", data["collection"], data["node"])
		}

		// Custom fields on a space.
		s.MustGraphQL(t, admin.Token, `mutation($org: ID!) { createCustomField(organizationId: $org, input: {name: "status", type: select_single, options: ["draft", "final"]}) { name } }`, map[string]any{"org": org})
		data = s.MustGraphQL(t, admin.Token, `mutation($a: ID!) { updateSpaceCustomFields(spaceId: $a, values: [{name: "status", value: "final"}]) { customFields { customField { name } value } } }`, map[string]any{"a": a})
		cf := data["updateSpaceCustomFields"].(map[string]any)["customFields"].([]any)[0].(map[string]any)
		if cf["value"] != "final" {
			t.Fatalf("custom fields: %v", cf)
		}
		_, errs := s.GraphQL(t, admin.Token, `mutation($a: ID!) { updateSpaceCustomFields(spaceId: $a, values: [{name: "status", value: "lost"}]) { id } }`, map[string]any{"a": a})
		if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || errs[0].Extensions["field"] != "values.status" {
			t.Fatalf("bad value: %+v", errs)
		}

		// Errors carry codes: a reader cannot update, a stranger cannot see, a
		// collection cannot go into itself.
		_, errs = s.GraphQL(t, reader.Token, `mutation($a: ID!) { updateSpace(id: $a, input: {title: "Mine"}) { id } }`, map[string]any{"a": a})
		if len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("reader update: %+v", errs)
		}
		_, errs = s.GraphQL(t, stranger.Token, `query($a: ID!) { space(id: $a) { id } }`, map[string]any{"a": a})
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("stranger read: %+v", errs)
		}
		_, errs = s.GraphQL(t, admin.Token, `mutation($c: ID!) { moveCollection(id: $c, input: {parent: $c}) { id } }`, map[string]any{"c": coll})
		if len(errs) != 1 || errs[0].Extensions["field"] != "parent" {
			t.Fatalf("collection into itself: %+v", errs)
		}
		// Delete and restore.
		data = s.MustGraphQL(t, admin.Token, `mutation($a: ID!) { deleteSpace(id: $a) }`, map[string]any{"a": a})
		if data["deleteSpace"] != true {
			t.Fatalf("delete: %v", data)
		}
		data = s.MustGraphQL(t, admin.Token, `mutation($a: ID!) { restoreSpace(id: $a) { id deletedAt } }`, map[string]any{"a": a})
		if data["restoreSpace"].(map[string]any)["deletedAt"] != nil {
			t.Fatalf("restore: %v", data)
		}
	})
}
