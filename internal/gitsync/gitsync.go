// Package gitsync moves a space's content to and from a Git repository in
// GitBook's layout, without a git binary: layout.go turns a Tree (pages and
// files) into the files of a repository and back, remote.go fetches a ref
// into memory and pushes one commit on a branch, fast-forward only, through
// go-git. It knows nothing of storage: the graph package maps Trees to
// revisions.
package gitsync

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Tree is a space's content as a repository holds it.
type Tree struct {
	Pages []*Page
	Files []*File
	// Redirects are .gitbook.yaml's `redirects`: an old path (relative to
	// the root, without .md) to the file that now holds the page.
	Redirects map[string]string
}

// Page is one page of a Tree, with its subpages in order.
type Page struct {
	Kind        string // "document", "group" or "link"
	Title       string
	Emoji       string // frontmatter `icon`
	Description string
	Slug        string
	Href        string // link pages: where the link points
	Hidden      bool
	// Markdown is the body as Folio stores it: no frontmatter, the leading
	// heading kept. Files are referred to as /files/<File.Ref>.
	Markdown string
	Children []*Page
	// Path is the file the page lives in, relative to the project
	// directory ("" for groups and links, which have no file). Encode sets
	// it; Decode reports it.
	Path string
}

// File is a file of the space, stored under .gitbook/assets/.
type File struct {
	// Ref names the file in pages' markdown (/files/<Ref>): Folio's file
	// id when encoding; Decode makes one per asset (its path).
	Ref         string
	Name        string
	ContentType string
	Data        []byte
	// Path is where the file lives, relative to the project directory.
	Path string
}

// Limits bound what one sync reads or writes.
type Limits struct {
	MaxFiles int   // files under the project directory
	MaxBytes int64 // their bytes together, and the pack fetched
}

// DefaultLimits are the import limits of a zip (internal/importer).
var DefaultLimits = Limits{MaxFiles: 2000, MaxBytes: 100 << 20}

// LimitError is a repository over a bound; Bound names it ("files",
// "bytes") and the message gives its value.
type LimitError struct {
	Bound   string
	Message string
}

func (e *LimitError) Error() string { return e.Message }

// Remote is a repository's address. URL carries no credentials: they are
// given apart, so no error, log line or state shows them.
type Remote struct {
	URL                string
	Username, Password string
}

// Transport is how repositories are reached.
type Transport struct {
	// HTTP makes every HTTP(S) request (Folio's guarded client: no private
	// addresses unless allowed, bounded answers).
	HTTP *http.Client
	// KnownHosts is a known_hosts file: SSH is refused without one.
	// SSHKey is the private key SSH presents.
	KnownHosts, SSHKey string
	// AllowFile lets file:// URLs through (tests only).
	AllowFile bool
	Timeout   time.Duration
}

// Snapshot is a commit's files under a directory.
type Snapshot struct {
	Commit  string
	Message string
	// Files by path relative to the directory; Blobs their object ids.
	Files map[string][]byte
	Blobs map[string]string
}

// PushRequest is one commit to write on Ref.
type PushRequest struct {
	Ref string
	// Expect is the commit the branch must be at ("" when Folio never
	// synced with it: the commit goes on top of whatever is there). A
	// branch elsewhere fails with ErrBranchMoved and is left as it is.
	Expect string
	// Dir is the project directory: Files replace its content, files
	// outside it are kept.
	Dir         string
	Files       map[string][]byte
	AuthorName  string
	AuthorEmail string
	Message     string
	When        time.Time
}

// Errors of Fetch and Push, in words a caller may show.
var (
	ErrRefNotFound = errors.New("the repository has no such ref")
	ErrAuth        = errors.New("the repository refused the credentials (or needs some)")
	ErrRefused     = errors.New("this kind of repository URL is not allowed")
)

// BranchMovedError reports a branch that is not where Folio left it.
type BranchMovedError struct{ Expected, Found string }

func (e *BranchMovedError) Error() string {
	return fmt.Sprintf("the branch moved since the last sync (expected %s, found %s): import first, then export again", short(e.Expected), short(e.Found))
}

// NetworkError is a failure to reach the repository: worth another try.
type NetworkError struct{ Err error }

func (e *NetworkError) Error() string { return "the repository could not be reached" }
func (e *NetworkError) Unwrap() error { return e.Err }

func short(oid string) string {
	if len(oid) > 12 {
		return oid[:12]
	}
	if oid == "" {
		return "no commit"
	}
	return oid
}
