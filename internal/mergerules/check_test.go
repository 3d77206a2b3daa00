package mergerules

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func rules(rs ...Rule) Config { return Config{Type: TypeRules, Rules: rs} }

func TestCheckAccepts(t *testing.T) {
	for name, c := range map[string]Config{
		"none":        {Type: TypeNone},
		"empty rules": {Type: TypeRules, Rules: []Rule{}},
		"every kind but agent review": rules(
			Rule{Rule: RequireSpecificReviewers, Users: []string{"u1", "u2"}},
			Rule{Rule: RequireOneOfSpecificReviewers, Users: []string{"u3"}},
			Rule{Rule: AllowBypass, Users: []string{"u1"}},
			Rule{Rule: RequireAtLeastOneReview},
			Rule{Rule: RequireAtLeastOneApprovedReview},
			Rule{Rule: RequireAllReviewsApproved},
			Rule{Rule: RequireUpToDateChangeRequest},
			Rule{Rule: RequireChangeRequestSubject},
			Rule{Rule: RequireChangeRequestDescription},
			Rule{Rule: RequireAuthorToMerge},
			Rule{Rule: Custom, Expression: `len(filter(changeRequest.reviews, .status == "approved" && !.outdated)) >= 2`, Message: "needs two approvals"},
			Rule{Rule: Custom, Expression: `merger in changeRequest.requestedReviewers`},
			Rule{Rule: Custom, Expression: "changeRequest.author != merger &&\n  !changeRequest.outdated"},
			Rule{Rule: Custom, Expression: `any(changeRequest.reviews, any(changeRequest.requestedReviewers, # == merger)) && all(changeRequest.reviews, .reviewer in changeRequest.requestedReviewers)`},
			Rule{Rule: Custom, Expression: `hasPrefix(lower(trim(changeRequest.subject)), "docs:") || first(changeRequest.requestedReviewers) == merger`},
		),
		"expression of the maximum length": rules(Rule{Rule: Custom, Expression: "true" + strings.Repeat(" ", MaxExpressionLength-4)}),
		"users at the maximum":             rules(Rule{Rule: AllowBypass, Users: numbered(MaxUsers)}),
	} {
		if err := Check(c, false); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := Check(Config{Type: TypeInherit}, true); err != nil {
		t.Errorf("inherit for a space: %v", err)
	}
}

func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "user" + strings.Repeat("x", i)
	}
	return out
}

