package rest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/internal/customization"
	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// TestSitePublishingWorkflow: the workflow through the official
// client's calls — a site with two spaces → sections → a group → moves →
// adaptive schema → conditions → customization → publish → published view
// with a share key → unpublish → 404 → delete.
func TestSitePublishingWorkflow(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newSiteWorld(t, s)
		sites := "/v1/orgs/" + w.acme + "/sites"
		id := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{w.guides, w.api},
			"visibility": "share-link"}, 201).JSON(t)["id"].(string)
		base := sites + "/" + id
		guideSec := s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": w.ops, "title": "Guides"}, 201).JSON(t)["id"].(string)
		apiSec := s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": w.api, "title": "API"}, 201).JSON(t)["id"].(string)
		group := s.Call(t, "addSectionGroupToSite", w.alice.Token, "POST", base+"/section-groups", map[string]any{"title": "Reference", "sections": []string{apiSec}}, 201).JSON(t)["id"].(string)
		s.Call(t, "moveSiteSectionGroup", w.alice.Token, "POST", base+"/section-groups/"+group+"/move",
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "id": guideSec}}}, 200)

		// Adaptive schema: empty until set; bad schemas are 400 naming what is wrong.
		sch := s.Call(t, "getSiteAdaptiveSchema", w.carol.Token, "GET", base+"/adaptive-schema", nil, 200).JSON(t)
		if sch["object"] != "site-adaptive-schema" || len(sch["jsonSchema"].(map[string]any)["properties"].(map[string]any)) != 0 {
			t.Fatalf("empty schema: %v", sch)
		}
		schema := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
			"plan":     map[string]any{"type": "string", "description": "Plan", "enum": []string{"free", "pro"}},
			"internal": map[string]any{"type": "boolean", "description": "Staff"},
			"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
				"properties": map[string]any{"isBeta": map[string]any{"type": "boolean", "description": "Beta"}}}}}
		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{}, "jsonSchema"},
			{map[string]any{"jsonSchema": map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"plan": map[string]any{"type": "text", "description": "Plan"}}}}, "jsonSchema.properties.plan.type"},
			{map[string]any{"jsonSchema": "object"}, "jsonSchema"},
		} {
			msg := s.Fail(t, "updateSiteAdaptiveSchema", w.alice.Token, "PUT", base+"/adaptive-schema", c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Fail(t, "updateSiteAdaptiveSchema", w.carol.Token, "PUT", base+"/adaptive-schema", map[string]any{"jsonSchema": schema}, 403)
		s.Fail(t, "updateSiteAdaptiveSchema", w.bob.Token, "PUT", base+"/adaptive-schema", map[string]any{"jsonSchema": schema}, 404)
		s.Fail(t, "getSiteAdaptiveSchema", w.gina.Token, "GET", base+"/adaptive-schema", nil, 404)
		s.Unchanged(t, before)
		sch = s.Call(t, "updateSiteAdaptiveSchema", w.alice.Token, "PUT", base+"/adaptive-schema", map[string]any{"jsonSchema": schema}, 200).JSON(t)
		if _, ok := sch["jsonSchema"].(map[string]any)["properties"].(map[string]any)["plan"]; !ok {
			t.Fatalf("stored schema: %v", sch)
		}

		// Conditions: compiled against the schema; an unknown claim names the position.
		s.Call(t, "updateSiteSectionById", w.alice.Token, "PATCH", base+"/sections/"+apiSec,
			map[string]any{"condition": `visitor.claims.plan == "pro" && !visitor.claims.internal`}, 200)
		var list siteList
		s.Call(t, "listSiteSpaces", w.alice.Token, "GET", base+"/site-spaces", nil, 200).Decode(t, &list)
		ssID := list.Items[0]["id"].(string)
		s.Call(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+ssID,
			map[string]any{"condition": "visitor.claims.unsigned.isBeta"}, 200)
		msg := s.Fail(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+ssID, map[string]any{"condition": "visitor.claims.isBeta"}, 400)
		if !strings.Contains(msg, "column") || !strings.Contains(msg, "unsigned.isBeta") {
			t.Fatalf("unknown claim: %q", msg)
		}
		// A schema that drops claims conditions use: 409 naming them.
		msg = s.Fail(t, "updateSiteAdaptiveSchema", w.alice.Token, "PUT", base+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
			"type": "object", "additionalProperties": false, "properties": map[string]any{}}}, 409)
		if !strings.Contains(msg, apiSec) || !strings.Contains(msg, ssID) || !strings.Contains(msg, "plan") {
			t.Fatalf("conflict: %q", msg)
		}

		// Customization: defaults, checked replacement.
		cust := s.Call(t, "getSiteCustomizationById", w.carol.Token, "GET", base+"/customization", nil, 200).JSON(t)
		if cust["styling"].(map[string]any)["theme"] != "clean" {
			t.Fatalf("default customization: %v", cust)
		}
		body := strings.Replace(customization.Default, `"theme":"clean"`, `"theme":"bold"`, 1)
		body = strings.Replace(body, `{"styling"`, `{"title":"Docs by Acme","styling"`, 1)
		cust = s.Call(t, "updateSiteCustomizationById", w.alice.Token, "PUT", base+"/customization", body, 200).JSON(t)
		if cust["title"] != "Docs by Acme" || cust["styling"].(map[string]any)["theme"] != "bold" {
			t.Fatalf("customization: %v", cust)
		}
		before = s.Snapshot(t)
		msg = s.Fail(t, "updateSiteCustomizationById", w.alice.Token, "PUT", base+"/customization",
			strings.Replace(customization.Default, `"light":"#346ddb"`, `"light":"blue"`, 1), 400)
		if !strings.Contains(msg, "styling.primaryColor.light") {
			t.Fatalf("bad color: %q", msg)
		}
		s.Fail(t, "updateSiteCustomizationById", w.alice.Token, "PUT", base+"/customization", map[string]any{"themes": map[string]any{"default": "sepia"}}, 400)
		s.Fail(t, "updateSiteCustomizationById", w.carol.Token, "PUT", base+"/customization", body, 403)
		s.Fail(t, "updateSiteCustomizationById", w.bob.Token, "PUT", base+"/customization", body, 404)

		// Share links: create, list, rename, deactivate; managers only.
		s.Fail(t, "createSiteShareLink", w.alice.Token, "POST", base+"/share-links", map[string]any{}, 400)
		s.Fail(t, "createSiteShareLink", w.alice.Token, "POST", base+"/share-links", map[string]any{"name": strings.Repeat("n", 51)}, 400)
		s.Fail(t, "createSiteShareLink", w.carol.Token, "POST", base+"/share-links", map[string]any{"name": "Partners"}, 403)
		s.Fail(t, "listSiteShareLinks", w.carol.Token, "GET", base+"/share-links", nil, 403)
		s.Unchanged(t, before)
		link := s.Call(t, "createSiteShareLink", w.erin.Token, "POST", base+"/share-links", map[string]any{"name": "Partners"}, 201).JSON(t)
		linkID, key := link["id"].(string), link["key"].(string)
		if link["object"] != "share-link" || link["active"] != true || len(key) < 20 {
			t.Fatalf("link: %v", link)
		}
		s.Call(t, "listSiteShareLinks", w.alice.Token, "GET", base+"/share-links", nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["id"] != linkID {
			t.Fatalf("links: %+v", list)
		}
		if l := s.Call(t, "updateSiteShareLinkById", w.alice.Token, "PATCH", base+"/share-links/"+linkID, map[string]any{"name": "Partners 2"}, 200).JSON(t); l["name"] != "Partners 2" {
			t.Fatalf("renamed: %v", l)
		}
		s.Fail(t, "updateSiteShareLinkById", w.alice.Token, "PATCH", base+"/share-links/"+linkID, map[string]any{}, 400)
		s.Fail(t, "updateSiteShareLinkById", w.bob.Token, "PATCH", base+"/share-links/"+linkID, map[string]any{"active": false}, 404)

		// Published view: unpublished answers members only.
		pub := base + "/published"
		s.Fail(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey="+key, nil, 404)
		view := s.Call(t, "getPublishedContentSite", w.carol.Token, "GET", pub, nil, 200).JSON(t)
		st := view["structure"].(map[string]any)
		items := st["structure"].([]any)
		if view["object"] != "published-content-site" || st["type"] != "sections" || len(items) != 2 ||
			items[0].(map[string]any)["object"] != "site-section-group" || items[1].(map[string]any)["id"] != guideSec {
			t.Fatalf("published view: %v", st)
		}
		c := view["customizations"].(map[string]any)
		if c["site"].(map[string]any)["title"] != "Docs by Acme" || len(c["siteSpaces"].(map[string]any)) != 0 {
			t.Fatalf("customizations: %v", c)
		}
		s.Call(t, "publishSite", w.alice.Token, "POST", base+"/publish", nil, 200)
		// Published share-link site: the key opens it for a stranger; no key, a wrong one or an inactive link do not.
		if v := s.Call(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey="+key, nil, 200).JSON(t); v["site"].(map[string]any)["id"] != id {
			t.Fatalf("share-key view: %v", v)
		}
		s.Fail(t, "getPublishedContentSite", w.bob.Token, "GET", pub, nil, 404)
		s.Fail(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey=wrong", nil, 404)
		// The structure lists take the key too, and show what the reader
		// shows the visitor: the API section's condition (plan pro) is false
		// without claims, so it and its site space do not exist for bob, and
		// no condition is shown.
		s.Call(t, "listSiteSections", w.bob.Token, "GET", base+"/sections?shareKey="+key, nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["id"] != guideSec || list.Items[0]["condition"] != nil {
			t.Fatalf("sections with the key: %+v", list)
		}
		s.Call(t, "listSiteSpaces", w.bob.Token, "GET", base+"/site-spaces?shareKey="+key, nil, 200).Decode(t, &list)
		if list.Count != 3 || list.Items[0]["space"] == nil {
			t.Fatalf("site spaces with the key: %+v", list)
		}
		for _, it := range list.Items {
			if it["section"] != guideSec || it["condition"] != nil {
				t.Fatalf("site spaces with the key: %+v", list)
			}
		}
		if v := s.Call(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey="+key, nil, 200).JSON(t); len(v["structure"].(map[string]any)["structure"].([]any)) != 1 {
			t.Fatalf("share-key structure (the group's only section is hidden): %v", v["structure"])
		}
		s.Fail(t, "listSiteSections", w.bob.Token, "GET", base+"/sections", nil, 404)
		s.Fail(t, "listSiteSpaces", w.bob.Token, "GET", base+"/site-spaces?shareKey=wrong", nil, 404)
		s.Call(t, "updateSiteShareLinkById", w.alice.Token, "PATCH", base+"/share-links/"+linkID, map[string]any{"active": false}, 200)
		s.Fail(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey="+key, nil, 404)
		s.Call(t, "updateSiteShareLinkById", w.alice.Token, "PATCH", base+"/share-links/"+linkID, map[string]any{"active": true}, 200)
		s.Call(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey="+key, nil, 200)
		// Public: anyone signed in; visitor-auth: members only.
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", base, map[string]any{"visibility": "public"}, 200)
		s.Call(t, "getPublishedContentSite", w.bob.Token, "GET", pub, nil, 200)
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", base, map[string]any{"visibility": "visitor-auth"}, 200)
		s.Fail(t, "getPublishedContentSite", w.bob.Token, "GET", pub+"?shareKey="+key, nil, 404)
		s.Call(t, "getPublishedContentSite", w.carol.Token, "GET", pub, nil, 200)

		// The visitor-auth key: read, fallback URL, regenerate.
		auth := s.Call(t, "getSitePublishingAuthById", w.alice.Token, "GET", base+"/publishing/auth", nil, 200).JSON(t)
		oldKey := auth["privateKey"].(string)
		if auth["object"] != "publishing-auth" || len(oldKey) < 20 {
			t.Fatalf("auth: %v", auth)
		}
		auth = s.Call(t, "updateSitePublishingAuthById", w.alice.Token, "PATCH", base+"/publishing/auth", map[string]any{"fallbackURL": "https://acme.com/login"}, 200).JSON(t)
		if auth["fallbackURL"] != "https://acme.com/login" || auth["privateKey"] != oldKey {
			t.Fatalf("fallback: %v", auth)
		}
		s.Fail(t, "updateSitePublishingAuthById", w.alice.Token, "PATCH", base+"/publishing/auth", map[string]any{"fallbackURL": "acme.com"}, 400)
		s.Fail(t, "getSitePublishingAuthById", w.carol.Token, "GET", base+"/publishing/auth", nil, 403)
		s.Fail(t, "regenerateSitePublishingAuthById", w.bob.Token, "POST", base+"/publishing/auth/regenerate", nil, 404)
		auth = s.Call(t, "regenerateSitePublishingAuthById", w.alice.Token, "POST", base+"/publishing/auth/regenerate", nil, 200).JSON(t)
		if auth["privateKey"] == oldKey || s.Open(t, secrets.SiteAuthKey, s.Client().Site.GetX(ctx, id).AuthPrivateKeySealed) != auth["privateKey"] {
			t.Fatalf("regenerated: %v", auth)
		}
		// A visitor token signed with the old key no longer verifies.
		exp := time.Now().Add(time.Hour).Unix() // Verify requires exp
		tok, _ := visitorauth.Sign(oldKey, map[string]any{"plan": "pro", "exp": exp})
		if _, err := visitorauth.Verify(auth["privateKey"].(string), tok, time.Now()); err == nil {
			t.Fatal("a token of the old key verifies under the new one")
		}
		fresh, _ := visitorauth.Sign(auth["privateKey"].(string), map[string]any{"plan": "pro", "exp": exp})
		if c, err := visitorauth.Verify(s.Open(t, secrets.SiteAuthKey, s.Client().Site.GetX(ctx, id).AuthPrivateKeySealed), fresh, time.Now()); err != nil || c["plan"] != "pro" {
			t.Fatalf("a token of the new key: %v %v", c, err)
		}
		auth = s.Call(t, "updateSitePublishingAuthById", w.alice.Token, "PATCH", base+"/publishing/auth", map[string]any{"fallbackURL": nil}, 200).JSON(t)
		if _, ok := auth["fallbackURL"]; ok {
			t.Fatalf("fallback not unset: %v", auth)
		}

		// Unpublish: strangers get 404 again, even when public.
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", base, map[string]any{"visibility": "public"}, 200)
		s.Call(t, "unpublishSite", w.alice.Token, "POST", base+"/unpublish", nil, 200)
		s.Fail(t, "getPublishedContentSite", w.bob.Token, "GET", pub, nil, 404)

		// Wrong tenant and wrong role on the remaining reads and deletes.
		s.Fail(t, "listSiteSectionGroups", w.bob.Token, "GET", base+"/section-groups", nil, 404)
		s.Fail(t, "listSiteSectionGroups", w.alice.Token, "GET", base+"/section-groups?limit=0", nil, 400)
		s.Fail(t, "listSiteSections", w.gina.Token, "GET", base+"/sections", nil, 404)
		s.Fail(t, "getSiteCustomizationById", w.bob.Token, "GET", base+"/customization", nil, 404)
		s.Fail(t, "getSiteCustomizationById", w.gina.Token, "GET", base+"/customization", nil, 404)
		s.Fail(t, "getSitePublishingAuthById", w.bob.Token, "GET", base+"/publishing/auth", nil, 404)
		s.Fail(t, "listSiteShareLinks", w.alice.Token, "GET", base+"/share-links?page=garbage", nil, 400)
		s.Fail(t, "deleteSiteShareLinkById", w.carol.Token, "DELETE", base+"/share-links/"+linkID, nil, 403)
		s.Fail(t, "deleteSiteShareLinkById", w.bob.Token, "DELETE", base+"/share-links/"+linkID, nil, 404)
		s.Fail(t, "deleteSiteShareLinkById", w.alice.Token, "DELETE", base+"/share-links/nosuchlink", nil, 404)
		s.Fail(t, "deleteSiteSectionGroupById", w.alice.Token, "DELETE", base+"/section-groups/nosuchgroup", nil, 404)

		// Delete: the share links go with the site.
		s.Call(t, "deleteSiteShareLinkById", w.alice.Token, "DELETE", base+"/share-links/"+linkID, nil, 205)
		s.Call(t, "createSiteShareLink", w.alice.Token, "POST", base+"/share-links", map[string]any{"name": "Again"}, 201)
		s.Call(t, "deleteSiteById", w.alice.Token, "DELETE", base, nil, 205)
		if n := s.Client().SiteShareLink.Query().Where(sitesharelink.SiteID(id)).CountX(ctx); n != 0 {
			t.Fatalf("%d share links left", n)
		}
		s.Fail(t, "getPublishedContentSite", w.alice.Token, "GET", pub, nil, 404)
	})
}
