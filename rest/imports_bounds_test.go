package rest_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/testkit"
)

// rawEntry is a zip entry whose header says what the test wants, whatever
// its bytes hold.
type rawEntry struct {
	name     string
	deflated []byte // raw deflate stream
	crc      uint32
	declared uint64 // uncompressed size in the headers
	nonUTF8  bool
	extra    []byte
	stored   []byte // set instead of deflated: kept as is
}

func zipOf(t testing.TB, entries ...rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		fh := &zip.FileHeader{Name: e.name, Method: zip.Deflate, CRC32: e.crc, UncompressedSize64: e.declared,
			CompressedSize64: uint64(len(e.deflated)), NonUTF8: e.nonUTF8, Extra: e.extra}
		if !e.nonUTF8 && strings.ContainsFunc(e.name, func(r rune) bool { return r >= 0x80 }) {
			fh.Flags |= 0x800 // what CreateHeader would set; CreateRaw leaves the flags alone
		}
		data := e.deflated
		if e.stored != nil {
			fh.Method, data = zip.Store, e.stored
			fh.CRC32, fh.UncompressedSize64, fh.CompressedSize64 = crc32.ChecksumIEEE(data), uint64(len(data)), uint64(len(data))
		}
		w, err := zw.CreateRaw(fh)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// deflated is n bytes of 'x', deflated, and their CRC.
func deflated(t testing.TB, n int) ([]byte, uint32) {
	t.Helper()
	var out bytes.Buffer
	fw, _ := flate.NewWriter(&out, flate.BestCompression)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	crc := crc32.NewIEEE()
	for left := n; left > 0; left -= len(chunk) {
		c := chunk[:min(left, len(chunk))]
		fw.Write(c)
		crc.Write(c)
	}
	fw.Close()
	return out.Bytes(), crc.Sum32()
}

// serveBytes serves fixed bodies by path.
func serveBytes(t *testing.T, bodies map[string][]byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// post sends a request that may run on any goroutine (no t.Fatal).
func post(ctx context.Context, s *testkit.Server, token, path string, body any) answer {
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL+path, bytes.NewReader(raw))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

func (a answer) message(t *testing.T) string {
	t.Helper()
	var e struct{ Error struct{ Message string } }
	if err := json.Unmarshal(a.body, &e); err != nil {
		t.Fatalf("not the error shape: %s", a.body)
	}
	return e.Error.Message
}

// heapPeak samples the bytes of heap objects until stop is closed and
// reports the largest sample.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return out
}

// Six zip bombs imported at once are refused without being unpacked: with
// 413 (or 400 for a header that lies) naming the entry, nothing written, and
// the heap never grows by what they unpack to.
func TestImportZipBombsStayWithinMemory(t *testing.T) {
	huge, hugeCRC := deflated(t, 110<<20) // past the 100 MB an import may unpack
	part, partCRC := deflated(t, 19<<20)  // within an image's 20 MB, six pass the 100 MB
	honest := zipOf(t, rawEntry{name: "book/bomb.md", deflated: huge, crc: hugeCRC, declared: 110 << 20})
	lying := zipOf(t, rawEntry{name: "book/liar.md", deflated: huge, crc: hugeCRC, declared: 1024})
	var parts []rawEntry
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		parts = append(parts, rawEntry{name: "book/" + n + ".png", deflated: part, crc: partCRC, declared: 19 << 20})
	}
	split := zipOf(t, parts...)
	site := serveBytes(t, map[string][]byte{"/honest.zip": honest, "/lying.zip": lying, "/split.zip": split})
	cases := []struct {
		url, entry string
		status     int
	}{
		{"/honest.zip", `"book/bomb.md"`, 413}, {"/honest.zip", `"book/bomb.md"`, 413},
		{"/lying.zip", `"book/liar.md"`, 400}, {"/lying.zip", `"book/liar.md"`, 400},
		{"/split.zip", `"book/f.png"`, 413}, {"/split.zip", `"book/f.png"`, 413},
	}
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.App.Resolver.Imports = &importer.Gate{Max: len(cases)} // all six at once
		path := "/v1/spaces/" + f.space + "/content/import"
		before := s.Snapshot(t)

		// A low GC target keeps garbage from hiding in the samples: what is
		// measured is close to what the imports hold.
		defer debug.SetGCPercent(debug.SetGCPercent(10))
		runtime.GC()
		base := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(base)
		stop := make(chan struct{})
		peak := heapPeak(stop)
		answers := make([]answer, len(cases))
		var wg sync.WaitGroup
		for i, c := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = post(context.Background(), s, f.editor.Token, path, map[string]any{"url": site.URL + c.url, "source": "zip"})
			}()
		}
		wg.Wait()
		close(stop)
		growth := int64(<-peak) - int64(base[0].Value.Uint64())

		// Each bomb unpacks to more than 100 MB: unpacking any one of them up
		// to the limit would hold 100 MB. Refusing them costs their fetched
		// bytes (six times less than 250 KB) and the requests' own work, a
		// few MB: 32 MB is far from both.
		t.Logf("heap growth: %d KB", growth>>10)
		if growth > 32<<20 {
			t.Errorf("the heap grew by %d MB while six bombs were imported", growth>>20)
		}
		for i, c := range cases {
			a := answers[i]
			if a.err != nil || a.status != c.status {
				t.Fatalf("%s: %v %d, want %d: %s", c.url, a.err, a.status, c.status, a.body)
			}
			testkit.CheckContract(t, "importContent", "POST", path, &testkit.Response{Status: a.status, Header: a.header, Body: a.body})
			if msg := a.message(t); !strings.Contains(msg, c.entry) || !strings.HasPrefix(msg, "url: ") {
				t.Errorf("%s: %q does not name url and the entry %s", c.url, msg, c.entry)
			}
		}
		s.Unchanged(t, before)
	})
}

