package rest_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// orgFixture is an organization seen by each kind of caller.
type orgFixture struct {
	org, otherOrg             string
	admin, reader, guest, bob testkit.User // bob administers otherOrg only
}

func newOrgFixture(t *testing.T, s *testkit.Server) orgFixture {
	t.Helper()
	alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
	bob, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
	carol, _ := s.NewUser(t, "carol@acme.com", "")
	s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))
	gus, _ := s.NewUser(t, "gus@guest.org", "")
	s.AddMember(t, acme, gus, nil)
	return orgFixture{org: acme, otherOrg: bobs, admin: alice, reader: carol, guest: gus, bob: bob}
}

// walkPages lists path with limit=2 until the last page and returns the ids
// in the order received, checking count on every page.
func walkPages(t *testing.T, s *testkit.Server, op, token, path string, want int) []string {
	t.Helper()
	var ids []string
	page := ""
	for pages := 0; ; pages++ {
		if pages > want {
			t.Fatalf("%s: more pages than items", path)
		}
		q := url.Values{"limit": {"2"}}
		if page != "" {
			q.Set("page", page)
		}
		var env struct {
			Items []struct{ ID string }
			Count int
			Next  *struct{ Page string }
		}
		s.Call(t, op, token, "GET", path+"?"+q.Encode(), nil, 200).Decode(t, &env)
		if env.Count != want {
			t.Fatalf("%s: count %d, want %d", path, env.Count, want)
		}
		for _, it := range env.Items {
			ids = append(ids, it.ID)
		}
		if env.Next == nil {
			break
		}
		if len(env.Items) != 2 {
			t.Fatalf("%s: a page before the last has %d items", path, len(env.Items))
		}
		page = env.Next.Page
	}
	if len(ids) != want {
		t.Fatalf("%s: walked %d items, want %d", path, len(ids), want)
	}
	return ids
}

