package rest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/testkit"
)

// TestNestedMarkdownRefused: markdown nesting lists or block quotes deeper
// than 32 levels, with tables of more than 100,000 cells, or larger than
// 1 MB, is refused at write time (400 naming the change's markdown and the
// line) and changes nothing; 32 levels are fine.
func TestNestedMarkdownRefused(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("# Bomb\n\n" + strings.Repeat("- ", 5000) + "x\n"))
	}))
	t.Cleanup(site.Close)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Bombs")
		f.edit(t, cr, insertPage("# Home\n\nText.\n", map[string]any{"ref": "home"}))
		home := f.tree(t, f.crPath(cr)+"/content/pages")[0].ID
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)

		bomb := strings.Repeat("- ", 5000) + "x" // the input, smaller
		deep := "# Deep\n\n" + strings.Repeat("> ", 33) + "x\n"
		indented := "# Steps\n\n"
		for i := range 40 {
			indented += strings.Repeat("  ", i) + "- step\n"
		}
		// A wide header over short rows, which goldmark fills: 2,001,000 cells.
		wide := "# Wide\n\n|" + strings.Repeat("a|", 1000) + "\n|" + strings.Repeat("-|", 1000) + "\n" + strings.Repeat("|\n", 2000)
		before := s.Snapshot(t)
		for _, c := range []struct {
			op, path string
			changes  []any
			field    string
		}{
			{"updateChangeRequestContent", f.crPath(cr) + "/content", []any{insertPage(bomb, nil)}, "changes[0].markdown"},
			{"updateChangeRequestContent", f.crPath(cr) + "/content", []any{insertPage("# Ok\n", nil), insertPage(deep, nil)}, "changes[1].markdown"},
			{"updateChangeRequestContent", f.crPath(cr) + "/content", []any{insertPage(indented, nil)}, "changes[0].markdown"},
			{"updateChangeRequestContent", f.crPath(cr) + "/content", []any{map[string]any{"operation": "update_page", "page": home,
				"document": map[string]any{"markdown": bomb}}}, "changes[0].markdown"},
			{"updateChangeRequestContent", f.crPath(cr) + "/content", []any{insertPage("# Big\n\n"+strings.Repeat("word ", 220_000), nil)}, "changes[0].markdown"},
			{"", "/v1/spaces/" + f.space + "/content", []any{insertPage(bomb, nil)}, "changes[0].markdown"},
			{"updateChangeRequestContent", f.crPath(cr) + "/content", []any{insertPage("# Ok\n", nil), insertPage(wide, nil)}, "changes[1].markdown"},
			{"", "/v1/spaces/" + f.space + "/content", []any{insertPage(wide, nil)}, "changes[0].markdown"},
		} {
			var msg string
			if c.op == "" { // live edits are an extension: no reference operation
				r := s.Request(t, f.editor.Token, "POST", c.path, map[string]any{"changes": c.changes})
				var e struct {
					Error struct {
						Code    int
						Message string
					}
				}
				r.Decode(t, &e)
				if r.Status != 400 || e.Error.Code != 400 {
					t.Fatalf("live edit: %d %s", r.Status, r.Body)
				}
				msg = e.Error.Message
			} else {
				msg = s.Fail(t, c.op, f.editor.Token, "POST", c.path, map[string]any{"changes": c.changes}, 400)
			}
			if !strings.HasPrefix(msg, c.field+": ") || !(strings.Contains(msg, "at most 32 levels") || strings.Contains(msg, "at most 1048576 bytes") ||
				strings.Contains(msg, "table of 1000 columns by 2001 rows at line 3") && strings.Contains(msg, "at most 100000 table cells")) {
				t.Errorf("%s: message %q, want it to name %s and the bound", c.path, msg, c.field)
			}
		}
		// Imports store their pages through the same check.
		msg := s.Fail(t, "importContent", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/content/import",
			map[string]any{"url": site.URL + "/bomb.md", "source": "markdown"}, 400)
		if !strings.HasPrefix(msg, "markdown: ") || !strings.Contains(msg, "at most 32 levels") {
			t.Errorf("import: %q", msg)
		}
		s.Unchanged(t, before)

		// The deepest nesting allowed, and deep lists inside code, are kept.
		ok := "# Fine\n\n" + strings.Repeat("> ", 32) + "x\n\n```\n" + strings.Repeat("- ", 100) + "\n```\n"
		f.edit(t, cr, insertPage(ok, nil))
		pages := f.tree(t, f.crPath(cr)+"/content/pages")
		if len(pages) != 2 {
			t.Fatalf("pages: %+v", pages)
		}
	})
}