// An archive of more entries than the limit is refused before its entries
// are indexed.
func TestImportZipEntryCount(t *testing.T) {
	var entries []rawEntry
	for i := 0; i <= importer.MaxZipFiles; i++ {
		entries = append(entries, rawEntry{name: fmt.Sprintf("p%d.md", i), stored: []byte("# P\n")})
	}
	site := serveBytes(t, map[string][]byte{"/many.zip": zipOf(t, entries...)})
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		before := s.Snapshot(t)
		msg := s.Fail(t, "importContent", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/content/import", map[string]any{"url": site.URL + "/many.zip", "source": "zip"}, 413)
		if !strings.Contains(msg, "2000 entries") {
			t.Fatalf("message: %q", msg)
		}
		s.Unchanged(t, before)
	})
}

// Names without the UTF-8 flag are CP437 (unless an Info-ZIP Unicode Path
// field spells them, or they are UTF-8 as macOS writes them); flagged names
// are UTF-8.
func TestImportZipCP437Names(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n")
	unicodePath := func(raw, name string) []byte {
		field := append([]byte{1}, binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE([]byte(raw)))...)
		field = append(field, name...)
		b := binary.LittleEndian.AppendUint16(nil, 0x7075)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(field)))
		return append(b, field...)
	}
	archive := zipOf(t,
		rawEntry{name: "docs/Caf\x82.md", nonUTF8: true, stored: []byte("Coffee.\n")},              // Café
		rawEntry{name: "docs/\x9aber/README.md", nonUTF8: true, stored: []byte("About.\n")},        // Über
		rawEntry{name: "docs/\x9aber/Gr\x81\xe1e.md", nonUTF8: true, stored: []byte("Hello.\n")},   // Grüße
		rawEntry{name: "docs/na\xc3\xafve.md", nonUTF8: true, stored: []byte("UTF-8, no flag.\n")}, // naïve, as macOS writes it
		rawEntry{name: "docs/\xe6\x97\xa5\xe6\x9c\xac.md", stored: []byte("Flagged.\n")},           // 日本, flagged by the writer
		rawEntry{name: "docs/Se\xa4or.md", nonUTF8: true, extra: unicodePath("docs/Se\xa4or.md", "docs/Señor ✓.md"), stored: []byte("Extra field.\n")},
		rawEntry{name: "docs/Bild \x81.png", nonUTF8: true, stored: png}, // Bild ü.png
	)
	site := serveBytes(t, map[string][]byte{"/names.zip": archive})
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		s.Call(t, "importContent", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/content/import", map[string]any{"url": site.URL + "/names.zip", "source": "zip"}, 201)
		var titles []string
		var walk func([]pageNode)
		walk = func(ps []pageNode) {
			for _, p := range ps {
				titles = append(titles, p.Title)
				walk(p.Pages)
			}
		}
		walk(f.tree(t, "/v1/spaces/"+f.space+"/content/pages"))
		if got := strings.Join(titles, ","); got != "Café,Señor ✓,Naïve,Über,Grüße,日本" {
			t.Fatalf("titles: %s", got)
		}
		var files struct{ Items []struct{ Name string } }
		s.Call(t, "listFiles", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/content/files", nil, 200).Decode(t, &files)
		if len(files.Items) != 1 || files.Items[0].Name != "Bild ü.png" {
			t.Fatalf("files: %+v", files)
		}
	})
}