func TestCheckRefuses(t *testing.T) {
	tooMany := make([]Rule, MaxRules+1)
	for i := range tooMany {
		tooMany[i] = Rule{Rule: RequireAtLeastOneReview}
	}
	custom := func(expr string) Config {
		return rules(Rule{Rule: RequireAtLeastOneReview}, Rule{Rule: Custom, Expression: expr})
	}
	for _, tc := range []struct {
		name    string
		c       Config
		inherit bool
		field   string
		message string // a part of the message
	}{
		{"unknown type", Config{Type: "some"}, false, "type", `must be "none" or "rules", not "some"`},
		{"unknown type, space", Config{Type: ""}, true, "type", `"none", "rules" or "inherit"`},
		{"inherit for an organization", Config{Type: TypeInherit}, false, "type", "only for spaces"},
		{"rules with none", Config{Type: TypeNone, Rules: []Rule{{Rule: RequireAtLeastOneReview}}}, false, "rules", `not allowed with type "none"`},
		{"rules with inherit", Config{Type: TypeInherit, Rules: []Rule{{Rule: RequireAtLeastOneReview}}}, true, "rules", `not allowed with type "inherit"`},
		{"rules missing", Config{Type: TypeRules}, false, "rules", "is required"},
		{"too many rules", rules(tooMany...), false, "rules", "at most 20"},
		{"unknown kind", rules(Rule{Rule: RequireAtLeastOneReview}, Rule{Rule: "require_everything"}), false, "rules[1].rule", "require_specific_reviewers, require_one_of_specific_reviewers, allow_bypass"},
		{"agent review", rules(Rule{Rule: RequireAgentReview}), false, "rules[0].rule", "needs an AI agent review, which Folio does not have"},
		{"users missing", rules(Rule{Rule: RequireSpecificReviewers}), false, "rules[0].users", "at least one user"},
		{"users empty", rules(Rule{Rule: RequireOneOfSpecificReviewers, Users: []string{}}), false, "rules[0].users", "at least one user"},
		{"bypass users missing", rules(Rule{Rule: AllowBypass}), false, "rules[0].users", "at least one user"},
		{"too many users", rules(Rule{Rule: AllowBypass, Users: numbered(MaxUsers + 1)}), false, "rules[0].users", "at most 100"},
		{"blank user", rules(Rule{Rule: RequireSpecificReviewers, Users: []string{"u1", " "}}), false, "rules[0].users", "user 1 is blank"},
		{"duplicate user", rules(Rule{Rule: RequireSpecificReviewers, Users: []string{"u1", "u2", "u1"}}), false, "rules[0].users", `"u1" twice`},
		{"user with a NUL", rules(Rule{Rule: AllowBypass, Users: []string{"u\x00"}}), false, "rules[0].users", "NUL"},
		{"users on a review rule", rules(Rule{Rule: RequireAtLeastOneReview, Users: []string{"u1"}}), false, "rules[0].users", "not allowed for rule require_at_least_one_review"},
		{"expression on a user rule", rules(Rule{Rule: AllowBypass, Users: []string{"u1"}, Expression: "true"}), false, "rules[0].expression", "not allowed"},
		{"message on a built-in rule", rules(Rule{Rule: RequireAuthorToMerge, Message: "x"}), false, "rules[0].message", "not allowed"},
		{"users on custom", rules(Rule{Rule: Custom, Expression: "true", Users: []string{"u1"}}), false, "rules[0].users", "not allowed"},
		{"expression missing", custom(""), false, "rules[1].expression", "is required"},
		{"expression blank", custom(" \n"), false, "rules[1].expression", "is required"},
		{"expression too long", custom("true" + strings.Repeat(" ", MaxExpressionLength-3)), false, "rules[1].expression", "longer than 1024 bytes"},
		{"expression not UTF-8", custom("\xff"), false, "rules[1].expression", "UTF-8"},
		{"typo in a name", custom(`changeRequest.subjct == ""`), false, "rules[1].expression", "line 1, column 15: changeRequest has fields subject"},
		{"typo in a review field", custom(`any(changeRequest.reviews, .reviewr == merger)`), false, "rules[1].expression", "line 1, column 29: a review has fields reviewer"},
		{"unknown name", custom("merger == author"), false, "rules[1].expression", "line 1, column 11: unknown name author"},
		{"names are not visible", custom(`Names["u1"] == ""`), false, "rules[1].expression", "line 1, column 1: unknown name Names"},
		{"syntax error", custom("len(changeRequest.reviews) >"), false, "rules[1].expression", "line 1, column 28"},
		{"error on a second line", custom("true &&\n  changeRequest.nope"), false, "rules[1].expression", "line 2, column 17"},
		{"type error", custom(`changeRequest.reviews == 1`), false, "rules[1].expression", "line 1, column 23: invalid operation"},
		{"not a boolean", custom("len(changeRequest.reviews)"), false, "rules[1].expression", "line 1, column 1: expected bool"},
		{"range", custom("len(1..1000000) > 0"), false, "rules[1].expression", "line 1, column 6: the range operator .. is not allowed"},
		{"disabled builtin", custom(`repeat("a", 1000000000) == ""`), false, "rules[1].expression", "line 1, column 1: function repeat is not allowed (allowed: len, all"},
		{"clock", custom(`now() != nil`), false, "rules[1].expression", "function now is not allowed"},
		{"unknown function", custom(`foo(merger)`), false, "rules[1].expression", "function foo is not allowed"},
		{"nesting too deep", custom(`all(changeRequest.reviews, any(changeRequest.reviews, any(changeRequest.reviews, .outdated)))`), false, "rules[1].expression", "line 1, column 55: any inside 2 iterating functions"},
		{"too many terms", custom(strings.Repeat("!", MaxNodes) + "true"), false, "rules[1].expression", "more than 200 terms"},
		{"message too long", rules(Rule{Rule: Custom, Expression: "true", Message: strings.Repeat("m", MaxMessageLength+1)}), false, "rules[0].message", "longer than 500 bytes"},
		{"message with a NUL", rules(Rule{Rule: Custom, Expression: "true", Message: "a\x00"}), false, "rules[0].message", "NUL"},
	} {
		err := Check(tc.c, tc.inherit)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", tc.name, err)
			continue
		}
		if e.Field != tc.field || !strings.Contains(e.Message, tc.message) {
			t.Errorf("%s: got %s: %s; want %s: …%s…", tc.name, e.Field, e.Message, tc.field, tc.message)
		}
		if e.Error() != e.Field+": "+e.Message {
			t.Errorf("%s: Error() = %q", tc.name, e.Error())
		}
	}
}

func TestUserIDs(t *testing.T) {
	c := rules(
		Rule{Rule: RequireSpecificReviewers, Users: []string{"b", "a"}},
		Rule{Rule: RequireAtLeastOneReview},
		Rule{Rule: AllowBypass, Users: []string{"a", "c", "b"}},
		Rule{Rule: RequireOneOfSpecificReviewers, Users: []string{"d", ""}},
	)
	if got, want := c.UserIDs(), []string{"b", "a", "c", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("UserIDs = %v, want %v", got, want)
	}
	if got := (Config{Type: TypeNone}).UserIDs(); len(got) != 0 {
		t.Errorf("UserIDs of none = %v", got)
	}
}

func TestCompileIsCached(t *testing.T) {
	src := `changeRequest.subject != "cached"`
	p1, err := compile(src)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := compile(src)
	if p1 != p2 {
		t.Error("the second compilation of a source did not come from the cache")
	}
}
