package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
)

// boundaryWorld is an organization with one object of every kind a /v1
// path can name, and a stranger with an organization of their own.
type boundaryWorld struct {
	s                                          *testkit.Server
	admin, stranger                            testkit.User
	org, space, collection, changeRequest      string
	team, invite, translation, field, crNumber string
	comment, commentReply                      string
	site, siteSection, siteGroup, siteSpace    string
	shareLink                                  string
}

func newBoundaryWorld(t *testing.T, s *testkit.Server) boundaryWorld {
	w := boundaryWorld{s: s}
	w.admin, w.org = s.NewUser(t, "admin@acme.com", "Acme")
	w.stranger, _ = s.NewUser(t, "stranger@else.org", "Elsewhere")
	tok, org := w.admin.Token, "/v1/orgs/"+w.org
	w.space = s.Call(t, "createSpace", tok, "POST", org+"/spaces", map[string]any{"title": "Handbook"}, 201).JSON(t)["id"].(string)
	w.collection = s.Call(t, "createCollection", tok, "POST", org+"/collections", map[string]any{"title": "Guides"}, 201).JSON(t)["id"].(string)
	cr := s.Call(t, "createChangeRequest", tok, "POST", "/v1/spaces/"+w.space+"/change-requests", map[string]any{"subject": "Draft"}, 201).JSON(t)
	w.changeRequest = cr["id"].(string)
	w.team = s.Call(t, "createOrganizationTeam", tok, "PUT", org+"/teams", map[string]any{"title": "Writers"}, 201).JSON(t)["id"].(string)
	w.invite = s.Call(t, "createOrganizationInvite", tok, "POST", org+"/link-invites", map[string]any{"role": "read"}, 201).JSON(t)["id"].(string)
	w.translation = s.Call(t, "createTranslation", tok, "POST", org+"/translations", map[string]any{"title": "European"}, 201).JSON(t)["id"].(string)
	w.field = "tier"
	s.Call(t, "createOrganizationCustomField", tok, "POST", org+"/custom-fields", map[string]any{"name": w.field, "type": "text"}, 201)
	comments := "/v1/spaces/" + w.space + "/comments"
	w.comment = s.Call(t, "postCommentInSpace", tok, "POST", comments, map[string]any{"body": map[string]any{"markdown": "Hi"}}, 200).JSON(t)["id"].(string)
	w.commentReply = s.Call(t, "postCommentReplyInSpace", tok, "POST", comments+"/"+w.comment+"/replies", map[string]any{"body": map[string]any{"markdown": "Hello"}}, 200).JSON(t)["id"].(string)
	w.site = s.Call(t, "createSite", tok, "POST", org+"/sites", map[string]any{"title": "Docs", "spaces": []string{w.space}}, 201).JSON(t)["id"].(string)
	sec := s.Call(t, "addSectionToSite", tok, "POST", org+"/sites/"+w.site+"/sections", map[string]any{"spaceId": w.space}, 201).JSON(t)
	w.siteSection = sec["id"].(string)
	w.siteSpace = sec["siteSpaces"].([]any)[0].(map[string]any)["id"].(string)
	w.siteGroup = s.Call(t, "addSectionGroupToSite", tok, "POST", org+"/sites/"+w.site+"/section-groups", map[string]any{"title": "G"}, 201).JSON(t)["id"].(string)
	w.shareLink = s.Call(t, "createSiteShareLink", tok, "POST", org+"/sites/"+w.site+"/share-links", map[string]any{"name": "L"}, 201).JSON(t)["id"].(string)
	return w
}

// errorOf decodes the GitBook error shape of a refusal.
func errorOf(t *testing.T, resp *testkit.Response) (int, string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp.Body, &e); err != nil || e.Error.Code != resp.Status {
		t.Fatalf("status %d without the error shape: %s", resp.Status, resp.Body)
	}
	return e.Error.Code, e.Error.Message
}

