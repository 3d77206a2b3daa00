package rest_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/rest"
)

// fetchRaw GETs an absolute URL without the JSON helpers, as a browser would.
func fetchRaw(t *testing.T, rawURL string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// checkCommon asserts the headers every answer carries.
func checkCommon(t *testing.T, what string, h http.Header) {
	t.Helper()
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" ||
		!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Request-Id") == "" {
		t.Errorf("%s: common headers missing: %v", what, h)
	}
	if h.Get("Strict-Transport-Security") != "" {
		t.Errorf("%s: HSTS over an http base URL", what)
	}
	if strings.HasPrefix(h.Get("Content-Type"), "application/json") && h.Get("Content-Security-Policy") != app.DataCSP {
		t.Errorf("%s: JSON answer with policy %q", what, h.Get("Content-Security-Policy"))
	}
}

// TestUploadedFilesAreInert: an HTML or SVG file uploaded through the
// content API comes back from its downloadURL as an attachment, never
// sniffed, sandboxed; a PNG is still shown inline, sandboxed too.
func TestUploadedFilesAreInert(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"editMode": "live"}, 200)
		png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
		uploads := map[string]struct{ contentType, body, disposition string }{
			"evil.html": {"text/html", `<html><script>fetch("/v1/orgs",{headers:{Authorization:localStorage.token}})</script></html>`, `attachment; filename=evil.html`},
			"evil.svg":  {"image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>`, `attachment; filename=evil.svg`},
			"dot.png":   {"image/png", "", `inline; filename=dot.png`},
		}
		var files []any
		for name, u := range uploads {
			b64 := base64.StdEncoding.EncodeToString([]byte(u.body))
			if name == "dot.png" {
				b64 = png
			}
			files = append(files, map[string]any{"name": name, "contentType": u.contentType, "base64": b64})
		}
		liveEdit(t, s, f.editor.Token, f.space, map[string]any{"operation": "insert_files", "files": files})

		var list struct {
			Items []struct{ Name, ContentType, DownloadURL string }
			Count int
		}
		s.Call(t, "listFiles", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files", nil, 200).Decode(t, &list)
		if list.Count != 3 {
			t.Fatalf("files: %+v", list)
		}
		for _, file := range list.Items {
			want := uploads[file.Name]
			resp, body := fetchRaw(t, file.DownloadURL)
			h := resp.Header
			checkCommon(t, file.Name, h)
			if resp.StatusCode != 200 || h.Get("Content-Type") != want.contentType ||
				h.Get("Content-Disposition") != want.disposition || h.Get("Content-Security-Policy") != rest.FileCSP {
				t.Errorf("%s: %d type %q disposition %q policy %q", file.Name, resp.StatusCode,
					h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("Content-Security-Policy"))
			}
			if want.body != "" && body != want.body {
				t.Errorf("%s: body %q", file.Name, body)
			}
		}
	})
}

// TestCommonHeaders: every kind of answer (JSON, errors, unknown routes,
// health, GraphQL, files, generated downloads) carries the common headers,
// JSON with default-src 'none'; HSTS only under an https base URL.
func TestCommonHeaders(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Printable")
		f.edit(t, cr, insertPage("# Handbook\n\nText.\n", nil), map[string]any{"operation": "insert_files",
			"files": []any{map[string]any{"name": "notes.txt", "contentType": "text/plain", "base64": base64.StdEncoding.EncodeToString([]byte("notes"))}}})
		var pdf struct{ URL string }
		s.Call(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath(cr)+"/pdf", nil, 200).Decode(t, &pdf)
		var files struct {
			Items []struct{ DownloadURL string }
		}
		s.Call(t, "listFilesInChangeRequestById", f.reader.Token, "GET", f.crPath(cr)+"/content/files", nil, 200).Decode(t, &files)

		seen := 0
		for _, c := range []struct {
			name, method, path, token string
			body                      any
			status                    int
		}{
			{"JSON", "GET", "/v1/user", f.reader.Token, nil, 200},
			{"unauthenticated", "GET", "/v1/user", "", nil, 401},
			{"invalid", "POST", "/v1/orgs/" + f.org + "/spaces", f.admin.Token, "{", 400},
			{"unknown route", "GET", "/nowhere", "", nil, 404},
			{"unknown id", "GET", "/v1/spaces/nope", f.reader.Token, nil, 404},
			{"wrong method", "DELETE", "/healthz", "", nil, 405},
			{"health", "GET", "/healthz", "", nil, 200},
			{"GraphQL", "POST", "/graphql", f.reader.Token, map[string]any{"query": "{ viewer { user { id } } }"}, 200},
			{"GraphQL GET", "GET", "/graphql?query=" + url.QueryEscape("{ viewer { user { id } } }"), f.reader.Token, nil, 200},
			{"unknown file", "GET", "/files/nope/x.txt", "", nil, 404},
			{"unknown download", "GET", "/downloads/nope", "", nil, 404},
		} {
			r := s.Request(t, c.token, c.method, c.path, c.body)
			if r.Status != c.status {
				t.Errorf("%s: status %d, want %d: %s", c.name, r.Status, c.status, r.Body)
			}
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Errorf("%s: not JSON: %q", c.name, r.Header.Get("Content-Type"))
			}
			checkCommon(t, c.name, r.Header)
			seen++
		}
		for name, u := range map[string]string{"file": files.Items[0].DownloadURL, "PDF": pdf.URL} {
			resp, _ := fetchRaw(t, u)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != rest.FileCSP {
				t.Errorf("%s: %d %v", name, resp.StatusCode, resp.Header)
			}
			checkCommon(t, name, resp.Header)
			seen++
		}
		if want := 13; seen != want {
			t.Fatalf("checked %d answers, want %d", seen, want)
		}

		// The same server behind an https base URL promises HSTS on every answer.
		s.App.Config.BaseURL = "https://docs.example.com"
		defer func() { s.App.Config.BaseURL = s.URL }()
		for _, path := range []string{"/healthz", "/nowhere", "/graphql"} {
			rec := httptest.NewRecorder()
			s.App.Handler.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			if hsts := rec.Header().Get("Strict-Transport-Security"); !strings.HasPrefix(hsts, "max-age=") {
				t.Errorf("%s under https: HSTS %q", path, hsts)
			}
		}
	})
}

// TestExplorerPolicy: the explorer page carries the common headers and a
// policy of its own that runs only the bundle's scripts (no inline one);
// that it persists nothing is checked in a browser
// (internal/explorer/browser_test.go).
func TestExplorerPolicy(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	req, _ := http.NewRequest("GET", s.URL+"/graphql", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page, h := string(raw), resp.Header
	if resp.StatusCode != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(page, "explorer") {
		t.Fatalf("explorer: %d %q", resp.StatusCode, h.Get("Content-Type"))
	}
	checkCommon(t, "explorer", h)
	if m := regexp.MustCompile(`<script[^>]*>[^<]+</script>`).FindString(page); m != "" {
		t.Errorf("inline script in the explorer: %s", m)
	}
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("explorer policy %q lacks %s", csp, want)
		}
	}
}
