package mergerules

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// Review is one review of a change request, as expressions read it.
type Review struct {
	Reviewer string `expr:"reviewer"`
	Status   string `expr:"status"` // "approved" or "changes-requested"
	Outdated bool   `expr:"outdated"`
}

// Review statuses.
const (
	StatusApproved         = "approved"
	StatusChangesRequested = "changes-requested"
)

// ChangeRequest is the change request being merged, as expressions read it.
type ChangeRequest struct {
	Subject            string   `expr:"subject"`
	Description        string   `expr:"description"`
	Author             string   `expr:"author"`
	Reviews            []Review `expr:"reviews"`
	RequestedReviewers []string `expr:"requestedReviewers"`
	Outdated           bool     `expr:"outdated"`
}

// Context is what rules are evaluated against; custom expressions read it
// as changeRequest.* and merger (see the package documentation).
type Context struct {
	ChangeRequest ChangeRequest `expr:"changeRequest"`
	Merger        string        `expr:"merger"`
	// Names gives display names for messages (user id → name); not visible
	// to expressions. Missing: the id is used.
	Names map[string]string `expr:"-"`
}

// Result is the outcome of one rule.
type Result struct {
	Rule    Kind   `json:"rule"`
	Passes  bool   `json:"passes"`
	Message string `json:"message"` // why it passes or what is missing
}

// Verdict is the outcome of a configuration.
type Verdict struct {
	Mergeable bool     // every rule other than allow_bypass passes, or the merger may bypass
	Bypassed  bool     // mergeable only because the merger is in an allow_bypass list
	Rules     []Result // one per rule, in the configuration's order (allow_bypass: Passes = the merger may bypass)
}

// Failed lists the results that block a merge (every failing rule except
// allow_bypass).
func (v Verdict) Failed() []Result {
	var out []Result
	for _, r := range v.Rules {
		if !r.Passes && r.Rule != AllowBypass {
			out = append(out, r)
		}
	}
	return out
}

// Evaluate runs the rules of a "rules" configuration; "none" (or an empty
// list) is mergeable with no rules. Only current reviews (Outdated false)
// count for the built-in review rules. A configuration of another type
// ("inherit", which the caller should have resolved, or an unknown one) is
// not mergeable: its single result, of no rule, says why. Evaluate does not
// check c; a rule Check would refuse fails with a message saying why.
func Evaluate(c Config, ctx Context) Verdict {
	switch c.Type {
	case TypeNone:
		return Verdict{Mergeable: true}
	case TypeRules:
	default:
		return Verdict{Rules: []Result{{Message: fmt.Sprintf("merge rules of type %q cannot be evaluated; resolve them to a configuration of type \"rules\" or \"none\"", c.Type)}}}
	}
	v := Verdict{Rules: make([]Result, 0, len(c.Rules))}
	blocked, bypass := false, false
	for _, r := range c.Rules {
		res := evaluate(r, ctx)
		v.Rules = append(v.Rules, res)
		if r.Rule == AllowBypass {
			bypass = bypass || res.Passes
		} else {
			blocked = blocked || !res.Passes
		}
	}
	v.Mergeable = !blocked || bypass
	v.Bypassed = blocked && bypass
	return v
}

