package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// reviewFixture is contentFixture (admin, editor, reader, stranger) with a
// reviewer: a member with the review role.
type reviewFixture struct {
	contentFixture
	reviewer testkit.User
}

func newReviewFixture(t *testing.T, s *testkit.Server) reviewFixture {
	t.Helper()
	f := reviewFixture{contentFixture: newContentFixture(t, s)}
	f.reviewer, _ = s.NewUser(t, "reviewer@acme.com", "")
	s.AddMember(t, f.org, f.reviewer, testkit.RoleOf(access.Review))
	return f
}

// setOrgRules sets the organization's merge rules.
func (f reviewFixture) setOrgRules(t *testing.T, rules ...map[string]any) {
	t.Helper()
	f.s.Call(t, "updateOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org,
		map[string]any{"mergeRules": map[string]any{"type": "rules", "rules": rules}}, 200)
}

func (f reviewFixture) review(t *testing.T, u testkit.User, cr, status string) map[string]any {
	t.Helper()
	return f.s.Call(t, "submitChangeRequestReview", u.Token, "POST", f.crPath(cr)+"/reviews", map[string]any{"status": status}, 201).JSON(t)
}

// mergeability is a change request's mergeability extension, read by u.
func (f reviewFixture) mergeability(t *testing.T, u testkit.User, cr string) map[string]any {
	t.Helper()
	return f.s.Call(t, "getChangeRequestById", u.Token, "GET", f.crPath(cr), nil, 200).JSON(t)["mergeability"].(map[string]any)
}

// The story, on both databases: a one-approval rule refuses a merge
// before approval (409 naming the rule), allows it after; an edit after the
// approval makes the review outdated and the merge a 409 again; a bypass
// user merges anyway and the event says so.
func TestMergeRulesOneApproval(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newReviewFixture(t, s)
		f.setOrgRules(t,
			map[string]any{"rule": "require_at_least_one_approved_review"},
			map[string]any{"rule": "allow_bypass", "users": []string{f.admin.ID}})
		org := s.Call(t, "getOrganizationById", f.admin.Token, "GET", "/v1/orgs/"+f.org, nil, 200).JSON(t)
		if rules := org["mergeRules"].(map[string]any); rules["type"] != "rules" || len(rules["rules"].([]any)) != 2 {
			t.Fatalf("organization mergeRules: %v", rules)
		}
		sp := s.Call(t, "getSpaceById", f.admin.Token, "GET", "/v1/spaces/"+f.space, nil, 200).JSON(t)
		if sp["mergeRules"].(map[string]any)["type"] != "inherit" {
			t.Fatalf("space mergeRules: %v", sp["mergeRules"])
		}

		cr := f.newCR(t, "Intro")
		f.edit(t, cr, insertPage("# Intro\n", nil))
		m := f.mergeability(t, f.editor, cr)
		if m["mergeable"] != false || len(m["rules"].([]any)) != 2 {
			t.Fatalf("before review: %v", m)
		}
		msg := s.Fail(t, "mergeChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/merge", nil, 409)
		if !strings.Contains(msg, "require_at_least_one_approved_review") || strings.Contains(msg, "allow_bypass") {
			t.Fatalf("merge before approval: %q", msg)
		}

		rv := f.review(t, f.reviewer, cr, "approved")
		if rv["outdated"] != false || rv["status"] != "approved" || rv["reviewer"].(map[string]any)["id"] != f.reviewer.ID {
			t.Fatalf("review: %v", rv)
		}
		if m := f.mergeability(t, f.editor, cr); m["mergeable"] != true || m["bypassed"] != false {
			t.Fatalf("after approval: %v", m)
		}
		// An edit after the approval: the review is outdated, the merge
		// refused again.
		f.edit(t, cr, insertPage("# More\n", nil))
		got := s.Call(t, "getChangeRequestReviewById", f.editor.Token, "GET", f.crPath(cr)+"/reviews/"+rv["id"].(string), nil, 200).JSON(t)
		if got["outdated"] != true {
			t.Fatalf("review after an edit: %v", got)
		}
		msg = s.Fail(t, "mergeChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/merge", nil, 409)
		if !strings.Contains(msg, "require_at_least_one_approved_review") {
			t.Fatalf("merge after the edit: %q", msg)
		}
		// Approved again, it merges; merged by the editor, not bypassed.
		f.review(t, f.reviewer, cr, "approved")
		f.merge(t, cr, 200)
		merged := s.Call(t, "getChangeRequestById", f.editor.Token, "GET", f.crPath(cr), nil, 200).JSON(t)
		if merged["status"] != "merged" || merged["mergedBy"].(map[string]any)["id"] != f.editor.ID || merged["mergedAt"] == nil {
			t.Fatalf("merged: %v", merged)
		}
		if ev := mergeEvent(t, s, cr); ev["bypassed"] != nil {
			t.Fatalf("a merge that passed the rules says bypassed: %v", ev)
		}

		// A bypass user merges without any review; the event says which
		// rules were bypassed.
		cr2 := f.newCR(t, "Unreviewed")
		f.edit(t, cr2, insertPage("# Fast\n", nil))
		if m := f.mergeability(t, f.admin, cr2); m["mergeable"] != true || m["bypassed"] != true {
			t.Fatalf("bypass user's mergeability: %v", m)
		}
		s.Call(t, "mergeChangeRequest", f.admin.Token, "POST", f.crPath(cr2)+"/merge", nil, 200)
		ev := mergeEvent(t, s, cr2)
		if ev["bypassed"] != true || fmt.Sprint(ev["bypassedRules"]) != "[require_at_least_one_approved_review]" {
			t.Fatalf("bypassing merge event: %v", ev)
		}
	})
}

