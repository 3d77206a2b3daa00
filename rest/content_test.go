package rest_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// contentFixture is a space with an admin, an editor, a reader and a
// stranger, and helpers for change requests.
type contentFixture struct {
	spaceFixture
	editor testkit.User
	space  string
}

func newContentFixture(t *testing.T, s *testkit.Server) contentFixture {
	f := contentFixture{spaceFixture: newSpaceFixture(t, s)}
	f.editor, _ = s.NewUser(t, "editor@acme.com", "")
	s.AddMember(t, f.org, f.editor, testkit.RoleOf(access.Edit))
	f.space = f.createSpace(t, map[string]any{"title": "Docs"})["id"].(string)
	return f
}

func (f contentFixture) crPath(cr string) string {
	return "/v1/spaces/" + f.space + "/change-requests/" + cr
}

func (f contentFixture) newCR(t *testing.T, subject string) string {
	t.Helper()
	return f.s.Call(t, "createChangeRequest", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": subject}, 201).JSON(t)["id"].(string)
}

func (f contentFixture) edit(t *testing.T, cr string, changes ...map[string]any) map[string]any {
	t.Helper()
	return f.s.Call(t, "updateChangeRequestContent", f.editor.Token, "POST", f.crPath(cr)+"/content", map[string]any{"changes": changes}, 200).JSON(t)
}

func (f contentFixture) merge(t *testing.T, cr string, status int) map[string]any {
	t.Helper()
	return f.s.Call(t, "mergeChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/merge", nil, status).JSON(t)
}

func (f contentFixture) markdownOf(t *testing.T, pageID string) string {
	t.Helper()
	return f.s.Call(t, "getPageById", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/"+pageID+"?format=markdown", nil, 200).JSON(t)["markdown"].(string)
}

type pageNode struct {
	ID, Title, Slug, Path, Type string
	Pages                       []pageNode
}

func (f contentFixture) tree(t *testing.T, path string) []pageNode {
	t.Helper()
	var out struct{ Pages []pageNode }
	op := "listPages"
	if strings.Contains(path, "/change-requests/") {
		op = "listPagesInChangeRequest"
	}
	f.s.Call(t, op, f.reader.Token, "GET", path, nil, 200).Decode(t, &out)
	return out.Pages
}

func insertPage(md string, extra map[string]any) map[string]any {
	c := map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": md}}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

// TestContentWorkflow is the workflow: pages through a change
// request, clean merges of disjoint edits, and a conflict that changes
// nothing, by merge and by update.
func TestContentWorkflow(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newContentFixture(t, s)
		first := f.newCR(t, "First pages")

		// Three pages, two nested under the first, in one batch.
		body := "# Getting started\n\nWelcome.\n\nLine one.\nLine two.\nLine three.\n"
		f.edit(t, first,
			insertPage(body, map[string]any{"ref": "start"}),
			insertPage("---\ntitle: Install\ndescription: How to install\n---\nRun the installer.\n", map[string]any{"into": "start"}),
			insertPage("# Configure\n\nEdit the file.\n", map[string]any{"into": "start"}),
		)
		crTree := f.tree(t, f.crPath(first)+"/content/pages")
		if len(crTree) != 1 || crTree[0].Title != "Getting started" || len(crTree[0].Pages) != 2 {
			t.Fatalf("change request tree: %+v", crTree)
		}
		// Main is untouched until the merge.
		if main := f.tree(t, "/v1/spaces/"+f.space+"/content/pages"); len(main) != 0 {
			t.Fatalf("main changed before the merge: %+v", main)
		}
		res := f.merge(t, first, 200)
		if res["result"] != "merge" || res["revision"] == "" {
			t.Fatalf("merge: %v", res)
		}
		cr := s.Call(t, "getChangeRequestById", f.reader.Token, "GET", f.crPath(first), nil, 200).JSON(t)
		if cr["status"] != "merged" || cr["revisionMerged"] != res["revision"] {
			t.Fatalf("merged change request: %v", cr)
		}
		if got := s.Client().Space.GetX(ctx, f.space).RevisionID; got != res["revision"] {
			t.Fatalf("space revision %s, want %s", got, res["revision"])
		}

		tree := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		start := tree[0]
		install, configure := start.Pages[0], start.Pages[1]
		if start.Path != "getting-started" || install.Path != "getting-started/install" || configure.Title != "Configure" {
			t.Fatalf("tree: %+v", tree)
		}
		if md := f.markdownOf(t, start.ID); md != body {
			t.Fatalf("markdown %q", md)
		}
		if md := f.markdownOf(t, install.ID); md != "Run the installer.\n" {
			t.Fatalf("install markdown %q", md)
		}
		page := s.Call(t, "getPageById", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/"+install.ID, nil, 200).JSON(t)
		if page["description"] != "How to install" || page["document"] == nil {
			t.Fatalf("page as a document: %v", page)
		}

		// Two change requests edit different pages: both merge cleanly.
		a, b := f.newCR(t, "Edit install"), f.newCR(t, "Edit configure")
		f.edit(t, a, map[string]any{"operation": "update_page", "page": install.ID, "document": map[string]any{"markdown": "Run the new installer.\n"}})
		f.edit(t, b, map[string]any{"operation": "update_page", "page": configure.ID, "document": map[string]any{"markdown": "# Configure\n\nEdit config.yml.\n"}})
		f.merge(t, a, 200)
		if out := s.Call(t, "getChangeRequestById", f.reader.Token, "GET", f.crPath(b), nil, 200).JSON(t); out["outdated"] != true {
			t.Fatalf("b is not outdated after a merged: %v", out)
		}
		f.merge(t, b, 200)
		if md := f.markdownOf(t, install.ID); md != "Run the new installer.\n" {
			t.Fatalf("install after merges %q", md)
		}
		if md := f.markdownOf(t, configure.ID); md != "# Configure\n\nEdit config.yml.\n" {
			t.Fatalf("configure after merges %q", md)
		}

		// Two change requests edit the same lines of one page.
		c, d := f.newCR(t, "Line two, take one"), f.newCR(t, "Line two, take two")
		f.edit(t, c, map[string]any{"operation": "update_page", "page": start.ID, "document": map[string]any{"markdown": strings.Replace(body, "Line two.", "Line 2 (c).", 1)}})
		f.edit(t, d, map[string]any{"operation": "update_page", "page": start.ID, "document": map[string]any{"markdown": strings.Replace(body, "Line two.", "Line 2 (d).", 1)}})
		f.merge(t, c, 200)
		before := s.Snapshot(t)
		msg := s.Fail(t, "mergeChangeRequest", f.editor.Token, "POST", f.crPath(d)+"/merge", nil, 409)
		if !strings.Contains(msg, start.ID) {
			t.Fatalf("conflict message %q does not name page %s", msg, start.ID)
		}
		s.Unchanged(t, before)
		if md := f.markdownOf(t, start.ID); !strings.Contains(md, "Line 2 (c).") {
			t.Fatalf("space content changed by a failed merge: %q", md)
		}
		// Updating the losing change request from main reports the conflict the same way.
		msg = s.Fail(t, "updateChangeRequest", f.editor.Token, "POST", f.crPath(d)+"/update", nil, 409)
		if !strings.Contains(msg, start.ID) {
			t.Fatalf("update conflict message %q", msg)
		}
		s.Unchanged(t, before)

		// A change request on other lines is updated from main, then no longer outdated.
		e := f.newCR(t, "Line three")
		f.edit(t, e, map[string]any{"operation": "update_page", "page": start.ID, "document": map[string]any{"markdown": strings.Replace(strings.Replace(body, "Line two.", "Line 2 (c).", 1), "Line three.", "Line 3 (e).", 1)}})
		f.merge(t, f.newCRWith(t, install.ID, "Run it.\n"), 200)
		if s.Call(t, "getChangeRequestById", f.reader.Token, "GET", f.crPath(e), nil, 200).JSON(t)["outdated"] != true {
			t.Fatal("e not outdated")
		}
		up := s.Call(t, "updateChangeRequest", f.editor.Token, "POST", f.crPath(e)+"/update", nil, 200).JSON(t)
		if up["result"] != "update" {
			t.Fatalf("update: %v", up)
		}
		if s.Call(t, "getChangeRequestById", f.reader.Token, "GET", f.crPath(e), nil, 200).JSON(t)["outdated"] != false {
			t.Fatal("e still outdated after update")
		}
		f.merge(t, e, 200)
		if md := f.markdownOf(t, start.ID); !strings.Contains(md, "Line 2 (c).") || !strings.Contains(md, "Line 3 (e).") {
			t.Fatalf("merged lines: %q", md)
		}
		_ = changerequest.StatusMerged
	})
}

func (f contentFixture) newCRWith(t *testing.T, pageID, markdown string) string {
	cr := f.newCR(t, "edit "+pageID)
	f.edit(t, cr, map[string]any{"operation": "update_page", "page": pageID, "document": map[string]any{"markdown": markdown}})
	return cr
}

func TestChangeRequestsAndContentBadInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Pages")
		f.edit(t, cr, insertPage("# Home\n", map[string]any{"ref": "home"}), insertPage("# Guide\n", nil))
		pages := f.tree(t, f.crPath(cr)+"/content/pages")
		home := pages[0].ID

		// Lists, by id and by number, filters.
		var list struct {
			Items []map[string]any
			Count int
		}
		s.Call(t, "listChangeRequestsForSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/change-requests", nil, 200).Decode(t, &list)
		if list.Count != 1 || list.Items[0]["createdBy"].(map[string]any)["id"] != f.editor.ID {
			t.Fatalf("list: %+v", list)
		}
		s.Call(t, "listChangeRequestsForSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/change-requests?status=merged", nil, 200).Decode(t, &list)
		if list.Count != 0 {
			t.Fatalf("merged list: %+v", list)
		}
		s.Call(t, "listChangeRequestsForSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/change-requests?contributor="+f.admin.ID, nil, 200).Decode(t, &list)
		if list.Count != 0 {
			t.Fatalf("contributor filter: %+v", list)
		}
		if got := s.Call(t, "getChangeRequestById", f.reader.Token, "GET", f.crPath("1"), nil, 200).JSON(t); got["id"] != cr {
			t.Fatalf("by number: %v", got)
		}
		upd := s.Call(t, "updateChangeRequestById", f.editor.Token, "PATCH", f.crPath(cr), map[string]any{"subject": "Better pages", "status": "draft"}, 200).JSON(t)
		if upd["subject"] != "Better pages" || upd["status"] != "draft" {
			t.Fatalf("updated: %v", upd)
		}

		other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
		before := s.Snapshot(t)
		for _, c := range []struct {
			op, method, path string
			body             any
			status           int
			field            string
		}{
			{"listChangeRequestsForSpace", "GET", "/v1/spaces/" + f.space + "/change-requests?status=gone", nil, 400, "status"},
			{"listChangeRequestsForSpace", "GET", "/v1/spaces/" + f.space + "/change-requests?limit=0", nil, 400, "limit"},
			{"createChangeRequest", "POST", "/v1/spaces/" + f.space + "/change-requests", map[string]any{"subject": strings.Repeat("s", 101)}, 400, "subject"},
			{"createChangeRequest", "POST", "/v1/spaces/" + f.space + "/change-requests", map[string]any{"subject": 4}, 400, "subject"},
			{"updateChangeRequestById", "PATCH", f.crPath(cr), map[string]any{"status": "merged"}, 400, "status"},
			{"updateChangeRequestById", "PATCH", f.crPath(cr), map[string]any{"status": "done"}, 400, "status"},
			{"updateChangeRequestById", "PATCH", f.crPath(cr), `{"subject": `, 400, "malformed"},
			{"getChangeRequestById", "GET", f.crPath("999"), nil, 404, "not found"},
			{"getPageById", "GET", "/v1/spaces/" + f.space + "/content/page/nosuchpage", nil, 404, "not found"},
			{"getPageInChangeRequestById", "GET", f.crPath(cr) + "/content/page/" + home + "?format=pdf", nil, 400, "format"},
			{"getCurrentRevision", "GET", "/v1/spaces/" + f.space + "/content?metadata=maybe", nil, 400, "metadata"},
			{"getFileById", "GET", "/v1/spaces/" + f.space + "/content/files/nosuchfile", nil, 404, "not found"},
			{"listFiles", "GET", "/v1/spaces/" + f.space + "/content/files?limit=1001", nil, 400, "limit"},
			// A batch with one invalid change changes nothing.
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{
				insertPage("# Fine\n", nil), map[string]any{"operation": "update_page", "page": "nosuchpage", "title": "x"}}}, 400, "changes[1].page"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{}}, 400, "changes"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{map[string]any{"operation": "rename_page"}}}, 400, "changes[0].operation"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{map[string]any{"operation": "insert_page"}}}, 400, "changes[0].markdown"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{insertPage("x", map[string]any{"into": "nosuchpage"})}}, 400, "changes[0].into"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{map[string]any{"operation": "update_page", "page": home, "into": home}}}, 400, "changes[0].into"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{insertPage("x", map[string]any{"at": -1})}}, 400, "changes[0].at"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{insertPage("x", map[string]any{"slug": pages[1].Slug})}}, 400, "changes[0].slug"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{map[string]any{"operation": "insert_files", "files": []any{map[string]any{"name": "a.txt", "base64": "!!!", "contentType": "text/plain"}}}}}, 400, "changes[0].files[0].base64"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{map[string]any{"operation": "insert_files", "files": []any{map[string]any{"name": "big.bin", "contentType": "application/octet-stream", "base64": base64.StdEncoding.EncodeToString(make([]byte, 1<<20+1))}}}}}, 400, "changes[0].files[0].base64"},
			{"updateChangeRequestContent", "POST", f.crPath(cr) + "/content", map[string]any{"changes": []any{map[string]any{"operation": "insert_files", "files": []any{map[string]any{"name": "a.txt", "base64": "aGk=", "url": "https://example.com/a"}}}}}, 400, "changes[0].files[0].base64"},
		} {
			msg := s.Fail(t, c.op, f.editor.Token, c.method, c.path, c.body, c.status)
			if !strings.Contains(msg, c.field) {
				t.Errorf("%s %s: %q does not name %s", c.method, c.path, msg, c.field)
			}
		}
		// Roles and strangers.
		s.Fail(t, "createChangeRequest", f.reader.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{}, 403)
		s.Fail(t, "createChangeRequest", f.stranger.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{}, 404)
		s.Fail(t, "updateChangeRequestContent", f.reader.Token, "POST", f.crPath(cr)+"/content", map[string]any{"changes": []any{insertPage("x", nil)}}, 403)
		s.Fail(t, "mergeChangeRequest", f.reader.Token, "POST", f.crPath(cr)+"/merge", nil, 403)
		s.Fail(t, "getChangeRequestById", f.stranger.Token, "GET", f.crPath(cr), nil, 404)
		s.Fail(t, "listPages", f.stranger.Token, "GET", "/v1/spaces/"+f.space+"/content/pages", nil, 404)
		s.Fail(t, "getCurrentRevision", "", "GET", "/v1/spaces/"+f.space+"/content", nil, 401)
		// A change request of another space is not found under this one.
		s.Fail(t, "getChangeRequestById", f.admin.Token, "GET", "/v1/spaces/"+other+"/change-requests/"+cr, nil, 404)
		s.Unchanged(t, before)

		// Locked spaces refuse every edit with 423 and change nothing.
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "locked"}, 200)
		before = s.Snapshot(t)
		for _, c := range []struct{ op, path string }{
			{"updateChangeRequestContent", f.crPath(cr) + "/content"},
			{"mergeChangeRequest", f.crPath(cr) + "/merge"},
		} {
			var body any
			if c.op == "updateChangeRequestContent" {
				body = map[string]any{"changes": []any{insertPage("x", nil)}}
			}
			if r := s.Request(t, f.editor.Token, "POST", c.path, body); r.Status != 423 {
				t.Fatalf("%s on a locked space: %d %s", c.op, r.Status, r.Body)
			}
		}
		s.Unchanged(t, before)
		_ = space.EditModeLocked
		_ = ctx
	})
}

