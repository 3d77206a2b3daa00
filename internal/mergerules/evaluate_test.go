package mergerules

import (
	"reflect"
	"strings"
	"testing"
)

func approved(u string) Review { return Review{Reviewer: u, Status: StatusApproved} }
func changes(u string) Review  { return Review{Reviewer: u, Status: StatusChangesRequested} }
func outdated(r Review) Review { r.Outdated = true; return r }
func reviewed(rs ...Review) Context {
	return Context{
		ChangeRequest: ChangeRequest{Subject: "Fix typos", Description: "In the guide", Author: "ann", Reviews: rs},
		Merger:        "ann",
		Names:         map[string]string{"ann": "Ann", "bob": "Bob", "cat": "Cat"},
	}
}

func TestEvaluateRules(t *testing.T) {
	withCR := func(f func(*Context)) Context { c := reviewed(); f(&c); return c }
	for _, tc := range []struct {
		name    string
		rule    Rule
		ctx     Context
		passes  bool
		message string
	}{
		{"specific: all approved", Rule{Rule: RequireSpecificReviewers, Users: []string{"bob", "cat"}}, reviewed(approved("bob"), approved("cat")), true, "approved by Bob and Cat"},
		{"specific: one missing", Rule{Rule: RequireSpecificReviewers, Users: []string{"bob", "cat", "dan"}}, reviewed(approved("bob")), false, "needs an approved review from Cat and dan"},
		{"specific: outdated approval", Rule{Rule: RequireSpecificReviewers, Users: []string{"bob"}}, reviewed(outdated(approved("bob"))), false, "needs an approved review from Bob"},
		{"specific: changes requested", Rule{Rule: RequireSpecificReviewers, Users: []string{"bob"}}, reviewed(changes("bob")), false, "from Bob"},
		{"one of: one approved", Rule{Rule: RequireOneOfSpecificReviewers, Users: []string{"bob", "cat"}}, reviewed(changes("bob"), approved("cat")), true, "approved by Cat"},
		{"one of: none", Rule{Rule: RequireOneOfSpecificReviewers, Users: []string{"bob", "cat"}}, reviewed(approved("dan"), outdated(approved("bob"))), false, "needs an approved review from one of Bob or Cat"},
		{"one of: a single user", Rule{Rule: RequireOneOfSpecificReviewers, Users: []string{"bob"}}, reviewed(), false, "needs an approved review from Bob"},
		{"bypass: merger listed", Rule{Rule: AllowBypass, Users: []string{"cat", "ann"}}, reviewed(), true, "Ann may merge even when other rules fail"},
		{"bypass: merger not listed", Rule{Rule: AllowBypass, Users: []string{"cat"}}, reviewed(), false, "Ann may not bypass"},
		{"bypass: no merger", Rule{Rule: AllowBypass, Users: []string{""}}, withCR(func(c *Context) { c.Merger = "" }), false, "an unknown user may not bypass"},
		{"a review: changes requested counts", Rule{Rule: RequireAtLeastOneReview}, reviewed(changes("bob")), true, "has 1 current review"},
		{"a review: only outdated", Rule{Rule: RequireAtLeastOneReview}, reviewed(outdated(approved("bob"))), false, "needs a review"},
		{"an approval", Rule{Rule: RequireAtLeastOneApprovedReview}, reviewed(changes("bob"), approved("cat"), approved("dan")), true, "has 2 approved reviews"},
		{"an approval: outdated", Rule{Rule: RequireAtLeastOneApprovedReview}, reviewed(changes("bob"), outdated(approved("cat"))), false, "needs an approved review"},
		{"all approved", Rule{Rule: RequireAllReviewsApproved}, reviewed(approved("bob"), outdated(changes("cat"))), true, "every current review is approved"},
		{"all approved: no review passes", Rule{Rule: RequireAllReviewsApproved}, reviewed(outdated(changes("cat"))), true, "has no current review"},
		{"all approved: changes requested", Rule{Rule: RequireAllReviewsApproved}, reviewed(approved("bob"), changes("cat")), false, "not approved by Cat"},
		{"agent review", Rule{Rule: RequireAgentReview}, reviewed(approved("bob")), false, "AI agent review, which Folio does not have"},
		{"up to date", Rule{Rule: RequireUpToDateChangeRequest}, reviewed(), true, "is up to date"},
		{"outdated", Rule{Rule: RequireUpToDateChangeRequest}, withCR(func(c *Context) { c.ChangeRequest.Outdated = true }), false, "update the change request"},
		{"subject", Rule{Rule: RequireChangeRequestSubject}, reviewed(), true, "has a subject"},
		{"blank subject", Rule{Rule: RequireChangeRequestSubject}, withCR(func(c *Context) { c.ChangeRequest.Subject = " \t" }), false, "needs a subject"},
		{"description", Rule{Rule: RequireChangeRequestDescription}, reviewed(), true, "has a description"},
		{"blank description", Rule{Rule: RequireChangeRequestDescription}, withCR(func(c *Context) { c.ChangeRequest.Description = "\n" }), false, "needs a description"},
		{"author merges", Rule{Rule: RequireAuthorToMerge}, reviewed(), true, "merged by its author, Ann"},
		{"another merges", Rule{Rule: RequireAuthorToMerge}, withCR(func(c *Context) { c.Merger = "bob" }), false, "only its author, Ann, may merge"},
		{"custom passes", Rule{Rule: Custom, Expression: `len(filter(changeRequest.reviews, .status == "approved" && !.outdated)) >= 2`, Message: "two approvals"}, reviewed(approved("bob"), approved("cat")), true, "the custom rule is satisfied"},
		{"custom fails with its message", Rule{Rule: Custom, Expression: `len(filter(changeRequest.reviews, .status == "approved" && !.outdated)) >= 2`, Message: "two approvals"}, reviewed(approved("bob"), outdated(approved("cat"))), false, "two approvals"},
		{"custom fails by default", Rule{Rule: Custom, Expression: `changeRequest.author != merger`}, reviewed(), false, "the custom rule is not satisfied"},
		{"custom reads requested reviewers", Rule{Rule: Custom, Expression: `merger in changeRequest.requestedReviewers`}, withCR(func(c *Context) { c.ChangeRequest.RequestedReviewers = []string{"bob", "ann"} }), true, "satisfied"},
		{"custom reads outdated", Rule{Rule: Custom, Expression: `!changeRequest.outdated && changeRequest.subject == "Fix typos"`}, withCR(func(c *Context) { c.ChangeRequest.Outdated = true }), false, "not satisfied"},
		{"custom runtime error: index", Rule{Rule: Custom, Expression: `changeRequest.reviews[3].status == "approved"`, Message: "m"}, reviewed(approved("bob")), false, "the custom rule could not be evaluated: "},
		{"custom runtime error: pattern", Rule{Rule: Custom, Expression: `changeRequest.subject matches changeRequest.description`}, withCR(func(c *Context) { c.ChangeRequest.Description = "(" }), false, "could not be evaluated"},
		{"custom invalid expression", Rule{Rule: Custom, Expression: `changeRequest.subjct == ""`}, reviewed(), false, "the custom rule's expression is invalid: line 1, column 15"},
		{"unknown kind", Rule{Rule: "require_luck"}, reviewed(), false, `unknown rule "require_luck"`},
	} {
		v := Evaluate(rules(tc.rule), tc.ctx)
		if len(v.Rules) != 1 {
			t.Fatalf("%s: %d results", tc.name, len(v.Rules))
		}
		r := v.Rules[0]
		if r.Rule != tc.rule.Rule || r.Passes != tc.passes || !strings.Contains(r.Message, tc.message) {
			t.Errorf("%s: got %+v; want passes %v, message …%s…", tc.name, r, tc.passes, tc.message)
		}
		if tc.rule.Rule != AllowBypass && v.Mergeable != tc.passes {
			t.Errorf("%s: Mergeable = %v with one rule that passes: %v", tc.name, v.Mergeable, tc.passes)
		}
	}
}

