package events

// Reviews of change requests: reviewers asked and removed, reviews
// submitted. Their target is the change request, so its subscribers and
// webhooks receive them with its other events.
var (
	ReviewersRequested = define("change_request.reviewers_requested", "Reviewers requested", "number", "users")
	ReviewerRemoved    = define("change_request.reviewer_removed", "Requested reviewer removed", "number", "userId")
	ReviewSubmitted    = define("change_request.review_submitted", "Change request reviewed", "number", "reviewId", "status", "commentId")
)
