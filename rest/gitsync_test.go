package rest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/gitsyncoperation"
	"github.com/folio/folio/ent/job"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/internal/gitsync"
	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/testkit/gitserver"
)

// gitFixture is a content fixture on a server whose job runner runs, with
// an in-process Git server.
type gitFixture struct {
	contentFixture
	js  *testkit.JobServer
	git *gitserver.Server
}

func forEachGitDB(t *testing.T, fn func(t *testing.T, f gitFixture)) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			js := testkit.StartJobs(t, kind, nil)
			f := gitFixture{contentFixture: newContentFixture(t, js.Server), js: js, git: gitserver.New(t)}
			f.setEditMode(t, f.space, "live")
			fn(t, f)
		})
	}
}

func (f gitFixture) setEditMode(t *testing.T, space string, mode any) {
	t.Helper()
	f.s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+space, map[string]any{"editMode": mode}, 200)
}

func (f gitFixture) gitPath(space, what string) string { return "/v1/spaces/" + space + "/git/" + what }

func (f gitFixture) importRepo(t *testing.T, space string, body map[string]any) map[string]any {
	t.Helper()
	f.s.Call(t, "importGitRepository", f.editor.Token, "POST", f.gitPath(space, "import"), body, 204)
	return f.waitGit(t, space, "lastImport")
}

func (f gitFixture) exportRepo(t *testing.T, space string, body map[string]any) map[string]any {
	t.Helper()
	f.s.Call(t, "exportToGitRepository", f.editor.Token, "POST", f.gitPath(space, "export"), body, 204)
	return f.waitGit(t, space, "lastExport")
}

// waitGit waits for the space's last operation of a direction to end and
// answers it.
func (f gitFixture) waitGit(t *testing.T, space, which string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info := f.s.Call(t, "getSpaceGitInfo", f.reader.Token, "GET", f.gitPath(space, "info"), nil, 200).JSON(t)
		if op, _ := info[which].(map[string]any); op != nil && op["state"] != "running" {
			return op
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s of %s never ended: %v", which, space, info)
		}
	}
}

func (f gitFixture) editSpace(t *testing.T, space string, changes ...map[string]any) {
	t.Helper()
	if r := f.s.Request(t, f.editor.Token, "POST", "/v1/spaces/"+space+"/content", map[string]any{"changes": changes}); r.Status != 200 {
		t.Fatalf("edit %s: %d %s", space, r.Status, r.Body)
	}
}

// spaceContent is a space's pages (with their markdown) and files, ids
// left out, for comparing two spaces.
type syncedPage struct {
	Title, Slug, Emoji, Description, Markdown string
	Hidden                                    bool
	Pages                                     []syncedPage
}

func (f gitFixture) content(t *testing.T, space string) ([]syncedPage, map[string]string) {
	t.Helper()
	var rev struct {
		Pages []struct {
			ID, Title, Slug, Emoji, Description string
			Hidden                              bool
			Pages                               []map[string]any
		}
		Files []struct{ ID, Name, DownloadURL string }
	}
	f.s.Call(t, "getCurrentRevision", f.reader.Token, "GET", "/v1/spaces/"+space+"/content", nil, 200).Decode(t, &rev)
	files := map[string]string{}
	names := map[string]string{}
	for _, fl := range rev.Files {
		names[fl.ID] = fl.Name
		files[fl.Name] = fl.DownloadURL
	}
	var walk func(ps []map[string]any) []syncedPage
	page := func(id, title, slug, emoji, desc string, hidden bool, children []map[string]any) syncedPage {
		md := f.s.Call(t, "getPageById", f.reader.Token, "GET", "/v1/spaces/"+space+"/content/page/"+id+"?format=markdown", nil, 200).JSON(t)["markdown"].(string)
		for fid, name := range names { // file ids differ between spaces
			md = strings.ReplaceAll(md, fid, "file:"+name)
		}
		return syncedPage{Title: title, Slug: slug, Emoji: emoji, Description: desc, Hidden: hidden, Markdown: md, Pages: walk(children)}
	}
	str := func(v any) string { s, _ := v.(string); return s }
	walk = func(ps []map[string]any) []syncedPage {
		var out []syncedPage
		for _, p := range ps {
			var children []map[string]any
			if cs, ok := p["pages"].([]any); ok {
				for _, c := range cs {
					children = append(children, c.(map[string]any))
				}
			}
			hidden, _ := p["hidden"].(bool)
			out = append(out, page(str(p["id"]), str(p["title"]), str(p["slug"]), str(p["emoji"]), str(p["description"]), hidden, children))
		}
		return out
	}
	var top []syncedPage
	for _, p := range rev.Pages {
		top = append(top, page(p.ID, p.Title, p.Slug, p.Emoji, p.Description, p.Hidden, p.Pages))
	}
	return top, files
}