func TestLiveEditsAndFiles(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		path := "/v1/spaces/" + f.space + "/content"
		change := map[string]any{"changes": []any{insertPage("# Live page\n\nNow.\n", nil)}}
		if r := s.Request(t, f.editor.Token, "POST", path, change); r.Status != 409 {
			t.Fatalf("direct edit of a change-request space: %d %s", r.Status, r.Body)
		}
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)
		if r := s.Request(t, f.reader.Token, "POST", path, change); r.Status != 403 {
			t.Fatalf("reader's direct edit: %d", r.Status)
		}
		if r := s.Request(t, f.editor.Token, "POST", path, change); r.Status != 200 {
			t.Fatalf("live edit: %d %s", r.Status, r.Body)
		}
		if tree := f.tree(t, path+"/pages"); len(tree) != 1 || tree[0].Title != "Live page" {
			t.Fatalf("live tree: %+v", tree)
		}

		// Files: inline bytes stored once, served at downloadURL.
		png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
		r := s.Request(t, f.editor.Token, "POST", path, map[string]any{"changes": []any{map[string]any{"operation": "insert_files",
			"files": []any{map[string]any{"name": "dot.png", "contentType": "image/png", "base64": png}}}}})
		if r.Status != 200 {
			t.Fatalf("insert_files: %d %s", r.Status, r.Body)
		}
		var files struct {
			Items []struct {
				ID, Name, ContentType, DownloadURL string
				Size                               int
				Dimensions                         struct{ Width, Height int }
			}
			Count int
		}
		s.Call(t, "listFiles", f.reader.Token, "GET", path+"/files", nil, 200).Decode(t, &files)
		if files.Count != 1 || files.Items[0].Name != "dot.png" || files.Items[0].Dimensions.Width != 1 {
			t.Fatalf("files: %+v", files)
		}
		file := s.Call(t, "getFileById", f.reader.Token, "GET", path+"/files/"+files.Items[0].ID, nil, 200).JSON(t)
		resp, err := http.Get(file["downloadURL"].(string))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := base64.StdEncoding.DecodeString(png)
		if resp.StatusCode != 200 || string(got) != string(want) || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("download: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		// A file fetched from a URL (the test server is local: fetching private addresses is allowed in tests).
		r = s.Request(t, f.editor.Token, "POST", path, map[string]any{"changes": []any{map[string]any{"operation": "insert_files",
			"files": []any{map[string]any{"name": "copy.png", "url": file["downloadURL"]}}}}})
		if r.Status != 200 {
			t.Fatalf("insert_files by url: %d %s", r.Status, r.Body)
		}
		s.Call(t, "listFiles", f.reader.Token, "GET", path+"/files", nil, 200).Decode(t, &files)
		if files.Count != 2 || files.Items[1].ContentType != "image/png" {
			t.Fatalf("files after url: %+v", files)
		}
	})
}

