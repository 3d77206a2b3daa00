package rest_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// spaceFixture is an organization with an admin, a read member, a stranger
// with an organization of their own, and a helper to create spaces.
type spaceFixture struct {
	s                *testkit.Server
	admin, reader    testkit.User
	stranger         testkit.User
	org, strangerOrg string
}

func newSpaceFixture(t *testing.T, s *testkit.Server) spaceFixture {
	f := spaceFixture{s: s}
	f.admin, f.org = s.NewUser(t, "admin@acme.com", "Acme")
	f.reader, _ = s.NewUser(t, "reader@acme.com", "")
	s.AddMember(t, f.org, f.reader, testkit.RoleOf(access.Read))
	f.stranger, f.strangerOrg = s.NewUser(t, "stranger@else.org", "Elsewhere")
	return f
}

func (f spaceFixture) createSpace(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	return f.s.Call(t, "createSpace", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces", body, 201).JSON(t)
}

func (f spaceFixture) createCollection(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	return f.s.Call(t, "createCollection", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", body, 201).JSON(t)
}

func TestSpaceCreateReadUpdate(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newSpaceFixture(t, s)
		resp := s.Call(t, "createSpace", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces",
			map[string]any{"title": "Handbook", "emoji": "📘", "editMode": "live"}, 201)
		sp := resp.JSON(t)
		id := sp["id"].(string)
		if sp["title"] != "Handbook" || sp["emoji"] != "📘" || sp["editMode"] != "live" || sp["visibility"] != "private" ||
			sp["organization"] != f.org || sp["defaultLevel"] != "inherit" || sp["changeRequests"].(float64) != 0 {
			t.Fatalf("created: %v", sp)
		}
		if resp.Header.Get("Location") != s.URL+"/v1/spaces/"+id {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		if p := sp["permissions"].(map[string]any); p["admin"] != true || p["edit"] != true {
			t.Fatalf("admin permissions %v", p)
		}
		got := s.Call(t, "getSpaceById", f.reader.Token, "GET", "/v1/spaces/"+id, nil, 200).JSON(t)
		if p := got["permissions"].(map[string]any); p["view"] != true || p["admin"] != false || p["edit"] != false || p["comment"] != false {
			t.Fatalf("reader permissions %v", p)
		}
		s.Fail(t, "getSpaceById", f.stranger.Token, "GET", "/v1/spaces/"+id, nil, 404)
		s.Fail(t, "getSpaceById", f.admin.Token, "GET", "/v1/spaces/nosuchspace", nil, 404)
		s.Fail(t, "getSpaceById", "", "GET", "/v1/spaces/"+id, nil, 401)

		var list struct {
			Items []map[string]any
			Count int
		}
		s.Call(t, "listSpacesInOrganizationById", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/spaces", nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["id"] != id {
			t.Fatalf("list: %+v", list)
		}
		s.Fail(t, "listSpacesInOrganizationById", f.stranger.Token, "GET", "/v1/orgs/"+f.org+"/spaces", nil, 404)
		s.Fail(t, "listSpacesInOrganizationById", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/spaces?limit=0", nil, 400)

		upd := s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+id, map[string]any{
			"title": "Handbook 2", "emoji": nil, "editMode": "locked", "defaultLevel": "comment", "visibility": "unlisted",
		}, 200).JSON(t)
		if upd["title"] != "Handbook 2" || upd["emoji"] != "" || upd["editMode"] != "locked" || upd["defaultLevel"] != "comment" || upd["visibility"] != "unlisted" {
			t.Fatalf("updated: %v", upd)
		}
		if upd["urls"].(map[string]any)["published"] == nil {
			t.Fatalf("unlisted space without a published URL: %v", upd["urls"])
		}
		stored := s.Client().Space.GetX(ctx, id)
		if stored.Title != "Handbook 2" || stored.Emoji != nil || *stored.EditMode != space.EditModeLocked || *stored.DefaultLevel != space.DefaultLevelComment {
			t.Fatalf("stored: %+v", stored)
		}
		// defaultLevel null: members get no access by default; the reader loses the space.
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+id, map[string]any{"defaultLevel": nil}, 200)
		s.Fail(t, "getSpaceById", f.reader.Token, "GET", "/v1/spaces/"+id, nil, 404)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+id, map[string]any{"defaultLevel": "inherit"}, 200)

		before := s.Snapshot(t)
		for _, c := range []struct {
			path, op string
			body     any
			field    string
		}{
			{"/v1/orgs/" + f.org + "/spaces", "createSpace", map[string]any{"title": strings.Repeat("t", 51)}, "title"},
			{"/v1/orgs/" + f.org + "/spaces", "createSpace", map[string]any{"emoji": strings.Repeat("e", 51)}, "emoji"},
			{"/v1/orgs/" + f.org + "/spaces", "createSpace", map[string]any{"editMode": "sometimes"}, "editMode"},
			{"/v1/orgs/" + f.org + "/spaces", "createSpace", map[string]any{"title": 3}, "title"},
			{"/v1/orgs/" + f.org + "/spaces", "createSpace", map[string]any{"parent": "nosuchcollection"}, "parent"},
			{"/v1/orgs/" + f.org + "/spaces", "createSpace", `{"title": `, "malformed"},
			{"/v1/spaces/" + id, "updateSpaceById", map[string]any{"title": strings.Repeat("t", 51)}, "title"},
			{"/v1/spaces/" + id, "updateSpaceById", map[string]any{"title": nil}, "title"},
			{"/v1/spaces/" + id, "updateSpaceById", map[string]any{"defaultLevel": "boss"}, "defaultLevel"},
			{"/v1/spaces/" + id, "updateSpaceById", map[string]any{"visibility": "in-collection"}, "visibility"},
			{"/v1/spaces/" + id, "updateSpaceById", map[string]any{"visibility": "everyone"}, "visibility"},
			{"/v1/spaces/" + id, "updateSpaceById", map[string]any{"editMode": 1}, "editMode"},
		} {
			method := "POST"
			if c.op == "updateSpaceById" {
				method = "PATCH"
			}
			msg := s.Fail(t, c.op, f.admin.Token, method, c.path, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("%v: message %q does not name %s", c.body, msg, c.field)
			}
		}
		// A parent collection of another organization is not a parent here.
		other := s.Call(t, "createCollection", f.stranger.Token, "POST", "/v1/orgs/"+f.strangerOrg+"/collections", map[string]any{"title": "Theirs"}, 201).JSON(t)
		s.Fail(t, "createSpace", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"parent": other["id"]}, 400)
		before = s.Snapshot(t)
		s.Fail(t, "createSpace", f.reader.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"title": "Mine"}, 403)
		s.Fail(t, "createSpace", f.stranger.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"title": "Mine"}, 404)
		s.Fail(t, "updateSpaceById", f.reader.Token, "PATCH", "/v1/spaces/"+id, map[string]any{"title": "Mine"}, 403)
		s.Fail(t, "updateSpaceById", f.stranger.Token, "PATCH", "/v1/spaces/"+id, map[string]any{"title": "Mine"}, 404)
		s.Fail(t, "deleteSpaceById", f.reader.Token, "DELETE", "/v1/spaces/"+id, nil, 403)
		s.Fail(t, "deleteSpaceById", f.stranger.Token, "DELETE", "/v1/spaces/"+id, nil, 404)
		s.Unchanged(t, before)
	})
}