func TestEvaluateBypass(t *testing.T) {
	c := rules(
		Rule{Rule: RequireAtLeastOneApprovedReview},
		Rule{Rule: AllowBypass, Users: []string{"ann"}},
		Rule{Rule: RequireChangeRequestSubject},
	)
	failing := reviewed(changes("bob"))

	v := Evaluate(c, failing)
	if !v.Mergeable || !v.Bypassed {
		t.Errorf("merger in the bypass list: %+v; want mergeable, bypassed", v)
	}
	if f := v.Failed(); len(f) != 1 || f[0].Rule != RequireAtLeastOneApprovedReview {
		t.Errorf("Failed = %+v; want the approval rule only", f)
	}
	if got := []Kind{v.Rules[0].Rule, v.Rules[1].Rule, v.Rules[2].Rule}; !reflect.DeepEqual(got, []Kind{RequireAtLeastOneApprovedReview, AllowBypass, RequireChangeRequestSubject}) {
		t.Errorf("results not in the configuration's order: %v", got)
	}

	other := failing
	other.Merger = "bob"
	v = Evaluate(c, other)
	if v.Mergeable || v.Bypassed {
		t.Errorf("merger not in the bypass list: %+v; want not mergeable", v)
	}
	if f := v.Failed(); len(f) != 1 {
		t.Errorf("a failing allow_bypass is not a blocking failure: Failed = %+v", f)
	}

	v = Evaluate(c, reviewed(approved("bob")))
	if !v.Mergeable || v.Bypassed {
		t.Errorf("every rule passes: %+v; want mergeable, not bypassed", v)
	}
	if !v.Rules[1].Passes {
		t.Errorf("allow_bypass result should say the merger may bypass: %+v", v.Rules[1])
	}
}