// TestNULAndInvalidUTF8AreRefusedAtTheBoundary: text that is not valid
// UTF-8, or holds NUL, never reaches the database (PostgreSQL answered 500
// for it, SQLite stored it): in a body or a query string it is a 400 naming
// the field, in a path an unknown id (404), alike on both databases, and
// nothing changes.
func TestNULAndInvalidUTF8AreRefusedAtTheBoundary(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newBoundaryWorld(t, s)
		sp, org, cr := "/v1/spaces/"+w.space, "/v1/orgs/"+w.org, "/v1/spaces/"+w.space+"/change-requests/"+w.changeRequest
		nul := "a\u0000b"
		edit := func(markdown string) map[string]any {
			return map[string]any{"changes": []any{map[string]any{"operation": "insert_page", "title": "Intro", "document": map[string]any{"markdown": markdown}}}}
		}
		cases := []struct {
			name, method, path string
			body               any
			status             int
			field              string // the message starts with "<field>: "
			problem            string
		}{
			// Bodies: titles, markdown, custom-field values, ...
			{"org title", "POST", "/v1/orgs", map[string]any{"title": nul}, 400, "title", "NUL"},
			{"org update", "PATCH", org, map[string]any{"title": nul}, 400, "title", "NUL"},
			{"space title", "POST", org + "/spaces", map[string]any{"title": nul}, 400, "title", "NUL"},
			{"space update", "PATCH", sp, map[string]any{"title": "ok", "emoji": nul}, 400, "emoji", "NUL"},
			{"collection", "POST", org + "/collections", map[string]any{"title": nul}, 400, "title", "NUL"},
			{"collection update", "PATCH", "/v1/collections/" + w.collection, map[string]any{"description": nul}, 400, "description", "NUL"},
			{"change request subject", "POST", sp + "/change-requests", map[string]any{"subject": nul}, 400, "subject", "NUL"},
			{"change request update", "PATCH", cr, map[string]any{"subject": nul}, 400, "subject", "NUL"},
			{"change request markdown", "POST", cr + "/content", edit("# Hi\n\n" + nul), 400, "changes[0].document.markdown", "NUL"},
			{"live markdown", "POST", sp + "/content", edit(nul), 400, "changes[0].document.markdown", "NUL"},
			{"custom field", "POST", org + "/custom-fields", map[string]any{"name": "other", "type": "text", "title": nul}, 400, "title", "NUL"},
			{"custom field options", "PATCH", org + "/custom-fields/" + w.field, map[string]any{"options": []string{"ok", nul}}, 400, "options[1]", "NUL"},
			{"custom field value", "PATCH", sp + "/custom-fields", map[string]any{"values": map[string]any{w.field: map[string]any{"value": nul}}}, 400, "values.tier.value", "NUL"},
			{"custom field name", "PATCH", sp + "/custom-fields", map[string]any{"values": map[string]any{nul: map[string]any{"value": "x"}}}, 400, "values", "NUL"},
			{"team", "PUT", org + "/teams", map[string]any{"title": nul}, 400, "title", "NUL"},
			{"team update", "PATCH", org + "/teams/" + w.team, map[string]any{"title": nul}, 400, "title", "NUL"},
			{"translation", "PUT", org + "/translations/" + w.translation, map[string]any{"title": nul}, 400, "title", "NUL"},
			{"saml", "POST", org + "/saml", map[string]any{"label": nul}, 400, "label", "NUL"},
			{"invalid UTF-8", "PATCH", sp, "{\"title\":\"caf\xe9\"}", 400, "title", "UTF-8"},
			{"raw NUL", "PATCH", sp, "{\"title\":\"a\x00b\"}", 400, "title", "NUL"},
			{"lone surrogate", "PATCH", sp, `{"title":"\ud800!"}`, 400, "title", "surrogate"},
			{"lone low surrogate", "POST", org + "/collections", `{"title":"\udc00"}`, 400, "title", "surrogate"},
			// Query strings: search, list filters, paging.
			{"space search", "GET", sp + "/search?query=a%00b", nil, 400, "query", "NUL"},
			{"org search", "GET", org + "/search?query=caf%E9", nil, 400, "query", "UTF-8"},
			{"status filter", "GET", sp + "/change-requests?status=%00", nil, 400, "status", "NUL"},
			{"contributor filter", "GET", sp + "/change-requests?contributor=%FF", nil, 400, "contributor", "UTF-8"},
			{"page cursor", "GET", org + "/spaces?page=%00", nil, 400, "page", "NUL"},
			{"share key", "GET", sp + "?shareKey=%00", nil, 400, "shareKey", "NUL"},
			{"pdf page", "GET", cr + "/pdf?page=%00", nil, 400, "page", "NUL"},
			// Path segments: like any unknown id.
			{"space id", "GET", "/v1/spaces/a%00b", nil, 404, "", ""},
			{"space id UTF-8", "GET", "/v1/spaces/%FF", nil, 404, "", ""},
			{"org id", "GET", "/v1/orgs/%00", nil, 404, "", ""},
			{"org id update", "PATCH", "/v1/orgs/%00", map[string]any{"title": "x"}, 404, "", ""},
			{"collection id", "PATCH", "/v1/collections/%C0%80", map[string]any{"title": "x"}, 404, "", ""},
			{"change request id", "GET", sp + "/change-requests/%00", nil, 404, "", ""},
			{"page id", "GET", sp + "/content/page/%00", nil, 404, "", ""},
			{"member id", "PATCH", org + "/members/%00", map[string]any{"role": "read"}, 404, "", ""},
			{"custom field name", "DELETE", org + "/custom-fields/%00", nil, 404, "", ""},
			{"email domain", "GET", "/v1/email-domains/%00/orgs", nil, 404, "", ""},
			{"file download", "GET", "/files/%00/x", nil, 404, "", ""},
		}
		before := s.Snapshot(t)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				resp := s.Request(t, w.admin.Token, c.method, c.path, c.body)
				if resp.Status != c.status {
					t.Fatalf("%s %s: status %d, want %d\n%s", c.method, c.path, resp.Status, c.status, resp.Body)
				}
				_, msg := errorOf(t, resp)
				if c.field != "" && (!strings.HasPrefix(msg, c.field+": ") || !strings.Contains(msg, c.problem)) {
					t.Fatalf("%s %s: message %q should name %s and say %s", c.method, c.path, msg, c.field, c.problem)
				}
			})
		}
		s.Unchanged(t, before)
	})
}