// mergeEvent is the payload of a change request's merge event.
func mergeEvent(t *testing.T, s *testkit.Server, cr string) map[string]any {
	t.Helper()
	ev, err := s.Client().Event.Query().Where(event.Action("change_request.merged"), event.ChangeRequestID(cr)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ev.Payload
}

// Rules are checked when saved: a custom expression with a typo is refused
// with its position, an agent review with a reason, unknown users and
// shapes naming their field; nothing changes.
func TestMergeRulesChecked(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newReviewFixture(t, s)
		space := "/v1/spaces/" + f.space
		set := func(rules any) map[string]any { return map[string]any{"mergeRules": rules} }
		for _, c := range []struct {
			name string
			body map[string]any
			want []string
		}{
			{"typo", set(map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "custom", "expression": `changeRequest.subjct != ""`}}}),
				[]string{"mergeRules.rules[0].expression", "line 1, column"}},
			{"agent", set(map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "require_agent_review"}}}),
				[]string{"mergeRules.rules[0].rule", "agent"}},
			{"unknown kind", set(map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "require_luck"}}}),
				[]string{"mergeRules.rules[0].rule"}},
			{"no users", set(map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "require_specific_reviewers"}}}),
				[]string{"mergeRules.rules[0].users"}},
			{"stranger user", set(map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "allow_bypass", "users": []string{f.stranger.ID}}}}),
				[]string{"mergeRules.rules[0].users[0]", "not a member"}},
			{"unknown type", set(map[string]any{"type": "some"}), []string{"mergeRules.type"}},
			{"null", set(nil), []string{"mergeRules"}},
		} {
			msg := s.Fail(t, "updateSpaceById", f.admin.Token, "PATCH", space, c.body, 400)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s: %q does not name %q", c.name, msg, w)
				}
			}
		}
		// An organization's rules cannot inherit.
		if msg := s.Fail(t, "updateOrganizationById", f.admin.Token, "PATCH", "/v1/orgs/"+f.org, set(map[string]any{"type": "inherit"}), 400); !strings.Contains(msg, "mergeRules.type") {
			t.Errorf("organization inherit: %q", msg)
		}
		if got := s.Call(t, "getSpaceById", f.admin.Token, "GET", space, nil, 200).JSON(t)["mergeRules"].(map[string]any); got["type"] != "inherit" {
			t.Fatalf("refused rules changed the space: %v", got)
		}
		// Only space admins set them; strangers see no space.
		s.Fail(t, "updateSpaceById", f.editor.Token, "PATCH", space, set(map[string]any{"type": "none"}), 403)
		s.Fail(t, "updateSpaceById", f.stranger.Token, "PATCH", space, set(map[string]any{"type": "none"}), 404)

		// A space's own rules override the organization's; a correct custom
		// expression is evaluated with its message.
		f.setOrgRules(t, map[string]any{"rule": "require_at_least_one_review"})
		s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", space, set(map[string]any{"type": "rules", "rules": []any{
			map[string]any{"rule": "custom", "expression": `changeRequest.description != "" && merger != changeRequest.author`, "message": "describe it, and let someone else merge"},
			map[string]any{"rule": "require_change_request_subject"},
		}}), 200)
		cr := f.newCR(t, "Subject")
		rules := f.mergeability(t, f.editor, cr)["rules"].([]any)
		if len(rules) != 2 || rules[0].(map[string]any)["passes"] != false || rules[0].(map[string]any)["message"] != "describe it, and let someone else merge" ||
			rules[1].(map[string]any)["passes"] != true {
			t.Fatalf("space rules: %v", rules)
		}
		s.Call(t, "updateChangeRequestById", f.editor.Token, "PATCH", f.crPath(cr), map[string]any{"description": map[string]any{"markdown": "Why"}}, 200)
		if m := f.mergeability(t, f.admin, cr); m["mergeable"] != true {
			t.Fatalf("described, merged by someone else: %v", m)
		}
		if m := f.mergeability(t, f.editor, cr); m["mergeable"] != false {
			t.Fatalf("merged by the author: %v", m)
		}
	})
}

