package rest_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/folio/folio/internal/skiplog"
	"github.com/folio/folio/internal/testkit"
)

// pdftotext reads a PDF's text back with poppler-utils' pdftotext (.ci/run
// installs it); without it the test fails in CI and skips elsewhere.
func pdftotext(t *testing.T, data []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("pdftotext is missing: apt-get install -y poppler-utils")
		}
		skiplog.Skip(t, "PDF text checks", "pdftotext is missing: apt-get install -y poppler-utils")
	}
	cmd := exec.Command(bin, "-enc", "UTF-8", "-", "-")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// TestSpacePDF prints a space whose pages hold Latin, Greek, Cyrillic and
// Chinese text, and reads the text back intact.
func TestSpacePDF(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		for _, dir := range []string{"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"} {
			if _, err := os.Stat(dir); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is missing: apt-get install -y fonts-dejavu-core fonts-droid-fallback", dir)
				}
				skiplog.Skip(t, "PDF text checks", dir+" is missing: apt-get install -y fonts-dejavu-core fonts-droid-fallback")
			}
		}
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Scripts")
		f.edit(t, cr,
			insertPage("# Привет\n\nСъешь же ещё этих мягких булок.\n\n- Ελληνικά: Γειά σου κόσμε\n", map[string]any{"ref": "ru"}),
			insertPage("# 你好世界\n\n中文文本：打印测试。Mixed 文字 and English.\n\n| 名 | Ωμέγα |\n|---|---|\n| 值 | Жж |\n", map[string]any{"into": "ru"}),
			insertPage("# Plain\n\nCafé déjà vu.\n", nil),
		)
		f.merge(t, cr, 200)
		sp := "/v1/spaces/" + f.space
		fetch := func(query string) string {
			t.Helper()
			var out struct{ URL string }
			s.Call(t, "getSpacePDF", f.reader.Token, "GET", sp+"/pdf"+query, nil, 200).Decode(t, &out)
			resp, err := http.Get(out.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
				t.Fatalf("download: %d %s", resp.StatusCode, data)
			}
			return pdftotext(t, data)
		}
		text := fetch("")
		for _, want := range []string{"Привет", "Съешь же ещё этих мягких булок.", "Γειά σου κόσμε", "你好世界", "中文文本：打印测试。", "Mixed 文字 and English.", "Ωμέγα", "Жж", "Café déjà vu."} {
			if !strings.Contains(text, want) {
				t.Fatalf("%q missing from the PDF's text:\n%s", want, text)
			}
		}
		if strings.Contains(text, "?") {
			t.Fatalf("a character printed as '?':\n%s", text)
		}
		pages := f.tree(t, sp+"/content/pages")
		if text := fetch("?page=" + pages[0].ID + "&only=true"); !strings.Contains(text, "Привет") || strings.Contains(text, "你好") || strings.Contains(text, "Café") {
			t.Fatalf("one page:\n%s", text)
		}
		if text := fetch("?page=" + pages[0].ID); !strings.Contains(text, "你好世界") || strings.Contains(text, "Café") {
			t.Fatalf("page with subpages:\n%s", text)
		}

		s.Fail(t, "getSpacePDF", f.reader.Token, "GET", sp+"/pdf?only=maybe", nil, 400)
		s.Fail(t, "getSpacePDF", f.reader.Token, "GET", sp+"/pdf?only=true", nil, 400)
		s.Fail(t, "getSpacePDF", f.reader.Token, "GET", sp+"/pdf?page=nosuchpage", nil, 404)
		s.Fail(t, "getSpacePDF", f.stranger.Token, "GET", sp+"/pdf", nil, 404)
		s.Fail(t, "getSpacePDF", f.stranger.Token, "GET", sp+"/pdf?only=maybe", nil, 404)
		s.Fail(t, "getSpacePDF", "", "GET", sp+"/pdf", nil, 401)
	})
}