// liveEdit applies changes to a live space through POST /v1/spaces/{id}/content
// (Folio's extension: no reference schema to check it against).
func liveEdit(t *testing.T, s *testkit.Server, token, spaceID string, changes ...any) {
	t.Helper()
	if r := s.Request(t, token, "POST", "/v1/spaces/"+spaceID+"/content", map[string]any{"changes": changes}); r.Status != 200 {
		t.Fatalf("live edit: %d %s", r.Status, r.Body)
	}
}

// TestChangeRequestContentReads covers the change request's own content
// reads, with unknown ids and strangers.
func TestChangeRequestContentReads(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Reads")
		png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
		f.edit(t, cr, insertPage("# Only here\n\nText.\n", nil), map[string]any{"operation": "insert_files",
			"files": []any{map[string]any{"name": "dot.png", "contentType": "image/png", "base64": png}}})
		rev := s.Call(t, "getRevisionOfChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content", nil, 200).JSON(t)
		if rev["object"] != "revision" || rev["type"] != "edits" || len(rev["pages"].([]any)) != 1 || len(rev["files"].([]any)) != 1 {
			t.Fatalf("revision: %v", rev)
		}
		pageID := rev["pages"].([]any)[0].(map[string]any)["id"].(string)
		fileID := rev["files"].([]any)[0].(map[string]any)["id"].(string)
		page := s.Call(t, "getPageInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/page/"+pageID+"?format=markdown", nil, 200).JSON(t)
		if page["markdown"] != "# Only here\n\nText.\n" {
			t.Fatalf("page: %v", page)
		}
		var files struct{ Count int }
		s.Call(t, "listFilesInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/files", nil, 200).Decode(t, &files)
		if files.Count != 1 {
			t.Fatalf("files: %+v", files)
		}
		if got := s.Call(t, "getFileInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/files/"+fileID, nil, 200).JSON(t); got["name"] != "dot.png" {
			t.Fatalf("file: %v", got)
		}
		// The space itself has neither.
		s.Fail(t, "getPageById", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/"+pageID, nil, 404)
		s.Fail(t, "getFileById", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files/"+fileID, nil, 404)
		for _, c := range []struct{ op, path string }{
			{"getRevisionOfChangeRequestById", "/content"},
			{"listPagesInChangeRequest", "/content/pages"},
			{"listFilesInChangeRequestById", "/content/files"},
			{"getFileInChangeRequestById", "/content/files/" + fileID},
			{"getPageInChangeRequestById", "/content/page/" + pageID},
		} {
			s.Fail(t, c.op, f.stranger.Token, "GET", f.crPath(cr)+c.path, nil, 404)
			s.Fail(t, c.op, f.reader.Token, "GET", f.crPath("nosuchcr")+c.path, nil, 404)
			s.Fail(t, c.op, "", "GET", f.crPath(cr)+c.path, nil, 401)
		}
		s.Fail(t, "getFileInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/files/nosuchfile", nil, 404)
		s.Fail(t, "listFilesInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/files?limit=x", nil, 400)
		s.Fail(t, "getPageInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/page/"+pageID+"?format=html", nil, 400)
	})
}

// TestConcurrentInsertsMerge: two change requests that each add a page to
// the same section both merge, and the section keeps both pages.
func TestConcurrentInsertsMerge(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		base := f.newCR(t, "Section")
		f.edit(t, base, insertPage("# Section\n", map[string]any{"ref": "s"}), insertPage("# First\n", map[string]any{"into": "s"}))
		f.merge(t, base, 200)
		section := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")[0].ID
		a, b := f.newCR(t, "Add A"), f.newCR(t, "Add B")
		f.edit(t, a, insertPage("# Added by A\n", map[string]any{"into": section}))
		f.edit(t, b, insertPage("# Added by B\n", map[string]any{"into": section, "at": 0}))
		f.merge(t, a, 200)
		f.merge(t, b, 200)
		kids := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")[0].Pages
		var titles []string
		for _, k := range kids {
			titles = append(titles, k.Title)
		}
		if strings.Join(titles, ",") != "Added by B,First,Added by A" {
			t.Fatalf("section after both merges: %v", titles)
		}
	})
}
