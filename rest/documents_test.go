package rest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// conditionalBody is a page with a block for beta visitors only and one
// whose condition reads no claim.
const conditionalBody = "# Page 1\n\nFor all.\n\n{% if condition=\"visitor.claims.beta == true\" %}\nBeta only.\n{% endif %}\n\n" +
	"{% if condition=\"1 < 2\" %}\nAlways.\n{% endif %}\n"

// TestPageDocumentInRevision: the document of a page of a revision, as
// stored, and evaluated for a caller without claims (the beta block goes,
// the always-true block is unwrapped); deterministic-only decides only the
// condition that reads no claim; bad flags are 400 naming them; a stranger
// and another space's revision are 404.
func TestPageDocumentInRevision(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		owner, org := s.NewUser(t, "docs@example.com", "Docs")
		stranger, _ := s.NewUser(t, "stranger@example.com", "Elsewhere")
		space := s.Call(t, "createSpace", owner.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Guide"}, 201).JSON(t)["id"].(string)
		other := s.Call(t, "createSpace", owner.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Other"}, 201).JSON(t)["id"].(string)
		rev := s.SeedPagesWith(t, space, 3, func(i int) string {
			if i == 1 {
				return conditionalBody
			}
			return "# Page\n\nText.\n"
		})
		s.SeedPages(t, other, 1)
		pageID := s.Call(t, "getPageByPath", owner.Token, "GET", "/v1/spaces/"+space+"/content/path/page-0/page-1", nil, 200).JSON(t)["id"].(string)
		path := "/v1/spaces/" + space + "/revisions/" + rev.ID + "/page/" + pageID + "/document"

		stored := s.Call(t, "getPageById", owner.Token, "GET", "/v1/spaces/"+space+"/content/page/"+pageID, nil, 200).JSON(t)["document"]
		plain := s.Call(t, "getPageDocumentInRevisionById", owner.Token, "GET", path, nil, 200).JSON(t)
		if jsonOf(plain) != jsonOf(stored) {
			t.Fatalf("document %s\nwant the stored %s", jsonOf(plain), jsonOf(stored))
		}
		if !strings.Contains(jsonOf(plain), `"type":"if"`) || !strings.Contains(jsonOf(plain), "Beta only.") {
			t.Fatalf("stored document lacks its if blocks: %s", jsonOf(plain))
		}

		evaluated := jsonOf(s.Call(t, "getPageDocumentInRevisionById", owner.Token, "GET", path+"?evaluated=true&dereferenced=true", nil, 200).JSON(t))
		if strings.Contains(evaluated, "Beta only.") || !strings.Contains(evaluated, "Always.") || strings.Contains(evaluated, `"type":"if"`) ||
			!strings.Contains(evaluated, "For all.") {
			t.Fatalf("evaluated: %s", evaluated)
		}
		det := jsonOf(s.Call(t, "getPageDocumentInRevisionById", owner.Token, "GET", path+"?evaluated=deterministic-only", nil, 200).JSON(t))
		if !strings.Contains(det, "Beta only.") || strings.Count(det, `"type":"if"`) != 1 || !strings.Contains(det, "Always.") {
			t.Fatalf("deterministic-only: %s", det)
		}

		// A reader of the space reads it too.
		reader, _ := s.NewUser(t, "reader@example.com", "")
		s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
		s.Call(t, "getPageDocumentInRevisionById", reader.Token, "GET", path, nil, 200)

		for _, c := range []struct{ query, field string }{{"?evaluated=maybe", "evaluated"}, {"?dereferenced=yes", "dereferenced"}} {
			if msg := s.Fail(t, "getPageDocumentInRevisionById", owner.Token, "GET", path+c.query, nil, 400); !strings.Contains(msg, c.field) {
				t.Errorf("%s: %q does not name %s", c.query, msg, c.field)
			}
		}
		s.Fail(t, "getPageDocumentInRevisionById", stranger.Token, "GET", path, nil, 404)
		s.Fail(t, "getPageDocumentInRevisionById", stranger.Token, "GET", path+"?evaluated=maybe", nil, 404)
		s.Fail(t, "getPageDocumentInRevisionById", owner.Token, "GET", "/v1/spaces/"+other+"/revisions/"+rev.ID+"/page/"+pageID+"/document", nil, 404)
		s.Fail(t, "getPageDocumentInRevisionById", owner.Token, "GET", "/v1/spaces/"+space+"/revisions/"+rev.ID+"/page/nope/document", nil, 404)
	})
}

