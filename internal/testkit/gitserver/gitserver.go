// Package gitserver is an in-process Git server speaking smart HTTP, for
// tests that clone and push without a git binary or the network.
// Repositories live in go-git's memory storage and are served by go-git's
// server side; the server adds what a real host does and go-git's server
// does not: shallow clones (depth), and refusing a push whose old value is
// not the branch's current head (a branch moved since the client looked).
package gitserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Server serves repositories by name under one httptest server. All its
// methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server
	git transport.Transport

	mu        sync.Mutex
	repos     map[string]*memory.Storage
	user      string
	pass      string
	auth      bool
	noShallow bool
	requests  []string
	before    func(*http.Request)
}

// New starts a server, closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{repos: map[string]*memory.Storage{}}
	s.git = server.NewServer(loader{s})
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base address (no repository).
func (s *Server) URL() string { return s.srv.URL }

// Repo answers the URL of repository name, creating it empty if new.
func (s *Server) Repo(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo(name)
	return s.srv.URL + "/" + name
}

// RequireAuth makes every later request need HTTP basic auth with user and
// pass; others get 401 with a WWW-Authenticate challenge.
func (s *Server) RequireAuth(user, pass string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.pass, s.auth = user, pass, true
}

// DenyShallow makes the server advertise no shallow support and fail
// depth-limited fetches, as some hosts and go-git's own server do.
func (s *Server) DenyShallow() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noShallow = true
}

// BeforeRequest runs fn before each request is served (outside the
// server's lock, so fn may call Commit): a way to move a branch between a
// client's fetch and its push.
func (s *Server) BeforeRequest(fn func(r *http.Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.before = fn
}

// Requests lists every request seen: method, path and query, and whether
// an Authorization header came (never its value).
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Commit writes a commit on ref (a branch name or full ref) of repository
// name whose tree is exactly files, with the ref's head as parent, and
// answers its hash.
func (s *Server) Commit(t testing.TB, name, ref string, files map[string][]byte, message string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sto := s.repo(name)
	refName := fullRef(ref)
	tree, err := writeTree(sto, files)
	if err != nil {
		t.Fatalf("gitserver: tree: %v", err)
	}
	c := &object.Commit{
		Author:    object.Signature{Name: "Test", Email: "test@example.com", When: time.Now()},
		Message:   message,
		TreeHash:  tree,
		Committer: object.Signature{Name: "Test", Email: "test@example.com", When: time.Now()},
	}
	if head, err := sto.Reference(refName); err == nil {
		c.ParentHashes = []plumbing.Hash{head.Hash()}
	}
	obj := sto.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatalf("gitserver: commit: %v", err)
	}
	h, err := sto.SetEncodedObject(obj)
	if err != nil {
		t.Fatalf("gitserver: commit: %v", err)
	}
	if err := sto.SetReference(plumbing.NewHashReference(refName, h)); err != nil {
		t.Fatalf("gitserver: ref: %v", err)
	}
	if _, err := sto.Reference(plumbing.HEAD); err != nil && refName.IsBranch() {
		_ = sto.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, refName))
	}
	return h.String()
}

