package reader_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestReaderNoIndexThroughTheAPIs: noIndex and noRobotsIndex set through
// the APIs — REST change-request changes (GitBook's RevisionPageUpdate
// fields, and frontmatter), an update of the fields alone, the markdown read
// back and written again, a markdown import, and GraphQL's
// updateSpaceContent — reach the published site: the page carries robots
// noindex and is out of the sitemap; clearing the field brings it back.
// (The reader's other tests write page rows directly, which is how the
// API stripping the frontmatter went unseen.)
func TestReaderNoIndexThroughTheAPIs(t *testing.T) {
	source := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("---\nnoRobotsIndex: true\ntitle: Imported\n---\n# Imported\n\nFrom a file.\n"))
	}))
	defer source.Close()
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "ada@example.com", "Acme")
		space := api(t, s, u.Token, "POST", "/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201)["id"].(string)
		sp := "/spaces/" + space
		change := func(cr string, changes ...map[string]any) {
			t.Helper()
			api(t, s, u.Token, "POST", sp+"/change-requests/"+cr+"/content", map[string]any{"changes": changes}, 200)
		}
		doc := func(title, slug string, extra map[string]any) map[string]any {
			c := map[string]any{"operation": "insert_page", "title": title, "slug": slug, "document": map[string]any{"markdown": "# " + title + "\n\nText of " + slug + ".\n"}}
			for k, v := range extra {
				c[k] = v
			}
			return c
		}
		cr := api(t, s, u.Token, "POST", sp+"/change-requests", map[string]any{"subject": "Pages"}, 201)["id"].(string)
		change(cr,
			doc("Open", "open", nil),
			doc("Quiet", "quiet", map[string]any{"noIndex": true}),
			doc("Robots", "robots", map[string]any{"noRobotsIndex": true}),
			map[string]any{"operation": "insert_page", "slug": "front", "document": map[string]any{"markdown": "---\ntitle: Front\nnoIndex: true\n---\n# Front\n\nText.\n"}},
			doc("Later", "later", nil),
			doc("Overruled", "overruled", map[string]any{"noIndex": true, "document": map[string]any{"markdown": "---\nnoIndex: false\n---\n# Overruled\n\nThe frontmatter wins.\n"}}),
		)
		api(t, s, u.Token, "POST", sp+"/change-requests/"+cr+"/merge", nil, 200)
		ids := map[string]string{}
		for _, p := range api(t, s, u.Token, "GET", sp+"/content/pages", nil, 200)["pages"].([]any) {
			ids[p.(map[string]any)["slug"].(string)] = p.(map[string]any)["id"].(string)
		}

		// The fields alone, and the markdown read back and written again.
		front := api(t, s, u.Token, "GET", sp+"/content/page/"+ids["front"]+"?format=markdown", nil, 200)["markdown"].(string)
		if !strings.HasPrefix(front, "---\nnoIndex: true\n---\n") || strings.Contains(front, "title:") {
			t.Fatalf("the page's markdown keeps its robots settings (only): %q", front)
		}
		cr = api(t, s, u.Token, "POST", sp+"/change-requests", map[string]any{"subject": "Edits"}, 201)["id"].(string)
		change(cr,
			map[string]any{"operation": "update_page", "page": ids["later"], "noIndex": true},
			map[string]any{"operation": "update_page", "page": ids["front"], "document": map[string]any{"markdown": front + "\nOne more line.\n"}},
			map[string]any{"operation": "update_page", "page": ids["robots"], "title": "Robots again"}, // other fields keep it
		)
		api(t, s, u.Token, "POST", sp+"/change-requests/"+cr+"/merge", nil, 200)
		api(t, s, u.Token, "POST", sp+"/content/import", map[string]any{"url": source.URL + "/imported.md", "source": "markdown"}, 201)

		// GraphQL, on a live space.
		live := s.MustGraphQL(t, u.Token, `mutation($o: ID!) { createSpace(organizationId: $o, input: {title: "Live", editMode: live}) { id } }`,
			map[string]any{"o": org})["createSpace"].(map[string]any)["id"].(string)
		const edit = `mutation($s: ID!, $c: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $s, changes: $c) { revision { id } } }`
		s.MustGraphQL(t, u.Token, edit, map[string]any{"s": live, "c": []any{
			map[string]any{"operation": "insert_page", "slug": "gql-open", "markdown": "# Gql open\n\nText.\n"},
			map[string]any{"operation": "insert_page", "slug": "gql-quiet", "markdown": "# Gql quiet\n\nText.\n", "noIndex": true},
			map[string]any{"operation": "insert_page", "slug": "gql-later", "markdown": "# Gql later\n\nText.\n", "ref": "later"},
		}})
		var gqlLater string
		for _, p := range api(t, s, u.Token, "GET", "/spaces/"+live+"/content/pages", nil, 200)["pages"].([]any) {
			if p.(map[string]any)["slug"] == "gql-later" {
				gqlLater = p.(map[string]any)["id"].(string)
			}
		}
		s.MustGraphQL(t, u.Token, edit, map[string]any{"s": live, "c": []any{
			map[string]any{"operation": "update_page", "page": gqlLater, "noRobotsIndex": true},
		}})

		sites := "/orgs/" + org + "/sites"
		site := api(t, s, u.Token, "POST", sites, map[string]any{"title": "Acme Docs"}, 201)["id"].(string)
		api(t, s, u.Token, "POST", sites+"/"+site+"/sections", map[string]any{"spaceId": space, "title": "Docs"}, 201)
		api(t, s, u.Token, "POST", sites+"/"+site+"/sections", map[string]any{"spaceId": live, "title": "Live"}, 201)
		api(t, s, u.Token, "PATCH", sites+"/"+site, map[string]any{"basename": "docs"}, 200)
		api(t, s, u.Token, "POST", sites+"/"+site+"/publish", nil, 200)

		quiet := []string{"quiet", "robots", "front", "later", "imported", "live/gql-quiet", "live/gql-later"}
		open := []string{"open", "overruled", "live/gql-open"}
		const meta = `<meta name="robots" content="noindex">`
		check := func(quiet, open []string) {
			t.Helper()
			sitemap := get(t, s.URL, "", "/s/docs/sitemap.xml").must(t, 200, "sitemap").body
			for _, p := range quiet {
				if strings.Contains(sitemap, "/s/docs/"+p+"</loc>") {
					t.Errorf("%s is in the sitemap:\n%s", p, sitemap)
				}
				get(t, s.URL, "", "/s/docs/"+p).must(t, 200, p).has(t, p, meta)
			}
			for _, p := range open {
				if !strings.Contains(sitemap, "/s/docs/"+p+"</loc>") {
					t.Errorf("%s is not in the sitemap:\n%s", p, sitemap)
				}
				get(t, s.URL, "", "/s/docs/"+p).must(t, 200, p).hasNot(t, p, meta)
			}
		}
		check(quiet, open)

		// GraphQL's published page says so too.
		a := s.MustGraphQL(t, "", `query($id: ID!) { q: publishedSite(id: $id) { page(path: "quiet") { noIndex } } o: publishedSite(id: $id) { page(path: "open") { noIndex } } }`,
			map[string]any{"id": site})
		if a["q"].(map[string]any)["page"].(map[string]any)["noIndex"] != true || a["o"].(map[string]any)["page"].(map[string]any)["noIndex"] != false {
			t.Errorf("PublishedPage.noIndex: %v", a)
		}

		// Clearing the field brings the page back.
		cr = api(t, s, u.Token, "POST", sp+"/change-requests", map[string]any{"subject": "Index again"}, 201)["id"].(string)
		change(cr, map[string]any{"operation": "update_page", "page": ids["quiet"], "noIndex": false})
		api(t, s, u.Token, "POST", sp+"/change-requests/"+cr+"/merge", nil, 200)
		check(quiet[1:], append(open, "quiet"))
	})
}
