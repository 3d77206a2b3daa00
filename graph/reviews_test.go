package graph_test

import (
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// The GraphQL side of reviews: the same rules and answers as REST.
func TestReviewsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		rita, _ := s.NewUser(t, "rita@acme.com", "")
		s.AddMember(t, acme, rita, testkit.RoleOf(access.Review))
		space := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Docs"}) { id } }`,
			map[string]any{"org": acme}), "createSpace", "id").(string)
		s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { updateOrganization(id: $org, input: {mergeRules: {type: rules, rules: [{rule: require_at_least_one_approved_review}]}}) { mergeRules { type rules { rule } } } }`,
			map[string]any{"org": acme})
		cr := dig(s.MustGraphQL(t, alice.Token, `mutation($s: ID!) { createChangeRequest(spaceId: $s, subject: "Intro") { id } }`,
			map[string]any{"s": space}), "createChangeRequest", "id").(string)
		vars := map[string]any{"s": space, "cr": cr}

		// The author cannot review; the reviewer can, with a comment.
		data, errs := s.GraphQL(t, alice.Token, `mutation($s: ID!, $cr: String!) { submitReview(spaceId: $s, changeRequestId: $cr, status: approved) { id } }`, vars)
		if data["submitReview"] != nil || len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("author's review: %v %+v", data, errs)
		}
		s.MustGraphQL(t, alice.Token, `mutation($s: ID!, $cr: String!, $u: [ID!]!) { requestReviewers(spaceId: $s, changeRequestId: $cr, users: $u) { user { id } } }`,
			map[string]any{"s": space, "cr": cr, "u": []string{rita.ID}})
		rv := s.MustGraphQL(t, rita.Token, `mutation($s: ID!, $cr: String!) { submitReview(spaceId: $s, changeRequestId: $cr, status: changes_requested, comment: "Shorter") { id status outdated comment { body target { review } } requestedBy { id } } }`, vars)["submitReview"].(map[string]any)
		if rv["status"] != "changes_requested" || rv["outdated"] != false || rv["requestedBy"].(map[string]any)["id"] != alice.ID ||
			dig(rv, "comment", "target", "review") != rv["id"] {
			t.Fatalf("review: %v", rv)
		}
		got := s.MustGraphQL(t, alice.Token, `query($s: ID!, $cr: String!) { space(id: $s) { mergeRules { type rules { users } } organization { mergeRules { rules { rule users expression message } } } changeRequest(id: $cr) {
			reviews { totalCount edges { node { id reviewer { id } } } }
			requestedReviewers { user { id } requestedBy { id } }
			mergeability { mergeable bypassed rules { rule passes message } } } } }`, vars)
		c := dig(got, "space", "changeRequest").(map[string]any)
		if dig(got, "space", "mergeRules", "type") != "inherit" || dig(c, "reviews", "totalCount") != 1.0 || len(c["requestedReviewers"].([]any)) != 1 {
			t.Fatalf("change request: %v", got)
		}
		m := c["mergeability"].(map[string]any)
		rule := m["rules"].([]any)[0].(map[string]any)
		if m["mergeable"] != false || rule["rule"] != "require_at_least_one_approved_review" || rule["passes"] != false || rule["message"] == "" {
			t.Fatalf("mergeability: %v", m)
		}
		_, errs = s.GraphQL(t, alice.Token, `mutation($s: ID!, $cr: String!) { mergeChangeRequest(spaceId: $s, id: $cr) { result } }`, vars)
		if len(errs) != 1 || errs[0].Extensions["code"] != "CONFLICT" {
			t.Fatalf("merge against the rules: %+v", errs)
		}
		// A space without rules: mergeable, no rules.
		s.MustGraphQL(t, alice.Token, `mutation($s: ID!) { updateSpace(id: $s, input: {mergeRules: {type: none}}) { id } }`, vars)
		m = dig(s.MustGraphQL(t, alice.Token, `query($s: ID!, $cr: String!) { space(id: $s) { changeRequest(id: $cr) { mergeability { mergeable rules { rule } } } } }`, vars),
			"space", "changeRequest", "mergeability").(map[string]any)
		if m["mergeable"] != true || len(m["rules"].([]any)) != 0 {
			t.Fatalf("no rules: %v", m)
		}
		// A typo in a custom rule names its position.
		_, errs = s.GraphQL(t, alice.Token, `mutation($s: ID!) { updateSpace(id: $s, input: {mergeRules: {type: rules, rules: [{rule: custom, expression: "merger =="}]}}) { id } }`, vars)
		if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(errs[0].Message, "line 1, column") {
			t.Fatalf("typo: %+v", errs)
		}
	})
}