// Files answers the tree at ref's head in repository name.
func (s *Server) Files(t testing.TB, name, ref string) map[string][]byte {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sto := s.repo(name)
	head, err := sto.Reference(fullRef(ref))
	if err != nil {
		t.Fatalf("gitserver: %s has no %s", name, ref)
	}
	c, err := object.GetCommit(sto, head.Hash())
	if err != nil {
		t.Fatalf("gitserver: commit: %v", err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatalf("gitserver: tree: %v", err)
	}
	out := map[string][]byte{}
	err = tree.Files().ForEach(func(f *object.File) error {
		text, err := f.Contents()
		out[f.Name] = []byte(text)
		return err
	})
	if err != nil {
		t.Fatalf("gitserver: files: %v", err)
	}
	return out
}

// Head answers the commit ref points at in repository name, or "".
func (s *Server) Head(name, ref string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := s.repo(name).Reference(fullRef(ref))
	if err != nil {
		return ""
	}
	return head.Hash().String()
}

// Log answers the commits from ref's head back, following first parents.
func (s *Server) Log(name, ref string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sto := s.repo(name)
	head, err := sto.Reference(fullRef(ref))
	if err != nil {
		return nil
	}
	var out []string
	for h := head.Hash(); ; {
		c, err := object.GetCommit(sto, h)
		if err != nil {
			return out
		}
		out = append(out, h.String())
		if len(c.ParentHashes) == 0 {
			return out
		}
		h = c.ParentHashes[0]
	}
}

// repo answers repository name's storage, creating it; s.mu is held.
func (s *Server) repo(name string) *memory.Storage {
	name = strings.Trim(name, "/")
	sto, ok := s.repos[name]
	if !ok {
		sto = memory.NewStorage()
		s.repos[name] = sto
	}
	return sto
}

// loader hands go-git's server the repository an endpoint names.
type loader struct{ s *Server }

func (l loader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	sto, ok := l.s.repos[strings.Trim(ep.Path, "/")]
	if !ok {
		return nil, transport.ErrRepositoryNotFound
	}
	return sto, nil
}

func fullRef(ref string) plumbing.ReferenceName {
	if strings.HasPrefix(ref, "refs/") {
		return plumbing.ReferenceName(ref)
	}
	return plumbing.NewBranchReferenceName(ref)
}

// writeTree stores files as nested trees and answers the root's hash.
func writeTree(sto *memory.Storage, files map[string][]byte) (plumbing.Hash, error) {
	type dir struct {
		files map[string]plumbing.Hash
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]plumbing.Hash{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, data := range files {
		obj := sto.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		w, _ := obj.Writer()
		_, _ = w.Write(data)
		_ = w.Close()
		h, err := sto.SetEncodedObject(obj)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		parts := strings.Split(p, "/")
		d := root
		for _, part := range parts[:len(parts)-1] {
			if d.dirs[part] == nil {
				d.dirs[part] = newDir()
			}
			d = d.dirs[part]
		}
		d.files[parts[len(parts)-1]] = h
	}
	var write func(d *dir) (plumbing.Hash, error)
	write = func(d *dir) (plumbing.Hash, error) {
		var t object.Tree
		for name, h := range d.files {
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		}
		for name, sub := range d.dirs {
			h, err := write(sub)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		// Git orders entries by name, a directory's name as if followed by "/".
		key := func(e object.TreeEntry) string {
			if e.Mode == filemode.Dir {
				return e.Name + "/"
			}
			return e.Name
		}
		sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
		obj := sto.NewEncodedObject()
		if err := t.Encode(obj); err != nil {
			return plumbing.ZeroHash, err
		}
		return sto.SetEncodedObject(obj)
	}
	return write(root)
}

// serve routes the smart HTTP protocol: GET …/info/refs?service=…, POST
// …/git-upload-pack and …/git-receive-pack.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	_, _, hasAuth := r.BasicAuth()
	s.mu.Lock()
	s.requests = append(s.requests, fmt.Sprintf("%s %s auth=%t", r.Method, r.URL.RequestURI(), hasAuth))
	before := s.before
	s.mu.Unlock()
	if before != nil {
		before(r)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.auth {
		user, pass, ok := r.BasicAuth()
		if !ok || user != s.user || pass != s.pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="gitserver"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
	}
	var name, service string
	switch p := r.URL.Path; {
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/info/refs"):
		name, service = strings.TrimSuffix(p, "/info/refs"), r.URL.Query().Get("service")
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/"+transport.UploadPackServiceName):
		name, service = strings.TrimSuffix(p, "/"+transport.UploadPackServiceName), transport.UploadPackServiceName
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/"+transport.ReceivePackServiceName):
		name, service = strings.TrimSuffix(p, "/"+transport.ReceivePackServiceName), transport.ReceivePackServiceName
	default:
		http.NotFound(w, r)
		return
	}
	if service != transport.UploadPackServiceName && service != transport.ReceivePackServiceName {
		http.Error(w, "only the smart protocol is served", http.StatusForbidden)
		return
	}
	name = strings.Trim(name, "/")
	if _, ok := s.repos[name]; !ok {
		http.NotFound(w, r)
		return
	}
	ep := &transport.Endpoint{Protocol: "http", Path: "/" + name}

	var body bytes.Buffer
	var err error
	switch {
	case r.Method == http.MethodGet:
		err = s.advertise(r.Context(), ep, service, &body)
		w.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
	case service == transport.UploadPackServiceName:
		err = s.uploadPack(r, ep, &body)
		w.Header().Set("Content-Type", "application/x-"+service+"-result")
	default:
		err = s.receivePack(r, ep, &body)
		w.Header().Set("Content-Type", "application/x-"+service+"-result")
	}
	if err != nil {
		w.Header().Del("Content-Type")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(body.Bytes())
}

// advertise writes the references with the smart HTTP service prefix.
func (s *Server) advertise(ctx context.Context, ep *transport.Endpoint, service string, out *bytes.Buffer) error {
	var ar *packp.AdvRefs
	var err error
	if service == transport.UploadPackServiceName {
		var sess transport.UploadPackSession
		if sess, err = s.git.NewUploadPackSession(ep, nil); err != nil {
			return err
		}
		if ar, err = sess.AdvertisedReferencesContext(ctx); err != nil {
			return err
		}
		if !s.noShallow {
			if err := ar.Capabilities.Set(capability.Shallow); err != nil {
				return err
			}
		}
	} else {
		var sess transport.ReceivePackSession
		if sess, err = s.git.NewReceivePackSession(ep, nil); err != nil {
			return err
		}
		if ar, err = sess.AdvertisedReferencesContext(ctx); err != nil {
			return err
		}
	}
	ar.Prefix = [][]byte{[]byte("# service=" + service), pktline.Flush}
	return ar.Encode(out)
}
