package rest_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// collectURLs gathers every string inside any `urls` object of an answer.
func collectURLs(v any, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if u, ok := val.(map[string]any); ok && k == "urls" {
				for _, s := range u {
					if str, ok := s.(string); ok {
						into[str] = true
					}
				}
			}
			collectURLs(val, into)
		}
	case []any:
		for _, val := range x {
			collectURLs(val, into)
		}
	}
}

// TestPublishedSiteURLsAnswer: every URL the APIs (REST and GraphQL) hand
// out for a published site, its sections, site spaces, share links, spaces,
// revisions and pages answers 200 — the API ones with the owner's token, the
// published ones anonymously (a share-link site's with its key), on the
// reader.
func TestPublishedSiteURLsAnswer(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "urls@example.com", "URLs")
		space := func(title string) string {
			id := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
			s.SeedPages(t, id, 12)
			return id
		}
		guide, guide2, apiSpace, shared := space("Guide"), space("Guide v2"), space("API"), space("Partners")
		sites := "/v1/orgs/" + org + "/sites"
		newSite := func(title string) string {
			return s.Call(t, "createSite", u.Token, "POST", sites, map[string]any{"title": title}, 201).JSON(t)["id"].(string)
		}
		docs, partners := newSite("Docs"), newSite("Partners")
		docsBase, partnersBase := sites+"/"+docs, sites+"/"+partners
		guideSection := s.Call(t, "addSectionToSite", u.Token, "POST", docsBase+"/sections", map[string]any{"spaceId": guide, "title": "Guide"}, 201).JSON(t)
		s.Call(t, "addSpaceToSite", u.Token, "POST", docsBase+"/site-spaces", map[string]any{"spaceId": guide2, "sectionId": guideSection["id"]}, 201)
		s.Call(t, "addSectionToSite", u.Token, "POST", docsBase+"/sections", map[string]any{"spaceId": apiSpace, "title": "API"}, 201)
		s.Call(t, "updateSiteById", u.Token, "PATCH", docsBase, map[string]any{"basename": "docs"}, 200)
		s.Call(t, "addSpaceToSite", u.Token, "POST", partnersBase+"/site-spaces", map[string]any{"spaceId": shared}, 201)
		s.Call(t, "updateSiteById", u.Token, "PATCH", partnersBase, map[string]any{"visibility": "share-link"}, 200)
		key := s.Call(t, "createSiteShareLink", u.Token, "POST", partnersBase+"/share-links", map[string]any{"name": "Friends"}, 201).JSON(t)["key"].(string)

		// Unpublished, a site hands out no published address.
		if got := s.Call(t, "getSiteById", u.Token, "GET", docsBase, nil, 200).JSON(t)["urls"].(map[string]any); got["published"] != nil {
			t.Fatalf("unpublished site: urls %v", got)
		}
		if got := s.Call(t, "getSpaceById", u.Token, "GET", "/v1/spaces/"+guide2, nil, 200).JSON(t)["urls"].(map[string]any); got["published"] != nil {
			t.Fatalf("space of an unpublished site: urls %v", got)
		}
		s.Call(t, "publishSite", u.Token, "POST", docsBase+"/publish", nil, 200)
		s.Call(t, "publishSite", u.Token, "POST", partnersBase+"/publish", nil, 200)

		urls := map[string]bool{}
		get := func(op, path string) map[string]any {
			v := s.Call(t, op, u.Token, "GET", path, nil, 200).JSON(t)
			collectURLs(v, urls)
			return v
		}
		for _, base := range []string{docsBase, partnersBase} {
			get("getSiteById", base)
			get("listSiteSections", base+"/sections")
			get("listSiteSpaces", base+"/site-spaces")
		}
		get("listSiteShareLinks", partnersBase+"/share-links")
		get("listSpacesInOrganizationById", "/v1/orgs/"+org+"/spaces")
		for _, sp := range []string{guide, guide2, apiSpace, shared} {
			get("getSpaceById", "/v1/spaces/"+sp)
			get("getCurrentRevision", "/v1/spaces/"+sp+"/content")
			get("listPages", "/v1/spaces/"+sp+"/content/pages")
		}
		const siteQuery = `query($id: ID!) { site(id: $id) { urls { location app published }
			sections { urls { published } siteSpaces { urls { published } space { urls { location app published public }
				revision { pages { urls { app } pages { urls { app } } } } } } }
			siteSpaces { urls { published } space { urls { location app published public } } }
			shareLinks { urls { published } } } }`
		for _, id := range []string{docs, partners} {
			collectURLs(s.MustGraphQL(t, u.Token, siteQuery, map[string]any{"id": id}), urls)
		}

		// The addresses are the ones the issue names.
		sectionPath := guideSection["path"].(string)
		var guide2Path string
		var list struct{ Items []map[string]any }
		s.Call(t, "listSiteSpaces", u.Token, "GET", docsBase+"/site-spaces", nil, 200).Decode(t, &list)
		for _, ss := range list.Items {
			if ss["space"].(map[string]any)["id"] == guide2 {
				guide2Path = ss["path"].(string)
			}
		}
		for _, want := range []string{
			s.URL + "/s/docs/",
			s.URL + "/s/docs/" + sectionPath + "/",
			s.URL + "/s/docs/" + sectionPath + "/" + guide2Path + "/",
			s.URL + "/s/" + partners + "/?shareKey=" + url.QueryEscape(key),
			s.URL + sites + "/" + docs,
			s.URL + "/v1/spaces/" + guide2,
		} {
			if !urls[want] {
				t.Errorf("%s not handed out", want)
			}
		}
		sp := s.Call(t, "getSpaceById", u.Token, "GET", "/v1/spaces/"+guide2, nil, 200).JSON(t)["urls"].(map[string]any)
		if want := s.URL + "/s/docs/" + sectionPath + "/" + guide2Path + "/"; sp["published"] != want || sp["public"] != want {
			t.Errorf("space published through the site: %v, want %s", sp, want)
		}
		sp = s.Call(t, "getSpaceById", u.Token, "GET", "/v1/spaces/"+shared, nil, 200).JSON(t)["urls"].(map[string]any)
		if pub, _ := sp["published"].(string); !strings.HasPrefix(pub, s.URL+"/s/"+partners+"/") || sp["public"] != nil {
			t.Errorf("space of a share-link site: %v", sp)
		}

		list2 := make([]string, 0, len(urls))
		for u := range urls {
			list2 = append(list2, u)
		}
		sort.Strings(list2)
		t.Logf("%d URLs handed out, each fetched", len(list2))
		if len(list2) < 40 {
			t.Fatalf("only %d URLs collected: %v", len(list2), list2)
		}
		for _, raw := range list2 {
			if !strings.HasPrefix(raw, s.URL+"/") {
				t.Errorf("%s is not under FOLIO_BASE_URL", raw)
				continue
			}
			for _, old := range []string{"/o/", "/c/", "/published/"} {
				if strings.Contains(raw, old) {
					t.Errorf("%s is an old address", raw)
				}
			}
			target, token := raw, u.Token
			if strings.HasPrefix(raw, s.URL+"/s/") {
				token = "" // the reader, as an anonymous visitor
				if strings.HasPrefix(raw, s.URL+"/s/"+partners+"/") && !strings.Contains(raw, "shareKey=") {
					target += "?shareKey=" + url.QueryEscape(key)
				}
			}
			if code, body := fetchAnswer(t, target, token); code != http.StatusOK {
				t.Errorf("GET %s: %d %.200s", raw, code, body)
			}
		}
		// And the share-link site's addresses refuse without the key.
		if code, _ := fetchAnswer(t, s.URL+"/s/"+partners+"/", ""); code != http.StatusNotFound {
			t.Errorf("share-link site without the key: %d", code)
		}
	})
}

// fetchAnswer GETs raw with a fresh cookie jar, following redirects (a
// share key leaves a cookie).
func fetchAnswer(t *testing.T, raw, token string) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", raw, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