func TestCustomFields(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/custom-fields"

		// Create a text field and a select field.
		resp := s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{
			"name": "team-owner_2", "type": "text", "title": "Owner", "description": "Who owns the space",
			"placeholder": "a team", "unknown": true,
		}, 201)
		text := resp.JSON(t)
		if text["name"] != "team-owner_2" || text["type"] != "text" || text["title"] != "Owner" ||
			text["description"] != "Who owns the space" || text["placeholder"] != "a team" {
			t.Fatalf("created: %v", text)
		}
		if _, ok := text["options"]; ok {
			t.Fatalf("a text field has options: %v", text)
		}
		loc := s.URL + base + "/team-owner_2"
		if resp.Header.Get("Location") != loc || text["urls"].(map[string]any)["location"] != loc {
			t.Fatalf("location: %q, urls %v", resp.Header.Get("Location"), text["urls"])
		}
		if p := text["permissions"].(map[string]any); p["view"] != true || p["edit"] != true {
			t.Fatalf("admin permissions: %v", p)
		}
		stored := s.Client().CustomField.Query().Where(customfield.OrganizationID(f.org), customfield.Name("team-owner_2")).OnlyX(ctx)
		if stored.ID != text["id"] || stored.Type != customfield.TypeText || stored.Title != "Owner" || stored.Options != nil {
			t.Fatalf("stored: %+v", stored)
		}

		sel := s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{
			"name": "status", "type": "select:single", "options": []string{"draft", "review", "done"},
		}, 201).JSON(t)
		if sel["title"] != "" || sel["description"] != "" || sel["placeholder"] != "" ||
			!slices.Equal(anyStrings(sel["options"]), []string{"draft", "review", "done"}) {
			t.Fatalf("select: %v", sel)
		}
		// Bounds are inclusive: 50-character name, 100/200/100 texts, 50 options of 40 characters.
		var fifty []string
		for i := range 50 {
			fifty = append(fifty, strings.Repeat(string(rune('a'+i%26)), 39)+string(rune('0'+i/26)))
		}
		s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{
			"name": strings.Repeat("n", 50), "type": "select:multi", "title": strings.Repeat("é", 100),
			"description": strings.Repeat("d", 200), "placeholder": strings.Repeat("p", 100), "options": fifty,
		}, 201)
		for _, typ := range []string{"number", "boolean", "tags"} {
			s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{"name": "f-" + typ, "type": typ}, 201)
		}

		// Read: admins and members with a role.
		for _, u := range []testkit.User{f.admin, f.reader} {
			got := s.Call(t, "getOrganizationCustomFieldByName", u.Token, "GET", base+"/status", nil, 200).JSON(t)
			if got["id"] != sel["id"] || got["type"] != "select:single" {
				t.Fatalf("get: %v", got)
			}
			if p := got["permissions"].(map[string]any); p["view"] != true || p["edit"] != (u == f.admin) {
				t.Fatalf("permissions of %s: %v", u.Email, p)
			}
		}
		ids := walkPages(t, s, "listOrganizationCustomFields", f.reader.Token, base, 6)
		if ids[0] == text["id"] || ids[5] != text["id"] {
			t.Fatalf("list is not newest first: %v", ids)
		}

		// Update: absent fields stay, null clears, options replace.
		upd := s.Call(t, "updateOrganizationCustomField", f.admin.Token, "PATCH", base+"/status", map[string]any{
			"title": "Status", "options": []string{"open", "closed"}, "name": "ignored", "type": "text",
		}, 200).JSON(t)
		if upd["title"] != "Status" || upd["name"] != "status" || upd["type"] != "select:single" ||
			!slices.Equal(anyStrings(upd["options"]), []string{"open", "closed"}) {
			t.Fatalf("updated: %v", upd)
		}
		upd = s.Call(t, "updateOrganizationCustomField", f.admin.Token, "PATCH", base+"/team-owner_2", map[string]any{
			"title": nil, "placeholder": "the owning team",
		}, 200).JSON(t)
		if upd["title"] != "" || upd["description"] != "Who owns the space" || upd["placeholder"] != "the owning team" {
			t.Fatalf("updated text: %v", upd)
		}
		stored = s.Client().CustomField.Query().Where(customfield.OrganizationID(f.org), customfield.Name("status")).OnlyX(ctx)
		if stored.Title != "Status" || !slices.Equal(stored.Options, []string{"open", "closed"}) || stored.UpdatedAt.Before(stored.CreatedAt) {
			t.Fatalf("stored after update: %+v", stored)
		}

		// Delete.
		resp = s.Call(t, "deleteOrganizationCustomField", f.admin.Token, "DELETE", base+"/f-tags", nil, 204)
		if len(resp.Body) != 0 {
			t.Fatalf("delete body: %s", resp.Body)
		}
		if n := s.Client().CustomField.Query().Where(customfield.Name("f-tags")).CountX(ctx); n != 0 {
			t.Fatal("deleted field still stored")
		}
		s.Fail(t, "getOrganizationCustomFieldByName", f.admin.Token, "GET", base+"/f-tags", nil, 404)
	})
}

func TestCustomFieldsRefuseBadInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/custom-fields"
		s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{"name": "status", "type": "select:multi", "options": []string{"a"}}, 201)
		s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{"name": "owner", "type": "text"}, 201)
		var fiftyOne []string
		for i := range 51 {
			fiftyOne = append(fiftyOne, "o"+strings.Repeat("x", i%30)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"name": "x"`, "malformed"},
			{`["name"]`, "object"},
			{``, "required"},
			{map[string]any{"type": "text"}, "name"},
			{map[string]any{"name": "", "type": "text"}, "name"},
			{map[string]any{"name": strings.Repeat("n", 51), "type": "text"}, "name"},
			{map[string]any{"name": "Bad Name", "type": "text"}, "name"},
			{map[string]any{"name": "bad.name", "type": "text"}, "name"},
			{map[string]any{"name": 5, "type": "text"}, "name"},
			{map[string]any{"name": "x"}, "type"},
			{map[string]any{"name": "x", "type": "select"}, "type"},
			{map[string]any{"name": "x", "type": true}, "type"},
			{map[string]any{"name": "x", "type": "text", "title": strings.Repeat("t", 101)}, "title"},
			{map[string]any{"name": "x", "type": "text", "title": 1}, "title"},
			{map[string]any{"name": "x", "type": "text", "description": strings.Repeat("d", 201)}, "description"},
			{map[string]any{"name": "x", "type": "text", "placeholder": strings.Repeat("p", 101)}, "placeholder"},
			{map[string]any{"name": "x", "type": "text", "options": []string{"a"}}, "options"},
			{map[string]any{"name": "x", "type": "number", "options": []string{}}, "options"},
			{map[string]any{"name": "x", "type": "select:single"}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": nil}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": []string{}}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": fiftyOne}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": []string{"a", ""}}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": []string{strings.Repeat("o", 41)}}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": []string{"a", "b", "a"}}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": "a"}, "options"},
			{map[string]any{"name": "x", "type": "select:single", "options": []any{1}}, "options"},
		} {
			msg := s.Fail(t, "createOrganizationCustomField", f.admin.Token, "POST", base, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("create %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		msg := s.Fail(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{"name": "status", "type": "text"}, 409)
		if !strings.Contains(msg, "name") {
			t.Errorf("duplicate: %q", msg)
		}
		for _, c := range []struct {
			path  string
			body  any
			field string
		}{
			{"/status", `{"title": `, "malformed"},
			{"/status", map[string]any{"title": strings.Repeat("t", 101)}, "title"},
			{"/status", map[string]any{"description": strings.Repeat("d", 201)}, "description"},
			{"/status", map[string]any{"placeholder": strings.Repeat("p", 101)}, "placeholder"},
			{"/status", map[string]any{"placeholder": false}, "placeholder"},
			{"/status", map[string]any{"options": nil}, "options"},
			{"/status", map[string]any{"options": []string{}}, "options"},
			{"/status", map[string]any{"options": fiftyOne}, "options"},
			{"/status", map[string]any{"title": "Fine", "options": []string{"a", "a"}}, "options"},
			{"/owner", map[string]any{"options": []string{"a"}}, "options"},
		} {
			msg := s.Fail(t, "updateOrganizationCustomField", f.admin.Token, "PATCH", base+c.path, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("update %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		for _, q := range []string{"limit=0", "limit=1001", "page=nonsense!", "order=up"} {
			s.Fail(t, "listOrganizationCustomFields", f.admin.Token, "GET", base+"?"+q, nil, 400)
		}
		s.Unchanged(t, before)
	})
}

func TestCustomFieldsAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/custom-fields"
		s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", base, map[string]any{"name": "owner", "type": "text"}, 201)
		// A field of another organization, addressed under this one, is not found.
		s.Call(t, "createOrganizationCustomField", f.bob.Token, "POST", "/v1/orgs/"+f.otherOrg+"/custom-fields", map[string]any{"name": "bobs-only", "type": "text"}, 201)
		create := map[string]any{"name": "new-field", "type": "text"}
		patch := map[string]any{"title": "Changed"}

		before := s.Snapshot(t)
		type call struct {
			op, method, path string
			body             any
		}
		all := []call{
			{"listOrganizationCustomFields", "GET", base, nil},
			{"createOrganizationCustomField", "POST", base, create},
			{"getOrganizationCustomFieldByName", "GET", base + "/owner", nil},
			{"updateOrganizationCustomField", "PATCH", base + "/owner", patch},
			{"deleteOrganizationCustomField", "DELETE", base + "/owner", nil},
		}
		for _, c := range all {
			s.Fail(t, c.op, "", c.method, c.path, c.body, 401)
			s.Fail(t, c.op, "folio_unknown", c.method, c.path, c.body, 401)
			// A stranger cannot tell the organization exists.
			s.Fail(t, c.op, f.bob.Token, c.method, c.path, c.body, 404)
			s.Fail(t, c.op, f.bob.Token, c.method, strings.Replace(c.path, f.org, "unknownorg", 1), c.body, 404)
			// Guests see the organization but not its settings.
			s.Fail(t, c.op, f.guest.Token, c.method, c.path, c.body, 403)
		}
		// Readers read but do not change.
		for _, c := range all[1:] {
			if c.method != "GET" {
				s.Fail(t, c.op, f.reader.Token, c.method, c.path, c.body, 403)
			}
		}
		for _, name := range []string{"nothing", "bobs-only"} {
			s.Fail(t, "getOrganizationCustomFieldByName", f.reader.Token, "GET", base+"/"+name, nil, 404)
			s.Fail(t, "getOrganizationCustomFieldByName", f.admin.Token, "GET", base+"/"+name, nil, 404)
			s.Fail(t, "updateOrganizationCustomField", f.admin.Token, "PATCH", base+"/"+name, patch, 404)
			s.Fail(t, "deleteOrganizationCustomField", f.admin.Token, "DELETE", base+"/"+name, nil, 404)
		}
		s.Unchanged(t, before)
	})
}

// anyStrings converts a decoded JSON array of strings.
func anyStrings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
