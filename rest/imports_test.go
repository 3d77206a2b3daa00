package rest_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// importSite serves what the import tests fetch.
func importSite(t *testing.T) *httptest.Server {
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for name, body := range map[string]string{
		"book/SUMMARY.md":         "# Summary\n\n* [Welcome](README.md)\n* [Setup](setup/README.md)\n  * [Linux](setup/linux.md)\n  * [Mac](setup/mac.md)\n* [FAQ](faq.md)\n",
		"book/README.md":          "# Welcome\n\nHello.\n",
		"book/setup/README.md":    "# Setup\n\n![diagram](../images/diagram.png)\n",
		"book/setup/linux.md":     "# Linux\n\napt install.\n",
		"book/setup/mac.md":       "# Mac\n\nbrew install.\n",
		"book/faq.md":             "# FAQ\n\nQuestions.\n",
		"book/extra.md":           "# Extra\n\nNot in the summary.\n",
		"book/images/diagram.png": string(png),
		"book/notes.txt":          "ignored",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/doc.md", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("---\ntitle: Imported doc\n---\nSome *markdown*.\n"))
	})
	mux.HandleFunc("/book.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(zipped.Bytes()) })
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>HTML page</title></head><body><h1>HTML page</h1><p>Some <b>bold</b> text.</p><a href="/other.html">Other</a> <a href="https://elsewhere.example/x">Away</a></body></html>`))
	})
	mux.HandleFunc("/other.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>Other page</title></head><body><p>Other.</p></body></html>`))
	})
	mux.HandleFunc("/huge.md", func(w http.ResponseWriter, r *http.Request) { w.Write(bytes.Repeat([]byte("x"), 1<<20)) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestImports(t *testing.T) {
	site := importSite(t)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		path := "/v1/spaces/" + f.space + "/content/import"
		var res struct {
			Revision                          string
			ImportedResources, TotalResources int
		}
		// A zip: the tree in SUMMARY.md order, images as files.
		s.Call(t, "importContent", f.editor.Token, "POST", path, map[string]any{"url": site.URL + "/book.zip", "source": "zip"}, 201).Decode(t, &res)
		if res.ImportedResources != 7 || res.TotalResources != 8 || res.Revision == "" { // SUMMARY.md is read, not imported
			t.Fatalf("zip import: %+v", res)
		}
		tree := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		var titles []string
		for _, p := range tree {
			titles = append(titles, p.Title)
		}
		if strings.Join(titles, ",") != "Welcome,Setup,FAQ,Extra" || len(tree[1].Pages) != 2 || tree[1].Pages[0].Title != "Linux" || tree[1].Pages[1].Title != "Mac" {
			t.Fatalf("tree: %+v", tree)
		}
		var files struct{ Items []struct{ ID, Name string } }
		s.Call(t, "listFiles", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files", nil, 200).Decode(t, &files)
		if len(files.Items) != 1 || files.Items[0].Name != "diagram.png" {
			t.Fatalf("files: %+v", files)
		}
		if md := f.markdownOf(t, tree[1].ID); !strings.Contains(md, "/files/"+files.Items[0].ID) {
			t.Fatalf("image not pointed at the file: %q", md)
		}

		// Markdown and HTML into a change request; a website into the space.
		cr := f.newCR(t, "Imports")
		s.Call(t, "importContentInChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/content/import", map[string]any{"url": site.URL + "/doc.md", "source": "markdown"}, 201)
		s.Call(t, "importContentInChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/content/import", map[string]any{"url": site.URL + "/page.html", "source": "html"}, 201)
		crTree := f.tree(t, f.crPath(cr)+"/content/pages")
		if n := len(crTree); n != 6 || crTree[4].Title != "Imported doc" || crTree[5].Title != "HTML page" {
			t.Fatalf("change request tree: %+v", crTree)
		}
		s.Call(t, "importContent", f.editor.Token, "POST", path, map[string]any{"url": site.URL + "/page.html", "source": "website"}, 201).Decode(t, &res)
		if res.ImportedResources != 2 {
			t.Fatalf("website: %+v", res)
		}

		// Failures change nothing.
		before := s.Snapshot(t)
		for _, c := range []struct {
			body   any
			status int
			field  string
		}{
			{map[string]any{"url": site.URL + "/doc.md", "source": "docx"}, 400, "source"},
			{map[string]any{"url": site.URL + "/doc.md"}, 400, "source"},
			{map[string]any{"source": "markdown"}, 400, "url"},
			{map[string]any{"url": "ftp://example.com/x.md", "source": "markdown"}, 400, "url"},
			{map[string]any{"url": "http://127.0.0.1:1/x.md", "source": "markdown"}, 400, "url"},
			{map[string]any{"url": site.URL + "/missing.md", "source": "markdown"}, 400, "url"},
			{map[string]any{"url": site.URL + "/doc.md", "source": "zip"}, 400, "url"},
			{map[string]any{"url": 5, "source": "markdown"}, 400, "url"},
		} {
			if msg := s.Fail(t, "importContent", f.editor.Token, "POST", path, c.body, c.status); !strings.Contains(msg, c.field) {
				t.Errorf("%v: %q does not name %s", c.body, msg, c.field)
			}
		}
		s.Fail(t, "importContent", f.reader.Token, "POST", path, map[string]any{"url": site.URL + "/doc.md", "source": "markdown"}, 403)
		s.Fail(t, "importContent", f.stranger.Token, "POST", path, map[string]any{"url": site.URL + "/doc.md", "source": "markdown"}, 404)
		// Oversize bodies and private addresses (refused unless allowed).
		fetcher := s.App.Resolver.Fetcher
		s.App.Resolver.Fetcher.MaxBytes = 1024
		s.Fail(t, "importContent", f.editor.Token, "POST", path, map[string]any{"url": site.URL + "/huge.md", "source": "markdown"}, 413)
		s.App.Resolver.Fetcher = fetcher
		s.App.Resolver.Fetcher.AllowPrivate = false
		if msg := s.Fail(t, "importContent", f.editor.Token, "POST", path, map[string]any{"url": site.URL + "/doc.md", "source": "markdown"}, 400); !strings.Contains(msg, "private") {
			t.Fatalf("private address: %q", msg)
		}
		s.App.Resolver.Fetcher = fetcher
		s.Unchanged(t, before)
	})
}