// seedSpace gives a space nested pages, a hidden page, an emoji, a
// description and an image its page shows.
func (f gitFixture) seedSpace(t *testing.T, space string) {
	t.Helper()
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfolio-test-image"))
	f.editSpace(t, space, map[string]any{"operation": "insert_files", "files": []any{
		map[string]any{"name": "diagram one.png", "contentType": "image/png", "base64": png}}})
	var rev struct{ Files []struct{ ID string } }
	f.s.Call(t, "getCurrentRevision", f.reader.Token, "GET", "/v1/spaces/"+space+"/content", nil, 200).Decode(t, &rev)
	img := rev.Files[0].ID
	f.editSpace(t, space,
		insertPage("# Welcome\n\nStart here.\n", map[string]any{"ref": "home"}),
		insertPage("# Guide\n\nThe guide.\n", map[string]any{"ref": "guide", "emoji": "📘", "description": "How to use it"}),
		insertPage("# Install\n\nSee the diagram:\n\n![Diagram](/files/"+img+")\n", map[string]any{"into": "guide"}),
		insertPage("# Secret\n\nHidden page.\n", map[string]any{"into": "guide", "hidden": true}),
		insertPage("# FAQ\n\n{% hint style=\"info\" %}\nAsk us.\n{% endhint %}\n", nil),
	)
}

// TestGitRoundTrip: a space exported in GitBook's layout and imported into
// another space gives back the same tree, pages and files; the state says
// where both operations left the branch.
func TestGitRoundTrip(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		src := f.space
		f.seedSpace(t, src)
		repo := f.git.Repo("docs")
		op := f.exportRepo(t, src, map[string]any{"url": repo, "ref": "refs/heads/main", "commitMessage": "Docs from Folio"})
		if op["state"] != "success" || op["commit"] != f.git.Head("docs", "main") {
			t.Fatalf("export: %v (head %s)", op, f.git.Head("docs", "main"))
		}
		files := f.git.Files(t, "docs", "main")
		for _, want := range []string{".gitbook.yaml", "SUMMARY.md", "README.md", "guide/README.md", "guide/install.md", "guide/secret.md", "faq.md", ".gitbook/assets/diagram one.png"} {
			if _, ok := files[want]; !ok {
				t.Errorf("the export has no %s: %v", want, keys(files))
			}
		}
		if !bytes.Contains(files["guide/install.md"], []byte("../.gitbook/assets/diagram%20one.png")) {
			t.Errorf("the image is not referred to by its asset path:\n%s", files["guide/install.md"])
		}
		if !bytes.Contains(files["guide/secret.md"], []byte("hidden: true")) || !bytes.Contains(files["guide/README.md"], []byte("icon: 📘")) {
			t.Errorf("frontmatter: %s / %s", files["guide/secret.md"], files["guide/README.md"])
		}
		log := f.git.Log("docs", "main")

		dst := f.createSpace(t, map[string]any{"title": "Copy", "editMode": "live"})["id"].(string)
		op = f.importRepo(t, dst, map[string]any{"url": repo, "ref": "main", "repoCommitURL": "https://git.example.com/docs/commit"})
		if op["state"] != "success" || op["commit"] != log[0] {
			t.Fatalf("import: %v", op)
		}
		rev := f.s.Call(t, "getCurrentRevision", f.reader.Token, "GET", "/v1/spaces/"+dst+"/content", nil, 200).JSON(t)
		if g, _ := rev["git"].(map[string]any); rev["type"] != "import" || g == nil || g["oid"] != log[0] || g["message"] != "Docs from Folio" ||
			g["ref"] != "refs/heads/main" || g["url"] != "https://git.example.com/docs/commit/"+log[0] {
			t.Errorf("the import revision's git: %v %v", rev["type"], rev["git"])
		}
		wantPages, wantFiles := f.content(t, src)
		gotPages, gotFiles := f.content(t, dst)
		if !reflect.DeepEqual(gotPages, wantPages) {
			t.Errorf("pages after the round trip:\n got %+v\nwant %+v", gotPages, wantPages)
		}
		if len(gotFiles) != len(wantFiles) {
			t.Errorf("files: got %v, want %v", gotFiles, wantFiles)
		}
		for name, u := range gotFiles {
			if got, want := f.download(t, u), f.download(t, wantFiles[name]); !bytes.Equal(got, want) {
				t.Errorf("file %s: %q, want %q", name, got, want)
			}
		}

		// The state: the connection, where the branch is, both operations.
		info := f.s.Call(t, "getSpaceGitInfo", f.reader.Token, "GET", f.gitPath(src, "info"), nil, 200).JSON(t)
		testkit.CheckSchema(t, "GitSyncState", info)
		if info["repoName"] != "docs" || info["remoteUrl"] != repo || info["ref"] != "refs/heads/main" ||
			info["commit"] != log[0] || info["installationStatus"] != "active" || info["installationProvider"] != "github" {
			t.Errorf("info: %v", info)
		}
		if op := info["operation"].(map[string]any); op["direction"] != "export" || op["state"] != "success" {
			t.Errorf("operation: %v", op)
		}

		// An export with nothing new writes no commit; importing what it
		// exported changes nothing either.
		f.exportRepo(t, src, map[string]any{"url": repo, "ref": "main", "commitMessage": "Again"})
		if got := f.git.Log("docs", "main"); len(got) != len(log) {
			t.Errorf("an unchanged export made a commit: %v", got)
		}
		// Every sync is an event.
		ctx := context.Background()
		for action, want := range map[string]int{"git.export_queued": 2, "git.export_finished": 2, "git.import_queued": 1, "git.import_finished": 1} {
			if n := f.s.Client().Event.Query().Where(event.Action(action)).CountX(ctx); n != want {
				t.Errorf("%d %s events, want %d", n, action, want)
			}
		}
	})
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (f gitFixture) download(t *testing.T, u string) []byte {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	r := f.s.Request(t, f.reader.Token, "GET", p.RequestURI(), nil)
	if r.Status != 200 {
		t.Fatalf("download %s: %d", u, r.Status)
	}
	return r.Body
}

