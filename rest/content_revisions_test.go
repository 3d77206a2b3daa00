package rest_test

import (
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// revisionsFixture is a space whose main line has two revisions (the
// initial one and a merge holding guide/install and a file) and an open
// change request that adds guide/extra.
type revisionsFixture struct {
	contentFixture
	initial, merged, crRev string
	cr, guide, install     string
	extra, file            string
}

func newRevisionsFixture(t *testing.T, s *testkit.Server) revisionsFixture {
	f := revisionsFixture{contentFixture: newContentFixture(t, s)}
	sp := "/v1/spaces/" + f.space
	f.initial = s.Call(t, "getCurrentRevision", f.reader.Token, "GET", sp+"/content", nil, 200).JSON(t)["id"].(string)
	first := f.newCR(t, "Guide")
	f.edit(t, first,
		insertPage("# Guide\n\nRead me.\n", map[string]any{"ref": "g"}),
		insertPage("# Install\n\nRun it.\n", map[string]any{"into": "g"}),
		map[string]any{"operation": "insert_files", "files": []any{map[string]any{"name": "a.txt", "base64": "aGk=", "contentType": "text/plain"}}},
	)
	f.merged = f.merge(t, first, 200)["revision"].(string)
	tree := f.tree(t, sp+"/content/pages")
	f.guide, f.install = tree[0].ID, tree[0].Pages[0].ID
	files := s.Call(t, "listFiles", f.reader.Token, "GET", sp+"/content/files", nil, 200).JSON(t)["items"].([]any)
	f.file = files[0].(map[string]any)["id"].(string)
	f.cr = f.newCR(t, "Extra")
	f.edit(t, f.cr, insertPage("# Extra\n\nMore.\n", map[string]any{"into": f.guide}))
	f.crRev = s.Call(t, "getRevisionOfChangeRequestById", f.reader.Token, "GET", f.crPath(f.cr)+"/content", nil, 200).JSON(t)["id"].(string)
	f.extra = f.tree(t, f.crPath(f.cr)+"/content/pages")[0].Pages[1].ID
	return f
}

func TestPageByPath(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newRevisionsFixture(t, s)
		sp := "/v1/spaces/" + f.space
		for _, path := range []string{"guide/install", "guide%2Finstall", "guide/install/", "/guide/install"} {
			p := s.Call(t, "getPageByPath", f.reader.Token, "GET", sp+"/content/path/"+path, nil, 200).JSON(t)
			if p["id"] != f.install || p["path"] != "guide/install" || p["title"] != "Install" {
				t.Fatalf("%s: %v", path, p)
			}
		}
		p := s.Call(t, "getPageByPath", f.reader.Token, "GET", sp+"/content/path/guide?format=markdown", nil, 200).JSON(t)
		if p["id"] != f.guide || !strings.Contains(p["markdown"].(string), "Read me.") {
			t.Fatalf("guide as markdown: %v", p)
		}
		// The change request's page is on its content, not on the space's.
		p = s.Call(t, "getPageInChangeRequestByPath", f.reader.Token, "GET", f.crPath(f.cr)+"/content/path/guide/extra", nil, 200).JSON(t)
		if p["id"] != f.extra || p["path"] != "guide/extra" {
			t.Fatalf("change request page: %v", p)
		}
		if p := s.Call(t, "getPageInChangeRequestByPath", f.reader.Token, "GET", f.crPath(f.cr)+"/content/path/guide/install", nil, 200).JSON(t); p["id"] != f.install {
			t.Fatalf("change request keeps install: %v", p)
		}
		s.Fail(t, "getPageByPath", f.reader.Token, "GET", sp+"/content/path/guide/extra", nil, 404)
		s.Fail(t, "getPageByPath", f.reader.Token, "GET", sp+"/content/path/nothing", nil, 404)
		s.Fail(t, "getPageInChangeRequestByPath", f.reader.Token, "GET", f.crPath(f.cr)+"/content/path/guide/nothing", nil, 404)
		// Bad input names the field; a stranger gets 404 whatever the input.
		if msg := s.Fail(t, "getPageByPath", f.reader.Token, "GET", sp+"/content/path/guide?format=pdf", nil, 400); !strings.Contains(msg, "format") {
			t.Fatalf("bad format: %s", msg)
		}
		s.Fail(t, "getPageByPath", f.stranger.Token, "GET", sp+"/content/path/guide", nil, 404)
		s.Fail(t, "getPageByPath", f.stranger.Token, "GET", sp+"/content/path/guide?format=pdf", nil, 404)
		s.Fail(t, "getPageInChangeRequestByPath", f.stranger.Token, "GET", f.crPath(f.cr)+"/content/path/guide/extra", nil, 404)
	})
}

