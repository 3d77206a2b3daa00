package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// describeChanges writes each change as one line: type, page title (or file
// name), and the attributes or the parents of a move.
func describeChanges(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	for _, c := range body["changes"].([]any) {
		c := c.(map[string]any)
		line := c["type"].(string)
		if p, ok := c["page"].(map[string]any); ok {
			line += " " + p["title"].(string) + " " + p["path"].(string)
		}
		if f, ok := c["file"].(map[string]any); ok {
			line += " " + f["name"].(string)
		}
		if attrs, ok := c["attributes"].(map[string]any); ok {
			for _, k := range []string{"title", "slug", "document", "emoji", "description", "hidden", "name"} {
				if v, ok := attrs[k].(map[string]any); ok {
					line += fmt.Sprintf(" %s:%v->%v", k, v["before"], v["after"])
				}
			}
		}
		if parent, ok := c["parent"].(map[string]any); ok {
			title := func(k string) string {
				if p, ok := parent[k].(map[string]any); ok {
					return p["title"].(string)
				}
				return "root"
			}
			line += " " + title("before") + "->" + title("after")
		}
		out = append(out, line)
	}
	return out
}

// TestChangeRequestChanges is the diff test: a change request that
// adds, removes, renames, moves and edits pages (and adds a file) reports
// exactly those changes, in the tree's order; its merge reports the same,
// with the change request it came from.
func TestChangeRequestChanges(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		sp := "/v1/spaces/" + f.space
		first := f.newCR(t, "Base")
		f.edit(t, first,
			insertPage("# Guide\n\nRead me.\n", map[string]any{"ref": "g"}),
			insertPage("# Install\n\nRun it.\n", map[string]any{"into": "g"}),
			insertPage("# Configure\n\nEdit it.\n", map[string]any{"into": "g"}),
			insertPage("# Old\n\nGone soon.\n", nil),
			insertPage("# Ref\n\nLook up.\n", nil),
		)
		f.merge(t, first, 200)
		ids := map[string]string{}
		for _, p := range f.tree(t, sp+"/content/pages") {
			ids[p.Title] = p.ID
			for _, c := range p.Pages {
				ids[c.Title] = c.ID
			}
		}
		cr := f.newCR(t, "Changes")
		// Nothing changed yet.
		if got := s.Call(t, "getChangeRequestChanges", f.reader.Token, "GET", f.crPath(cr)+"/changes", nil, 200).JSON(t); len(got["changes"].([]any)) != 0 || got["more"].(float64) != 0 {
			t.Fatalf("fresh change request: %v", got)
		}
		f.edit(t, cr,
			insertPage("# New\n\nFresh.\n", map[string]any{"into": ids["Configure"]}),
			map[string]any{"operation": "delete_page", "page": ids["Old"]},
			map[string]any{"operation": "update_page", "page": ids["Install"], "title": "Setup", "slug": "setup"},
			map[string]any{"operation": "update_page", "page": ids["Ref"], "into": ids["Guide"]},
			map[string]any{"operation": "update_page", "page": ids["Configure"], "document": map[string]any{"markdown": "# Configure\n\nEdit it twice.\n"}},
			map[string]any{"operation": "insert_files", "files": []any{map[string]any{"name": "a.txt", "base64": "aGk=", "contentType": "text/plain"}}},
		)
		want := []string{
			"page_edited Setup guide/setup title:Install->Setup slug:install->setup",
			"page_edited Configure guide/configure document:# Configure\n\nEdit it.\n-># Configure\n\nEdit it twice.\n",
			"page_created New guide/configure/new",
			"page_moved Ref guide/ref root->Guide",
			"page_deleted Old old",
			"file_created a.txt",
		}
		got := describeChanges(t, s.Call(t, "getChangeRequestChanges", f.reader.Token, "GET", f.crPath(cr)+"/changes?limit=100", nil, 200).JSON(t))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// limit cuts, and more counts what was left out.
		two := s.Call(t, "getChangeRequestChanges", f.reader.Token, "GET", f.crPath(cr)+"/changes?limit=2", nil, 200).JSON(t)
		if len(two["changes"].([]any)) != 2 || two["more"].(float64) != 4 {
			t.Fatalf("limit 2: %v", two)
		}

		// The merge revision reports the same changes against its first parent.
		merged := f.merge(t, cr, 200)["revision"].(string)
		body := s.Call(t, "getRevisionSemanticChanges", f.reader.Token, "GET", sp+"/revisions/"+merged+"/changes?limit=100", nil, 200).JSON(t)
		if got := describeChanges(t, body); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("merge revision changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if mf, _ := body["mergedFrom"].(map[string]any); mf == nil || mf["id"] != cr {
			t.Fatalf("mergedFrom: %v", body["mergedFrom"])
		}
		if got := s.Call(t, "getRevisionSemanticChanges", f.reader.Token, "GET", sp+"/revisions/"+merged+"/changes", nil, 200).JSON(t); len(got["changes"].([]any)) != 6 || got["more"].(float64) != 0 {
			t.Fatalf("default limit: %v", got)
		}

		// Bad input names the field; another space's revision, an unknown
		// change request and a stranger get 404.
		for _, c := range []struct{ op, path string }{
			{"getChangeRequestChanges", f.crPath(cr) + "/changes?limit=0"},
			{"getChangeRequestChanges", f.crPath(cr) + "/changes?limit=x"},
			{"getRevisionSemanticChanges", sp + "/revisions/" + merged + "/changes?limit=1001"},
		} {
			if msg := s.Fail(t, c.op, f.reader.Token, "GET", c.path, nil, 400); !strings.Contains(msg, "limit") {
				t.Fatalf("%s: %s", c.path, msg)
			}
			s.Fail(t, c.op, f.stranger.Token, "GET", c.path, nil, 404)
		}
		other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
		s.Fail(t, "getRevisionSemanticChanges", f.admin.Token, "GET", "/v1/spaces/"+other+"/revisions/"+merged+"/changes", nil, 404)
		s.Fail(t, "getChangeRequestChanges", f.admin.Token, "GET", "/v1/spaces/"+other+"/change-requests/"+cr+"/changes", nil, 404)
		s.Fail(t, "getChangeRequestChanges", f.reader.Token, "GET", f.crPath("nope")+"/changes", nil, 404)
		s.Fail(t, "getRevisionSemanticChanges", f.stranger.Token, "GET", sp+"/revisions/"+merged+"/changes", nil, 404)
		s.Fail(t, "getChangeRequestChanges", f.stranger.Token, "GET", f.crPath(cr)+"/changes", nil, 404)
	})
}