// TestDerivedDataStoredOncePerBody: a body's document, links and anchors are
// computed by the first read that needs them, stored once per content hash
// and format version, and every later read (another request, another page
// with the same body, the links list, the PDF) reads them instead of
// converting the markdown again.
func TestDerivedDataStoredOncePerBody(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)
		body := "# Guide\n\n## Setup\n\nSee [the site](https://example.com/a) and [setup](#setup).\n"
		liveEdit(t, s, f.editor.Token, f.space, insertPage(body, nil), insertPage(body, map[string]any{"slug": "copy"}))
		pages := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")
		if len(pages) != 2 {
			t.Fatalf("pages: %+v", pages)
		}
		count := func() int {
			t.Helper()
			var n int
			if err := s.App.DB.SQL.QueryRow("SELECT COUNT(*) FROM page_deriveds").Scan(&n); err != nil {
				t.Fatalf("count derived rows: %v", err)
			}
			return n
		}
		if n := count(); n != 0 {
			t.Fatalf("%d derived rows before any read", n)
		}
		document := func(pageID string) string {
			t.Helper()
			return string(s.Call(t, "getPageById", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/page/"+pageID+"?format=document", nil, 200).Body)
		}
		n0 := s.Statements()
		if doc := document(pages[0].ID); !strings.Contains(doc, `"heading-2"`) || !strings.Contains(doc, "https://example.com/a") {
			t.Fatalf("document: %s", doc)
		}
		first := s.Statements() - n0
		if n := count(); n != 1 {
			t.Fatalf("%d derived rows after the first read, want 1", n)
		}
		var version int
		if err := s.App.DB.SQL.QueryRow("SELECT version FROM page_deriveds").Scan(&version); err != nil || version != markdown.FormatVersion {
			t.Fatalf("version %d, %v", version, err)
		}
		n0 = s.Statements()
		document(pages[0].ID)
		second := s.Statements() - n0
		// The first read also read the markdown and stored what it derived.
		if first-second != 2 {
			t.Fatalf("statements: first read %d, second %d; want the second to skip the markdown and the insert", first, second)
		}

		// What is stored is what is served: change it behind Folio's back.
		stored := `{"object":"document","data":{},"nodes":[{"object":"block","type":"paragraph","key":"k","data":{},` +
			`"nodes":[{"object":"text","leaves":[{"object":"leaf","text":"Stored once","marks":[]}]}]}]}`
		links := `[{"Target":"https://example.com/stored","Text":"stored","Image":false,"Line":3}]`
		if _, err := s.App.DB.SQL.Exec("UPDATE page_deriveds SET document = '" + stored + "', links = '" + links + "'"); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages { // both pages hold the same body
			if doc := document(p.ID); !strings.Contains(doc, "Stored once") {
				t.Fatalf("page %s document was computed again: %s", p.Slug, doc)
			}
		}
		var list struct {
			Items []struct{ TargetReference map[string]any }
		}
		s.Call(t, "listSpaceLinks", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/links", nil, 200).Decode(t, &list)
		if len(list.Items) != 1 || list.Items[0].TargetReference["url"] != "https://example.com/stored" {
			t.Fatalf("links were computed again: %+v", list.Items)
		}
		cr := f.newCR(t, "Print")
		var out struct{ URL string }
		s.Call(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath(cr)+"/pdf", nil, 200).Decode(t, &out)
		resp, err := http.Get(out.URL)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if _, text := pdfText(t, data); !strings.Contains(text, "Stored once") {
			t.Fatalf("PDF converted the markdown again:\n%s", text)
		}
		if n := count(); n != 1 {
			t.Fatalf("%d derived rows, want 1 per body", n)
		}
	})
}
