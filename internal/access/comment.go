package access

// CommentPermissions is the `permissions` object of a comment or a reply.
type CommentPermissions struct {
	View   bool `json:"view"`
	Edit   bool `json:"edit"`
	Reply  bool `json:"reply"`
	Delete bool `json:"delete"`
}

// CommentPermissionsFor derives what the holder of role r on a space may do
// with a comment or reply there: anyone with the comment role replies,
// reacts and resolves while the thread is open for writing (writable: not
// in a merged or archived change request); the author edits the body; the
// author and the space's admins delete.
func CommentPermissionsFor(r *Role, author, writable bool) CommentPermissions {
	canComment := AtLeast(r, Comment)
	return CommentPermissions{
		View:   r != nil,
		Edit:   canComment && author && writable,
		Reply:  canComment && writable,
		Delete: r != nil && (AtLeast(r, Admin) || (author && canComment)),
	}
}