// TestStrangersMeetNotFoundBeforeBadBodies walks every /v1 operation that
// takes a body, with the ids of another organization's real objects and a
// malformed (then an invalid) body: a stranger must get the same 404 as
// for any object they cannot see, never a 400 that tells the object exists
// and looked at their body. Operations any authenticated user may call
// (create an organization) have nothing to hide and still validate.
func TestStrangersMeetNotFoundBeforeBadBodies(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newBoundaryWorld(t, s)
		// Creating an organization has no target to hide, nor has
		// resolving a published URL (a read anyone may make). Joining
		// through an invite link takes no body and is open to anyone with
		// the link: walking it would make the stranger a member.
		open := map[string]bool{"POST /orgs": true, "POST /urls/published": true}
		skip := "POST /orgs/{organizationId}/invites/{inviteId}"
		before := s.Snapshot(t)
		walked := writeRoutes(t, w.ids(), func(method, route, path string) {
			if method+" "+route == skip {
				return
			}
			want := http.StatusNotFound
			if open[method+" "+route] {
				want = http.StatusBadRequest
			}
			for _, body := range []string{`{"title": `, `{"title":"a\u0000b","subject":"\ud800"}`, `[1]`} {
				resp := s.Request(t, w.stranger.Token, method, path, body)
				if resp.Status != want {
					t.Errorf("%s %s with %s: status %d, want %d\n%s", method, route, body, resp.Status, want, resp.Body)
					continue
				}
				errorOf(t, resp)
			}
		})
		if walked < 30 {
			t.Fatalf("walked only %d operations", walked)
		}
		// Query strings too: a stranger's bad paging is a 404.
		for _, path := range []string{"/v1/spaces/" + w.space + "/change-requests?limit=x", "/v1/orgs/" + w.org + "/spaces?limit=0", "/v1/spaces/" + w.space + "/search?query=%00"} {
			if resp := s.Request(t, w.stranger.Token, "GET", path, nil); resp.Status != http.StatusNotFound {
				t.Errorf("GET %s: status %d, want 404\n%s", path, resp.Status, resp.Body)
			}
		}
		s.Unchanged(t, before)
	})
}

// TestMembersWhoCannotSeeASpaceMeetNotFound: within the organization too,
// a malformed body or query on a space the caller cannot see is a 404,
// while one they can see (through their role or the share key of a
// share-link space) still explains what is wrong.
func TestMembersWhoCannotSeeASpaceMeetNotFound(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newBoundaryWorld(t, s)
		reader, _ := s.NewUser(t, "reader@acme.com", "")
		s.AddMember(t, w.org, reader, testkit.RoleOf(access.Read))
		sp := "/v1/spaces/" + w.space
		if resp := s.Request(t, reader.Token, "PATCH", sp, `{"title": `); resp.Status != http.StatusForbidden && resp.Status != http.StatusBadRequest {
			t.Fatalf("a reader who sees the space: %d %s", resp.Status, resp.Body)
		}
		if resp := s.Request(t, reader.Token, "GET", sp+"/change-requests?limit=x", nil); resp.Status != http.StatusBadRequest {
			t.Fatalf("a reader's bad limit: %d %s", resp.Status, resp.Body)
		}
		s.Call(t, "updateSpaceById", w.admin.Token, "PATCH", sp, map[string]any{"defaultLevel": nil, "visibility": "share-link"}, 200)
		shareKey := s.Open(t, secrets.SpaceShareKey, s.Client().Space.GetX(context.Background(), w.space).ShareKeySealed)
		for _, c := range []struct{ method, path, body string }{
			{"PATCH", sp, `{"title": `},
			{"POST", sp + "/change-requests", `{"subject": "\u0000"}`},
			{"GET", sp + "/change-requests?limit=x", ""},
			{"GET", sp + "?shareKey=nope&x=%00", ""},
		} {
			var body any
			if c.body != "" {
				body = c.body
			}
			if resp := s.Request(t, reader.Token, c.method, c.path, body); resp.Status != http.StatusNotFound {
				t.Errorf("%s %s: status %d, want 404\n%s", c.method, c.path, resp.Status, resp.Body)
			}
		}
		// The share key lets a stranger read the space: their bad query is
		// theirs to hear about.
		resp := s.Request(t, w.stranger.Token, "GET", sp+"?shareKey="+shareKey+"&x=%00", nil)
		if _, msg := errorOf(t, resp); resp.Status != http.StatusBadRequest || !strings.HasPrefix(msg, "x: ") {
			t.Fatalf("share-key reader: %d %s", resp.Status, resp.Body)
		}
	})
}
