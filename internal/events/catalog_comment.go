package events

// Comments and their replies, on spaces and change requests.
var (
	CommentPosted = define("comment.posted", "Comment posted", "pageId", "commentId")
)
