package pdf

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"

	readpdf "github.com/ledongthuc/pdf"

	"github.com/folio/folio/internal/markdown"
)

// TextOf reads a PDF back: its page count and its text.
func TextOf(t testing.TB, data []byte) (int, string) {
	t.Helper()
	r, err := readpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("read pdf: %v", err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		s, err := p.GetPlainText(nil)
		if err != nil {
			t.Fatalf("page %d text: %v", i, err)
		}
		b.WriteString(s)
	}
	return r.NumPage(), b.String()
}

func TestRender(t *testing.T) {
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	pages := []Page{
		{Title: "Getting started", Document: markdown.ToDocument("# Getting started\n\nWelcome to the **guide**.\n\n- one\n- two\n\n1. first\n2. second\n\n```go\nfmt.Println(\"hi\")\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![dot](/files/x)\n\n> quoted\n\n---\n")},
		{Title: "Install", Document: markdown.ToDocument("## Linux\n\napt install folio\n\n![missing](/files/none)\n"), Depth: 1},
	}
	data, err := Render(context.Background(), "Docs", pages, func(src string) ([]byte, string, bool) {
		if src == "/files/x" {
			return png, "PNG", true
		}
		return nil, "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	n, text := TextOf(t, data)
	if n != 2 {
		t.Fatalf("%d pages, want 2", n)
	}
	for _, want := range []string{"Getting started", "Welcome to the guide", "fmt.Println", "Install", "Linux", "apt install folio", "[missing]"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