func TestEvaluateConfigurations(t *testing.T) {
	ctx := reviewed()
	if v := Evaluate(Config{Type: TypeNone}, ctx); !v.Mergeable || v.Bypassed || len(v.Rules) != 0 {
		t.Errorf("none: %+v", v)
	}
	if v := Evaluate(Config{Type: TypeRules, Rules: []Rule{}}, ctx); !v.Mergeable || len(v.Rules) != 0 {
		t.Errorf("no rules: %+v", v)
	}
	for _, typ := range []Type{TypeInherit, "", "other"} {
		v := Evaluate(Config{Type: typ}, ctx)
		if v.Mergeable || len(v.Failed()) != 1 || !strings.Contains(v.Failed()[0].Message, "cannot be evaluated") {
			t.Errorf("type %q: %+v; want not mergeable, one failure saying why", typ, v)
		}
	}
	two := rules(Rule{Rule: RequireAtLeastOneReview}, Rule{Rule: RequireAuthorToMerge})
	v := Evaluate(two, reviewed(approved("bob")))
	if !v.Mergeable || len(v.Failed()) != 0 {
		t.Errorf("both pass: %+v", v)
	}
	v = Evaluate(two, reviewed())
	if v.Mergeable || len(v.Failed()) != 1 {
		t.Errorf("one fails: %+v", v)
	}
}

// Odd contexts and expressions must fail rules, never panic.
func TestEvaluateOddInput(t *testing.T) {
	exprs := []string{
		`first(changeRequest.reviews).status == "approved"`,
		`last(changeRequest.requestedReviewers) == merger`,
		`find(changeRequest.reviews, .reviewer == merger).outdated`,
		`changeRequest.requestedReviewers[-1] == ""`,
		`len(changeRequest.subject) / len(changeRequest.reviews) > 0`,
		`changeRequest.subject matches "("`,
		"\xff", "", `)`,
	}
	ctxs := []Context{
		{},
		{ChangeRequest: ChangeRequest{Reviews: []Review{{}}, RequestedReviewers: []string{""}}},
		reviewed(approved("ann"), changes("")),
	}
	for _, x := range exprs {
		for _, ctx := range ctxs {
			c := rules(Rule{Rule: Custom, Expression: x}, Rule{Rule: RequireSpecificReviewers}, Rule{Rule: AllowBypass})
			v := Evaluate(c, ctx)
			if len(v.Rules) != 3 || v.Rules[0].Message == "" {
				t.Errorf("%q: %+v", x, v)
			}
		}
	}
}

func FuzzEvaluateCustom(f *testing.F) {
	for _, s := range []string{
		`changeRequest.reviews[0].status == "approved"`,
		`any(changeRequest.reviews, .reviewer == merger)`,
		`changeRequest.subject matches changeRequest.description`,
		`int(changeRequest.subject) > 0`,
	} {
		f.Add(s)
	}
	ctx := reviewed(approved("bob"), outdated(changes("cat")))
	f.Fuzz(func(t *testing.T, src string) {
		v := Evaluate(rules(Rule{Rule: Custom, Expression: src}), ctx)
		if len(v.Rules) != 1 || v.Rules[0].Message == "" {
			t.Fatalf("%q: %+v", src, v)
		}
		if err := Check(rules(Rule{Rule: Custom, Expression: src}), false); err == nil && strings.Contains(v.Rules[0].Message, "is invalid") {
			t.Fatalf("%q: Check accepts what Evaluate calls invalid", src)
		}
	})
}
