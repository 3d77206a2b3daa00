package gitserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

func clone(t *testing.T, url string, depth int, auth transport.AuthMethod) (*git.Repository, error) {
	t.Helper()
	return git.Clone(memory.NewStorage(), nil, &git.CloneOptions{
		URL: url, Auth: auth, Depth: depth, SingleBranch: true,
		ReferenceName: plumbing.NewBranchReferenceName("main"),
	})
}

func headFiles(t *testing.T, repo *git.Repository) map[string]string {
	t.Helper()
	ref, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", "main"), true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.CommitObject(ref.Hash())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	_ = tree.Files().ForEach(func(f *object.File) error {
		out[f.Name], _ = f.Contents()
		return nil
	})
	return out
}

func TestCloneFullAndShallow(t *testing.T) {
	s := New(t)
	url := s.Repo("org/docs.git")
	first := s.Commit(t, "org/docs.git", "main", map[string][]byte{"README.md": []byte("one")}, "first")
	second := s.Commit(t, "org/docs.git", "main", map[string][]byte{"README.md": []byte("two"), "a/b.md": []byte("b")}, "second")
	if got := s.Log("org/docs.git", "main"); len(got) != 2 || got[0] != second || got[1] != first {
		t.Fatalf("log = %v", got)
	}

	full, err := clone(t, url, 0, nil)
	if err != nil {
		t.Fatalf("full clone: %v", err)
	}
	if _, err := full.CommitObject(plumbing.NewHash(first)); err != nil {
		t.Fatalf("full clone lacks the first commit: %v", err)
	}
	if f := headFiles(t, full); f["README.md"] != "two" || f["a/b.md"] != "b" || len(f) != 2 {
		t.Fatalf("full clone files = %v", f)
	}

	shallow, err := clone(t, url, 1, nil)
	if err != nil {
		t.Fatalf("shallow clone: %v", err)
	}
	if _, err := shallow.CommitObject(plumbing.NewHash(first)); err == nil {
		t.Fatal("a depth 1 clone holds the parent commit")
	}
	if sh, _ := shallow.Storer.Shallow(); len(sh) != 1 || sh[0].String() != second {
		t.Fatalf("shallow = %v", sh)
	}
	if f := headFiles(t, shallow); f["README.md"] != "two" {
		t.Fatalf("shallow clone files = %v", f)
	}
}

func TestDenyShallow(t *testing.T) {
	s := New(t)
	url := s.Repo("r")
	s.Commit(t, "r", "main", map[string][]byte{"x": []byte("x")}, "x")
	s.DenyShallow()
	if _, err := clone(t, url, 1, nil); err == nil {
		t.Fatal("shallow clone served")
	}
	if _, err := clone(t, url, 0, nil); err != nil {
		t.Fatalf("full clone: %v", err)
	}
}

func pushCommit(t *testing.T, repo *git.Repository, parent plumbing.Hash, files map[string]string) plumbing.Hash {
	t.Helper()
	wtFiles := map[string][]byte{}
	for k, v := range files {
		wtFiles[k] = []byte(v)
	}
	sto := repo.Storer.(*memory.Storage)
	tree, err := writeTree(sto, wtFiles)
	if err != nil {
		t.Fatal(err)
	}
	c := &object.Commit{Message: "pushed", TreeHash: tree,
		Author: object.Signature{Name: "P", Email: "p@example.com"}, Committer: object.Signature{Name: "P", Email: "p@example.com"}}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	obj := sto.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := sto.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := sto.SetReference(plumbing.NewHashReference("refs/heads/main", h)); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestPushToEmptyAndOnTop(t *testing.T) {
	s := New(t)
	url := s.Repo("r")
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		t.Fatal(err)
	}
	push := func() error {
		return repo.Push(&git.PushOptions{RefSpecs: []config.RefSpec{"refs/heads/main:refs/heads/main"}})
	}
	h1 := pushCommit(t, repo, plumbing.ZeroHash, map[string]string{"a.md": "a"})
	if err := push(); err != nil {
		t.Fatalf("push to an empty repository: %v", err)
	}
	if s.Head("r", "main") != h1.String() || string(s.Files(t, "r", "main")["a.md"]) != "a" {
		t.Fatal("the push did not land")
	}
	h2 := pushCommit(t, repo, h1, map[string]string{"a.md": "b"})
	if err := push(); err != nil {
		t.Fatalf("fast-forward push: %v", err)
	}
	if got := s.Log("r", "main"); len(got) != 2 || got[0] != h2.String() {
		t.Fatalf("log = %v", got)
	}
}

// A branch that moves after the client read the advertisement is not
// overwritten: the push is refused.
func TestPushRefusedWhenBranchMoved(t *testing.T) {
	s := New(t)
	url := s.Repo("r")
	base := s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("a")}, "base")
	repo, err := clone(t, url, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	pushCommit(t, repo, plumbing.NewHash(base), map[string]string{"a.md": "mine"})
	var moved string
	s.BeforeRequest(func(r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") && moved == "" {
			moved = s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("theirs")}, "theirs")
		}
	})
	err = repo.Push(&git.PushOptions{RefSpecs: []config.RefSpec{"refs/heads/main:refs/heads/main"}})
	if err == nil || !strings.Contains(err.Error(), "fetch first") {
		t.Fatalf("push over a moved branch: %v", err)
	}
	if s.Head("r", "main") != moved {
		t.Fatal("the moved branch was overwritten")
	}
}

func TestAuthAndRequests(t *testing.T) {
	s := New(t)
	url := s.Repo("r")
	s.Commit(t, "r", "main", map[string][]byte{"a.md": []byte("a")}, "a")
	s.RequireAuth("alice", "s3cret-pass")
	if _, err := clone(t, url, 1, nil); !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("anonymous clone: %v", err)
	}
	if _, err := clone(t, url, 1, &githttp.BasicAuth{Username: "alice", Password: "wrong"}); !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := clone(t, url, 1, &githttp.BasicAuth{Username: "alice", Password: "s3cret-pass"}); err != nil {
		t.Fatalf("right password: %v", err)
	}
	reqs := s.Requests()
	if len(reqs) < 4 || !strings.HasSuffix(reqs[0], "auth=false") || !strings.HasSuffix(reqs[len(reqs)-1], "auth=true") {
		t.Fatalf("requests = %v", reqs)
	}
	if strings.Contains(strings.Join(reqs, "\n"), "s3cret") {
		t.Fatal("a password was recorded")
	}
	if _, err := clone(t, s.URL()+"/nope", 1, &githttp.BasicAuth{Username: "alice", Password: "s3cret-pass"}); !errors.Is(err, transport.ErrRepositoryNotFound) {
		t.Fatalf("unknown repository: %v", err)
	}
}