// TestGitImportIntoChangeRequest: in a space edited through change
// requests (not in live edit mode) an import opens a change request; a
// page edited both in Folio and in the repository is listed as a conflict
// and nothing is overwritten. With rules that allow it, autoMerge merges.
func TestGitImportIntoChangeRequest(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		f.seedSpace(t, f.space)
		repo := f.git.Repo("docs")
		f.exportRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "commitMessage": "First"})
		pages := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		faq := pages[2].ID
		// Edited on both sides: the FAQ; in the repository only: Welcome.
		f.editSpace(t, f.space, map[string]any{"operation": "update_page", "page": faq, "markdown": "# FAQ\n\nAsk Folio.\n"})
		files := f.git.Files(t, "docs", "main")
		files["faq.md"] = []byte("# FAQ\n\nAsk Git.\n")
		files["README.md"] = []byte("# Welcome\n\nStart here, from Git.\n")
		f.git.Commit(t, "docs", "main", files, "Edit in Git")
		f.setEditMode(t, f.space, nil) // edited through change requests from now on
		f.s.Call(t, "updateOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org,
			map[string]any{"mergeRules": map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "require_change_request_subject"}}}}, 200)
		before := f.markdownOf(t, faq)

		op := f.importRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "autoMerge": true})
		if op["state"] != "success" || op["conflictCount"] != float64(1) {
			t.Fatalf("import: %v", op)
		}
		c := op["conflicts"].([]any)[0].(map[string]any)
		if c["pageId"] != faq || c["title"] != "FAQ" || c["path"] != "faq.md" || c["reason"] == "" {
			t.Errorf("conflict: %v", c)
		}
		if got := f.markdownOf(t, faq); got != before {
			t.Errorf("the import overwrote the space: %q", got)
		}
		info := f.s.Call(t, "getSpaceGitInfo", f.reader.Token, "GET", f.gitPath(f.space, "info"), nil, 200).JSON(t)
		cr, _ := info["changeRequest"].(string)
		if cr == "" {
			t.Fatalf("no change request: %v", info)
		}
		got := f.s.Call(t, "getChangeRequestById", f.reader.Token, "GET", f.crPath(cr), nil, 200).JSON(t)
		if got["status"] != "open" || !strings.HasPrefix(got["subject"].(string), "Import main from docs") {
			t.Errorf("change request: %v", got)
		}
		// The merge refuses too, naming the page.
		if msg := f.s.Fail(t, "mergeChangeRequest", f.admin.Token, "POST", f.crPath(cr)+"/merge", nil, 409); !strings.Contains(msg, faq) {
			t.Errorf("merge: %s", msg)
		}

		// Rules that allow the merge: autoMerge merges a clean import.
		other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
		op = f.importRepo(t, other, map[string]any{"url": repo, "ref": "main", "autoMerge": true})
		if op["state"] != "success" || op["conflictCount"] != float64(0) || !strings.Contains(fmt.Sprint(op["error"]), "merged") {
			t.Fatalf("auto-merged import: %v", op)
		}
		if tree := f.tree(t, "/v1/spaces/"+other+"/content/pages"); len(tree) != 3 || tree[0].Title != "Welcome" {
			t.Errorf("merged content: %+v", tree)
		}
		// Without autoMerge it waits for review, and so it does with
		// autoMerge when the rules do not allow the merge.
		f.s.Call(t, "updateOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org,
			map[string]any{"mergeRules": map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "require_at_least_one_review"}}}}, 200)
		for _, auto := range []bool{false, true} {
			third := f.createSpace(t, map[string]any{"title": "Third"})["id"].(string)
			op = f.importRepo(t, third, map[string]any{"url": repo, "ref": "main", "autoMerge": auto})
			if op["state"] != "success" || !strings.Contains(fmt.Sprint(op["error"]), map[bool]string{false: "waits for review", true: "not merged"}[auto]) ||
				len(f.tree(t, "/v1/spaces/"+third+"/content/pages")) != 0 {
				t.Errorf("import (autoMerge %v): %v", auto, op)
			}
		}
	})
}

