package rest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/testkit"
)

// compressible is a zip of one entry of n bytes of 'x', written with
// archive/zip as any tool would (true sizes in its headers): 99 MB of it
// compress to about 100 KB.
func compressible(t *testing.T, name string, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("x"), 1<<20)
	for left := n; left > 0; left -= len(line) {
		w.Write(line[:min(left, len(line))])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// An entry's size is trusted for nothing: a 99 MB markdown entry (within
// the 100 MB an import may unpack, past the 1 MB a page may hold) and a
// 99 MB image (past the 20 MB a file may hold) are refused with 413 naming
// the entry and its limit, and refusing them grows the heap by far less
// than importer.MaxImportMemory: by about the entry's limit, never by what
// it unpacks to. Nothing is written.
func TestImportZipEntryLimits(t *testing.T) {
	const size = 99 << 20
	md := compressible(t, "book/big.md", size)
	png := compressible(t, "book/big.png", size)
	t.Logf("99 MB entries compress to %d KB and %d KB", len(md)>>10, len(png)>>10)
	site := serveBytes(t, map[string][]byte{"/md.zip": md, "/png.zip": png})
	cases := []struct{ url, message string }{
		{"/md.zip", `url: archive entry "book/big.md" is larger than the 1 MB a page's markdown may hold`},
		{"/png.zip", `url: archive entry "book/big.png" is larger than the 20 MB an imported file may hold`},
	}
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		path := "/v1/spaces/" + f.space + "/content/import"
		before := s.Snapshot(t)
		for _, c := range cases {
			defer debug.SetGCPercent(debug.SetGCPercent(10))
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			base := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			metrics.Read(base)
			stop := make(chan struct{})
			peak := heapPeak(stop)
			a := post(context.Background(), s, f.editor.Token, path, map[string]any{"url": site.URL + c.url, "source": "zip"})
			close(stop)
			growth := int64(<-peak) - int64(base[0].Value.Uint64())
			runtime.ReadMemStats(&m1)
			allocated := m1.TotalAlloc - m0.TotalAlloc
			// The documented bound is importer.MaxImportMemory (120 MB);
			// the entry is refused by its declaration, or after at most
			// its limit + 1 byte: the request's own work is a few MB.
			t.Logf("%s: heap growth %d KB, allocated %d KB", c.url, growth>>10, allocated>>10)
			if growth > 16<<20 || allocated > importer.MaxImportMemory/4 {
				t.Errorf("%s: the heap grew by %d MB (%d MB allocated) to refuse a 99 MB entry", c.url, growth>>20, allocated>>20)
			}
			if a.err != nil || a.status != 413 {
				t.Fatalf("%s: %v %d: %s", c.url, a.err, a.status, a.body)
			}
			testkit.CheckContract(t, "importContent", "POST", path, &testkit.Response{Status: a.status, Header: a.header, Body: a.body})
			if msg := a.message(t); msg != c.message {
				t.Errorf("%s: %q, want %q", c.url, msg, c.message)
			}
		}
		s.Unchanged(t, before)
	})
}

// An entry that declares a size within its limit and unpacks to more is
// cut at its limit and refused as damaged; one that declares its true size
// within the limits is imported.
func TestImportZipEntryDeclarations(t *testing.T) {
	huge, hugeCRC := deflated(t, 99<<20)
	small, smallCRC := deflated(t, 1000)
	lying := zipOf(t, rawEntry{name: "book/liar.md", deflated: huge, crc: hugeCRC, declared: 512 << 10})
	honest := zipOf(t, rawEntry{name: "book/page.md", deflated: small, crc: smallCRC, declared: 1000})
	site := serveBytes(t, map[string][]byte{"/lying.zip": lying, "/honest.zip": honest})
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		path := "/v1/spaces/" + f.space + "/content/import"
		a := post(context.Background(), s, f.editor.Token, path, map[string]any{"url": site.URL + "/lying.zip", "source": "zip"})
		if a.status != 400 || !strings.Contains(a.message(t), `"book/liar.md" is damaged or does not unpack to the size it declares`) {
			t.Fatalf("lying entry: %d %s", a.status, a.body)
		}
		a = post(context.Background(), s, f.editor.Token, path, map[string]any{"url": site.URL + "/honest.zip", "source": "zip"})
		if a.status != 201 {
			t.Fatalf("honest entry: %d %s", a.status, a.body)
		}
	})
}

// A markdown source larger than a page may hold is refused before it is
// parsed, with 413 naming url.
func TestImportMarkdownTooLarge(t *testing.T) {
	site := serveBytes(t, map[string][]byte{"/big.md": bytes.Repeat([]byte("x"), 2<<20)})
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		before := s.Snapshot(t)
		a := post(context.Background(), s, f.editor.Token, "/v1/spaces/"+f.space+"/content/import", map[string]any{"url": site.URL + "/big.md", "source": "markdown"})
		if a.status != 413 || a.message(t) != "url: the document is larger than the 1 MB a page's markdown may hold" {
			t.Fatalf("%d %s", a.status, a.body)
		}
		s.Unchanged(t, before)
	})
}
