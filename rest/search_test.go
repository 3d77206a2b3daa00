package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// TestSearch: over 2,000 pages the page holding a unique phrase comes
// first, results follow merges and live edits, and no space the caller
// cannot read is ever returned.
func TestSearch(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)
		s.SeedPages(t, f.space, 2000) // "Page i": Line one of page i...
		if err := s.App.Resolver.ReindexSpace(context.Background(), f.space); err != nil {
			t.Fatal(err)
		}
		liveEdit(t, s, f.editor.Token, f.space,
			insertPage("# Troubleshooting\n\nIntro.\n\n## Rare errors\n\nWhen the flux capacitor overheats, unplug it.\n", nil))

		var res struct {
			Items []struct {
				ID, Title, Path string
				Sections        []struct{ ID, Title, Path, Body string }
			}
			Count             int
			CountIsLowerBound bool
			Next              *struct{ Page string }
		}
		s.Call(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?query=flux+capacitor", nil, 200).Decode(t, &res)
		if len(res.Items) == 0 || res.Items[0].Title != "Troubleshooting" {
			t.Fatalf("unique phrase: %+v", res.Items)
		}
		if sec := res.Items[0].Sections; len(sec) == 0 || sec[0].ID != "rare-errors" || !strings.Contains(sec[0].Body, "flux capacitor") ||
			sec[0].Path != "troubleshooting#rare-errors" {
			t.Fatalf("sections: %+v", sec)
		}
		// Paging through ranked results: past the rank limit (1,000 by
		// default) the count is the limit, said to be a lower bound.
		s.Call(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?query=line&limit=10", nil, 200).Decode(t, &res)
		if len(res.Items) != 10 || res.Next == nil || res.Count != 1000 || !res.CountIsLowerBound {
			t.Fatalf("line: %d items, count %d, countIsLowerBound %v", len(res.Items), res.Count, res.CountIsLowerBound)
		}
		first := res.Items[0].ID
		s.Call(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?query=line&limit=10&page="+res.Next.Page, nil, 200).Decode(t, &res)
		if len(res.Items) != 10 || res.Items[0].ID == first {
			t.Fatalf("second page: %+v", res.Items[:1])
		}

		// The index follows merges.
		cr := f.newCR(t, "New page")
		f.edit(t, cr, insertPage("# Quasar alignment\n\nAlign the quasar.\n", nil))
		s.Call(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?query=quasar", nil, 200).Decode(t, &res)
		if res.Count != 0 {
			t.Fatalf("unmerged content found: %+v", res.Items)
		}
		f.merge(t, cr, 200)
		s.Call(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?query=quasar", nil, 200).Decode(t, &res)
		if res.Count != 1 || res.Items[0].Title != "Quasar alignment" {
			t.Fatalf("merged content not found: %+v", res)
		}

		// Organization search never returns a space the caller cannot read.
		secret := f.createSpace(t, map[string]any{"title": "Secret"})["id"].(string)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+secret, map[string]any{"defaultLevel": nil, "editMode": "live"}, 200)
		liveEdit(t, s, f.admin.Token, secret, insertPage("# Flux secrets\n\nThe flux capacitor blueprint.\n", nil))
		var orgRes struct {
			Items []struct {
				ID    string
				Pages []struct{ Title string }
			}
			Count int
		}
		s.Call(t, "searchOrganizationContent", f.reader.Token, "GET", "/v1/orgs/"+f.org+"/search?query=flux", nil, 200).Decode(t, &orgRes)
		if orgRes.Count != 1 || orgRes.Items[0].ID != f.space {
			t.Fatalf("reader's organization search: %+v", orgRes)
		}
		s.Call(t, "searchOrganizationContent", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/search?query=flux", nil, 200).Decode(t, &orgRes)
		if orgRes.Count != 2 {
			t.Fatalf("admin's organization search: %+v", orgRes)
		}
		s.Fail(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+secret+"/search?query=flux", nil, 404)

		// Bad input.
		for _, q := range []string{"", "query=", "query=" + strings.Repeat("a", 513), "query=x&limit=0"} {
			s.Fail(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?"+q, nil, 400)
		}
		s.Fail(t, "searchOrganizationContent", f.stranger.Token, "GET", "/v1/orgs/"+f.org+"/search?query=flux", nil, 404)
		s.Fail(t, "searchSpaceContent", "", "GET", "/v1/spaces/"+f.space+"/search?query=flux", nil, 401)
		// Odd input is a query, not an error.
		for _, q := range []string{`"unclosed`, `AND OR NOT`, `*`, `a:b`, `-x`, `()`} {
			s.Call(t, "searchSpaceContent", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/search?query="+strings.ReplaceAll(q, " ", "+"), nil, 200)
		}
		_ = access.Read
	})
}