// TestGitLiveImportConflicts: in a live space, edits made since the last
// sync fail an import (each listed) unless it is forced; a renamed file
// keeps its page, whose old address redirects on a published site, as do
// the addresses .gitbook.yaml's redirects name.
func TestGitLiveImportConflicts(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		f.seedSpace(t, f.space)
		repo := f.git.Repo("docs")
		f.exportRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "commitMessage": "First"})
		pages := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		faq := pages[2].ID
		f.editSpace(t, f.space, map[string]any{"operation": "update_page", "page": faq, "markdown": "# FAQ\n\nAsk Folio.\n"})
		files := f.git.Files(t, "docs", "main")
		files["questions.md"] = files["faq.md"] // renamed, unchanged
		delete(files, "faq.md")
		files["SUMMARY.md"] = bytes.ReplaceAll(files["SUMMARY.md"], []byte("(faq.md)"), []byte("(questions.md)"))
		files[".gitbook.yaml"] = []byte("root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  help/old-faq: questions.md\n")
		f.git.Commit(t, "docs", "main", files, "Rename")

		op := f.importRepo(t, f.space, map[string]any{"url": repo, "ref": "main"})
		if op["state"] != "failure" || op["conflictCount"] != float64(1) || op["conflicts"].([]any)[0].(map[string]any)["pageId"] != faq ||
			!strings.Contains(op["error"].(string), "force") {
			t.Fatalf("unforced import over an edit: %v", op)
		}
		if got := f.markdownOf(t, faq); got != "# FAQ\n\nAsk Folio.\n" {
			t.Errorf("a failed import changed the page: %q", got)
		}
		// A published site shows the space.
		sites := "/v1/orgs/" + f.org + "/sites"
		site := f.s.Call(t, "createSite", f.admin.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{f.space}}, 201).JSON(t)["id"].(string)
		f.s.Call(t, "updateSiteById", f.admin.Token, "PATCH", sites+"/"+site, map[string]any{"basename": "docs"}, 200)
		f.s.Call(t, "publishSite", f.admin.Token, "POST", sites+"/"+site+"/publish", nil, 200)
		if code, _ := readerGet(t, f.s, "/s/docs/faq", ""); code != 200 {
			t.Fatalf("the published page: %d", code)
		}
		op = f.importRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "force": true})
		if op["state"] != "success" {
			t.Fatalf("forced import: %v", op)
		}
		for _, old := range []string{"/s/docs/faq", "/s/docs/help/old-faq"} { // renamed; .gitbook.yaml's redirects
			if code, loc := readerGet(t, f.s, old, ""); code != 308 || loc != "/s/docs/questions" {
				t.Errorf("the renamed page's old address %s: %d %q", old, code, loc)
			}
		}
		tree := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		if tree[2].ID != faq || tree[2].Slug != "questions" {
			t.Errorf("the renamed file is another page: %+v", tree[2])
		}
		if got := f.markdownOf(t, faq); !strings.Contains(got, "{% hint") {
			t.Errorf("forced import did not take the repository's page: %q", got)
		}
	})
}

