// Package mergerules checks and evaluates the merge rules of change requests,
// as GitBook's API spells them (MergeRule, MergeRulesConfigurationRules,
// MergeRulesConfigurationNone, MergeRulesConfigurationInherit). It knows
// nothing of storage or transport: callers resolve "inherit" to the
// organization's configuration, check that the users the rules name exist
// (Config.UserIDs), and build the Context from the change request.
//
// # Configuration
//
// A configuration is of type "none" (no rules: anything may merge), "rules"
// (every rule must pass) or, for spaces only, "inherit" (the organization's
// configuration applies). Check refuses what cannot be stored, naming the
// field inside the configuration ("rules[2].users").
//
// # Rules
//
// Only current reviews count: a review is current when it was given on the
// change request as it is now (Review.Outdated is false). Callers pass each
// reviewer's latest review; every review passed counts as given.
//
//   - require_specific_reviewers: every listed user has a current approved review.
//   - require_one_of_specific_reviewers: at least one listed user has a current approved review.
//   - allow_bypass: the merger, if listed, may merge though other rules fail.
//     Its result passes when the merger may bypass; it never blocks a merge.
//   - require_at_least_one_review: there is a current review, whatever its status.
//   - require_at_least_one_approved_review: there is a current approved review.
//   - require_all_reviews_approved: every current review is approved. With no
//     current review at all it passes (nothing requests changes); combine it
//     with require_at_least_one_approved_review to require an approval.
//   - require_agent_review: needs an AI agent review, which Folio does not
//     have; Check refuses it and Evaluate fails it.
//   - require_up_to_date_change_request: the change request is not outdated.
//   - require_change_request_subject, require_change_request_description:
//     the subject (description) is not blank.
//   - require_author_to_merge: the merger is the change request's author.
//   - custom: an expression that must be true; its optional message is shown
//     when it is false.
//
// # Custom expressions
//
// A custom rule's expression is written in expr's language
// (github.com/expr-lang/expr), which reads much like JavaScript:
//
//	len(filter(changeRequest.reviews, .status == "approved" && !.outdated)) >= 2
//	merger in changeRequest.requestedReviewers
//	changeRequest.author != merger
//
// It reads exactly these names:
//
//	changeRequest.subject             string
//	changeRequest.description         string
//	changeRequest.author              string, a user id
//	changeRequest.reviews             array of {reviewer, status, outdated}:
//	                                  reviewer a user id, status "approved" or
//	                                  "changes-requested", outdated a boolean
//	                                  (the review predates the latest update)
//	changeRequest.requestedReviewers  array of user ids
//	changeRequest.outdated            boolean: main moved on since the change
//	                                  request was last updated
//	merger                            string, the id of the user merging
//
// It must be a boolean, at most MaxExpressionLength bytes and MaxNodes terms,
// and may call only the functions listed in Functions, with iterating ones
// (all, filter, …) nested at most MaxPredicateDepth deep; the range operator
// (1..n) is refused. These bounds keep an evaluation's time and memory
// proportional to the change request's size. A syntax error, an unknown name
// (changeRequest.subjct) or a type error is refused by Check with its line
// and column. An error while running (an index out of range) fails the rule
// with a message saying so.
package mergerules
