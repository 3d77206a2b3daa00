package rest_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestSiteSectionsGroupsAndSpaces(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newSiteWorld(t, s)
		sites := "/v1/orgs/" + w.acme + "/sites"
		docs := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{w.guides}}, 201).JSON(t)["id"].(string)
		base := sites + "/" + docs
		other := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Other", "spaces": []string{w.ops}}, 201).JSON(t)["id"].(string)
		bobsSite := s.Call(t, "createSite", w.bob.Token, "POST", "/v1/orgs/"+w.bobs+"/sites", map[string]any{"title": "Bobs"}, 201).JSON(t)["id"].(string)

		// The first section is the default and takes the root's site spaces.
		first := s.Call(t, "addSectionToSite", w.erin.Token, "POST", base+"/sections", map[string]any{"spaceId": w.api, "title": "API"}, 201).JSON(t)
		if first["object"] != "site-section" || first["default"] != true || first["path"] != "api" || first["title"] != "API" {
			t.Fatalf("first section: %v", first)
		}
		apiSec := first["id"].(string)
		inFirst := first["siteSpaces"].([]any)
		if len(inFirst) != 2 || inFirst[0].(map[string]any)["space"].(map[string]any)["id"] != w.guides ||
			inFirst[1].(map[string]any)["space"].(map[string]any)["id"] != w.api || inFirst[0].(map[string]any)["default"] != true {
			t.Fatalf("first section's site spaces: %v", inFirst)
		}
		if n := s.Client().SiteSpace.Query().Where(sitespace.SiteID(docs), sitespace.SectionIDIsNil()).CountX(ctx); n != 0 {
			t.Fatalf("%d site spaces left at the root", n)
		}
		// Later sections: not default; paths stay unique.
		sec2 := s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": w.ops, "title": "API"}, 201).JSON(t)
		if sec2["default"] != false || sec2["path"] != "api-2" {
			t.Fatalf("second section: %v", sec2)
		}
		opsSec := sec2["id"].(string)
		guideSec := s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": w.guides}, 201).JSON(t)["id"].(string)

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
			code  int
		}{
			{map[string]any{}, "spaceId", 400},
			{map[string]any{"spaceId": w.api, "title": "x"}, "title", 400},
			{map[string]any{"spaceId": w.api, "icon": strings.Repeat("i", 51)}, "icon", 400},
			{map[string]any{"spaceId": w.bobsSpace}, "", 404},
			{map[string]any{"spaceId": "nosuchspace000000000"}, "", 404},
		} {
			msg := s.Fail(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", c.body, c.code)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Fail(t, "addSectionToSite", w.carol.Token, "POST", base+"/sections", map[string]any{"spaceId": w.api}, 403)
		s.Fail(t, "addSectionToSite", w.bob.Token, "POST", base+"/sections", map[string]any{"spaceId": w.api}, 404)
		s.Unchanged(t, before)

		// Conditions are compiled against the site's adaptive schema.
		s.Call(t, "updateSiteAdaptiveSchema", w.alice.Token, "PUT", base+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
			"type": "object", "additionalProperties": false, "properties": map[string]any{
				"isBeta": map[string]any{"type": "boolean", "description": "Beta tester"},
				"staff":  map[string]any{"type": "boolean", "description": "Staff"}}}}, 200)
		// Update: path clash 409, null clears, bounds.
		up := s.Call(t, "updateSiteSectionById", w.alice.Token, "PATCH", base+"/sections/"+opsSec,
			map[string]any{"path": "ops", "condition": "visitor.claims.isBeta", "icon": "gear", "description": "Runbooks"}, 200).JSON(t)
		if up["path"] != "ops" || up["condition"] != "visitor.claims.isBeta" || up["icon"] != "gear" || up["description"] != "Runbooks" {
			t.Fatalf("updated section: %v", up)
		}
		up = s.Call(t, "updateSiteSectionById", w.alice.Token, "PATCH", base+"/sections/"+opsSec,
			map[string]any{"condition": nil, "icon": nil}, 200).JSON(t)
		if _, ok := up["condition"]; ok || up["description"] != "Runbooks" {
			t.Fatalf("cleared: %v", up)
		}
		before = s.Snapshot(t)
		s.Fail(t, "updateSiteSectionById", w.alice.Token, "PATCH", base+"/sections/"+opsSec, map[string]any{"path": "api"}, 409)
		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"path": ""}, "path"},
			{map[string]any{"path": "Has Spaces"}, "path"},
			{map[string]any{"title": "x"}, "title"},
			{map[string]any{"condition": ""}, "condition"},
			{map[string]any{"condition": strings.Repeat("a", 1025)}, "condition"},
			{map[string]any{"condition": "visitor.claims.isBeta &&"}, "condition"},
			{map[string]any{"condition": "visitor.claims.plan == \"pro\""}, "column"},
			{map[string]any{"description": strings.Repeat("a", 257)}, "description"},
			{map[string]any{"defaultSiteSpace": "nosuch"}, "defaultSiteSpace"},
		} {
			msg := s.Fail(t, "updateSiteSectionById", w.alice.Token, "PATCH", base+"/sections/"+opsSec, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Fail(t, "updateSiteSectionById", w.carol.Token, "PATCH", base+"/sections/"+opsSec, map[string]any{"title": "Mine"}, 403)
		s.Fail(t, "updateSiteSectionById", w.alice.Token, "PATCH", sites+"/"+other+"/sections/"+opsSec, map[string]any{"title": "Mine"}, 404)
		s.Fail(t, "updateSiteSectionById", w.bob.Token, "PATCH", "/v1/orgs/"+w.bobs+"/sites/"+bobsSite+"/sections/"+opsSec, map[string]any{"title": "Mine"}, 404)
		s.Unchanged(t, before)

		order := func() []string {
			var env siteList
			s.Call(t, "listSiteSections", w.carol.Token, "GET", base+"/sections", nil, 200).Decode(t, &env)
			return ids(env.Items)
		}
		if got := order(); !slices.Equal(got, []string{apiSec, opsSec, guideSec}) {
			t.Fatalf("sections: %v", got)
		}

		// Groups: create with a section, then add one; they share the top level.
		g := s.Call(t, "addSectionGroupToSite", w.alice.Token, "POST", base+"/section-groups",
			map[string]any{"title": "More", "sections": []string{guideSec}}, 201).JSON(t)
		group := g["id"].(string)
		if g["object"] != "site-section-group" || len(g["sections"].([]any)) != 1 {
			t.Fatalf("group: %v", g)
		}
		g = s.Call(t, "addSectionToGroup", w.alice.Token, "POST", base+"/section-groups/"+group+"/sections",
			map[string]any{"sectionId": opsSec}, 201).JSON(t)
		if secs := g["sections"].([]any); len(secs) != 2 || secs[1].(map[string]any)["id"] != opsSec ||
			secs[1].(map[string]any)["sectionGroup"] != group {
			t.Fatalf("group after add: %v", g)
		}
		if got := order(); !slices.Equal(got, []string{apiSec, guideSec, opsSec}) {
			t.Fatalf("sections with the group: %v", got)
		}
		// Move the group before the API section; then a section before another in the group.
		s.Call(t, "moveSiteSectionGroup", w.alice.Token, "POST", base+"/section-groups/"+group+"/move",
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "id": apiSec}}}, 200)
		if got := order(); !slices.Equal(got, []string{guideSec, opsSec, apiSec}) {
			t.Fatalf("after moving the group: %v", got)
		}
		s.Call(t, "moveSiteSection", w.alice.Token, "POST", base+"/sections/"+opsSec+"/move",
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "siteSection": guideSec}}}, 200)
		if got := order(); !slices.Equal(got, []string{opsSec, guideSec, apiSec}) {
			t.Fatalf("after moving in the group: %v", got)
		}
		// A section moved after a top-level section leaves its group.
		moved := s.Call(t, "moveSiteSection", w.alice.Token, "POST", base+"/sections/"+guideSec+"/move",
			map[string]any{"position": map[string]any{"after": map[string]any{"type": "site-section", "siteSection": apiSec}}}, 200).JSON(t)
		if _, ok := moved["sectionGroup"]; ok {
			t.Fatalf("still grouped: %v", moved)
		}
		if got := order(); !slices.Equal(got, []string{opsSec, apiSec, guideSec}) {
			t.Fatalf("after leaving the group: %v", got)
		}
		before = s.Snapshot(t)
		for _, c := range []struct {
			path  string
			body  any
			field string
		}{
			{"/sections/" + opsSec + "/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-space", "siteSection": apiSec}}}, "type"},
			{"/sections/" + opsSec + "/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section"}}}, "siteSection"},
			{"/sections/" + opsSec + "/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "siteSection": opsSec}}}, "position"},
			{"/sections/" + opsSec + "/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "siteSection": "nosuch"}}}, "position"},
			{"/sections/" + opsSec + "/move", map[string]any{"position": map[string]any{
				"before": map[string]any{"type": "site-section", "siteSection": apiSec}, "after": map[string]any{"type": "site-section", "siteSection": apiSec}}}, "position"},
			{"/section-groups/" + group + "/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "id": opsSec}}}, "groups do not nest"},
			{"/section-groups/" + group + "/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section-group", "id": group}}}, "position"},
		} {
			op := "moveSiteSection"
			if strings.HasPrefix(c.path, "/section-groups/") {
				op = "moveSiteSectionGroup"
			}
			msg := s.Fail(t, op, w.alice.Token, "POST", base+c.path, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("%s %v: message %q does not name %q", c.path, c.body, msg, c.field)
			}
		}
		s.Fail(t, "addSectionGroupToSite", w.alice.Token, "POST", base+"/section-groups", map[string]any{"title": ""}, 400)
		s.Fail(t, "addSectionGroupToSite", w.alice.Token, "POST", base+"/section-groups", map[string]any{"title": "G", "sections": []string{"nosuch"}}, 400)
		s.Fail(t, "addSectionGroupToSite", w.carol.Token, "POST", base+"/section-groups", map[string]any{"title": "G"}, 403)
		s.Fail(t, "addSectionToGroup", w.alice.Token, "POST", base+"/section-groups/"+group+"/sections", map[string]any{}, 400)
		s.Fail(t, "addSectionToGroup", w.alice.Token, "POST", base+"/section-groups/"+group+"/sections", map[string]any{"sectionId": "nosuch"}, 404)
		s.Fail(t, "removeSectionFromGroup", w.alice.Token, "DELETE", base+"/section-groups/"+group+"/sections/"+apiSec, nil, 404)
		s.Fail(t, "updateSiteSectionGroupById", w.alice.Token, "PATCH", base+"/section-groups/"+group, map[string]any{"title": strings.Repeat("t", 101)}, 400)
		s.Fail(t, "updateSiteSectionGroupById", w.alice.Token, "PATCH", sites+"/"+other+"/section-groups/"+group, map[string]any{"title": "T"}, 404)
		s.Fail(t, "deleteSiteSectionGroupById", w.carol.Token, "DELETE", base+"/section-groups/"+group, nil, 403)
		s.Unchanged(t, before)

		g = s.Call(t, "updateSiteSectionGroupById", w.alice.Token, "PATCH", base+"/section-groups/"+group, map[string]any{"title": "Extras", "icon": "star"}, 200).JSON(t)
		if g["title"] != "Extras" || g["icon"] != "star" {
			t.Fatalf("updated group: %v", g)
		}
		var groups siteList
		s.Call(t, "listSiteSectionGroups", w.carol.Token, "GET", base+"/section-groups", nil, 200).Decode(t, &groups)
		if groups.Count != 1 || groups.Items[0]["id"] != group {
			t.Fatalf("groups: %+v", groups)
		}
		s.Call(t, "removeSectionFromGroup", w.alice.Token, "DELETE", base+"/section-groups/"+group+"/sections/"+opsSec, nil, 205)
		if sec := s.Client().SiteSection.GetX(ctx, opsSec); sec.GroupID != nil {
			t.Fatalf("still in the group: %+v", sec)
		}
		s.Call(t, "addSectionToGroup", w.alice.Token, "POST", base+"/section-groups/"+group+"/sections", map[string]any{"sectionId": apiSec}, 201)
		s.Call(t, "deleteSiteSectionGroupById", w.alice.Token, "DELETE", base+"/section-groups/"+group, nil, 205)
		// The group's section takes its place, before the section taken out after it.
		if got := order(); !slices.Equal(got, []string{apiSec, opsSec, guideSec}) {
			t.Fatalf("after deleting the group: %v (api %s ops %s guides %s)", got, apiSec, opsSec, guideSec)
		}

		// Site spaces: add to a section, to the default section; paths; move; default filter.
		added := s.Call(t, "addSpaceToSite", w.alice.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": w.ops, "sectionId": apiSec}, 201).JSON(t)
		if added["section"] != apiSec || added["path"] != "ops" || added["default"] != false || added["title"] != "Ops" {
			t.Fatalf("added: %v", added)
		}
		opsSS := added["id"].(string)
		toDefault := s.Call(t, "addSpaceToSite", w.alice.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": w.guides}, 201).JSON(t)
		if toDefault["section"] != apiSec || toDefault["path"] != "guides-2" {
			t.Fatalf("added to the default section: %v", toDefault)
		}
		before = s.Snapshot(t)
		s.Fail(t, "addSpaceToSite", w.alice.Token, "POST", base+"/site-spaces", map[string]any{}, 400)
		s.Fail(t, "addSpaceToSite", w.alice.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": w.bobsSpace}, 404)
		s.Fail(t, "addSpaceToSite", w.alice.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": w.ops, "sectionId": "nosuch"}, 404)
		s.Fail(t, "addSpaceToSite", w.carol.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": w.ops}, 403)
		s.Fail(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+opsSS, map[string]any{"path": "guides"}, 409)
		s.Fail(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+opsSS, map[string]any{"path": ""}, 400)
		s.Fail(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+opsSS, map[string]any{"condition": ""}, 400)
		s.Fail(t, "updateSiteSpaceById", w.alice.Token, "PATCH", sites+"/"+other+"/site-spaces/"+opsSS, map[string]any{"path": "x"}, 404)
		s.Fail(t, "moveSiteSpace", w.alice.Token, "POST", base+"/site-spaces/"+opsSS+"/move",
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-space", "siteSpace": "nosuch"}}}, 400)
		s.Fail(t, "deleteSiteSpaceById", w.carol.Token, "DELETE", base+"/site-spaces/"+opsSS, nil, 403)
		s.Unchanged(t, before)

		upd := s.Call(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+opsSS, map[string]any{"path": "runbooks", "condition": "visitor.claims.staff"}, 200).JSON(t)
		if upd["path"] != "runbooks" || upd["condition"] != "visitor.claims.staff" {
			t.Fatalf("updated site space: %v", upd)
		}
		inSection := func() []string {
			var out []string
			for _, ss := range s.Client().SiteSpace.Query().Where(sitespace.SectionID(apiSec)).Order(sitespace.ByPosition(), sitespace.ByID()).AllX(ctx) {
				out = append(out, ss.ID)
			}
			return out
		}
		start := inSection()
		s.Call(t, "moveSiteSpace", w.alice.Token, "POST", base+"/site-spaces/"+opsSS+"/move",
			map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-space", "siteSpace": start[0]}}}, 200)
		if got := inSection(); got[0] != opsSS || len(got) != len(start) {
			t.Fatalf("after the move: %v (was %v)", got, start)
		}
		var list siteList
		s.Call(t, "listSiteSpaces", w.carol.Token, "GET", base+"/site-spaces?default=true", nil, 200).Decode(t, &list)
		for _, it := range list.Items {
			if it["default"] != true {
				t.Fatalf("default filter: %v", list.Items)
			}
		}
		if list.Count != 3 { // one per section
			t.Fatalf("defaults: %d", list.Count)
		}
		s.Call(t, "listSiteSpaces", w.carol.Token, "GET", base+"/site-spaces?default=false", nil, 200).Decode(t, &list)
		if list.Count != 3 {
			t.Fatalf("non-defaults: %d", list.Count)
		}
		s.Fail(t, "listSiteSpaces", w.gina.Token, "GET", base+"/site-spaces", nil, 404)

		// A space in the trash hides its site spaces.
		s.Call(t, "deleteSpaceById", w.alice.Token, "DELETE", "/v1/spaces/"+w.ops, nil, 205)
		s.Call(t, "listSiteSpaces", w.carol.Token, "GET", base+"/site-spaces", nil, 200).Decode(t, &list)
		for _, it := range list.Items {
			if it["space"] != nil && it["space"].(map[string]any)["id"] == w.ops {
				t.Fatalf("trashed space still listed: %v", it)
			}
		}
		if list.Count != 4 {
			t.Fatalf("site spaces with one space in the trash: %d", list.Count)
		}
		s.Fail(t, "deleteSiteSpaceById", w.alice.Token, "DELETE", base+"/site-spaces/"+opsSS, nil, 404)

		// A space transferred to another organization leaves the site; its section's next site space becomes the default.
		s.AddMember(t, w.bobs, w.alice, testkit.RoleOf(access.Admin))
		apiSpaces := s.Client().SiteSpace.Query().Where(sitespace.SpaceID(w.api)).CountX(ctx)
		s.Call(t, "transferSpace", w.alice.Token, "POST", "/v1/spaces/"+w.api+"/transfer", map[string]any{"organization": w.bobs}, 200)
		if n := s.Client().SiteSpace.Query().Where(sitespace.SpaceID(w.api)).CountX(ctx); apiSpaces == 0 || n != 0 {
			t.Fatalf("site spaces of the transferred space: %d before, %d after", apiSpaces, n)
		}
		for _, sec := range []string{apiSec, opsSec, guideSec} {
			in := s.Client().SiteSpace.Query().Where(sitespace.SectionID(sec)).AllX(ctx)
			defaults := 0
			for _, ss := range in {
				if ss.IsDefault {
					defaults++
				}
			}
			if len(in) > 0 && defaults != 1 {
				t.Fatalf("section %s: %d defaults among %d", sec, defaults, len(in))
			}
		}

		// Sections: the default cannot go while others exist; deleting one deletes its site spaces.
		s.Fail(t, "deleteSiteSectionById", w.alice.Token, "DELETE", base+"/sections/"+apiSec, nil, 409)
		s.Call(t, "deleteSiteSectionById", w.alice.Token, "DELETE", base+"/sections/"+guideSec, nil, 205)
		if n := s.Client().SiteSpace.Query().Where(sitespace.SectionID(guideSec)).CountX(ctx); n != 0 {
			t.Fatalf("%d site spaces of a deleted section", n)
		}
		s.Fail(t, "deleteSiteSectionById", w.alice.Token, "DELETE", sites+"/"+other+"/sections/"+opsSec, nil, 404)
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", base, map[string]any{"defaultSiteSection": opsSec}, 200)
		if !s.Client().SiteSection.GetX(ctx, opsSec).IsDefault || s.Client().SiteSection.GetX(ctx, apiSec).IsDefault {
			t.Fatal("default section not moved")
		}
		s.Call(t, "deleteSiteSectionById", w.alice.Token, "DELETE", base+"/sections/"+apiSec, nil, 205)
	})
}
