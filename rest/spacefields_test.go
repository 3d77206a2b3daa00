package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/ent/customfieldvalue"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestSpaceCustomFieldValues(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newSpaceFixture(t, s)
		editor, _ := s.NewUser(t, "editor@acme.com", "")
		s.AddMember(t, f.org, editor, testkit.RoleOf(access.Edit))
		for _, def := range []map[string]any{
			{"name": "owner", "type": "text"},
			{"name": "pages", "type": "number"},
			{"name": "public", "type": "boolean"},
			{"name": "labels", "type": "tags"},
			{"name": "status", "type": "select:single", "options": []string{"draft", "final"}},
			{"name": "audience", "type": "select:multi", "options": []string{"devs", "ops"}},
		} {
			s.Call(t, "createOrganizationCustomField", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/custom-fields", def, 201)
		}
		sp := f.createSpace(t, map[string]any{"title": "Handbook"})["id"].(string)
		path := "/v1/spaces/" + sp + "/custom-fields"

		values := func(token string) map[string]any {
			var list []struct {
				CustomField map[string]any `json:"customField"`
				Value       any            `json:"value"`
			}
			s.Call(t, "getSpaceCustomFields", token, "GET", path, nil, 200).Decode(t, &list)
			out := map[string]any{}
			for _, it := range list {
				out[it.CustomField["name"].(string)] = it.Value
			}
			if len(out) != 6 {
				t.Fatalf("%d fields listed, want 6", len(out))
			}
			return out
		}
		if v := values(f.reader.Token); v["owner"] != nil {
			t.Fatalf("unset value: %v", v)
		}

		s.Call(t, "updateSpaceCustomFields", editor.Token, "PATCH", path, map[string]any{"values": map[string]any{
			"owner": map[string]any{"value": "Ada"}, "pages": map[string]any{"value": 12}, "public": map[string]any{"value": true},
			"labels": map[string]any{"value": []string{"a", "b"}}, "status": map[string]any{"value": "final"},
			"audience": map[string]any{"value": []string{"ops"}},
		}}, 204)
		v := values(f.reader.Token)
		if v["owner"] != "Ada" || v["pages"] != 12.0 || v["public"] != true || v["status"] != "final" ||
			len(v["labels"].([]any)) != 2 || v["audience"].([]any)[0] != "ops" {
			t.Fatalf("values: %v", v)
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"values": map[string]any{"nosuch": map[string]any{"value": "x"}}}, "values.nosuch"},
			{map[string]any{"values": map[string]any{"pages": map[string]any{"value": "12"}}}, "values.pages"},
			{map[string]any{"values": map[string]any{"public": map[string]any{"value": "yes"}}}, "values.public"},
			{map[string]any{"values": map[string]any{"owner": map[string]any{"value": strings.Repeat("x", 257)}}}, "values.owner"},
			{map[string]any{"values": map[string]any{"status": map[string]any{"value": "lost"}}}, "values.status"},
			{map[string]any{"values": map[string]any{"audience": map[string]any{"value": []string{"devs", "cats"}}}}, "values.audience"},
			{map[string]any{"values": map[string]any{"labels": map[string]any{"value": "a"}}}, "values.labels"},
			// One bad value spoils the batch: the good one is not written either.
			{map[string]any{"values": map[string]any{"owner": map[string]any{"value": "Bob"}, "pages": map[string]any{"value": false}}}, "values.pages"},
			{map[string]any{"values": map[string]any{}}, "values"},
			{map[string]any{"values": "owner"}, "values"},
			{`{"values": `, "malformed"},
		} {
			if msg := s.Fail(t, "updateSpaceCustomFields", editor.Token, "PATCH", path, c.body, 400); !strings.Contains(msg, c.field) {
				t.Errorf("%v: %q does not name %s", c.body, msg, c.field)
			}
		}
		ok := map[string]any{"values": map[string]any{"owner": map[string]any{"value": "Eve"}}}
		s.Fail(t, "updateSpaceCustomFields", f.reader.Token, "PATCH", path, ok, 403)
		s.Fail(t, "updateSpaceCustomFields", f.stranger.Token, "PATCH", path, ok, 404)
		s.Fail(t, "updateSpaceCustomFields", "", "PATCH", path, ok, 401)
		s.Fail(t, "getSpaceCustomFields", f.stranger.Token, "GET", path, nil, 404)
		s.Fail(t, "getSpaceCustomFields", f.admin.Token, "GET", "/v1/spaces/nosuchspace/custom-fields", nil, 404)
		s.Unchanged(t, before)

		// null removes a value; deleting a field removes its values.
		s.Call(t, "updateSpaceCustomFields", f.admin.Token, "PATCH", path, map[string]any{"values": map[string]any{"owner": map[string]any{"value": nil}}}, 204)
		if v := values(f.admin.Token); v["owner"] != nil || v["pages"] != 12.0 {
			t.Fatalf("after removing owner: %v", v)
		}
		dup := s.Call(t, "duplicateSpace", f.admin.Token, "POST", "/v1/spaces/"+sp+"/duplicate", nil, 201).JSON(t)["id"].(string)
		if n := s.Client().CustomFieldValue.Query().Where(customfieldvalue.SpaceID(dup)).CountX(ctx); n != 5 {
			t.Fatalf("duplicate has %d values, want 5", n)
		}
		s.Call(t, "deleteOrganizationCustomField", f.admin.Token, "DELETE", "/v1/orgs/"+f.org+"/custom-fields/pages", nil, 204)
		if n := s.Client().CustomFieldValue.Query().Where(customfieldvalue.SpaceID(sp)).CountX(ctx); n != 4 {
			t.Fatalf("%d values left after deleting a field, want 4", n)
		}
	})
}
