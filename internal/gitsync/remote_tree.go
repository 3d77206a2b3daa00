package gitsync

import (
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// ErrDirNotFound reports a project directory the commit does not have.
var ErrDirNotFound = errors.New("the repository has no such directory at that ref")

func (l Limits) maxFiles() int {
	if l.MaxFiles > 0 {
		return l.MaxFiles
	}
	return DefaultLimits.MaxFiles
}

func (l Limits) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultLimits.MaxBytes
}

// cleanDir turns a project directory into a tree path: "" for the root,
// no leading "./" or "/", no trailing "/"; ".." is refused.
func cleanDir(dir string) (string, error) {
	dir = strings.TrimSpace(strings.ReplaceAll(dir, "\\", "/"))
	for _, part := range strings.Split(dir, "/") {
		if part == ".." {
			return "", refused("the project directory must not leave the repository (..)")
		}
	}
	dir = strings.Trim(path.Clean("/"+dir), "/")
	return dir, nil
}

// checkFilePath accepts a relative, clean path naming a file: no "..",
// no empty or "." component, nothing inside a .git directory.
func checkFilePath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p {
		return fmt.Errorf("the file path %q is not a clean relative path", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || strings.EqualFold(part, ".git") {
			return fmt.Errorf("the file path %q is not allowed in a repository", p)
		}
	}
	return nil
}

func where(dir string) string {
	if dir == "" {
		return "the repository's root"
	}
	return fmt.Sprintf("%q", dir)
}

// snapshot reads the files under dir of commit c, refusing before reading
// any content a directory over lim: it counts files and adds up blob sizes
// (known from the object header) first.
func snapshot(sto storer.EncodedObjectStorer, c *object.Commit, dir string, lim Limits) (*Snapshot, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, &opError{msg: "the commit's tree could not be read", err: err}
	}
	if dir != "" {
		if tree, err = tree.Tree(dir); err != nil {
			return nil, ErrDirNotFound
		}
	}
	type file struct {
		path string
		hash plumbing.Hash
	}
	var files []file
	var total int64
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, entry, err := w.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &opError{msg: "the commit's tree could not be read", err: err}
		}
		// Links and submodules are not files of the project.
		if !entry.Mode.IsFile() || entry.Mode == filemode.Symlink {
			continue
		}
		if len(files)+1 > lim.maxFiles() {
			return nil, &LimitError{Bound: "files", Message: fmt.Sprintf("the repository holds more than %d files under %s", lim.maxFiles(), where(dir))}
		}
		size, err := sto.EncodedObjectSize(entry.Hash)
		if err != nil {
			return nil, &opError{msg: "a file of the commit could not be read", err: err}
		}
		if total += size; total > lim.maxBytes() {
			return nil, &LimitError{Bound: "bytes", Message: fmt.Sprintf("the files under %s are larger than the limit of %d bytes together", where(dir), lim.maxBytes())}
		}
		files = append(files, file{name, entry.Hash})
	}
	snap := &Snapshot{Commit: c.Hash.String(), Message: c.Message, Files: map[string][]byte{}, Blobs: map[string]string{}}
	for _, f := range files {
		blob, err := object.GetBlob(sto, f.hash)
		if err != nil {
			return nil, &opError{msg: "a file of the commit could not be read", err: err}
		}
		r, err := blob.Reader()
		if err != nil {
			return nil, &opError{msg: "a file of the commit could not be read", err: err}
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, &opError{msg: "a file of the commit could not be read", err: err}
		}
		snap.Files[f.path] = data
		snap.Blobs[f.path] = f.hash.String()
	}
	return snap, nil
}

// entry is a tree's leaf: a file, link or submodule.
type entry struct {
	mode filemode.FileMode
	hash plumbing.Hash
}

// replaceDir answers the tree of base (zero: none) with dir's content
// replaced by files; everything outside dir is kept as it was (modes,
// links, submodules). The new blobs and trees are written to sto.
func replaceDir(sto storer.EncodedObjectStorer, base plumbing.Hash, dir string, files map[string][]byte) (plumbing.Hash, error) {
	leaves := map[string]entry{}
	if !base.IsZero() {
		tree, err := object.GetTree(sto, base)
		if err != nil {
			return plumbing.ZeroHash, &opError{msg: "the branch's tree could not be read", err: err}
		}
		w := object.NewTreeWalker(tree, true, nil)
		for {
			name, e, err := w.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				w.Close()
				return plumbing.ZeroHash, &opError{msg: "the branch's tree could not be read", err: err}
			}
			if e.Mode == filemode.Dir || within(name, dir) {
				continue
			}
			leaves[name] = entry{e.Mode, e.Hash}
		}
		w.Close()
	}
	for p, data := range files {
		if err := checkFilePath(p); err != nil {
			return plumbing.ZeroHash, err
		}
		full := p
		if dir != "" {
			full = dir + "/" + p
		}
		h, err := writeBlob(sto, data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		leaves[full] = entry{filemode.Regular, h}
	}
	return writeTrees(sto, leaves)
}

// within reports whether p is dir or lies under it ("" holds everything).
func within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

func writeBlob(sto storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := sto.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err == nil {
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return plumbing.ZeroHash, &opError{msg: "a file could not be stored", err: err}
	}
	return sto.SetEncodedObject(obj)
}

// writeTrees builds the nested trees of leaves (paths to entries) and
// answers the root's hash.
func writeTrees(sto storer.EncodedObjectStorer, leaves map[string]entry) (plumbing.Hash, error) {
	type node struct {
		leaves map[string]entry
		dirs   map[string]*node
	}
	newNode := func() *node { return &node{leaves: map[string]entry{}, dirs: map[string]*node{}} }
	root := newNode()
	for p, e := range leaves {
		parts := strings.Split(p, "/")
		n := root
		for _, part := range parts[:len(parts)-1] {
			if n.dirs[part] == nil {
				n.dirs[part] = newNode()
			}
			n = n.dirs[part]
		}
		n.leaves[parts[len(parts)-1]] = e
	}
	var write func(n *node, at string) (plumbing.Hash, error)
	write = func(n *node, at string) (plumbing.Hash, error) {
		var t object.Tree
		for name, e := range n.leaves {
			if n.dirs[name] != nil {
				return plumbing.ZeroHash, fmt.Errorf("the path %q is both a file and a directory", path.Join(at, name))
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: e.mode, Hash: e.hash})
		}
		for name, sub := range n.dirs {
			h, err := write(sub, path.Join(at, name))
			if err != nil {
				return plumbing.ZeroHash, err
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
		}
		// Git orders entries by name, a directory's as if it ended in "/":
		// another order makes a tree other tools call broken.
		key := func(e object.TreeEntry) string {
			if e.Mode == filemode.Dir {
				return e.Name + "/"
			}
			return e.Name
		}
		sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
		obj := sto.NewEncodedObject()
		if err := t.Encode(obj); err != nil {
			return plumbing.ZeroHash, &opError{msg: "a tree could not be stored", err: err}
		}
		return sto.SetEncodedObject(obj)
	}
	return write(root, "")
}