// The six operations: contract, bad input, wrong role, stranger.
func TestReviewOperations(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newReviewFixture(t, s)
		cr := f.newCR(t, "Review me")
		reqs := f.crPath(cr) + "/requested-reviewers"
		reviews := f.crPath(cr) + "/reviews"

		// Request: the editor asks the reviewer, and sets the subject and
		// description on the way.
		got := s.Call(t, "requestReviewersForChangeRequest", f.editor.Token, "POST", reqs, map[string]any{
			"users": []string{f.reviewer.ID}, "subject": "Please review",
			"description": map[string]any{"object": "document", "nodes": []any{}},
		}, 200).JSON(t)
		if users := got["users"].([]any); len(users) != 1 || users[0].(map[string]any)["user"].(map[string]any)["id"] != f.reviewer.ID {
			t.Fatalf("requested: %v", got)
		}
		if c := s.Call(t, "getChangeRequestById", f.editor.Token, "GET", f.crPath(cr), nil, 200).JSON(t); c["subject"] != "Please review" {
			t.Fatalf("subject not updated: %v", c)
		}
		for _, c := range []struct {
			body map[string]any
			want string
		}{
			{map[string]any{}, "users"},
			{map[string]any{"users": []string{}}, "users"},
			{map[string]any{"users": []string{f.reader.ID}}, "users[0]"},   // read role: cannot review
			{map[string]any{"users": []string{f.editor.ID}}, "users[0]"},   // the author
			{map[string]any{"users": []string{f.stranger.ID}}, "users[0]"}, // not a member
			{map[string]any{"users": []string{f.reviewer.ID}, "subject": strings.Repeat("s", 101)}, "subject"},
		} {
			if msg := s.Fail(t, "requestReviewersForChangeRequest", f.editor.Token, "POST", reqs, c.body, 400); !strings.Contains(msg, c.want) {
				t.Errorf("request %v: %q does not name %s", c.body, msg, c.want)
			}
		}
		s.Fail(t, "requestReviewersForChangeRequest", f.reader.Token, "POST", reqs, map[string]any{"users": []string{f.reviewer.ID}}, 403)
		s.Fail(t, "requestReviewersForChangeRequest", f.stranger.Token, "POST", reqs, map[string]any{"users": []string{f.reviewer.ID}}, 404)

		list := s.Call(t, "getRequestedReviewersByChangeRequestId", f.reader.Token, "GET", reqs, nil, 200).JSON(t)
		if items := list["items"].([]any); len(items) != 1 || items[0].(map[string]any)["requestedBy"].(map[string]any)["id"] != f.editor.ID {
			t.Fatalf("requested reviewers: %v", list)
		}
		s.Fail(t, "getRequestedReviewersByChangeRequestId", f.stranger.Token, "GET", reqs, nil, 404)

		// Submit: the reviewer, with a comment that becomes one of the
		// change request's comments.
		rv := s.Call(t, "submitChangeRequestReview", f.reviewer.Token, "POST", reviews,
			map[string]any{"status": "changes-requested", "comment": map[string]any{"markdown": "Fix the intro"}}, 201)
		review := rv.JSON(t)
		if review["requestedBy"].(map[string]any)["id"] != f.editor.ID || review["comment"].(map[string]any)["body"].(map[string]any)["markdown"] != "Fix the intro" ||
			rv.Header.Get("Location") != review["urls"].(map[string]any)["location"] {
			t.Fatalf("review: %v", review)
		}
		comments := s.Call(t, "listCommentsInChangeRequest", f.reader.Token, "GET", f.crPath(cr)+"/comments", nil, 200).JSON(t)
		if comments["items"].([]any)[0].(map[string]any)["id"] != review["comment"].(map[string]any)["id"] {
			t.Fatalf("the review's comment is not the change request's: %v", comments)
		}
		if msg := s.Fail(t, "submitChangeRequestReview", f.reviewer.Token, "POST", reviews, map[string]any{"status": "maybe"}, 400); !strings.Contains(msg, "status") {
			t.Errorf("bad status: %q", msg)
		}
		if msg := s.Fail(t, "submitChangeRequestReview", f.reviewer.Token, "POST", reviews, map[string]any{}, 400); !strings.Contains(msg, "status") {
			t.Errorf("no status: %q", msg)
		}
		// The author cannot review their own change request; a reader
		// cannot review; a stranger sees nothing.
		s.Fail(t, "submitChangeRequestReview", f.editor.Token, "POST", reviews, map[string]any{"status": "approved"}, 403)
		s.Fail(t, "submitChangeRequestReview", f.reader.Token, "POST", reviews, map[string]any{"status": "approved"}, 403)
		s.Fail(t, "submitChangeRequestReview", f.stranger.Token, "POST", reviews, map[string]any{"status": "approved"}, 404)

		// A second review supersedes the first; asking again would too.
		second := f.review(t, f.reviewer, cr, "approved")
		all := s.Call(t, "getReviewsByChangeRequestId", f.reader.Token, "GET", reviews, nil, 200).JSON(t)["items"].([]any)
		outdated := map[any]any{}
		for _, it := range all {
			outdated[it.(map[string]any)["id"]] = it.(map[string]any)["outdated"]
		}
		if len(all) != 2 || outdated[review["id"]] != true || outdated[second["id"]] != false {
			t.Fatalf("reviews: %v", all)
		}
		current := s.Call(t, "getReviewsByChangeRequestId", f.reader.Token, "GET", reviews+"?outdated=false", nil, 200).JSON(t)["items"].([]any)
		if len(current) != 1 || current[0].(map[string]any)["id"] != second["id"] {
			t.Fatalf("current reviews: %v", current)
		}
		s.Call(t, "requestReviewersForChangeRequest", f.admin.Token, "POST", reqs, map[string]any{"users": []string{f.reviewer.ID}}, 200)
		if got := s.Call(t, "getChangeRequestReviewById", f.reader.Token, "GET", reviews+"/"+second["id"].(string), nil, 200).JSON(t); got["outdated"] != true {
			t.Fatalf("a review after a new request: %v", got)
		}
		s.Fail(t, "getReviewsByChangeRequestId", f.stranger.Token, "GET", reviews, nil, 404)
		s.Fail(t, "getChangeRequestReviewById", f.stranger.Token, "GET", reviews+"/"+second["id"].(string), nil, 404)
		s.Fail(t, "getChangeRequestReviewById", f.reader.Token, "GET", reviews+"/nope", nil, 404)

		// Remove: editors only, 204 whether or not the user was asked.
		s.Fail(t, "removeRequestedReviewerFromChangeRequest", f.reader.Token, "DELETE", reqs+"/"+f.reviewer.ID, nil, 403)
		s.Fail(t, "removeRequestedReviewerFromChangeRequest", f.stranger.Token, "DELETE", reqs+"/"+f.reviewer.ID, nil, 404)
		s.Call(t, "removeRequestedReviewerFromChangeRequest", f.editor.Token, "DELETE", reqs+"/"+f.reviewer.ID, nil, 204)
		s.Call(t, "removeRequestedReviewerFromChangeRequest", f.editor.Token, "DELETE", reqs+"/"+f.reviewer.ID, nil, 204)
		if items := s.Call(t, "getRequestedReviewersByChangeRequestId", f.reader.Token, "GET", reqs, nil, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Fatalf("after removal: %v", items)
		}

		// Each write is an event of the change request.
		for action, want := range map[string]int{
			"change_request.reviewers_requested": 2, "change_request.review_submitted": 2, "change_request.reviewer_removed": 1,
		} {
			n, err := s.Client().Event.Query().Where(event.Action(action), event.ChangeRequestID(cr)).Count(context.Background())
			if err != nil || n != want {
				t.Errorf("%s events: %d (%v), want %d", action, n, err, want)
			}
		}
	})
}

