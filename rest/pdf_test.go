package rest_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	readpdf "github.com/ledongthuc/pdf"

	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

func pdfText(t *testing.T, data []byte) (int, string) {
	t.Helper()
	r, err := readpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("not a PDF: %v", err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		s, _ := r.Page(i).GetPlainText(nil)
		b.WriteString(s)
	}
	return r.NumPage(), b.String()
}

func TestChangeRequestPDF(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		t.Cleanup(clock.Reset)
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Printable")
		f.edit(t, cr,
			insertPage("# Handbook\n\nThe **handbook** intro.\n\n- a\n- b\n\n| k | v |\n|---|---|\n| x | y |\n", map[string]any{"ref": "h"}),
			insertPage("# Appendix\n\n```\ncode here\n```\n", map[string]any{"into": "h"}),
			insertPage("# Other\n\nOther page.\n", nil),
		)
		fetch := func(query string) (int, string) {
			t.Helper()
			var out struct{ URL string }
			s.Call(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath(cr)+"/pdf"+query, nil, 200).Decode(t, &out)
			resp, err := http.Get(out.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
				t.Fatalf("download: %d %s", resp.StatusCode, data)
			}
			return pdfText(t, data)
		}
		n, text := fetch("")
		if n != 3 || !strings.Contains(text, "Handbook") || !strings.Contains(text, "code here") || !strings.Contains(text, "Other page") {
			t.Fatalf("whole PDF: %d pages\n%s", n, text)
		}
		pages := f.tree(t, f.crPath(cr)+"/content/pages")
		n, text = fetch("?page=" + pages[0].ID + "&only=true")
		if n != 1 || !strings.Contains(text, "Handbook") || strings.Contains(text, "Appendix") {
			t.Fatalf("one page: %d\n%s", n, text)
		}
		if n, _ = fetch("?page=" + pages[0].ID); n != 2 {
			t.Fatalf("page with subpages: %d pages", n)
		}

		// The URL expires.
		var out struct{ URL string }
		s.Call(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath(cr)+"/pdf", nil, 200).Decode(t, &out)
		clock.Advance(2 * time.Hour)
		if resp, err := http.Get(out.URL); err != nil || resp.StatusCode != 404 {
			t.Fatalf("expired download: %v %v", err, resp.StatusCode)
		}

		s.Fail(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath(cr)+"/pdf?only=maybe", nil, 400)
		s.Fail(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath(cr)+"/pdf?page=nosuchpage", nil, 404)
		s.Fail(t, "getChangeRequestPDF", f.reader.Token, "GET", f.crPath("nosuchcr")+"/pdf", nil, 404)
		s.Fail(t, "getChangeRequestPDF", f.stranger.Token, "GET", f.crPath(cr)+"/pdf", nil, 404)
		s.Fail(t, "getChangeRequestPDF", "", "GET", f.crPath(cr)+"/pdf", nil, 401)
	})
}