func TestSpaceDeleteRestoreAndPurge(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		t.Cleanup(clock.Reset)
		ctx := context.Background()
		f := newSpaceFixture(t, s)
		keep := f.createSpace(t, map[string]any{"title": "Keep"})["id"].(string)
		gone := f.createSpace(t, map[string]any{"title": "Gone"})["id"].(string)
		// Content that the purge must remove with the space.
		s.Client().ChangeRequest.Create().SetSpaceID(gone).SetNumber(1).ExecX(testkit.Fixture(context.Background()))
		s.Client().Comment.Create().SetSpaceID(gone).ExecX(testkit.Fixture(context.Background()))

		for _, id := range []string{keep, gone} {
			if r := s.Call(t, "deleteSpaceById", f.admin.Token, "DELETE", "/v1/spaces/"+id, nil, 205); len(r.Body) != 0 {
				t.Fatalf("205 with a body: %s", r.Body)
			}
			s.Fail(t, "getSpaceById", f.admin.Token, "GET", "/v1/spaces/"+id, nil, 404)
			s.Fail(t, "deleteSpaceById", f.admin.Token, "DELETE", "/v1/spaces/"+id, nil, 404)
		}
		var list struct{ Count int }
		s.Call(t, "listSpacesInOrganizationById", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/spaces", nil, 200).Decode(t, &list)
		if list.Count != 0 {
			t.Fatalf("deleted spaces listed: %d", list.Count)
		}
		s.Fail(t, "restoreSpace", f.reader.Token, "POST", "/v1/spaces/"+keep+"/restore", nil, 403)
		s.Fail(t, "restoreSpace", f.stranger.Token, "POST", "/v1/spaces/"+keep+"/restore", nil, 404)

		// Six days later the space comes back.
		clock.Advance(6 * 24 * time.Hour)
		restored := s.Call(t, "restoreSpace", f.admin.Token, "POST", "/v1/spaces/"+keep+"/restore", nil, 200).JSON(t)
		if restored["id"] != keep || restored["deletedAt"] != nil {
			t.Fatalf("restored: %v", restored)
		}
		s.Call(t, "getSpaceById", f.admin.Token, "GET", "/v1/spaces/"+keep, nil, 200)
		s.Fail(t, "restoreSpace", f.admin.Token, "POST", "/v1/spaces/"+keep+"/restore", nil, 404) // not deleted

		// Eight days after its deletion the other one is gone for good.
		clock.Advance(2 * 24 * time.Hour)
		s.Fail(t, "restoreSpace", f.admin.Token, "POST", "/v1/spaces/"+gone+"/restore", nil, 404)
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i := range errs { // several instances purging at once
			wg.Add(1)
			go func() { defer wg.Done(); _, errs[i] = s.App.Resolver.PurgeDeletedSpaces(ctx) }()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("concurrent purge: %v", err)
			}
		}
		if s.Client().Space.Query().Where(space.ID(gone)).ExistX(ctx) {
			t.Fatal("purged space still stored")
		}
		if n := s.Client().ChangeRequest.Query().Where(changerequest.SpaceID(gone)).CountX(ctx); n != 0 {
			t.Fatalf("%d change requests of the purged space remain", n)
		}
		if n := s.Client().Comment.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d comments of the purged space remain", n)
		}
		if !s.Client().Space.Query().Where(space.ID(keep)).ExistX(ctx) {
			t.Fatal("the purge removed a live space")
		}
	})
}

