package events

// Comments and their replies, on spaces and change requests.
var (
	CommentPosted                = define("comment.posted", "Comment posted", "pageId", "commentId")
	CommentUpdated               = define("comment.updated", "Comment updated", "pageId", "commentId", "fields")
	CommentResolved              = define("comment.resolved", "Comment resolved", "pageId", "commentId")
	CommentReopened              = define("comment.reopened", "Comment reopened", "pageId", "commentId")
	CommentDeleted               = define("comment.deleted", "Comment deleted", "pageId", "commentId", "replies")
	CommentReactionsChanged      = define("comment.reactions_changed", "Comment reactions changed", "pageId", "commentId", "added", "removed")
	CommentReplyPosted           = define("comment_reply.posted", "Comment reply posted", "commentId", "replyId")
	CommentReplyUpdated          = define("comment_reply.updated", "Comment reply updated", "commentId", "replyId", "fields")
	CommentReplyDeleted          = define("comment_reply.deleted", "Comment reply deleted", "commentId", "replyId")
	CommentReplyReactionsChanged = define("comment_reply.reactions_changed", "Comment reply reactions changed", "commentId", "replyId", "added", "removed")
)
