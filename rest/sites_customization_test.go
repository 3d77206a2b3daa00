package rest_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/folio/folio/internal/customization"
	"github.com/folio/folio/internal/testkit"
)

// body143 is a complete body as GitBook 0.143.2's client sends it: every
// property of its SiteCustomizationSettings, none of 0.202.0's additions.
func body143(t *testing.T, edit func(map[string]any)) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(customization.Default), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "socialAccounts")
	delete(m["styling"].(map[string]any), "codeTheme")
	delete(m["pageActions"].(map[string]any), "items")
	m["themes"] = map[string]any{"default": "light", "toggeable": true}
	edit(m)
	return m
}

// without is a deep copy of m without the values at the dotted paths: what
// a partial update must leave as it was.
func without(t *testing.T, m map[string]any, paths ...string) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(m)
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		keys := strings.Split(p, ".")
		o := c
		for _, k := range keys[:len(keys)-1] {
			o, _ = o[k].(map[string]any)
		}
		if o != nil {
			delete(o, keys[len(keys)-1])
		}
	}
	return c
}

func path(m map[string]any, p string) any {
	var v any = m
	for _, k := range strings.Split(p, ".") {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

// TestCustomizationPartial: GitBook 0.202.0's client updates a
// customization with a partial body (SiteCustomizationSettingsInput: any
// subset of the properties, 0.202.0's additions included); 0.143.2's
// complete body still works; bad values are 400 naming the field and
// change nothing; other roles and tenants get 403/404; new sites follow the
// system's theme.
func TestCustomizationPartial(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSiteWorld(t, s)
		sites := "/v1/orgs/" + w.acme + "/sites"
		id := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{w.guides}}, 201).JSON(t)["id"].(string)
		url := sites + "/" + id + "/customization"
		get := func() map[string]any {
			return s.Call(t, "getSiteCustomizationById", w.carol.Token, "GET", url, nil, 200).JSON(t)
		}
		put := func(body any) map[string]any {
			t.Helper()
			got := s.Call(t, "updateSiteCustomizationById", w.erin.Token, "PUT", url, body, 200).JSON(t)
			// The answer is 0.202.0's complete SiteCustomizationSettings
			// (the contract check held it to 0.143.2's), and what reads answer.
			testkit.CheckSchema(t, "SiteCustomizationSettings", got)
			if again := get(); !reflect.DeepEqual(again, got) {
				t.Fatalf("GET after PUT:\n%v\nPUT answered:\n%v", again, got)
			}
			return got
		}

		// A new site follows the system's theme, and answers 0.202.0's shape.
		cur := get()
		if path(cur, "themes.default") != "system" || path(cur, "themes.toggeable") != true {
			t.Fatalf("new site's themes: %v", cur["themes"])
		}
		testkit.CheckSchema(t, "SiteCustomizationSettings", cur)

		// 0.143.2's complete body still works, and is completed with 0.202.0's additions.
		cur = put(body143(t, func(m map[string]any) {
			m["title"] = "Docs by Acme"
			m["themes"] = map[string]any{"default": "dark", "toggeable": false}
		}))
		if cur["title"] != "Docs by Acme" || path(cur, "themes.default") != "dark" || path(cur, "themes.toggeable") != false ||
			path(cur, "styling.codeTheme.default.light") != "default-light" || len(cur["socialAccounts"].([]any)) != 0 {
			t.Fatalf("0.143.2 body: %v", cur)
		}

		// Partial bodies as 0.202.0's client sends them: only what changes.
		for _, c := range []struct {
			body    string
			changed []string       // what may differ from before
			want    map[string]any // dotted path → value after
		}{
			{`{"themes":{"default":"system"}}`, []string{"themes.default"},
				map[string]any{"themes.default": "system", "themes.toggeable": false}},
			{`{"socialAccounts":[{"platform":"github","handle":"acme","display":{"footer":true,"header":false}},` +
				`{"platform":"bluesky","handle":"acme.bsky.social","display":{"footer":true,"header":true}}]}`, []string{"socialAccounts"},
				map[string]any{"socialAccounts.#": 2}},
			// Arrays replace: one account left.
			{`{"socialAccounts":[{"platform":"mastodon","handle":"acme","display":{"footer":false,"header":true}}]}`, []string{"socialAccounts"},
				map[string]any{"socialAccounts.#": 1}},
			// Objects merge at any depth: codeTheme.openapi and the other styles stay.
			{`{"styling":{"codeTheme":{"default":{"light":"github-light","dark":"github-dark"}}}}`, []string{"styling.codeTheme.default"},
				map[string]any{"styling.codeTheme.default.dark": "github-dark", "styling.codeTheme.openapi.dark": "default-dark", "styling.theme": "clean"}},
			// pageActions.items, and 0.143.2's booleans follow it.
			{`{"pageActions":{"items":["pdf","markdown"]}}`, []string{"pageActions"},
				map[string]any{"pageActions.markdown": true, "pageActions.externalAI": false, "pageActions.mcp": false, "pdf.enabled": true}},
			{`{"title":"Acme Docs"}`, []string{"title"}, map[string]any{"title": "Acme Docs"}},
		} {
			before := cur
			cur = put(c.body)
			if a, b := without(t, before, c.changed...), without(t, cur, c.changed...); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s changed other properties:\nbefore %v\nafter  %v", c.body, a, b)
			}
			for p, v := range c.want {
				got := path(cur, strings.TrimSuffix(p, ".#"))
				if strings.HasSuffix(p, ".#") {
					got = len(got.([]any))
				}
				if got != v {
					t.Fatalf("%s: %s = %v, want %v", c.body, p, got, v)
				}
			}
		}
		if a := path(cur, "socialAccounts").([]any)[0].(map[string]any); a["platform"] != "mastodon" {
			t.Fatalf("accounts: %v", cur["socialAccounts"])
		}

		// Bad values: 400 naming the field, nothing changed (not even the
		// valid part of the body).
		before := s.Snapshot(t)
		for _, c := range []struct{ body, field string }{
			{`{"themes":{"default":"sepia"}}`, "themes.default"},
			{`{"title":"Fine","themes":{"default":null}}`, "themes.default"},
			{`{"socialAccounts":[{"platform":"myspace","handle":"acme","display":{"footer":true,"header":false}}]}`, "socialAccounts.0.platform"},
			{`{"socialAccounts":[{"platform":"github","handle":"","display":{"footer":true,"header":false}}]}`, "socialAccounts.0.handle"},
			{`{"styling":{"codeTheme":{"default":{"light":"neon"}}}}`, "styling.codeTheme.default.light"},
			{`{"pageActions":{"items":["print"]}}`, "pageActions.items.0"},
			{`{"styling":{"primaryColor":{"light":"blue"}}}`, "styling.primaryColor.light"},
			{`{"title":"x"}`, "title"},
			{`[]`, ""},
			{`{"themes":`, ""},
		} {
			msg := s.Fail(t, "updateSiteCustomizationById", w.alice.Token, "PUT", url, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("%s: message %q does not name %q", c.body, msg, c.field)
			}
		}
		// Roles and tenants: a reader may not change it (403); a guest and
		// another organization's admin do not see the site (404).
		partial := `{"themes":{"default":"light"}}`
		s.Fail(t, "updateSiteCustomizationById", w.carol.Token, "PUT", url, partial, 403)
		s.Fail(t, "updateSiteCustomizationById", w.gina.Token, "PUT", url, partial, 404)
		s.Fail(t, "updateSiteCustomizationById", w.bob.Token, "PUT", url, partial, 404)
		s.Fail(t, "getSiteCustomizationById", w.bob.Token, "GET", url, nil, 404)
		s.Fail(t, "updateSiteCustomizationById", w.bob.Token, "PUT", "/v1/orgs/"+w.bobs+"/sites/"+id+"/customization", partial, 404)
		s.Unchanged(t, before)
		if got := get(); !reflect.DeepEqual(got, cur) {
			t.Fatalf("after refusals: %v", got)
		}

		// Partial updates at once each keep the others' properties: the
		// write reads the settings it merges onto after taking the site's row.
		bodies := []string{`{"title":"Concurrent"}`, `{"themes":{"default":"dark"}}`, `{"styling":{"theme":"bold"}}`,
			`{"footer":{"copyright":"Acme"}}`, `{"ai":{"mode":"none"}}`, `{"pagination":{"enabled":false}}`,
			`{"feedback":{"enabled":true}}`, `{"trademark":{"enabled":false}}`}
		var wg sync.WaitGroup
		status := make([]int, len(bodies))
		for i, b := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status[i] = s.Request(t, w.alice.Token, "PUT", url, b).Status
			}()
		}
		wg.Wait()
		cur = get()
		want := map[string]any{"title": "Concurrent", "themes.default": "dark", "styling.theme": "bold", "footer.copyright": "Acme",
			"ai.mode": "none", "pagination.enabled": false, "feedback.enabled": true, "trademark.enabled": false}
		for p, v := range want {
			if got := path(cur, p); got != v {
				t.Errorf("after concurrent updates (statuses %v): %s = %v, want %v", status, p, got, v)
			}
		}

		// The published view carries the same settings.
		view := s.Call(t, "getPublishedContentSite", w.carol.Token, "GET", sites+"/"+id+"/published", nil, 200).JSON(t)
		if site := path(view, "customizations.site").(map[string]any); !reflect.DeepEqual(site, cur) {
			t.Fatalf("published customization: %v", site)
		}
	})
}