func TestSpaceDuplicateMoveTransfer(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newSpaceFixture(t, s)
		coll := f.createCollection(t, map[string]any{"title": "Guides"})["id"].(string)
		a := f.createSpace(t, map[string]any{"title": "A", "parent": coll})["id"].(string)
		b := f.createSpace(t, map[string]any{"title": "B", "parent": coll})["id"].(string)
		c := f.createSpace(t, map[string]any{"title": "C"})["id"].(string)
		order := func() []string {
			var list struct{ Items []map[string]any }
			s.Call(t, "listSpacesInCollectionById", f.admin.Token, "GET", "/v1/collections/"+coll+"/spaces", nil, 200).Decode(t, &list)
			var titles []string
			for _, it := range list.Items {
				titles = append(titles, it["title"].(string))
			}
			return titles
		}
		if got := strings.Join(order(), ","); got != "A,B" {
			t.Fatalf("order %s", got)
		}

		// Duplicate: a new space right after the original, same settings.
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+a, map[string]any{"emoji": "🚀", "visibility": "in-collection"}, 200)
		dupResp := s.Call(t, "duplicateSpace", f.admin.Token, "POST", "/v1/spaces/"+a+"/duplicate", nil, 201)
		dup := dupResp.JSON(t)
		if dup["id"] == a || dup["title"] != "A" || dup["emoji"] != "🚀" || dup["visibility"] != "in-collection" || dup["parent"] != coll {
			t.Fatalf("duplicate: %v", dup)
		}
		if got := strings.Join(order(), ","); got != "A,A,B" {
			t.Fatalf("order after duplicate %s", got)
		}
		s.Fail(t, "duplicateSpace", f.reader.Token, "POST", "/v1/spaces/"+a+"/duplicate", nil, 403)
		s.Fail(t, "duplicateSpace", f.stranger.Token, "POST", "/v1/spaces/"+a+"/duplicate", nil, 404)

		// Move C into the collection before A, then B to the front.
		s.Call(t, "moveSpace", f.admin.Token, "POST", "/v1/spaces/"+c+"/move",
			map[string]any{"parent": coll, "position": map[string]any{"before": map[string]any{"type": "space", "space": a}}}, 200)
		if got := strings.Join(order(), ","); got != "C,A,A,B" {
			t.Fatalf("order after move %s", got)
		}
		s.Call(t, "moveSpace", f.admin.Token, "POST", "/v1/spaces/"+b+"/move",
			map[string]any{"position": map[string]any{"after": map[string]any{"type": "space", "space": c}}}, 200)
		if got := strings.Join(order(), ","); got != "C,B,A,A" {
			t.Fatalf("order after second move %s", got)
		}
		before := s.Snapshot(t)
		for _, body := range []any{
			map[string]any{},
			map[string]any{"parent": "nosuchcollection"},
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": "nosuchspace"}}},
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "planet", "space": a}}},
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": a}, "after": map[string]any{"type": "space", "space": a}}},
			map[string]any{"parent": nil}, // a's visibility is in-collection
			`{"parent": `,
		} {
			s.Fail(t, "moveSpace", f.admin.Token, "POST", "/v1/spaces/"+a+"/move", body, 400)
		}
		s.Fail(t, "moveSpace", f.reader.Token, "POST", "/v1/spaces/"+b+"/move", map[string]any{"parent": nil}, 403)
		s.Fail(t, "moveSpace", f.stranger.Token, "POST", "/v1/spaces/"+b+"/move", map[string]any{"parent": nil}, 404)
		s.Unchanged(t, before)
		moved := s.Call(t, "moveSpace", f.admin.Token, "POST", "/v1/spaces/"+b+"/move", map[string]any{"parent": nil}, 200).JSON(t)
		if _, ok := moved["parent"]; ok {
			t.Fatalf("moved to the root but has a parent: %v", moved)
		}

		// Transfer needs the admin role in both organizations.
		before = s.Snapshot(t)
		s.Fail(t, "transferSpace", f.admin.Token, "POST", "/v1/spaces/"+a+"/transfer", map[string]any{"organization": f.strangerOrg}, 400)
		s.Fail(t, "transferSpace", f.admin.Token, "POST", "/v1/spaces/"+a+"/transfer", map[string]any{}, 400)
		s.Fail(t, "transferSpace", f.stranger.Token, "POST", "/v1/spaces/"+a+"/transfer", map[string]any{"organization": f.strangerOrg}, 404)
		s.Unchanged(t, before)
		s.AddMember(t, f.strangerOrg, f.admin, testkit.RoleOf(access.Edit))
		before = s.Snapshot(t)
		s.Fail(t, "transferSpace", f.admin.Token, "POST", "/v1/spaces/"+a+"/transfer", map[string]any{"organization": f.strangerOrg}, 403)
		s.Unchanged(t, before)
		_, other := s.NewUser(t, "admin@acme.com", "Acme Two")
		tr := s.Call(t, "transferSpace", f.admin.Token, "POST", "/v1/spaces/"+a+"/transfer", map[string]any{"organization": other}, 200).JSON(t)
		if tr["organization"] != other || tr["parent"] != nil || tr["visibility"] != "private" {
			t.Fatalf("transferred: %v", tr)
		}
		if got := s.Client().Space.GetX(ctx, a); got.OrganizationID != other || got.ParentID != nil {
			t.Fatalf("stored after transfer: %+v", got)
		}
		if got := strings.Join(order(), ","); got != "C,A" {
			t.Fatalf("collection after transfer %s", got)
		}
	})
}