// Imported text with a NUL byte (or bytes that are not UTF-8) is refused
// with a 400 naming the entry, and nothing is written.
func TestImportRefusesNUL(t *testing.T) {
	site := serveBytes(t, map[string][]byte{
		"/nul.zip":    zipOf(t, rawEntry{name: "book/ok.md", stored: []byte("# Fine\n")}, rawEntry{name: "book/bad.md", stored: []byte("# Bad\n\nA\x00B\n")}),
		"/latin1.zip": zipOf(t, rawEntry{name: "book/ok.md", stored: []byte("# Fine\n")}, rawEntry{name: "book/old.md", stored: []byte("# Caf\xe9\n")}),
		"/nul.md":     []byte("# Bad\n\nA\x00B\n"),
	})
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		path := "/v1/spaces/" + f.space + "/content/import"
		before := s.Snapshot(t)
		for _, c := range []struct{ url, source, want string }{
			{"/nul.zip", "zip", `url: archive entry "book/bad.md" holds a NUL byte`},
			{"/latin1.zip", "zip", `url: archive entry "book/old.md" is not UTF-8 text`},
			{"/nul.md", "markdown", "url: the document holds a NUL byte"},
		} {
			if msg := s.Fail(t, "importContent", f.editor.Token, "POST", path, map[string]any{"url": site.URL + c.url, "source": c.source}, 400); !strings.HasPrefix(msg, c.want) {
				t.Errorf("%s: %q, want %q…", c.url, msg, c.want)
			}
		}
		s.Unchanged(t, before)
	})
}

// held serves /slow.md only when the test lets it: imports stay in flight
// as long as the test wants.
type held struct {
	srv     *httptest.Server
	arrived chan struct{} // one per request that reached the server
	release chan struct{} // one per request to answer
}

func newHeld(t *testing.T) *held {
	h := &held{arrived: make(chan struct{}), release: make(chan struct{})}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.arrived <- struct{}{}
		<-h.release
		w.Write([]byte("# Slow\n\nArrived.\n"))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// until polls cond (a count, not a clock) for up to a minute.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 60000; i++ {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

// Imports past the in-flight bound wait for a turn, then answer 503 with
// Retry-After; a waiting import that gets a turn runs; one whose client
// leaves stops waiting and writes nothing.
func TestImportsInFlight(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		h := newHeld(t)
		f := newContentFixture(t, s)
		// Each import goes to a space of its own: imports into one space
		// would meet optimistic concurrency (409), not the gate.
		var spaces []string
		for i := 0; i < 3; i++ {
			spaces = append(spaces, f.createSpace(t, map[string]any{"title": fmt.Sprintf("Space %d", i)})["id"].(string))
		}
		importPath := func(i int) string { return "/v1/spaces/" + spaces[i] + "/content/import" }
		path := importPath(2)
		body := map[string]any{"url": h.srv.URL + "/slow.md", "source": "markdown"}
		start := func(ctx context.Context, i int) <-chan answer {
			out := make(chan answer, 1)
			go func() { out <- post(ctx, s, f.editor.Token, importPath(i), body) }()
			return out
		}
		pages := func() (n int) {
			for _, sp := range spaces {
				n += len(f.tree(t, "/v1/spaces/"+sp+"/content/pages"))
			}
			return n
		}

		t.Run("past the bound: 503 with Retry-After", func(t *testing.T) {
			gate := &importer.Gate{Max: 2, Wait: 20 * time.Millisecond}
			s.App.Resolver.Imports = gate
			first, second := start(context.Background(), 0), start(context.Background(), 1)
			<-h.arrived
			<-h.arrived // both hold their turn, waiting on the server
			before := s.Snapshot(t)
			resp := s.Call(t, "importContent", f.editor.Token, "POST", path, body, 503)
			if ra := resp.Header.Get("Retry-After"); ra != "1" {
				t.Errorf("Retry-After: %q", ra)
			}
			if msg := resp.JSON(t)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "2 imports are already running") {
				t.Errorf("message: %q", msg)
			}
			// GraphQL answers the same refusal.
			_, errs := s.GraphQL(t, f.editor.Token, `mutation($s: ID!, $u: String!) { importContent(spaceId: $s, url: $u, source: markdown) { revision } }`,
				map[string]any{"s": spaces[2], "u": h.srv.URL + "/slow.md"})
			if len(errs) != 1 || errs[0].Extensions["code"] != "SERVICE_UNAVAILABLE" || errs[0].Extensions["status"] != float64(503) {
				t.Errorf("graphql: %+v", errs)
			}
			s.Unchanged(t, before)
			h.release <- struct{}{}
			h.release <- struct{}{}
			for _, a := range []answer{<-first, <-second} {
				if a.err != nil || a.status != 201 {
					t.Fatalf("held import: %v %d %s", a.err, a.status, a.body)
				}
			}
			if gate.InFlight() != 0 || gate.Waiting() != 0 || pages() != 2 {
				t.Fatalf("after: %d in flight, %d waiting, %d pages", gate.InFlight(), gate.Waiting(), pages())
			}
		})

		t.Run("a waiting import runs when a turn frees", func(t *testing.T) {
			gate := &importer.Gate{Max: 1, Wait: time.Hour}
			s.App.Resolver.Imports = gate
			first := start(context.Background(), 0)
			<-h.arrived
			waiter := start(context.Background(), 1)
			until(t, "the second import waits", func() bool { return gate.Waiting() == 1 })
			h.release <- struct{}{}
			<-h.arrived // the waiter got the turn and fetches
			h.release <- struct{}{}
			for _, a := range []answer{<-first, <-waiter} {
				if a.err != nil || a.status != 201 {
					t.Fatalf("import: %v %d %s", a.err, a.status, a.body)
				}
			}
			if pages() != 4 {
				t.Fatalf("%d pages", pages())
			}
		})

		t.Run("a waiting import stops when its client leaves", func(t *testing.T) {
			gate := &importer.Gate{Max: 1, Wait: time.Hour}
			s.App.Resolver.Imports = gate
			first := start(context.Background(), 0)
			<-h.arrived
			ctx, cancel := context.WithCancel(context.Background())
			waiter := start(ctx, 1)
			until(t, "the second import waits", func() bool { return gate.Waiting() == 1 })
			cancel()
			if a := <-waiter; a.err == nil {
				t.Fatalf("the cancelled request answered %d", a.status)
			}
			until(t, "the cancelled import stops waiting", func() bool { return gate.Waiting() == 0 })
			h.release <- struct{}{}
			if a := <-first; a.err != nil || a.status != 201 {
				t.Fatalf("import: %v %d %s", a.err, a.status, a.body)
			}
			if gate.InFlight() != 0 || pages() != 5 { // the cancelled import took no turn and wrote nothing
				t.Fatalf("after: %d in flight, %d pages", gate.InFlight(), pages())
			}
		})
	})
}