// TestGitImportLinksRepositoryFiles: links from a page to files of the
// repository that are not pages (source, examples) point at repoTreeURL;
// links between pages and to assets stay.
func TestGitImportLinksRepositoryFiles(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		f.git.Commit(t, "code", "main", map[string][]byte{
			"docs/.gitbook.yaml":            []byte("root: ./\n"),
			"docs/README.md":                []byte("# Home\n\nSee [the example](examples/hello.go), [the guide](guide.md) and ![logo](.gitbook/assets/logo.png).\n"),
			"docs/guide.md":                 []byte("# Guide\n"),
			"docs/examples/hello.go":        []byte("package main\n"),
			"docs/.gitbook/assets/logo.png": []byte("\x89PNG"),
			"main.go":                       []byte("package main\n"),
		}, "Init")
		op := f.importRepo(t, f.space, map[string]any{"url": f.git.Repo("code"), "ref": "main", "repoProjectDirectory": "docs",
			"repoTreeURL": "https://git.example.com/code/tree/main"})
		if op["state"] != "success" {
			t.Fatalf("import: %v", op)
		}
		tree := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		if len(tree) != 2 {
			t.Fatalf("pages: %+v", tree)
		}
		md := f.markdownOf(t, tree[0].ID)
		if !strings.Contains(md, "(https://git.example.com/code/tree/main/docs/examples/hello.go)") || !strings.Contains(md, "(guide.md)") ||
			!strings.Contains(md, "(/files/") {
			t.Errorf("links: %s", md)
		}
	})
}

// TestGitExportToMovedBranch: a branch that moved since the last sync
// fails the export and keeps the remote's commits; force is a 400.
func TestGitExportToMovedBranch(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		f.seedSpace(t, f.space)
		repo := f.git.Repo("docs")
		f.exportRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "commitMessage": "First"})
		files := f.git.Files(t, "docs", "main")
		files["CONTRIBUTING.md"] = []byte("# Contributing\n")
		theirs := f.git.Commit(t, "docs", "main", files, "Someone else's commit")
		f.editSpace(t, f.space, insertPage("# New\n", nil))

		op := f.exportRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "commitMessage": "Second"})
		if op["state"] != "failure" || !strings.Contains(op["error"].(string), "moved") {
			t.Fatalf("export to a moved branch: %v", op)
		}
		if head := f.git.Head("docs", "main"); head != theirs {
			t.Errorf("the remote lost its commit: head %s, want %s", head, theirs)
		}
		msg := f.s.Fail(t, "exportToGitRepository", f.editor.Token, "POST", f.gitPath(f.space, "export"),
			map[string]any{"url": repo, "ref": "main", "commitMessage": "x", "force": true}, 400)
		if !strings.Contains(msg, "force") {
			t.Errorf("force: %s", msg)
		}
		// Importing first, then exporting, goes on top of their commit.
		f.importRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "force": true})
		f.editSpace(t, f.space, insertPage("# Newer\n", nil))
		op = f.exportRepo(t, f.space, map[string]any{"url": repo, "ref": "main", "commitMessage": "Third"})
		if log := f.git.Log("docs", "main"); op["state"] != "success" || len(log) < 3 || log[1] != theirs {
			t.Errorf("export after import: %v, log %v", op, log)
		}
	})
}