func evaluate(r Rule, ctx Context) Result {
	pass := func(format string, args ...any) Result {
		return Result{Rule: r.Rule, Passes: true, Message: fmt.Sprintf(format, args...)}
	}
	fail := func(format string, args ...any) Result {
		return Result{Rule: r.Rule, Message: fmt.Sprintf(format, args...)}
	}
	cr := ctx.ChangeRequest
	switch r.Rule {
	case RequireSpecificReviewers:
		if len(r.Users) == 0 {
			return fail("lists no reviewers")
		}
		var missing []string
		for _, u := range r.Users {
			if !approvedBy(cr.Reviews, u) {
				missing = append(missing, ctx.name(u))
			}
		}
		if len(missing) > 0 {
			return fail("needs an approved review from %s", list(missing, "and"))
		}
		return pass("approved by %s", list(ctx.names(r.Users), "and"))
	case RequireOneOfSpecificReviewers:
		if len(r.Users) == 0 {
			return fail("lists no reviewers")
		}
		for _, u := range r.Users {
			if approvedBy(cr.Reviews, u) {
				return pass("approved by %s", ctx.name(u))
			}
		}
		if len(r.Users) == 1 {
			return fail("needs an approved review from %s", ctx.name(r.Users[0]))
		}
		return fail("needs an approved review from one of %s", list(ctx.names(r.Users), "or"))
	case AllowBypass:
		for _, u := range r.Users {
			if u != "" && u == ctx.Merger {
				return pass("%s may merge even when other rules fail", ctx.name(ctx.Merger))
			}
		}
		return fail("%s may not bypass the merge rules", ctx.name(ctx.Merger))
	case RequireAtLeastOneReview:
		if n := len(current(cr.Reviews)); n > 0 {
			return pass("has %s", plural(n, "current review"))
		}
		return fail("needs a review")
	case RequireAtLeastOneApprovedReview:
		n := 0
		for _, rv := range current(cr.Reviews) {
			if rv.Status == StatusApproved {
				n++
			}
		}
		if n > 0 {
			return pass("has %s", plural(n, "approved review"))
		}
		return fail("needs an approved review")
	case RequireAllReviewsApproved:
		var others []string
		cur := current(cr.Reviews)
		for _, rv := range cur {
			if rv.Status != StatusApproved {
				others = append(others, ctx.name(rv.Reviewer))
			}
		}
		if len(others) > 0 {
			return fail("needs every review approved; not approved by %s", list(others, "and"))
		}
		if len(cur) == 0 {
			return pass("has no current review, so none is unapproved")
		}
		return pass("every current review is approved")
	case RequireAgentReview:
		return fail("needs an AI agent review, which Folio does not have")
	case RequireUpToDateChangeRequest:
		if cr.Outdated {
			return fail("is not up to date with the main content; update the change request")
		}
		return pass("is up to date with the main content")
	case RequireChangeRequestSubject:
		if strings.TrimSpace(cr.Subject) == "" {
			return fail("needs a subject")
		}
		return pass("has a subject")
	case RequireChangeRequestDescription:
		if strings.TrimSpace(cr.Description) == "" {
			return fail("needs a description")
		}
		return pass("has a description")
	case RequireAuthorToMerge:
		if ctx.Merger != "" && ctx.Merger == cr.Author {
			return pass("merged by its author, %s", ctx.name(cr.Author))
		}
		return fail("only its author, %s, may merge it", ctx.name(cr.Author))
	case Custom:
		return evaluateCustom(r, ctx)
	}
	return fail("unknown rule %q", r.Rule)
}

func evaluateCustom(r Rule, ctx Context) Result {
	res := Result{Rule: Custom}
	program, err := compile(r.Expression)
	if err != nil {
		res.Message = "the custom rule's expression is invalid: " + err.Error()
		return res
	}
	ok, err := run(program, ctx)
	switch {
	case err != nil:
		res.Message = "the custom rule could not be evaluated: " + err.Error()
	case ok:
		res.Passes = true
		res.Message = "the custom rule is satisfied"
	case strings.TrimSpace(r.Message) != "":
		res.Message = r.Message
	default:
		res.Message = "the custom rule is not satisfied"
	}
	return res
}

// run runs a compiled expression. expr's VM turns its own panics into
// errors; the recover here is for anything else, since a user's expression
// must never bring the server down.
func run(program *vm.Program, ctx Context) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("%v", p)
		}
	}()
	out, err := expr.Run(program, ctx)
	if err != nil {
		return false, err
	}
	b, isBool := out.(bool)
	if !isBool {
		return false, fmt.Errorf("the expression gave %T, not a boolean", out)
	}
	return b, nil
}

func current(reviews []Review) []Review {
	var out []Review
	for _, r := range reviews {
		if !r.Outdated {
			out = append(out, r)
		}
	}
	return out
}

func approvedBy(reviews []Review, user string) bool {
	for _, r := range reviews {
		if !r.Outdated && r.Status == StatusApproved && r.Reviewer == user {
			return true
		}
	}
	return false
}

func (ctx Context) name(id string) string {
	if n := ctx.Names[id]; n != "" {
		return n
	}
	if id == "" {
		return "an unknown user"
	}
	return id
}

func (ctx Context) names(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = ctx.name(id)
	}
	return out
}

// list joins names the English way: "A", "A and B", "A, B and C".
func list(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
