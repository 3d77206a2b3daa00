package rest_test

import (
	"testing"

	"github.com/folio/folio/internal/testkit"
)

func TestLinksAndBacklinks(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)
		png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
		liveEdit(t, s, f.editor.Token, f.space, map[string]any{"operation": "insert_files",
			"files": []any{map[string]any{"name": "dot.png", "contentType": "image/png", "base64": png}}})
		var files struct{ Items []struct{ ID string } }
		s.Call(t, "listFiles", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files", nil, 200).Decode(t, &files)
		fileID := files.Items[0].ID
		liveEdit(t, s, f.editor.Token, f.space,
			insertPage("# Guide\n\n## Setup\n\nSee [the reference](reference.md#options), [nowhere](missing.md), "+
				"[top](#setup), [bad anchor](#nope), [site](https://example.com), [app]("+s.URL+"/s/x), [api]("+s.URL+"/v1/spaces/x), [old app]("+s.URL+"/o/x), "+
				"![dot](/files/"+fileID+") and [gone file](/files/nosuchfile).\n", nil),
			insertPage("# Reference\n\n## Options\n\nAll options.\n", nil),
		)
		var links struct {
			Items []struct {
				Status             string
				TargetReference    map[string]any
				LocationReferences []map[string]any
			}
			Count int
			Stats struct {
				Total  int
				Broken struct{ Total, ChangeRequest int }
			}
		}
		s.Call(t, "listSpaceLinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/links", nil, 200).Decode(t, &links)
		if links.Stats.Total != 10 || links.Stats.Broken.Total != 4 {
			t.Fatalf("stats: %+v", links.Stats)
		}
		statuses := map[string]int{}
		for _, it := range links.Items {
			statuses[it.Status]++
			if len(it.LocationReferences) != 1 || it.LocationReferences[0]["page"].(map[string]any)["title"] != "Guide" {
				t.Fatalf("locations: %+v", it.LocationReferences)
			}
		}
		if statuses["ok"] != 4 || statuses["broken"] != 4 || statuses["in-app"] != 2 {
			t.Fatalf("statuses: %v", statuses)
		}
		s.Call(t, "listSpaceLinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/links?status=broken", nil, 200).Decode(t, &links)
		if links.Count != 4 {
			t.Fatalf("broken filter: %d", links.Count)
		}

		// A change request that breaks a link shows it in its stats.
		pages := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		guide, reference := pages[0].ID, pages[1].ID
		cr := f.newCR(t, "Rename options")
		f.edit(t, cr, map[string]any{"operation": "update_page", "page": reference, "document": map[string]any{"markdown": "# Reference\n\n## Settings\n\nAll settings.\n"}})
		s.Call(t, "listPageLinksInChangeRequest", f.reader.Token, "GET", f.crPath(cr)+"/content/page/"+guide+"/links", nil, 200).Decode(t, &links)
		if links.Stats.Broken.Total != 5 || links.Stats.Broken.ChangeRequest != 1 {
			t.Fatalf("change request stats: %+v", links.Stats)
		}
		s.Call(t, "listPageLinksInSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/"+reference+"/links", nil, 200).Decode(t, &links)
		if links.Stats.Total != 0 {
			t.Fatalf("reference page links: %+v", links.Stats)
		}

		// Backlinks of the file.
		var back struct {
			Items []struct {
				Kind string
				Page map[string]any
			}
			Count int
		}
		s.Call(t, "listSpaceFileBacklinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files/"+fileID+"/backlinks", nil, 200).Decode(t, &back)
		if back.Count != 1 || back.Items[0].Page["id"] != guide {
			t.Fatalf("backlinks: %+v", back)
		}
		s.Call(t, "listChangeRequestFileBacklinks", f.reader.Token, "GET", f.crPath(cr)+"/content/files/"+fileID+"/backlinks", nil, 200).Decode(t, &back)
		if back.Count != 1 {
			t.Fatalf("change request backlinks: %+v", back)
		}

		// Bad input and strangers.
		s.Fail(t, "listSpaceLinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/links?status=fine", nil, 400)
		s.Fail(t, "listSpaceLinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/links?limit=0", nil, 400)
		s.Fail(t, "listSpaceLinks", f.stranger.Token, "GET", "/v1/spaces/"+f.space+"/links", nil, 404)
		s.Fail(t, "listPageLinksInSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/nosuchpage/links", nil, 404)
		s.Fail(t, "listPageLinksInChangeRequest", f.reader.Token, "GET", f.crPath("nosuchcr")+"/content/page/"+guide+"/links", nil, 404)
		s.Fail(t, "listSpaceFileBacklinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files/nosuchfile/backlinks", nil, 404)
		s.Fail(t, "listChangeRequestFileBacklinks", f.stranger.Token, "GET", f.crPath(cr)+"/content/files/"+fileID+"/backlinks", nil, 404)
		s.Fail(t, "listSpaceLinks", "", "GET", "/v1/spaces/"+f.space+"/links", nil, 401)
	})
}
