package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestCollections(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newSpaceFixture(t, s)
		resp := s.Call(t, "createCollection", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", map[string]any{"title": "Guides"}, 201)
		top := resp.JSON(t)
		topID := top["id"].(string)
		if top["title"] != "Guides" || top["organization"] != f.org || top["defaultLevel"] != "inherit" || top["permissions"].(map[string]any)["create"] != true {
			t.Fatalf("created: %v", top)
		}
		if resp.Header.Get("Location") != s.URL+"/v1/collections/"+topID {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		child := f.createCollection(t, map[string]any{"title": "Setup", "parent": topID})
		childID := child["id"].(string)
		grandchild := f.createCollection(t, map[string]any{"title": "Linux", "parent": childID})["id"].(string)
		if child["parent"] != topID {
			t.Fatalf("child: %v", child)
		}
		sp := f.createSpace(t, map[string]any{"title": "Install", "parent": grandchild})["id"].(string)

		var list struct {
			Items []map[string]any
			Count int
		}
		s.Call(t, "listCollectionsInOrganizationById", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/collections", nil, 200).Decode(t, &list)
		if list.Count != 3 {
			t.Fatalf("nested list: %+v", list)
		}
		s.Call(t, "listCollectionsInOrganizationById", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/collections?nested=false", nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["id"] != topID {
			t.Fatalf("top-level list: %+v", list)
		}
		s.Fail(t, "listCollectionsInOrganizationById", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/collections?nested=maybe", nil, 400)
		s.Fail(t, "listCollectionsInOrganizationById", f.stranger.Token, "GET", "/v1/orgs/"+f.org+"/collections", nil, 404)

		got := s.Call(t, "getCollectionById", f.reader.Token, "GET", "/v1/collections/"+childID, nil, 200).JSON(t)
		if p := got["permissions"].(map[string]any); p["view"] != true || p["admin"] != false || p["create"] != false {
			t.Fatalf("reader permissions: %v", p)
		}
		s.Fail(t, "getCollectionById", f.stranger.Token, "GET", "/v1/collections/"+childID, nil, 404)
		s.Fail(t, "getCollectionById", f.admin.Token, "GET", "/v1/collections/nosuchcollection", nil, 404)

		upd := s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+childID,
			map[string]any{"title": "Set-up", "description": "How to install", "defaultLevel": "read"}, 200).JSON(t)
		if upd["title"] != "Set-up" || upd["description"] != "How to install" || upd["defaultLevel"] != "read" {
			t.Fatalf("updated: %v", upd)
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"title": strings.Repeat("c", 51)}, "title"},
			{map[string]any{"description": strings.Repeat("d", 101)}, "description"},
			{map[string]any{"defaultLevel": "owner"}, "defaultLevel"},
			{map[string]any{"title": false}, "title"},
			{`{"title"`, "malformed"},
		} {
			if msg := s.Fail(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+childID, c.body, 400); !strings.Contains(msg, c.field) {
				t.Errorf("%v: %q does not name %s", c.body, msg, c.field)
			}
		}
		s.Fail(t, "createCollection", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", map[string]any{"title": strings.Repeat("c", 51)}, 400)
		s.Fail(t, "createCollection", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", map[string]any{"parent": "nosuchcollection"}, 400)
		s.Fail(t, "createCollection", f.reader.Token, "POST", "/v1/orgs/"+f.org+"/collections", map[string]any{"title": "x"}, 403)
		s.Fail(t, "createCollection", f.stranger.Token, "POST", "/v1/orgs/"+f.org+"/collections", map[string]any{"title": "x"}, 404)
		s.Fail(t, "updateCollectionById", f.reader.Token, "PATCH", "/v1/collections/"+childID, map[string]any{"title": "x"}, 403)
		s.Fail(t, "updateCollectionById", f.stranger.Token, "PATCH", "/v1/collections/"+childID, map[string]any{"title": "x"}, 404)
		// A collection moved into its own child (or itself) is refused.
		for _, parent := range []string{topID, childID, grandchild} {
			msg := s.Fail(t, "moveCollection", f.admin.Token, "POST", "/v1/collections/"+topID+"/move", map[string]any{"parent": parent}, 400)
			if !strings.Contains(msg, "parent") {
				t.Fatalf("move into %s: %q", parent, msg)
			}
		}
		s.Fail(t, "moveCollection", f.admin.Token, "POST", "/v1/collections/"+topID+"/move", map[string]any{}, 400)
		s.Fail(t, "moveCollection", f.reader.Token, "POST", "/v1/collections/"+childID+"/move", map[string]any{"parent": nil}, 403)
		s.Fail(t, "deleteCollectionById", f.reader.Token, "DELETE", "/v1/collections/"+childID, nil, 403)
		s.Fail(t, "deleteCollectionById", f.stranger.Token, "DELETE", "/v1/collections/"+childID, nil, 404)
		s.Fail(t, "transferCollection", f.admin.Token, "POST", "/v1/collections/"+topID+"/transfer", map[string]any{"organization": f.strangerOrg}, 400)
		s.Unchanged(t, before)

		// Moving out works.
		moved := s.Call(t, "moveCollection", f.admin.Token, "POST", "/v1/collections/"+grandchild+"/move", map[string]any{"parent": topID}, 200).JSON(t)
		if moved["parent"] != topID {
			t.Fatalf("moved: %v", moved)
		}

		// Deleting a collection moves what it holds up to its parent.
		if r := s.Call(t, "deleteCollectionById", f.admin.Token, "DELETE", "/v1/collections/"+grandchild, nil, 205); len(r.Body) != 0 {
			t.Fatalf("205 with a body")
		}
		s.Fail(t, "getCollectionById", f.admin.Token, "GET", "/v1/collections/"+grandchild, nil, 404)
		if got := s.Client().Space.GetX(ctx, sp); got.ParentID == nil || *got.ParentID != topID {
			t.Fatalf("space of the deleted collection: %+v", got.ParentID)
		}
		s.Call(t, "listSpacesInCollectionById", f.admin.Token, "GET", "/v1/collections/"+topID+"/spaces", nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["id"] != sp {
			t.Fatalf("collection spaces: %+v", list)
		}
		s.Fail(t, "listSpacesInCollectionById", f.stranger.Token, "GET", "/v1/collections/"+topID+"/spaces", nil, 404)
		s.Fail(t, "listSpacesInCollectionById", f.admin.Token, "GET", "/v1/collections/"+topID+"/spaces?limit=abc", nil, 400)

		// Transfer takes the whole subtree to the root of the other organization.
		_, other := s.NewUser(t, "admin@acme.com", "Acme Two")
		tr := s.Call(t, "transferCollection", f.admin.Token, "POST", "/v1/collections/"+topID+"/transfer", map[string]any{"organization": other}, 200).JSON(t)
		if tr["organization"] != other {
			t.Fatalf("transferred: %v", tr)
		}
		for _, id := range []string{topID, childID} {
			if s.Client().Collection.GetX(ctx, id).OrganizationID != other {
				t.Fatalf("collection %s not transferred", id)
			}
		}
		if s.Client().Space.GetX(ctx, sp).OrganizationID != other {
			t.Fatal("space of the subtree not transferred")
		}
		s.Fail(t, "getCollectionById", f.reader.Token, "GET", "/v1/collections/"+topID, nil, 404)
	})
}

// TestEffectiveRoles follows defaultLevel through two levels of collections
// for a read member, an edit member, a guest and an admin, in the
// permissions the API reports and in what it lets each do.
func TestEffectiveRoles(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		editor, _ := s.NewUser(t, "editor@acme.com", "")
		s.AddMember(t, f.org, editor, testkit.RoleOf(access.Edit))
		guest, _ := s.NewUser(t, "guest@acme.com", "")
		s.AddMember(t, f.org, guest, nil)
		outer := f.createCollection(t, map[string]any{"title": "Outer"})["id"].(string)
		inner := f.createCollection(t, map[string]any{"title": "Inner", "parent": outer})["id"].(string)
		sp := f.createSpace(t, map[string]any{"title": "Deep", "parent": inner})["id"].(string)

		type want struct {
			visible    bool
			view, edit bool
			admin      bool
		}
		check := func(label string, u testkit.User, w want) {
			t.Helper()
			if !w.visible {
				s.Fail(t, "getSpaceById", u.Token, "GET", "/v1/spaces/"+sp, nil, 404)
				s.Fail(t, "getCollectionById", u.Token, "GET", "/v1/collections/"+inner, nil, 404)
				return
			}
			p := s.Call(t, "getSpaceById", u.Token, "GET", "/v1/spaces/"+sp, nil, 200).JSON(t)["permissions"].(map[string]any)
			if p["view"] != w.view || p["edit"] != w.edit || p["admin"] != w.admin {
				t.Fatalf("%s: space permissions %v, want %+v", label, p, w)
			}
			status := 403
			if w.admin {
				status = 200
			}
			s.Call(t, "updateSpaceById", u.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"emoji": "✅"}, status)
		}
		// Everything inherits: organization roles apply.
		check("read, inherit", f.reader, want{true, true, false, false})
		check("edit, inherit", editor, want{true, true, true, false})
		check("guest, inherit", guest, want{})
		check("admin, inherit", f.admin, want{true, true, true, true})

		// The outer collection gives everyone edit, two levels up.
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+outer, map[string]any{"defaultLevel": "edit"}, 200)
		check("read, outer edit", f.reader, want{true, true, true, false})
		check("edit, outer edit", editor, want{true, true, true, false})
		check("guest, outer edit", guest, want{})
		// The inner collection, nearer, says read.
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+inner, map[string]any{"defaultLevel": "read"}, 200)
		check("edit, inner read", editor, want{true, true, false, false})
		// null: members get no access by default; admins keep theirs.
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+outer, map[string]any{"defaultLevel": nil}, 200)
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+inner, map[string]any{"defaultLevel": "inherit"}, 200)
		check("read, outer null", f.reader, want{})
		check("edit, outer null", editor, want{})
		check("admin, outer null", f.admin, want{true, true, true, true})
		// Creating inside needs the create role on the collection.
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+outer, map[string]any{"defaultLevel": "edit"}, 200)
		s.Fail(t, "createSpace", editor.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"parent": inner}, 403)
		s.Call(t, "updateCollectionById", f.admin.Token, "PATCH", "/v1/collections/"+outer, map[string]any{"defaultLevel": "create"}, 200)
		s.Call(t, "createSpace", editor.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"parent": inner}, 201)

		// A member's spaces, with the member's role on each.
		var list struct {
			Items []struct {
				Permission string
				Space      map[string]any
			}
			Count int
		}
		s.Call(t, "listSpacesForOrganizationMember", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/members/"+f.reader.ID+"/spaces", nil, 200).Decode(t, &list)
		if list.Count != 2 || list.Items[0].Permission != "create" {
			t.Fatalf("reader's spaces: %+v", list)
		}
		if m := s.Call(t, "getMemberInOrganizationById", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/members/"+f.reader.ID, nil, 200).JSON(t); m["spaces"] != 2.0 {
			t.Fatalf("reader's member object counts %v spaces, want 2", m["spaces"])
		}
		s.Call(t, "listSpacesForOrganizationMember", guest.Token, "GET", "/v1/orgs/"+f.org+"/members/"+guest.ID+"/spaces", nil, 200).Decode(t, &list)
		if list.Count != 0 {
			t.Fatalf("guest's spaces: %+v", list)
		}
		s.Fail(t, "listSpacesForOrganizationMember", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/members/"+editor.ID+"/spaces", nil, 403)
		s.Fail(t, "listSpacesForOrganizationMember", f.stranger.Token, "GET", "/v1/orgs/"+f.org+"/members/"+editor.ID+"/spaces", nil, 404)
		s.Fail(t, "listSpacesForOrganizationMember", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/members/"+f.stranger.ID+"/spaces", nil, 404)
		s.Fail(t, "listSpacesForOrganizationMember", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/members/"+editor.ID+"/spaces?limit=1001", nil, 400)
	})
}