// A change-request list with reviews and rules costs the same statements
// for 2 change requests as for 6.
func TestReviewListStatements(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newReviewFixture(t, s)
		f.setOrgRules(t,
			map[string]any{"rule": "require_specific_reviewers", "users": []string{f.reviewer.ID}},
			map[string]any{"rule": "custom", "expression": `len(changeRequest.requestedReviewers) > 0`})
		list := func() int64 {
			before := s.Statements()
			body := s.Call(t, "listChangeRequestsForSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/change-requests", nil, 200).JSON(t)
			for _, it := range body["items"].([]any) {
				if it.(map[string]any)["mergeability"] == nil {
					t.Fatalf("no mergeability: %v", it)
				}
			}
			return s.Statements() - before
		}
		add := func(n int) {
			for i := 0; i < n; i++ {
				cr := f.newCR(t, fmt.Sprintf("CR %d", i))
				s.Call(t, "requestReviewersForChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/requested-reviewers", map[string]any{"users": []string{f.reviewer.ID}}, 200)
				f.review(t, f.reviewer, cr, "approved")
			}
		}
		add(2)
		few := list()
		add(4)
		if many := list(); many != few {
			t.Fatalf("a list of 6 change requests with reviews costs %d statements, of 2: %d", many, few)
		}
	})
}

// A member who leaves the organization is no longer asked to review.
func TestReviewRequestsEndWithMembership(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newReviewFixture(t, s)
		cr := f.newCR(t, "Asked")
		reqs := f.crPath(cr) + "/requested-reviewers"
		s.Call(t, "requestReviewersForChangeRequest", f.editor.Token, "POST", reqs, map[string]any{"users": []string{f.reviewer.ID}}, 200)
		s.Call(t, "removeMemberFromOrganizationById", f.admin.Token, "DELETE", "/v1/orgs/"+f.org+"/members/"+f.reviewer.ID, nil, 204)
		if items := s.Call(t, "getRequestedReviewersByChangeRequestId", f.editor.Token, "GET", reqs, nil, 200).JSON(t)["items"].([]any); len(items) != 0 {
			t.Fatalf("a former member is still asked: %v", items)
		}
		n, err := s.Client().Event.Query().Where(event.Action("change_request.reviewer_removed"), event.ChangeRequestID(cr)).Count(context.Background())
		if err != nil || n != 1 {
			t.Fatalf("reviewer_removed events: %d (%v)", n, err)
		}
	})
}
