package gitsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// fetchedRef is where a fetched ref lands in the in-memory repository.
const fetchedRef = plumbing.ReferenceName("refs/folio/fetched")

// Fetch reads the files under dir ("" or "./" for the root) at ref, a
// branch ("main" or "refs/heads/main") or a tag ("refs/tags/v1"). Only the
// commit itself is downloaded (depth 1) where the host allows it, into
// memory. Its errors are ErrAuth, ErrRefNotFound, ErrRefused,
// ErrDirNotFound, *LimitError, *NetworkError, or the context's when ctx
// ends.
func (t Transport) Fetch(ctx context.Context, r Remote, ref, dir string, lim Limits) (*Snapshot, error) {
	name, err := refName(ref, true)
	if err != nil {
		return nil, err
	}
	if dir, err = cleanDir(dir); err != nil {
		return nil, err
	}
	ep, err := t.endpoint(r)
	if err != nil {
		return nil, err
	}
	opCtx, cancel := context.WithTimeout(ctx, t.timeout())
	defer cancel()
	repo, head, err := t.download(ctx, opCtx, ep, name, lim)
	if err != nil {
		return nil, err
	}
	c, err := peel(repo, head)
	if err != nil {
		return nil, err
	}
	return snapshot(repo.Storer, c, dir, lim)
}

// Push writes one commit on branch req.Ref whose tree is the branch's with
// req.Dir's content replaced by req.Files, and answers it. The branch must
// be at req.Expect when that is set, and must not move before the push
// lands (no force): either is a *BranchMovedError and the branch is left
// as it is. A branch that does not exist is created. When the new tree is
// the head's own, nothing is pushed and the head is answered. Its other
// errors are those of Fetch.
func (t Transport) Push(ctx context.Context, r Remote, req PushRequest, lim Limits) (string, error) {
	name, err := refName(req.Ref, false)
	if err != nil {
		return "", err
	}
	dir, err := cleanDir(req.Dir)
	if err != nil {
		return "", err
	}
	if err := checkPushFiles(req.Files, lim); err != nil {
		return "", err
	}
	ep, err := t.endpoint(r)
	if err != nil {
		return "", err
	}
	opCtx, cancel := context.WithTimeout(ctx, t.timeout())
	defer cancel()

	repo, head, err := t.download(ctx, opCtx, ep, name, lim)
	switch {
	case errors.Is(err, ErrRefNotFound):
		// A new branch (or an empty repository): the commit has no parent.
		if repo, err = git.Init(memory.NewStorage(), nil); err != nil {
			return "", &opError{msg: "the repository could not be prepared", err: err}
		}
		if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{ep.url}}); err != nil {
			return "", &opError{msg: "the repository could not be prepared", err: err}
		}
	case err != nil:
		return "", err
	}
	if req.Expect != "" && head.String() != req.Expect {
		return "", &BranchMovedError{Expected: req.Expect, Found: hashOrEmpty(head)}
	}

	var parents []plumbing.Hash
	baseTree := plumbing.ZeroHash
	if !head.IsZero() {
		c, err := repo.CommitObject(head)
		if err != nil {
			return "", &opError{msg: "the branch's head could not be read", err: err}
		}
		parents, baseTree = []plumbing.Hash{head}, c.TreeHash
	}
	tree, err := replaceDir(repo.Storer, baseTree, dir, req.Files)
	if err != nil {
		return "", err
	}
	if tree == baseTree && !head.IsZero() {
		return head.String(), nil
	}
	commit, err := writeCommit(repo, tree, parents, req)
	if err != nil {
		return "", err
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference(name, commit)); err != nil {
		return "", &opError{msg: "the commit could not be stored", err: err}
	}

	opts := &git.PushOptions{
		RemoteName: "origin",
		RefSpecs:   []config.RefSpec{config.RefSpec(name + ":" + name)},
		Auth:       ep.auth,
	}
	if !head.IsZero() {
		// The branch must still be where it was read (go-git checks the
		// host's advertisement; the host checks again as it updates).
		opts.RequireRemoteRefs = []config.RefSpec{config.RefSpec(head.String() + ":" + name.String())}
	}
	pctx, st := t.withState(opCtx, lim)
	err = repo.PushContext(pctx, opts)
	if err == nil {
		return commit.String(), nil
	}
	mapped := classify(ctx, opCtx, st, err)
	var op *opError
	if !errors.As(mapped, &op) {
		return "", mapped
	}
	// A refused update (non-fast-forward, "fetch first", a required ref
	// that moved): look where the branch is now.
	if now, lerr := t.lsRemote(ctx, opCtx, repo, ep, name, lim); lerr == nil && now != head {
		expected := req.Expect
		if expected == "" {
			expected = hashOrEmpty(head)
		}
		return "", &BranchMovedError{Expected: expected, Found: hashOrEmpty(now)}
	}
	return "", &opError{msg: "the repository refused the push", err: err}
}

