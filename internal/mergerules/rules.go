package mergerules

import (
	"fmt"
	"strings"

	"github.com/folio/folio/internal/textcheck"
)

// Kind is the kind of a merge rule, GitBook's MergeRule.rule.
type Kind string

const (
	RequireSpecificReviewers        Kind = "require_specific_reviewers"
	RequireOneOfSpecificReviewers   Kind = "require_one_of_specific_reviewers"
	AllowBypass                     Kind = "allow_bypass"
	RequireAtLeastOneReview         Kind = "require_at_least_one_review"
	RequireAtLeastOneApprovedReview Kind = "require_at_least_one_approved_review"
	RequireAllReviewsApproved       Kind = "require_all_reviews_approved"
	RequireAgentReview              Kind = "require_agent_review"
	RequireUpToDateChangeRequest    Kind = "require_up_to_date_change_request"
	RequireChangeRequestSubject     Kind = "require_change_request_subject"
	RequireChangeRequestDescription Kind = "require_change_request_description"
	RequireAuthorToMerge            Kind = "require_author_to_merge"
	Custom                          Kind = "custom"
)

// kinds are all the kinds GitBook defines, in its order.
var kinds = []Kind{
	RequireSpecificReviewers, RequireOneOfSpecificReviewers, AllowBypass,
	RequireAtLeastOneReview, RequireAtLeastOneApprovedReview, RequireAllReviewsApproved,
	RequireAgentReview, RequireUpToDateChangeRequest, RequireChangeRequestSubject,
	RequireChangeRequestDescription, RequireAuthorToMerge, Custom,
}

// takesUsers tells the kinds whose rule lists users.
func (k Kind) takesUsers() bool {
	return k == RequireSpecificReviewers || k == RequireOneOfSpecificReviewers || k == AllowBypass
}

func (k Kind) known() bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Rule is one merge rule. Users is for the three user rules, Expression and
// Message for custom rules.
type Rule struct {
	Rule       Kind     `json:"rule"`
	Users      []string `json:"users,omitempty"`
	Expression string   `json:"expression,omitempty"`
	Message    string   `json:"message,omitempty"`
}

// Type is a configuration's kind: none, rules, or (spaces only) inherit.
type Type string

// Config is MergeRulesConfiguration*: Type "none", "rules" or (spaces only)
// "inherit"; Rules only with "rules".
type Config struct {
	Type  Type   `json:"type"`
	Rules []Rule `json:"rules,omitempty"`
}

const (
	TypeNone    Type = "none"
	TypeRules   Type = "rules"
	TypeInherit Type = "inherit"
)

// Bounds of a configuration. MaxExpressionLength is the reference's
// Expression.maxLength; the others keep a stored configuration, and the work
// of evaluating it on every merge, small.
const (
	MaxRules            = 20
	MaxUsers            = 100
	MaxExpressionLength = 1024
	MaxMessageLength    = 500
)

// Error is a refused configuration. Field is the path inside the
// configuration ("type", "rules", "rules[2].users", "rules[0].expression");
// callers prefix it with "mergeRules.".
type Error struct{ Field, Message string }

func (e *Error) Error() string { return e.Field + ": " + e.Message }

// Check validates c as stored configuration. inherit says whether "inherit"
// is allowed (spaces yes, organizations no). It returns an *Error.
func Check(c Config, inherit bool) error {
	switch c.Type {
	case TypeNone, TypeInherit:
		if c.Type == TypeInherit && !inherit {
			return &Error{"type", `"inherit" is only for spaces; an organization's merge rules are "none" or "rules"`}
		}
		if len(c.Rules) > 0 {
			return &Error{"rules", fmt.Sprintf("is not allowed with type %q; use type \"rules\"", c.Type)}
		}
		return nil
	case TypeRules:
	default:
		want := `"none" or "rules"`
		if inherit {
			want = `"none", "rules" or "inherit"`
		}
		return &Error{"type", fmt.Sprintf("must be %s, not %q", want, c.Type)}
	}
	if c.Rules == nil {
		return &Error{"rules", `is required with type "rules" (an empty list allows any merge)`}
	}
	if len(c.Rules) > MaxRules {
		return &Error{"rules", fmt.Sprintf("has %d rules; at most %d are allowed", len(c.Rules), MaxRules)}
	}
	for i, r := range c.Rules {
		if err := checkRule(r, fmt.Sprintf("rules[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func checkRule(r Rule, path string) error {
	if !r.Rule.known() {
		var accepted []string
		for _, k := range kinds {
			if k != RequireAgentReview {
				accepted = append(accepted, string(k))
			}
		}
		return &Error{path + ".rule", fmt.Sprintf("unknown rule %q; one of: %s", r.Rule, strings.Join(accepted, ", "))}
	}
	if r.Rule == RequireAgentReview {
		return &Error{path + ".rule", "require_agent_review needs an AI agent review, which Folio does not have"}
	}
	if r.Rule.takesUsers() {
		if err := checkUsers(r.Users, path+".users"); err != nil {
			return err
		}
	} else if r.Users != nil {
		return &Error{path + ".users", fmt.Sprintf("is not allowed for rule %s", r.Rule)}
	}
	if r.Rule != Custom {
		if r.Expression != "" {
			return &Error{path + ".expression", fmt.Sprintf("is not allowed for rule %s", r.Rule)}
		}
		if r.Message != "" {
			return &Error{path + ".message", fmt.Sprintf("is not allowed for rule %s", r.Rule)}
		}
		return nil
	}
	if _, err := compile(r.Expression); err != nil {
		return &Error{path + ".expression", err.Error()}
	}
	if p := textcheck.Problem(r.Message); p != "" {
		return &Error{path + ".message", p}
	}
	if len(r.Message) > MaxMessageLength {
		return &Error{path + ".message", fmt.Sprintf("is longer than %d bytes", MaxMessageLength)}
	}
	return nil
}

func checkUsers(users []string, field string) error {
	if len(users) == 0 {
		return &Error{field, "must list at least one user"}
	}
	if len(users) > MaxUsers {
		return &Error{field, fmt.Sprintf("lists %d users; at most %d are allowed", len(users), MaxUsers)}
	}
	seen := make(map[string]bool, len(users))
	for j, u := range users {
		if p := textcheck.Problem(u); p != "" {
			return &Error{field, fmt.Sprintf("user %d %s", j, p)}
		}
		if strings.TrimSpace(u) == "" {
			return &Error{field, fmt.Sprintf("user %d is blank", j)}
		}
		if seen[u] {
			return &Error{field, fmt.Sprintf("lists user %q twice", u)}
		}
		seen[u] = true
	}
	return nil
}

// UserIDs lists, deduplicated and in first-seen order, every user id the
// rules name (callers check they exist).
func (c Config) UserIDs() []string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range c.Rules {
		for _, u := range r.Users {
			if u != "" && !seen[u] {
				seen[u] = true
				ids = append(ids, u)
			}
		}
	}
	return ids
}
