package model

import (
	"time"

	"github.com/folio/folio/ent"
)

// Values of RevisionChange.type (GitBook's semantic change types).
const (
	ChangePageCreated = "page_created"
	ChangePageEdited  = "page_edited"
	ChangePageMoved   = "page_moved"
	ChangePageDeleted = "page_deleted"
	ChangeFileCreated = "file_created"
	ChangeFileEdited  = "file_edited"
	ChangeFileDeleted = "file_deleted"
)

// Names of the attributes a page_edited or file_edited change reports, in
// GitBook's spelling (a page's body is its document; a link page's href its
// target).
const (
	AttrTitle       = "title"
	AttrEmoji       = "emoji"
	AttrDescription = "description"
	AttrSlug        = "slug"
	AttrType        = "type"
	AttrHidden      = "hidden"
	AttrTarget      = "target"
	AttrDocument    = "document"
	AttrName        = "name"
	AttrContentType = "contentType"
	AttrSize        = "size"
	AttrDownloadURL = "downloadURL"
	AttrDimensions  = "dimensions"
)

// RevisionChange is one semantic change between two revisions.
type RevisionChange struct {
	Type string
	// Page is the page after the change (before it, for page_deleted);
	// Before is the page before an edit or a move.
	Page, Before *Page
	// File and FileBefore are the file after and before the change.
	File, FileBefore *ent.File
	// Attributes are what an edit changed.
	Attributes []string
	// ParentBefore and ParentAfter are a move's parents; nil for the root.
	ParentBefore, ParentAfter *Page
}

// RevisionChanges are the first changes between two revisions and how
// many more were left out.
type RevisionChanges struct {
	Changes    []*RevisionChange
	More       int
	MergedFrom *ent.ChangeRequest
}

// Values of Contributor.actionType.
const (
	ContributorEdit    = "edit"
	ContributorComment = "comment"
)

// Contributor is a user's contributions of one kind to a change request.
type Contributor struct {
	User       *ent.User
	Count      int
	ActionType string
	UpdatedAt  time.Time
}

// FileNode and FileBeforeNode are GraphQL's file and fileBefore: the rows
// wrapped for their node ids.
func (c *RevisionChange) FileNode() *File       { return FileOf(c.File) }
func (c *RevisionChange) FileBeforeNode() *File { return FileOf(c.FileBefore) }