// download fetches name into a new in-memory repository and answers the
// object it points at. It asks for depth 1 first; hosts (and go-git's own
// server) that cannot serve a shallow fetch get a full one.
func (t Transport) download(parent, ctx context.Context, ep *endpoint, name plumbing.ReferenceName, lim Limits) (*git.Repository, plumbing.Hash, error) {
	installTransports()
	var repo *git.Repository
	var err error
	for _, depth := range []int{1, 0} {
		if repo, err = git.Init(memory.NewStorage(), nil); err != nil {
			return nil, plumbing.ZeroHash, &opError{msg: "the repository could not be prepared", err: err}
		}
		rem, rerr := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{ep.url}})
		if rerr != nil {
			return nil, plumbing.ZeroHash, &opError{msg: "the repository could not be prepared", err: rerr}
		}
		fctx, st := t.withState(ctx, lim)
		ferr := rem.FetchContext(fctx, &git.FetchOptions{
			RefSpecs: []config.RefSpec{config.RefSpec("+" + name + ":" + fetchedRef)},
			Depth:    depth,
			Auth:     ep.auth,
			Tags:     git.NoTags,
		})
		if ferr == nil || errors.Is(ferr, git.NoErrAlreadyUpToDate) {
			ref, rerr := repo.Storer.Reference(fetchedRef)
			if rerr != nil {
				return nil, plumbing.ZeroHash, ErrRefNotFound
			}
			return repo, ref.Hash(), nil
		}
		err = classify(parent, ctx, st, ferr)
		if !retryDeeper(err, st) {
			return nil, plumbing.ZeroHash, err
		}
	}
	return nil, plumbing.ZeroHash, err
}

// retryDeeper tells a failed shallow fetch worth a full one: the host
// answered, but not with a refusal of the credentials, the ref or a limit.
func retryDeeper(err error, st *httpState) bool {
	var op *opError
	var ne *NetworkError
	switch {
	case errors.As(err, &op):
		return true
	case errors.As(err, &ne):
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.netErr == nil && st.status >= 500
	}
	return false
}

// lsRemote answers where the host's branch name is now (zero: absent).
func (t Transport) lsRemote(parent, ctx context.Context, repo *git.Repository, ep *endpoint, name plumbing.ReferenceName, lim Limits) (plumbing.Hash, error) {
	rem, err := repo.Remote("origin")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	lctx, st := t.withState(ctx, lim)
	refs, err := rem.ListContext(lctx, &git.ListOptions{Auth: ep.auth})
	if err != nil {
		if mapped := classify(parent, ctx, st, err); errors.Is(mapped, ErrRefNotFound) {
			return plumbing.ZeroHash, nil
		} else {
			return plumbing.ZeroHash, mapped
		}
	}
	for _, ref := range refs {
		if ref.Name() == name {
			return ref.Hash(), nil
		}
	}
	return plumbing.ZeroHash, nil
}

// peel answers the commit h names, through an annotated tag.
func peel(repo *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	for range 8 {
		if c, err := repo.CommitObject(h); err == nil {
			return c, nil
		}
		tag, err := repo.TagObject(h)
		if err != nil {
			break
		}
		h = tag.Target
	}
	return nil, &opError{msg: "the ref does not point at a commit", err: plumbing.ErrObjectNotFound}
}

func writeCommit(repo *git.Repository, tree plumbing.Hash, parents []plumbing.Hash, req PushRequest) (plumbing.Hash, error) {
	who := object.Signature{Name: req.AuthorName, Email: req.AuthorEmail, When: req.When}
	if who.Name == "" {
		who.Name = "Folio"
	}
	if who.When.IsZero() {
		who.When = time.Now()
	}
	c := &object.Commit{Author: who, Committer: who, Message: req.Message, TreeHash: tree, ParentHashes: parents}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, &opError{msg: "the commit could not be stored", err: err}
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, &opError{msg: "the commit could not be stored", err: err}
	}
	return h, nil
}

// refName makes ref a full name: "main" is refs/heads/main; a full name
// must be a branch, or a tag when tags are allowed (Fetch).
func refName(ref string, tags bool) (plumbing.ReferenceName, error) {
	ref = strings.TrimSpace(ref)
	name := plumbing.ReferenceName(ref)
	if !strings.HasPrefix(ref, "refs/") {
		name = plumbing.NewBranchReferenceName(ref)
	}
	if ref == "" || name.Validate() != nil {
		return "", fmt.Errorf("%w: %q is not a valid branch name", ErrRefNotFound, ref)
	}
	if !name.IsBranch() && !(tags && name.IsTag()) {
		if tags {
			return "", fmt.Errorf("%w: %q is neither a branch nor a tag", ErrRefNotFound, ref)
		}
		return "", fmt.Errorf("%w: %q is not a branch", ErrRefNotFound, ref)
	}
	return name, nil
}

// checkPushFiles refuses, before any transfer, files with bad paths or
// over lim.
func checkPushFiles(files map[string][]byte, lim Limits) error {
	if len(files) > lim.maxFiles() {
		return &LimitError{Bound: "files", Message: fmt.Sprintf("the export holds more than %d files", lim.maxFiles())}
	}
	var total int64
	for p, data := range files {
		if err := checkFilePath(p); err != nil {
			return err
		}
		if total += int64(len(data)); total > lim.maxBytes() {
			return &LimitError{Bound: "bytes", Message: fmt.Sprintf("the export's files are larger than the limit of %d bytes together", lim.maxBytes())}
		}
	}
	return nil
}

func hashOrEmpty(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
