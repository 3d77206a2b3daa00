package rest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// framing is one way a client sends a body.
type framing struct {
	name    string
	body    string
	chunked bool
}

// noBodies are the ways of sending no body: without one, with
// Content-Length, chunked (what Go's client sends when it does not know the
// length), and whitespace only.
var noBodies = []framing{
	{name: "absent"},
	{name: "whitespace", body: " \r\n\t "},
	{name: "chunked empty", chunked: true},
	{name: "chunked whitespace", body: "\n", chunked: true},
}

// sendFramed sends body as f frames it and checks the answer against the
// reference like testkit's Call.
func sendFramed(t *testing.T, s *testkit.Server, operationID, token, method, path string, f framing, wantStatus int) *testkit.Response {
	t.Helper()
	var body io.Reader
	if f.body != "" || f.chunked {
		body = strings.NewReader(f.body)
	}
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if f.chunked {
		// An unknown length: the client sends Transfer-Encoding: chunked.
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(f.body)), -1
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := &testkit.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	if out.Status != wantStatus {
		t.Fatalf("%s %s (%s body): status %d, want %d\n%s", method, path, f.name, out.Status, wantStatus, raw)
	}
	testkit.CheckContract(t, operationID, method, path, out)
	return out
}

// TestOptionalBodies: an operation whose body may be left out takes no body,
// however it is framed, as an empty object; a body that is there must be a
// JSON object.
func TestOptionalBodies(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		team := s.Call(t, "createOrganizationTeam", f.admin.Token, "PUT", "/v1/orgs/"+f.org+"/teams", map[string]any{"title": "Writers"}, 201).JSON(t)["id"].(string)

		for _, fr := range noBodies {
			t.Run("createChangeRequest/"+fr.name, func(t *testing.T) {
				cr := sendFramed(t, s, "createChangeRequest", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", fr, 201).JSON(t)
				got := s.Call(t, "getChangeRequestById", f.editor.Token, "GET", f.crPath(cr["id"].(string)), nil, 200).JSON(t)
				if got["status"] != "open" || got["space"] != f.space || got["subject"] != "" {
					t.Fatalf("created change request: %v", got)
				}
			})
			t.Run("createSpace/"+fr.name, func(t *testing.T) {
				sp := sendFramed(t, s, "createSpace", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces", fr, 201).JSON(t)
				got := s.Call(t, "getSpaceById", f.admin.Token, "GET", "/v1/spaces/"+sp["id"].(string), nil, 200).JSON(t)
				if got["organization"] != f.org || got["parent"] != nil {
					t.Fatalf("created space: %v", got)
				}
			})
			t.Run("createCollection/"+fr.name, func(t *testing.T) {
				c := sendFramed(t, s, "createCollection", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", fr, 201).JSON(t)
				got := s.Call(t, "getCollectionById", f.admin.Token, "GET", "/v1/collections/"+c["id"].(string), nil, 200).JSON(t)
				if got["organization"] != f.org {
					t.Fatalf("created collection: %v", got)
				}
			})
			t.Run("addMemberToOrganizationTeamById/"+fr.name, func(t *testing.T) {
				path := "/v1/orgs/" + f.org + "/teams/" + team + "/members/" + f.reader.ID
				sendFramed(t, s, "addMemberToOrganizationTeamById", f.admin.Token, "PUT", path, fr, 204)
				if role := s.TeamRoles(t, team)[f.reader.ID]; role != "member" {
					t.Fatalf("reader's role in the team: %q, want member", role)
				}
				s.Call(t, "deleteMemberFromOrganizationTeamById", f.admin.Token, "DELETE", path, nil, 204)
			})
			t.Run("createOrganization/"+fr.name, func(t *testing.T) {
				// The body may be left out, but the title it holds may not.
				before := s.Snapshot(t)
				msg := sendFramed(t, s, "createOrganization", f.admin.Token, "POST", "/v1/orgs", fr, 400).Body
				if !strings.Contains(string(msg), "title") {
					t.Fatalf("the refusal does not name title: %s", msg)
				}
				s.Unchanged(t, before)
			})
		}

		// A body that is there is read as one: it must be a JSON object.
		before := s.Snapshot(t)
		for _, fr := range []framing{{name: "array", body: "[]"}, {name: "chunked null", body: "null", chunked: true}, {name: "chunked truncated", body: `{"subject": `, chunked: true}} {
			sendFramed(t, s, "createChangeRequest", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", fr, 400)
			sendFramed(t, s, "createSpace", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces", fr, 400)
			sendFramed(t, s, "createCollection", f.admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", fr, 400)
			sendFramed(t, s, "addMemberToOrganizationTeamById", f.admin.Token, "PUT", "/v1/orgs/"+f.org+"/teams/"+team+"/members/"+f.reader.ID, fr, 400)
		}
		s.Unchanged(t, before)

		// A chunked body with content is read like any other.
		cr := sendFramed(t, s, "createChangeRequest", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests",
			framing{name: "chunked object", body: `{"subject": "Chunked"}`, chunked: true}, 201).JSON(t)
		if cr["subject"] != "Chunked" {
			t.Fatalf("subject of a chunked body: %v", cr["subject"])
		}
	})
}
