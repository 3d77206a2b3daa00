package rest_test

import (
	"net/http"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// A change request's subscribers receive its reviews and review requests,
// and the changes of the merge rules that apply to it (the space's and
// the organization's), each with the change request's mergeability now.
func TestReviewSubscriptions(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastStreams)
			f := reviewFixture{contentFixture: newContentFixture(t, s.Server)}
			f.reviewer, _ = s.NewUser(t, "reviewer@acme.com", "")
			s.AddMember(t, f.org, f.reviewer, testkit.RoleOf(access.Review))
			cr := f.newCR(t, "Watched")
			ws, _, err := dialWS(t, s.Server, http.Header{"Authorization": {"Bearer " + f.reader.Token}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ws.subscribe("1", `subscription($space: ID!, $cr: ID) { changeRequestUpdated(spaceId: $space, changeRequestId: $cr) { action changeRequest { id mergeability { mergeable } } } }`,
				map[string]any{"space": f.space, "cr": cr})
			waitSubscribers(t, s, 1)
			next := func(wantAction string, wantMergeable bool) {
				t.Helper()
				m := ws.next(t)
				got, _ := m.Payload.Data["changeRequestUpdated"].(map[string]any)
				if got == nil || got["action"] != wantAction ||
					got["changeRequest"].(map[string]any)["mergeability"].(map[string]any)["mergeable"] != wantMergeable {
					t.Fatalf("want %s (mergeable %v): %+v", wantAction, wantMergeable, m)
				}
			}
			s.Call(t, "requestReviewersForChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/requested-reviewers", map[string]any{"users": []string{f.reviewer.ID}}, 200)
			next("change_request.reviewers_requested", true)
			f.setOrgRules(t, map[string]any{"rule": "require_at_least_one_approved_review"})
			next("organization.updated", false)
			f.review(t, f.reviewer, cr, "approved")
			next("change_request.review_submitted", true)
			s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space,
				map[string]any{"mergeRules": map[string]any{"type": "rules", "rules": []any{map[string]any{"rule": "require_change_request_description"}}}}, 200)
			next("space.updated", false)
			// Other changes of the space are not the change request's.
			s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"title": "Renamed"}, 200)
			s.Call(t, "removeRequestedReviewerFromChangeRequest", f.editor.Token, "DELETE", f.crPath(cr)+"/requested-reviewers/"+f.reviewer.ID, nil, 204)
			next("change_request.reviewer_removed", false)
		})
	}
}