func TestRevisionsByID(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newRevisionsFixture(t, s)
		sp := "/v1/spaces/" + f.space
		rv := func(id string) string { return sp + "/revisions/" + id }

		// The current revision, and the earlier one through its parents.
		cur := s.Call(t, "getRevisionById", f.reader.Token, "GET", rv(f.merged), nil, 200).JSON(t)
		if cur["id"] != f.merged || cur["type"] != "merge" {
			t.Fatalf("merged revision: %v", cur)
		}
		parents := cur["parents"].([]any)
		if len(parents) == 0 || parents[0] != f.initial {
			t.Fatalf("parents %v, want %s first", parents, f.initial)
		}
		old := s.Call(t, "getRevisionById", f.reader.Token, "GET", rv(parents[0].(string)), nil, 200).JSON(t)
		if old["id"] != f.initial {
			t.Fatalf("initial revision: %v", old)
		}
		var tree struct{ Pages []pageNode }
		s.Call(t, "listPagesInRevisionById", f.reader.Token, "GET", rv(f.initial)+"/pages", nil, 200).Decode(t, &tree)
		if len(tree.Pages) != 0 {
			t.Fatalf("initial revision has pages: %+v", tree.Pages)
		}
		s.Call(t, "listPagesInRevisionById", f.reader.Token, "GET", rv(f.merged)+"/pages", nil, 200).Decode(t, &tree)
		if len(tree.Pages) != 1 || tree.Pages[0].ID != f.guide || len(tree.Pages[0].Pages) != 1 {
			t.Fatalf("merged revision pages: %+v", tree.Pages)
		}
		// A change request's revision resolves by id with its own pages.
		s.Call(t, "listPagesInRevisionById", f.reader.Token, "GET", rv(f.crRev)+"/pages", nil, 200).Decode(t, &tree)
		if len(tree.Pages) != 1 || len(tree.Pages[0].Pages) != 2 || tree.Pages[0].Pages[1].ID != f.extra {
			t.Fatalf("change request revision pages: %+v", tree.Pages)
		}
		if p := s.Call(t, "getPageInRevisionById", f.reader.Token, "GET", rv(f.crRev)+"/page/"+f.extra+"?format=markdown", nil, 200).JSON(t); p["id"] != f.extra || !strings.Contains(p["markdown"].(string), "More.") {
			t.Fatalf("page by id: %v", p)
		}
		if p := s.Call(t, "getPageInRevisionByPath", f.reader.Token, "GET", rv(f.crRev)+"/path/guide%2Fextra", nil, 200).JSON(t); p["id"] != f.extra {
			t.Fatalf("page by path: %v", p)
		}
		s.Fail(t, "getPageInRevisionById", f.reader.Token, "GET", rv(f.merged)+"/page/"+f.extra, nil, 404)
		s.Fail(t, "getPageInRevisionByPath", f.reader.Token, "GET", rv(f.initial)+"/path/guide", nil, 404)

		files := s.Call(t, "listFilesInRevisionById", f.reader.Token, "GET", rv(f.merged)+"/files", nil, 200).JSON(t)["items"].([]any)
		if len(files) != 1 || files[0].(map[string]any)["id"] != f.file {
			t.Fatalf("files: %v", files)
		}
		if got := s.Call(t, "listFilesInRevisionById", f.reader.Token, "GET", rv(f.initial)+"/files", nil, 200).JSON(t)["items"].([]any); len(got) != 0 {
			t.Fatalf("initial files: %v", got)
		}
		if fl := s.Call(t, "getFileInRevisionById", f.reader.Token, "GET", rv(f.merged)+"/files/"+f.file, nil, 200).JSON(t); fl["name"] != "a.txt" {
			t.Fatalf("file: %v", fl)
		}
		s.Fail(t, "getFileInRevisionById", f.reader.Token, "GET", rv(f.initial)+"/files/"+f.file, nil, 404)

		// Another space's revision, an unknown one, a stranger: 404.
		other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
		otherRev := s.Call(t, "getCurrentRevision", f.admin.Token, "GET", "/v1/spaces/"+other+"/content", nil, 200).JSON(t)["id"].(string)
		for _, c := range []struct{ op, suffix string }{
			{"getRevisionById", ""}, {"listPagesInRevisionById", "/pages"}, {"listFilesInRevisionById", "/files"},
			{"getFileInRevisionById", "/files/" + f.file}, {"getPageInRevisionById", "/page/" + f.guide},
			{"getPageInRevisionByPath", "/path/guide"},
		} {
			s.Fail(t, c.op, f.admin.Token, "GET", rv(otherRev)+c.suffix, nil, 404)
			s.Fail(t, c.op, f.admin.Token, "GET", "/v1/spaces/"+other+"/revisions/"+f.merged+c.suffix, nil, 404)
			s.Fail(t, c.op, f.reader.Token, "GET", rv("nope")+c.suffix, nil, 404)
			s.Fail(t, c.op, f.stranger.Token, "GET", rv(f.merged)+c.suffix, nil, 404)
		}
		// Bad input names the field; for a stranger it is still 404.
		for _, c := range []struct{ op, path, field string }{
			{"getRevisionById", rv(f.merged) + "?metadata=maybe", "metadata"},
			{"listFilesInRevisionById", rv(f.merged) + "/files?limit=0", "limit"},
			{"getPageInRevisionById", rv(f.merged) + "/page/" + f.guide + "?format=pdf", "format"},
		} {
			if msg := s.Fail(t, c.op, f.reader.Token, "GET", c.path, nil, 400); !strings.Contains(msg, c.field) {
				t.Fatalf("%s: %s", c.path, msg)
			}
			s.Fail(t, c.op, f.stranger.Token, "GET", c.path, nil, 404)
		}
	})
}