// TestCustomizationPartialGraphQL: the mutation takes the same partial
// input through the same rule.
func TestCustomizationPartialGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSiteWorld(t, s)
		sites := "/v1/orgs/" + w.acme + "/sites"
		id := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{w.guides}}, 201).JSON(t)["id"].(string)
		const update = `mutation($site: ID!, $c: Any!) { updateSiteCustomization(site: $site, customization: $c) }`
		got := s.MustGraphQL(t, w.alice.Token, update, map[string]any{"site": id, "c": map[string]any{
			"themes": map[string]any{"default": "dark"}, "socialAccounts": []any{
				map[string]any{"platform": "github", "handle": "acme", "display": map[string]any{"footer": true, "header": false}}}}})["updateSiteCustomization"].(map[string]any)
		if path(got, "themes.default") != "dark" || path(got, "themes.toggeable") != true || len(got["socialAccounts"].([]any)) != 1 ||
			path(got, "styling.theme") != "clean" {
			t.Fatalf("partial update: %v", got)
		}
		read := s.MustGraphQL(t, w.carol.Token, `query($id: ID!) { site(id: $id) { customization } }`, map[string]any{"id": id})
		rest := s.Call(t, "getSiteCustomizationById", w.carol.Token, "GET", sites+"/"+id+"/customization", nil, 200).JSON(t)
		if c := path(read, "site.customization").(map[string]any); !reflect.DeepEqual(c, got) || !reflect.DeepEqual(rest, got) {
			t.Fatalf("read back: graphql %v, rest %v", c, rest)
		}
		before := s.Snapshot(t)
		for _, c := range []struct {
			token string
			input map[string]any
			code  string
		}{
			{w.alice.Token, map[string]any{"themes": map[string]any{"default": "sepia"}}, "themes.default"},
			{w.carol.Token, map[string]any{"themes": map[string]any{"default": "light"}}, "FORBIDDEN"},
			{w.bob.Token, map[string]any{"themes": map[string]any{"default": "light"}}, "NOT_FOUND"},
		} {
			_, errs := s.GraphQL(t, c.token, update, map[string]any{"site": id, "c": c.input})
			if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs[0]), c.code) {
				t.Errorf("%v: errors %v, want %s", c.input, errs, c.code)
			}
		}
		s.Unchanged(t, before)
	})
}