// TestGitImportBounds: a repository over the file or byte bound, a
// missing ref or directory fail the import saying so, and nothing changes.
func TestGitImportBounds(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		f.js.App.Resolver.Git.Limits = gitsync.Limits{MaxFiles: 5, MaxBytes: 1 << 20}
		files := map[string][]byte{"README.md": []byte("# Home\n")}
		for i := range 6 {
			files[fmt.Sprintf("page-%d.md", i)] = []byte(fmt.Sprintf("# Page %d\n", i))
		}
		f.git.Commit(t, "many", "main", files, "Many files")
		f.git.Commit(t, "big", "main", map[string][]byte{"README.md": []byte("# Home\n"), "big.md": bytes.Repeat([]byte("a"), 2<<20)}, "Big")
		op := f.importRepo(t, f.space, map[string]any{"url": f.git.Repo("many"), "ref": "main"})
		if op["state"] != "failure" || !strings.Contains(op["error"].(string), "5 files") {
			t.Errorf("too many files: %v", op)
		}
		op = f.importRepo(t, f.space, map[string]any{"url": f.git.Repo("big"), "ref": "main"})
		if op["state"] != "failure" || !strings.Contains(op["error"].(string), "MB") && !strings.Contains(op["error"].(string), "bytes") {
			t.Errorf("too many bytes: %v", op)
		}
		// Failures of the repository say what failed, in Folio's words.
		for ref, want := range map[string]string{"nope": "no such ref"} {
			op = f.importRepo(t, f.space, map[string]any{"url": f.git.Repo("big"), "ref": ref})
			if op["state"] != "failure" || !strings.Contains(op["error"].(string), want) {
				t.Errorf("ref %s: %v", ref, op)
			}
		}
		op = f.importRepo(t, f.space, map[string]any{"url": f.git.Repo("big"), "ref": "main", "repoProjectDirectory": "docs"})
		if op["state"] != "failure" || !strings.Contains(op["error"].(string), "no such directory") {
			t.Errorf("missing directory: %v", op)
		}
		if tree := f.tree(t, "/v1/spaces/"+f.space+"/content/pages"); len(tree) != 0 {
			t.Errorf("a refused import changed the space: %+v", tree)
		}
	})
}

// TestGitSyncTimeout: an operation that runs past its time ends as timed
// out, without retries.
func TestGitSyncTimeout(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		f.js.App.Resolver.Git.Timeout = 300 * time.Millisecond
		f.git.Commit(t, "slow", "main", map[string][]byte{"README.md": []byte("# Slow\n")}, "Init")
		f.git.BeforeRequest(func(*http.Request) { time.Sleep(time.Second) })
		op := f.importRepo(t, f.space, map[string]any{"url": f.git.Repo("slow"), "ref": "main"})
		if op["state"] != "timeout" || !strings.Contains(op["error"].(string), "longer than 300ms") {
			t.Errorf("slow import: %v", op)
		}
	})
}