// TestPageMetaLinks: previous / next / parent in reading order, the page
// itself as canonical while no published site shows the space; once a site
// with two variants of a section is published, the canonical address is
// the page on it and the other variant (which has the same path) is an
// alternate. The change request and revision forms answer the same.
func TestPageMetaLinks(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		owner, org := s.NewUser(t, "links@example.com", "Links")
		stranger, _ := s.NewUser(t, "stranger@example.com", "Elsewhere")
		newSpace := func(title string) string {
			return s.Call(t, "createSpace", owner.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
		}
		v1, v2 := newSpace("Guide v1"), newSpace("Guide v2")
		rev := s.SeedPages(t, v1, 3)
		s.SeedPages(t, v2, 2)
		page := func(space, path string) string {
			return s.Call(t, "getPageByPath", owner.Token, "GET", "/v1/spaces/"+space+"/content/path/"+path, nil, 200).JSON(t)["id"].(string)
		}
		p0, p1, p2 := page(v1, "page-0"), page(v1, "page-0/page-1"), page(v1, "page-0/page-2")
		live := "/v1/spaces/" + v1 + "/content/page/" + p1 + "/meta-links"
		got := s.Call(t, "listSpacePageMetaLinks", owner.Token, "GET", live, nil, 200).JSON(t)
		want := `{"alternates":[],"canonical":{"kind":"page","page":"` + p1 + `"},"next":{"kind":"page","page":"` + p2 +
			`"},"parent":{"kind":"page","page":"` + p0 + `"},"previous":{"kind":"page","page":"` + p0 + `"}}`
		if jsonOf(got) != want {
			t.Fatalf("meta links %s\nwant %s", jsonOf(got), want)
		}
		first := s.Call(t, "listSpacePageMetaLinks", owner.Token, "GET", "/v1/spaces/"+v1+"/content/page/"+p0+"/meta-links", nil, 200).JSON(t)
		if first["previous"] != nil || first["parent"] != nil || jsonOf(first["next"]) != `{"kind":"page","page":"`+p1+`"}` {
			t.Fatalf("first page: %s", jsonOf(first))
		}

		sites := "/v1/orgs/" + org + "/sites"
		site := s.Call(t, "createSite", owner.Token, "POST", sites, map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		sec := s.Call(t, "addSectionToSite", owner.Token, "POST", sites+"/"+site+"/sections", map[string]any{"spaceId": v1, "title": "Guide"}, 201).JSON(t)
		s.Call(t, "addSpaceToSite", owner.Token, "POST", sites+"/"+site+"/site-spaces", map[string]any{"spaceId": v2, "sectionId": sec["id"]}, 201)
		s.Call(t, "updateSiteById", owner.Token, "PATCH", sites+"/"+site, map[string]any{"basename": "docs"}, 200)
		s.Call(t, "publishSite", owner.Token, "POST", sites+"/"+site+"/publish", nil, 200)

		got = s.Call(t, "listSpacePageMetaLinks", owner.Token, "GET", live, nil, 200).JSON(t)
		canon, _ := got["canonical"].(map[string]any)["url"].(string)
		alts := got["alternates"].([]any)
		if !strings.HasSuffix(canon, "/page-0/page-1") || len(alts) != 1 {
			t.Fatalf("published meta links: %s", jsonOf(got))
		}
		alt := alts[0].(map[string]any)["url"].(string)
		if alt == canon || !strings.HasSuffix(alt, "/page-0/page-1") {
			t.Fatalf("alternate %q of %q", alt, canon)
		}
		// Each address answers on the reader.
		for _, u := range []string{canon, alt} {
			if resp := s.Request(t, "", "GET", strings.TrimPrefix(u, s.URL), nil); resp.Status != 200 {
				t.Errorf("%s: %d", u, resp.Status)
			}
		}
		// page-2 exists only in v1: no alternate.
		only := s.Call(t, "listSpacePageMetaLinks", owner.Token, "GET", "/v1/spaces/"+v1+"/content/page/"+p2+"/meta-links", nil, 200).JSON(t)
		if len(only["alternates"].([]any)) != 0 || only["next"] != nil {
			t.Fatalf("page-2: %s", jsonOf(only))
		}

		byRev := s.Call(t, "listRevisionPageMetaLinks", owner.Token, "GET", "/v1/spaces/"+v1+"/revisions/"+rev.ID+"/page/"+p1+"/meta-links", nil, 200).JSON(t)
		cr := s.Call(t, "createChangeRequest", owner.Token, "POST", "/v1/spaces/"+v1+"/change-requests", map[string]any{"subject": "x"}, 201).JSON(t)["id"].(string)
		inCR := s.Call(t, "listChangeRequestPageMetaLinks", owner.Token, "GET", "/v1/spaces/"+v1+"/change-requests/"+cr+"/content/page/"+p1+"/meta-links", nil, 200).JSON(t)
		if jsonOf(byRev) != jsonOf(got) || jsonOf(inCR) != jsonOf(got) {
			t.Fatalf("revision %s\nchange request %s\nwant %s", jsonOf(byRev), jsonOf(inCR), jsonOf(got))
		}

		s.Fail(t, "listSpacePageMetaLinks", stranger.Token, "GET", live, nil, 404)
		s.Fail(t, "listChangeRequestPageMetaLinks", stranger.Token, "GET", "/v1/spaces/"+v1+"/change-requests/"+cr+"/content/page/"+p1+"/meta-links", nil, 404)
		s.Fail(t, "listRevisionPageMetaLinks", owner.Token, "GET", "/v1/spaces/"+v2+"/revisions/"+rev.ID+"/page/"+p1+"/meta-links", nil, 404)
		s.Fail(t, "listSpacePageMetaLinks", owner.Token, "GET", "/v1/spaces/"+v1+"/content/page/nope/meta-links", nil, 404)
	})
}

// jsonOf is v as compact JSON (maps with sorted keys).
func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }
