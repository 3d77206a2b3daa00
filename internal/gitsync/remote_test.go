package gitsync

import (
	"context"
	"crypto/rand"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/testkit/gitserver"
)

// plain reaches the test server on loopback with no guard.
var plain = Transport{HTTP: &http.Client{}}

func blobID(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}

func count(reqs []string, prefix string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func docs() map[string][]byte {
	return map[string][]byte{
		"README.md":        []byte("# Repo\n"),
		"docs/a.md":        []byte("# A\n"),
		"docs/sub/b.md":    []byte("# B\n"),
		"docs/.gitbook.md": []byte("x"),
		"other/c.txt":      []byte("c"),
	}
}

func TestFetchRefAndDirectory(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("org/docs.git")
	s.Commit(t, "org/docs.git", "main", map[string][]byte{"old.md": []byte("old")}, "first")
	head := s.Commit(t, "org/docs.git", "main", docs(), "second\n")

	snap, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "", DefaultLimits)
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if snap.Commit != head || snap.Message != "second\n" || len(snap.Files) != 5 {
		t.Fatalf("snapshot = %s %q %d files", snap.Commit, snap.Message, len(snap.Files))
	}
	if string(snap.Files["docs/sub/b.md"]) != "# B\n" || snap.Blobs["docs/sub/b.md"] != blobID([]byte("# B\n")) {
		t.Fatalf("docs/sub/b.md = %q %s", snap.Files["docs/sub/b.md"], snap.Blobs["docs/sub/b.md"])
	}
	// Depth 1 was served: one pack request, no fallback.
	if n := count(s.Requests(), "POST /org/docs.git/git-upload-pack"); n != 1 {
		t.Fatalf("%d upload-pack requests, want 1", n)
	}

	for _, dir := range []string{"docs", "./docs/", "/docs"} {
		snap, err = plain.Fetch(context.Background(), Remote{URL: url}, "refs/heads/main", dir, DefaultLimits)
		if err != nil {
			t.Fatalf("fetch %q: %v", dir, err)
		}
		if len(snap.Files) != 3 || string(snap.Files["a.md"]) != "# A\n" || snap.Files["sub/b.md"] == nil {
			t.Fatalf("files under %q = %v", dir, snap.Files)
		}
	}
	if _, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "nope", DefaultLimits); !errors.Is(err, ErrDirNotFound) {
		t.Fatalf("missing directory: %v", err)
	}
	if _, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "docs/../..", DefaultLimits); !errors.Is(err, ErrRefused) {
		t.Fatalf("directory with ..: %v", err)
	}
}

func TestFetchTag(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("main")}, "main")
	tag := s.Commit(t, "r", "refs/tags/v1", map[string][]byte{"a.md": []byte("v1")}, "v1")
	snap, err := plain.Fetch(context.Background(), Remote{URL: url}, "refs/tags/v1", "", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit != tag || string(snap.Files["a.md"]) != "v1" {
		t.Fatalf("tag snapshot = %s %q", snap.Commit, snap.Files["a.md"])
	}
}

// A host that cannot serve a shallow fetch gets a full one.
func TestFetchDeepensWhenShallowFails(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("1")}, "1")
	head := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("2")}, "2")
	s.DenyShallow()
	snap, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit != head || string(snap.Files["a.md"]) != "2" {
		t.Fatalf("snapshot = %s %q", snap.Commit, snap.Files["a.md"])
	}
	if n := count(s.Requests(), "POST /r/git-upload-pack"); n != 2 {
		t.Fatalf("%d upload-pack requests, want 2 (shallow, then full)", n)
	}
}

func TestFetchMissingRef(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	empty := s.Repo("empty")
	s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("a")}, "a")
	for _, c := range []struct{ url, ref string }{
		{url, "nope"}, {url, "refs/tags/nope"}, {empty, "main"}, {url, "bad..name"}, {url, "refs/notes/x"},
	} {
		if _, err := plain.Fetch(context.Background(), Remote{URL: c.url}, c.ref, "", DefaultLimits); !errors.Is(err, ErrRefNotFound) {
			t.Errorf("fetch %s %s: %v", c.url, c.ref, err)
		}
	}
}

func TestFetchLimits(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	// Compressible content: the pack stays small, the files do not.
	s.Commit(t, "r", "main", map[string][]byte{
		"docs/a.md": []byte(strings.Repeat("a", 3000)),
		"docs/b.md": []byte(strings.Repeat("b", 3000)),
		"docs/c.md": []byte("c"),
		"big.bin":   []byte(strings.Repeat("z", 50000)),
	}, "x")

	_, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "docs", Limits{MaxFiles: 2, MaxBytes: 1 << 20})
	var le *LimitError
	if !errors.As(err, &le) || le.Bound != "files" || !strings.Contains(le.Message, "more than 2 files under \"docs\"") {
		t.Fatalf("over the file bound: %v", err)
	}
	_, err = plain.Fetch(context.Background(), Remote{URL: url}, "main", "docs", Limits{MaxFiles: 10, MaxBytes: 5000})
	if !errors.As(err, &le) || le.Bound != "bytes" || !strings.Contains(le.Message, "5000 bytes") || !strings.Contains(le.Message, "files under") {
		t.Fatalf("over the byte bound: %v", err)
	}
	// Within bounds under docs: what lies outside does not count.
	if snap, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "docs", Limits{MaxFiles: 3, MaxBytes: 6001}); err != nil || len(snap.Files) != 3 {
		t.Fatalf("within bounds: %v", err)
	}
}

func TestFetchDownloadLimits(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	noise := make([]byte, 64<<10)
	_, _ = rand.Read(noise)
	s.Commit(t, "r", "main", map[string][]byte{"noise.bin": noise, "a.md": []byte("a")}, "x")

	// Folio's guarded client cuts the pack at its own cap.
	capped := Transport{HTTP: fetch.Fetcher{AllowPrivate: true, MaxBytes: 16 << 10}.HTTPClient()}
	_, err := capped.Fetch(context.Background(), Remote{URL: url}, "main", "", DefaultLimits)
	var le *LimitError
	if !errors.As(err, &le) || le.Bound != "bytes" {
		t.Fatalf("over the client's cap: %v", err)
	}
	// The operation's own byte limit bounds the download too.
	_, err = plain.Fetch(context.Background(), Remote{URL: url}, "main", "", Limits{MaxFiles: 10, MaxBytes: 16 << 10})
	if !errors.As(err, &le) || le.Bound != "bytes" || !strings.Contains(le.Message, "16384") {
		t.Fatalf("over the operation's byte limit: %v", err)
	}
}

// Each operation uses its own Transport's client though go-git's transport
// table is global.
func TestTransportsKeepTheirOwnClients(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	noise := make([]byte, 64<<10)
	_, _ = rand.Read(noise)
	s.Commit(t, "r", "main", map[string][]byte{"noise.bin": noise}, "x")
	capped := Transport{HTTP: fetch.Fetcher{AllowPrivate: true, MaxBytes: 16 << 10}.HTTPClient()}
	guarded := Transport{HTTP: fetch.Fetcher{}.HTTPClient()} // no private addresses
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := []Transport{plain, capped, guarded}[i%3]
			_, errs[i] = tr.Fetch(context.Background(), Remote{URL: url}, "main", "", DefaultLimits)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		var le *LimitError
		switch i % 3 {
		case 0:
			if err != nil {
				t.Errorf("plain fetch %d: %v", i, err)
			}
		case 1:
			if !errors.As(err, &le) {
				t.Errorf("capped fetch %d: %v", i, err)
			}
		case 2:
			if !errors.Is(err, ErrRefused) {
				t.Errorf("guarded fetch %d (loopback): %v", i, err)
			}
		}
	}
}

func TestPushCreatesBranchInEmptyRepository(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	when := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	commit, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{
		Ref: "main", Dir: "docs", Files: map[string][]byte{"README.md": []byte("# Hi\n"), "a/b.md": []byte("b")},
		AuthorName: "Ada", AuthorEmail: "ada@example.com", Message: "Export from Folio", When: when,
	}, DefaultLimits)
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if s.Head("r", "main") != commit {
		t.Fatalf("head %s, pushed %s", s.Head("r", "main"), commit)
	}
	files := s.Files(t, "r", "main")
	if len(files) != 2 || string(files["docs/README.md"]) != "# Hi\n" || string(files["docs/a/b.md"]) != "b" {
		t.Fatalf("files = %v", files)
	}
	snap, err := plain.Fetch(context.Background(), Remote{URL: url}, "main", "docs", DefaultLimits)
	if err != nil || snap.Message != "Export from Folio" || snap.Commit != commit {
		t.Fatalf("fetch back: %v %+v", err, snap)
	}
	// Expecting a commit on a branch that does not exist: moved.
	_, err = plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "other", Expect: commit, Files: map[string][]byte{"x": nil}}, DefaultLimits)
	var moved *BranchMovedError
	if !errors.As(err, &moved) || moved.Found != "" || moved.Expected != commit {
		t.Fatalf("expecting a missing branch: %v", err)
	}
}

func TestPushFastForwardKeepsFilesOutsideDir(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	s.Commit(t, "r", "main", map[string][]byte{"x": []byte("x")}, "first")
	head := s.Commit(t, "r", "main", docs(), "second")
	req := PushRequest{Ref: "refs/heads/main", Expect: head, Dir: "docs",
		Files: map[string][]byte{"a.md": []byte("# A2\n"), "new/n.md": []byte("n")}, AuthorName: "Ada", Message: "export"}
	commit, err := plain.Push(context.Background(), Remote{URL: url}, req, DefaultLimits)
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if log := s.Log("r", "main"); len(log) != 3 || log[0] != commit || log[1] != head {
		t.Fatalf("log = %v", log)
	}
	files := s.Files(t, "r", "main")
	want := map[string]string{"README.md": "# Repo\n", "other/c.txt": "c", "docs/a.md": "# A2\n", "docs/new/n.md": "n"}
	if len(files) != len(want) {
		t.Fatalf("files = %v", files)
	}
	for p, v := range want {
		if string(files[p]) != v {
			t.Fatalf("%s = %q, want %q", p, files[p], v)
		}
	}
	// The same content again: nothing to push, the head is answered.
	req.Expect = commit
	again, err := plain.Push(context.Background(), Remote{URL: url}, req, DefaultLimits)
	if err != nil || again != commit || len(s.Log("r", "main")) != 3 {
		t.Fatalf("unchanged push: %v %s %v", err, again, s.Log("r", "main"))
	}
	// Dir "" replaces the whole tree.
	if _, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "main", Files: map[string][]byte{"only.md": []byte("o")}}, DefaultLimits); err != nil {
		t.Fatal(err)
	}
	if files := s.Files(t, "r", "main"); len(files) != 1 || files["only.md"] == nil {
		t.Fatalf("files = %v", files)
	}
}

func TestPushRefusesBadPaths(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	for _, p := range []string{"../x", "/abs", "a//b", ".git/config", "a/./b", ""} {
		_, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "main", Files: map[string][]byte{p: []byte("x")}}, DefaultLimits)
		if err == nil {
			t.Errorf("path %q pushed", p)
		}
	}
	if _, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "refs/tags/v1", Files: map[string][]byte{"a": nil}}, DefaultLimits); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("push to a tag: %v", err)
	}
	if s.Head("r", "main") != "" {
		t.Fatal("a refused push landed")
	}
}

func TestPushStaleExpect(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	old := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("1")}, "1")
	head := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("2")}, "2")
	before := s.Log("r", "main")
	_, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "main", Expect: old, Files: map[string][]byte{"a.md": []byte("mine")}}, DefaultLimits)
	var moved *BranchMovedError
	if !errors.As(err, &moved) || moved.Expected != old || moved.Found != head {
		t.Fatalf("stale expect: %v", err)
	}
	if after := s.Log("r", "main"); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("log changed: %v", after)
	}
}

// The branch moves between Folio's fetch and its push: the push is refused
// (by go-git's check of the advertisement, or by the host) and the commit
// that moved it stays.
func TestPushRacingCommit(t *testing.T) {
	for _, at := range []string{"GET /r/info/refs?service=git-receive-pack", "POST /r/git-receive-pack"} {
		t.Run(at, func(t *testing.T) {
			s := gitserver.New(t)
			url := s.Repo("r")
			head := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("1"), "keep.md": []byte("k")}, "1")
			var theirs string
			s.BeforeRequest(func(r *http.Request) {
				if r.Method+" "+r.URL.RequestURI() == at && theirs == "" {
					theirs = s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("theirs")}, "theirs")
				}
			})
			_, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "main", Expect: head, Files: map[string][]byte{"a.md": []byte("mine")}}, DefaultLimits)
			var moved *BranchMovedError
			if !errors.As(err, &moved) || moved.Expected != head || moved.Found != theirs || theirs == "" {
				t.Fatalf("racing push: %v (theirs %s)", err, theirs)
			}
			if log := s.Log("r", "main"); len(log) != 2 || log[0] != theirs || log[1] != head {
				t.Fatalf("log = %v", log)
			}
		})
	}
}

func TestBasicAuth(t *testing.T) {
	const password = "VISIBLE-PASSWORD-123"
	s := gitserver.New(t)
	url := s.Repo("r")
	s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("a")}, "a")
	s.RequireAuth("alice", password)
	ctx := context.Background()
	var texts []string

	if _, err := plain.Fetch(ctx, Remote{URL: url, Username: "alice", Password: password}, "main", "", DefaultLimits); err != nil {
		t.Fatalf("right credentials: %v", err)
	}
	if _, err := plain.Push(ctx, Remote{URL: url, Username: "alice", Password: password}, PushRequest{Ref: "main", Files: map[string][]byte{"b.md": []byte("b")}}, DefaultLimits); err != nil {
		t.Fatalf("push with the right credentials: %v", err)
	}
	for _, r := range []Remote{{URL: url}, {URL: url, Username: "alice", Password: password + "x"}, {URL: s.URL() + "/missing", Username: "alice", Password: password}} {
		_, err := plain.Fetch(ctx, r, "main", "", DefaultLimits)
		if !errors.Is(err, ErrAuth) {
			t.Errorf("fetch %s: %v", r.URL, err)
		}
		_, perr := plain.Push(ctx, r, PushRequest{Ref: "main", Files: map[string][]byte{"c.md": nil}}, DefaultLimits)
		if !errors.Is(perr, ErrAuth) {
			t.Errorf("push %s: %v", r.URL, perr)
		}
		texts = append(texts, err.Error(), perr.Error())
	}
	withUser := strings.Replace(url, "://", "://alice:"+password+"@", 1)
	_, err := plain.Fetch(ctx, Remote{URL: withUser}, "main", "", DefaultLimits)
	if !errors.Is(err, ErrRefused) {
		t.Errorf("URL with credentials: %v", err)
	}
	texts = append(texts, err.Error())
	texts = append(texts, s.Requests()...)
	for _, text := range texts {
		if strings.Contains(text, password) {
			t.Fatalf("the password shows in %q", text)
		}
	}
}

func TestRefusedAddresses(t *testing.T) {
	ctx := context.Background()
	withHosts := Transport{HTTP: &http.Client{}, KnownHosts: "/nonexistent/known_hosts", SSHKey: "/nonexistent/key"}
	for _, c := range []struct {
		tr  Transport
		url string
	}{
		{plain, "ssh://git@example.com/org/repo.git"},
		{plain, "git@github.com:org/repo.git"},
		{plain, "file:///tmp/repo"},
		{plain, "/tmp/repo"},
		{plain, "git://example.com/repo"},
		{plain, "ftp://example.com/repo"},
		{plain, "https://user@example.com/repo"},
		{Transport{KnownHosts: "/k"}, "ssh://git:pw@example.com/repo"},
		{Transport{KnownHosts: "/k"}, "git@github.com:org/repo.git"}, // no key
		{withHosts, "ssh://git@example.com/org/repo.git"},            // unreadable files
	} {
		_, err := c.tr.Fetch(ctx, Remote{URL: c.url}, "main", "", DefaultLimits)
		if !errors.Is(err, ErrRefused) {
			t.Errorf("fetch %s: %v", c.url, err)
		}
		_, err = c.tr.Push(ctx, Remote{URL: c.url}, PushRequest{Ref: "main"}, DefaultLimits)
		if !errors.Is(err, ErrRefused) {
			t.Errorf("push %s: %v", c.url, err)
		}
	}
}

func TestNetworkFailures(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/r"
	l.Close()
	var ne *NetworkError
	if _, err := plain.Fetch(ctx, Remote{URL: closed}, "main", "", DefaultLimits); !errors.As(err, &ne) {
		t.Errorf("closed port: %v", err)
	}
	if _, err := plain.Push(ctx, Remote{URL: closed}, PushRequest{Ref: "main"}, DefaultLimits); !errors.As(err, &ne) {
		t.Errorf("push to a closed port: %v", err)
	}

	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	defer failing.Close()
	if _, err := plain.Fetch(ctx, Remote{URL: failing.URL + "/r"}, "main", "", DefaultLimits); !errors.As(err, &ne) {
		t.Errorf("502: %v", err)
	}

	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer hanging.Close()
	quick := Transport{HTTP: &http.Client{}, Timeout: 100 * time.Millisecond}
	if _, err := quick.Fetch(ctx, Remote{URL: hanging.URL + "/r"}, "main", "", DefaultLimits); !errors.As(err, &ne) {
		t.Errorf("timeout: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := plain.Fetch(cancelled, Remote{URL: hanging.URL + "/r"}, "main", "", DefaultLimits); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Fetch downloads the commit alone where the host serves depth 1.
func TestDownloadIsShallow(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	first := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("1")}, "1")
	head := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("2")}, "2")
	ep, err := plain.endpoint(Remote{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo, got, err := plain.download(ctx, ctx, ep, "refs/heads/main", DefaultLimits)
	if err != nil || got.String() != head {
		t.Fatalf("download: %v %s", err, got)
	}
	if sh, _ := repo.Storer.Shallow(); len(sh) != 1 || sh[0].String() != head {
		t.Fatalf("shallow = %v", sh)
	}
	if _, err := repo.CommitObject(plumbing.NewHash(first)); err == nil {
		t.Fatal("the parent commit was downloaded")
	}
}

func TestPushLimits(t *testing.T) {
	s := gitserver.New(t)
	url := s.Repo("r")
	files := map[string][]byte{"a.md": []byte("aaaa"), "b.md": []byte("bbbb"), "c.md": []byte("cccc")}
	var le *LimitError
	_, err := plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "main", Files: files}, Limits{MaxFiles: 2, MaxBytes: 100})
	if !errors.As(err, &le) || le.Bound != "files" || !strings.Contains(le.Message, "2 files") {
		t.Fatalf("over the file bound: %v", err)
	}
	_, err = plain.Push(context.Background(), Remote{URL: url}, PushRequest{Ref: "main", Files: files}, Limits{MaxFiles: 5, MaxBytes: 10})
	if !errors.As(err, &le) || le.Bound != "bytes" || !strings.Contains(le.Message, "10 bytes") {
		t.Fatalf("over the byte bound: %v", err)
	}
	if len(s.Requests()) != 0 || s.Head("r", "main") != "" {
		t.Fatal("a push over the limits reached the host")
	}
}