// TestGitCredentialsNeverShown: credentials in the URL reach the remote,
// are stored sealed, and appear in no answer, event, job, log line or
// error; a wrong one fails the import as unauthenticated.
func TestGitCredentialsNeverShown(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			var logs bytes.Buffer
			js := testkit.StartJobsLogged(t, kind, &logs, nil)
			f := gitFixture{contentFixture: newContentFixture(t, js.Server), js: js, git: gitserver.New(t)}
			f.setEditMode(t, f.space, "live")
			const secret = "s3cret-Pa55word"
			f.git.Commit(t, "private", "main", map[string][]byte{"README.md": []byte("# Private\n")}, "Init")
			f.git.RequireAuth("folio", secret)
			u, _ := url.Parse(f.git.Repo("private"))
			u.User = url.UserPassword("folio", "wrong-"+secret)
			op := f.importRepo(t, f.space, map[string]any{"url": u.String(), "ref": "main"})
			info := f.s.Call(t, "getSpaceGitInfo", f.reader.Token, "GET", f.gitPath(f.space, "info"), nil, 200).JSON(t)
			if op["state"] != "failure" || info["installationStatus"] != "unauthenticated" {
				t.Fatalf("wrong credential: %v %v", op, info)
			}
			u.User = url.UserPassword("folio", secret)
			op = f.importRepo(t, f.space, map[string]any{"url": u.String(), "ref": "main"})
			info = f.s.Call(t, "getSpaceGitInfo", f.reader.Token, "GET", f.gitPath(f.space, "info"), nil, 200).JSON(t)
			if op["state"] != "success" || info["installationStatus"] != "active" || info["remoteUrl"] != f.git.Repo("private") {
				t.Fatalf("right credential: %v %v", op, info)
			}
			// A later sync without credentials uses the stored one.
			op = f.exportRepo(t, f.space, map[string]any{"url": f.git.Repo("private"), "ref": "main", "commitMessage": "Back"})
			if op["state"] != "success" {
				t.Fatalf("export with the stored credential: %v", op)
			}
			gql := f.s.MustGraphQL(t, f.reader.Token, `query($id: ID!) { spaceGitInfo(spaceId: $id) { remoteUrl lastImport { state error } } }`, map[string]any{"id": f.space})

			ctx := context.Background()
			var seen []string
			for _, e := range f.s.Client().Event.Query().AllX(ctx) {
				seen = append(seen, fmt.Sprint(e.Payload))
			}
			for _, j := range f.s.Client().Job.Query().Where(job.Kind("git_sync")).AllX(ctx) {
				seen = append(seen, j.Payload, j.LastError)
			}
			for _, o := range f.s.Client().GitSyncOperation.Query().AllX(ctx) {
				seen = append(seen, o.Error, o.Ref)
			}
			conn := f.s.Client().GitSync.Query().OnlyX(ctx)
			if !secrets.IsSealed(conn.CredentialSealed) || f.js.Open(t, secrets.GitCredential, conn.CredentialSealed) != "folio:"+secret {
				t.Errorf("the credential is not sealed")
			}
			seen = append(seen, logs.String(), fmt.Sprint(info), fmt.Sprint(gql), conn.URL)
			seen = append(seen, f.git.Requests()...)
			for _, s := range seen {
				if strings.Contains(s, secret) {
					t.Fatalf("the password shows: %s", s)
				}
			}
		})
	}
}

// TestGitSyncRefusals: bad input names its field and queues nothing;
// readers may not sync, strangers do not see the space; a space that
// never synced has no info.
func TestGitSyncRefusals(t *testing.T) {
	forEachGitDB(t, func(t *testing.T, f gitFixture) {
		repo := f.git.Repo("docs")
		before := f.s.Snapshot(t)
		for _, tc := range []struct {
			op, what string
			body     map[string]any
			field    string
		}{
			{"importGitRepository", "import", map[string]any{"ref": "main"}, "url"},
			{"importGitRepository", "import", map[string]any{"url": repo}, "ref"},
			{"importGitRepository", "import", map[string]any{"url": repo, "ref": "refs/heads/a..b"}, "ref"},
			{"importGitRepository", "import", map[string]any{"url": "file:///etc", "ref": "main"}, "url"},
			{"importGitRepository", "import", map[string]any{"url": "git@github.com:a/b.git", "ref": "main"}, "url"},
			{"importGitRepository", "import", map[string]any{"url": repo, "ref": "main", "repoProjectDirectory": "../up"}, "repoProjectDirectory"},
			{"importGitRepository", "import", map[string]any{"url": repo, "ref": "main", "gitInfo": map[string]any{"provider": "bitbucket"}}, "gitInfo.provider"},
			{"importGitRepository", "import", map[string]any{"url": repo, "ref": "main", "force": "yes"}, "force"},
			{"exportToGitRepository", "export", map[string]any{"url": repo, "ref": "main"}, "commitMessage"},
			{"exportToGitRepository", "export", map[string]any{"url": repo, "ref": "refs/tags/v1", "commitMessage": "x"}, "ref"},
			{"exportToGitRepository", "export", map[string]any{"url": repo, "ref": "main", "commitMessage": "x", "force": true}, "force"},
		} {
			msg := f.s.Fail(t, tc.op, f.editor.Token, "POST", f.gitPath(f.space, tc.what), tc.body, 400)
			if !strings.Contains(msg, tc.field) {
				t.Errorf("%s %v: %s does not name %s", tc.op, tc.body, msg, tc.field)
			}
		}
		ok := map[string]any{"url": repo, "ref": "main", "commitMessage": "x"}
		f.s.Fail(t, "importGitRepository", f.reader.Token, "POST", f.gitPath(f.space, "import"), ok, 403)
		f.s.Fail(t, "exportToGitRepository", f.reader.Token, "POST", f.gitPath(f.space, "export"), ok, 403)
		f.s.Fail(t, "importGitRepository", f.stranger.Token, "POST", f.gitPath(f.space, "import"), ok, 404)
		f.s.Fail(t, "exportToGitRepository", f.stranger.Token, "POST", f.gitPath(f.space, "export"), ok, 404)
		f.s.Fail(t, "getSpaceGitInfo", f.reader.Token, "GET", f.gitPath(f.space, "info"), nil, 404)
		f.s.Unchanged(t, before)
		f.s.Call(t, "exportToGitRepository", f.editor.Token, "POST", f.gitPath(f.space, "export"), ok, 204)
		f.waitGit(t, f.space, "lastExport")
		f.s.Fail(t, "getSpaceGitInfo", f.stranger.Token, "GET", f.gitPath(f.space, "info"), nil, 404)

		// A locked space takes no import (423).
		f.s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "locked"}, 200)
		f.s.Fail(t, "importGitRepository", f.editor.Token, "POST", f.gitPath(f.space, "import"), ok, 423)

		// GraphQL: the same rules, the same state.
		_, errs := f.s.GraphQL(t, f.reader.Token, `mutation($id: ID!) { importGitRepository(spaceId: $id, target: {url: "x", ref: "main"}) { repoName } }`, map[string]any{"id": f.space})
		if len(errs) == 0 {
			t.Errorf("a reader imported through GraphQL")
		}
		data := f.s.MustGraphQL(t, f.reader.Token, `query($id: ID!) { spaceGitInfo(spaceId: $id) { repoName installationStatus ref lastExport { state direction conflicts { pageId } conflictCount } } }`, map[string]any{"id": f.space})
		st := data["spaceGitInfo"].(map[string]any)
		if st["repoName"] != "docs" || st["ref"] != "refs/heads/main" || st["lastExport"].(map[string]any)["state"] != "success" {
			t.Errorf("spaceGitInfo: %v", st)
		}
	})
}

