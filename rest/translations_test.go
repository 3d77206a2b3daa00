package rest_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/translationsettings"
	"github.com/folio/folio/internal/testkit"
)

// checkTranslationShape holds a body to the seed's translation settings
// object, which the contract check cannot (internal/testkit/exceptions.go).
func checkTranslationShape(t *testing.T, s *testkit.Server, ts map[string]any) {
	t.Helper()
	if ts["object"] != "translation-settings" {
		t.Fatalf("object: %v", ts)
	}
	for _, k := range []string{"id", "title", "createdAt", "updatedAt"} {
		if v, ok := ts[k].(string); !ok || v == "" {
			t.Fatalf("%s is not a non-empty string: %v", k, ts)
		}
	}
	for _, k := range []string{"createdAt", "updatedAt"} {
		if _, err := time.Parse(time.RFC3339, ts[k].(string)); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	if n := len([]rune(ts["title"].(string))); n < 1 || n > 100 {
		t.Fatalf("title length %d", n)
	}
	if _, ok := ts["languages"].([]any); !ok {
		t.Fatalf("languages is not an array: %v", ts)
	}
	p, ok := ts["permissions"].(map[string]any)
	if _, v := p["view"].(bool); !ok || !v {
		t.Fatalf("permissions.view: %v", ts)
	}
	if _, e := p["edit"].(bool); !e {
		t.Fatalf("permissions.edit: %v", ts)
	}
	u, _ := ts["urls"].(map[string]any)
	if loc, _ := u["location"].(string); !strings.HasPrefix(loc, s.URL+"/v1/orgs/") || !strings.HasSuffix(loc, "/translations/"+ts["id"].(string)) {
		t.Fatalf("urls.location: %v", ts)
	}
}

func TestTranslations(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/translations"

		resp := s.Call(t, "createTranslation", f.admin.Token, "POST", base, map[string]any{"title": "European", "languages": []string{"fr", "de", "pt-br"}, "source": "ignored"}, 201)
		eu := resp.JSON(t)
		checkTranslationShape(t, s, eu)
		id := eu["id"].(string)
		if eu["title"] != "European" || !slices.Equal(anyStrings(eu["languages"]), []string{"fr", "de", "pt-br"}) {
			t.Fatalf("created: %v", eu)
		}
		if resp.Header.Get("Location") != s.URL+base+"/"+id {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		stored := s.Client().TranslationSettings.GetX(ctx, id)
		if stored.OrganizationID != f.org || stored.Title != "European" || !slices.Equal(stored.Languages, []string{"fr", "de", "pt-br"}) {
			t.Fatalf("stored: %+v", stored)
		}
		// Title alone: no languages yet. 100 characters is a title.
		bare := s.Call(t, "createTranslation", f.admin.Token, "POST", base, map[string]any{"title": strings.Repeat("é", 100)}, 201).JSON(t)
		checkTranslationShape(t, s, bare)
		if len(bare["languages"].([]any)) != 0 {
			t.Fatalf("languages: %v", bare)
		}
		s.Call(t, "createTranslation", f.admin.Token, "POST", base, map[string]any{"title": "Asian", "languages": []string{"ja", "zh", "yue"}}, 201)

		// Members with a role read, with their permissions.
		got := s.Call(t, "getTranslation", f.reader.Token, "GET", base+"/"+id, nil, 200).JSON(t)
		checkTranslationShape(t, s, got)
		if got["id"] != id || got["permissions"].(map[string]any)["edit"] != false {
			t.Fatalf("reader's view: %v", got)
		}
		if s.Call(t, "getTranslation", f.admin.Token, "GET", base+"/"+id, nil, 200).JSON(t)["permissions"].(map[string]any)["edit"] != true {
			t.Fatal("admin cannot edit")
		}
		var env struct{ Items []map[string]any }
		s.Call(t, "listTranslations", f.reader.Token, "GET", base, nil, 200).Decode(t, &env)
		for _, it := range env.Items {
			checkTranslationShape(t, s, it)
		}
		ids := walkPages(t, s, "listTranslations", f.reader.Token, base, 3)
		if ids[2] != id {
			t.Fatalf("not newest first: %v", ids)
		}

		// PUT replaces the title; languages stay when absent, are replaced
		// when sent, emptied when null.
		upd := s.Call(t, "updateTranslation", f.admin.Token, "PUT", base+"/"+id, map[string]any{"title": "Europe"}, 200).JSON(t)
		checkTranslationShape(t, s, upd)
		if upd["title"] != "Europe" || len(upd["languages"].([]any)) != 3 {
			t.Fatalf("title only: %v", upd)
		}
		upd = s.Call(t, "updateTranslation", f.admin.Token, "PUT", base+"/"+id, map[string]any{"title": "Europe", "languages": []string{"it"}}, 200).JSON(t)
		if !slices.Equal(anyStrings(upd["languages"]), []string{"it"}) {
			t.Fatalf("languages replaced: %v", upd)
		}
		if s.Client().TranslationSettings.GetX(ctx, id).Languages[0] != "it" {
			t.Fatal("languages not stored")
		}
		upd = s.Call(t, "updateTranslation", f.admin.Token, "PUT", base+"/"+id, map[string]any{"title": "Europe", "languages": nil}, 200).JSON(t)
		if len(upd["languages"].([]any)) != 0 || len(s.Client().TranslationSettings.GetX(ctx, id).Languages) != 0 {
			t.Fatalf("languages emptied: %v", upd)
		}

		resp = s.Call(t, "deleteTranslation", f.admin.Token, "DELETE", base+"/"+id, nil, 205)
		if len(resp.Body) != 0 {
			t.Fatalf("delete body: %s", resp.Body)
		}
		if s.Client().TranslationSettings.Query().Where(translationsettings.ID(id)).ExistX(ctx) {
			t.Fatal("deleted settings still stored")
		}
		s.Fail(t, "getTranslation", f.admin.Token, "GET", base+"/"+id, nil, 404)
		s.Fail(t, "deleteTranslation", f.admin.Token, "DELETE", base+"/"+id, nil, 404)
	})
}

func TestTranslationsRefuseBadInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/translations"
		id := s.Call(t, "createTranslation", f.admin.Token, "POST", base, map[string]any{"title": "Main", "languages": []string{"en"}}, 201).JSON(t)["id"].(string)

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"title": "x"`, "malformed"},
			{`"title"`, "object"},
			{``, "required"},
			{map[string]any{}, "title"},
			{map[string]any{"title": ""}, "title"},
			{map[string]any{"title": nil}, "title"},
			{map[string]any{"title": strings.Repeat("t", 101)}, "title"},
			{map[string]any{"title": 12}, "title"},
			{map[string]any{"title": "Fine", "languages": "fr"}, "languages"},
			{map[string]any{"title": "Fine", "languages": []any{1}}, "languages"},
			{map[string]any{"title": "Fine", "languages": []string{"klingon"}}, "languages"},
			{map[string]any{"title": "Fine", "languages": []string{"FR"}}, "languages"},
			{map[string]any{"title": "Fine", "languages": []string{"fr", "de", "fr"}}, "languages"},
		} {
			msg := s.Fail(t, "createTranslation", f.admin.Token, "POST", base, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("create %v: message %q does not name %q", c.body, msg, c.field)
			}
			msg = s.Fail(t, "updateTranslation", f.admin.Token, "PUT", base+"/"+id, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("update %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		for _, q := range []string{"limit=0", "limit=1001", "page=nonsense!", "order=up"} {
			s.Fail(t, "listTranslations", f.admin.Token, "GET", base+"?"+q, nil, 400)
		}
		s.Unchanged(t, before)
	})
}

func TestTranslationsAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		base := "/v1/orgs/" + f.org + "/translations"
		id := s.Call(t, "createTranslation", f.admin.Token, "POST", base, map[string]any{"title": "Main"}, 201).JSON(t)["id"].(string)
		bobsID := s.Call(t, "createTranslation", f.bob.Token, "POST", "/v1/orgs/"+f.otherOrg+"/translations", map[string]any{"title": "Bob's"}, 201).JSON(t)["id"].(string)
		body := map[string]any{"title": "Changed"}

		before := s.Snapshot(t)
		all := []struct {
			op, method, path string
			body             any
		}{
			{"listTranslations", "GET", base, nil},
			{"createTranslation", "POST", base, body},
			{"getTranslation", "GET", base + "/" + id, nil},
			{"updateTranslation", "PUT", base + "/" + id, body},
			{"deleteTranslation", "DELETE", base + "/" + id, nil},
		}
		for _, c := range all {
			s.Fail(t, c.op, "", c.method, c.path, c.body, 401)
			s.Fail(t, c.op, f.bob.Token, c.method, c.path, c.body, 404)
			s.Fail(t, c.op, f.bob.Token, c.method, strings.Replace(c.path, f.org, "unknownorg", 1), c.body, 404)
			s.Fail(t, c.op, f.guest.Token, c.method, c.path, c.body, 403)
			if c.method != "GET" {
				s.Fail(t, c.op, f.reader.Token, c.method, c.path, c.body, 403)
			}
		}
		// Unknown ids and ids of another organization are not found.
		for _, other := range []string{"unknowntranslation", bobsID} {
			s.Fail(t, "getTranslation", f.reader.Token, "GET", base+"/"+other, nil, 404)
			s.Fail(t, "getTranslation", f.admin.Token, "GET", base+"/"+other, nil, 404)
			s.Fail(t, "updateTranslation", f.admin.Token, "PUT", base+"/"+other, body, 404)
			s.Fail(t, "deleteTranslation", f.admin.Token, "DELETE", base+"/"+other, nil, 404)
		}
		s.Unchanged(t, before)
	})
}