// TestGitImportOnTwoInstances: two servers on one PostgreSQL run a queued
// import once.
func TestGitImportOnTwoInstances(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		if kind != "postgres" {
			continue // SQLite: one process runs the jobs
		}
		t.Run(kind, func(t *testing.T) {
			dbURL := testkit.DatabaseURL(t, kind, t.TempDir())
			a := testkit.StartJobsOn(t, kind, dbURL, nil)
			a.StopJobs()
			f := gitFixture{contentFixture: newContentFixture(t, a.Server), js: a, git: gitserver.New(t)}
			f.git.Commit(t, "docs", "main", map[string][]byte{"README.md": []byte("# Home\n"), "SUMMARY.md": []byte("* [Home](README.md)\n")}, "Init")
			var spaces []string
			for i := range 4 {
				sp := f.createSpace(t, map[string]any{"title": fmt.Sprintf("S%d", i), "editMode": "live"})["id"].(string)
				spaces = append(spaces, sp)
				f.s.Call(t, "importGitRepository", f.editor.Token, "POST", f.gitPath(sp, "import"), map[string]any{"url": f.git.Repo("docs"), "ref": "main"}, 204)
			}
			b := testkit.StartJobsOn(t, kind, dbURL, nil)
			a.Restart(t)
			for _, sp := range spaces {
				if op := f.waitGit(t, sp, "lastImport"); op["state"] != "success" {
					t.Fatalf("import into %s: %v", sp, op)
				}
			}
			ctx := context.Background()
			if n := b.Client().Revision.Query().Where(revision.TypeEQ(revision.TypeImport)).CountX(ctx); n != len(spaces) {
				t.Errorf("%d import revisions for %d imports", n, len(spaces))
			}
			if n := b.Client().Event.Query().Where(event.Action("git.import_finished")).CountX(ctx); n != len(spaces) {
				t.Errorf("%d import events for %d imports", n, len(spaces))
			}
			if n := b.Client().GitSyncOperation.Query().Where(gitsyncoperation.StateEQ(gitsyncoperation.StateSuccess)).CountX(ctx); n != len(spaces) {
				t.Errorf("%d successful operations", n)
			}
			for _, j := range b.Client().Job.Query().Where(job.Kind("git_sync")).AllX(ctx) {
				if j.Runs != 1 {
					t.Errorf("job %s ran %d times", j.ID, j.Runs)
				}
			}
		})
	}
}
