package rest_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/testkit"
)

// writeEvents are the events one request recorded: those carrying its
// X-Request-Id as correlation id, in the order they were recorded.
func writeEvents(t *testing.T, s *testkit.Server, resp *testkit.Response) []*ent.Event {
	t.Helper()
	id := resp.Header.Get("X-Request-Id")
	if id == "" {
		t.Fatal("response without X-Request-Id")
	}
	evs, err := s.Client().Event.Query().Where(event.CorrelationID(id)).Order(ent.Asc(event.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// eventCheck is what one event of a write must say.
type eventCheck struct {
	action, targetType, targetID string
	spaceID, crID                string
	payload                      map[string]any // keys that must be there, with these values (nil value: present)
}

// expectEvents checks that resp's request recorded exactly want, made by
// u through the API with u's token.
func expectEvents(t *testing.T, s *testkit.Server, resp *testkit.Response, u testkit.User, want ...eventCheck) {
	t.Helper()
	evs := writeEvents(t, s, resp)
	if len(evs) != len(want) {
		var got []string
		for _, e := range evs {
			got = append(got, e.Action)
		}
		t.Fatalf("%s recorded %v, want %d events", resp.Header.Get("X-Request-Id"), got, len(want))
	}
	tokenID := s.Client().APIToken.Query().Where(apitoken.Hash(auth.HashToken(u.Token))).OnlyX(context.Background()).ID
	for i, w := range want {
		e := evs[i]
		if e.Action != w.action || e.TargetType != w.targetType || (w.targetID != "" && e.TargetID != w.targetID) {
			t.Fatalf("event %d: %s on %s %s, want %s on %s %s", i, e.Action, e.TargetType, e.TargetID, w.action, w.targetType, w.targetID)
		}
		if e.SpaceID != w.spaceID || e.ChangeRequestID != w.crID {
			t.Fatalf("%s: space %q change request %q, want %q %q", e.Action, e.SpaceID, e.ChangeRequestID, w.spaceID, w.crID)
		}
		if e.Source != "api" || e.ActorType != "user" || e.ActorID != u.ID {
			t.Fatalf("%s: source %s actor %s %s, want api user %s", e.Action, e.Source, e.ActorType, e.ActorID, u.ID)
		}
		if e.Payload["tokenId"] != tokenID {
			t.Fatalf("%s: tokenId %v, want %s", e.Action, e.Payload["tokenId"], tokenID)
		}
		for k, v := range w.payload {
			got, ok := e.Payload[k]
			if !ok || (v != nil && !reflect.DeepEqual(got, v)) {
				t.Fatalf("%s: payload %s = %#v, want %#v (payload %v)", e.Action, k, got, v, e.Payload)
			}
		}
		for k := range e.Payload {
			if k == "markdown" || k == "body" || strings.Contains(strings.ToLower(k), "secret") {
				t.Fatalf("%s: payload carries %s", e.Action, k)
			}
		}
	}
}

// graphQL posts a GraphQL operation that must succeed, returning the
// response (for its request id).
func graphQL(t *testing.T, s *testkit.Server, token, query string, vars map[string]any) *testkit.Response {
	t.Helper()
	resp := s.Request(t, token, http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars})
	var out struct {
		Errors []testkit.GraphQLError `json:"errors"`
	}
	resp.Decode(t, &out)
	if resp.Status != 200 || len(out.Errors) > 0 {
		t.Fatalf("graphql %d: %s", resp.Status, resp.Body)
	}
	return resp
}

// TestEventsOfWritesA: spaces, collections, change requests, content and
// comments record exactly their events, through REST and GraphQL, and a
// write that fails records none.
func TestEventsOfWritesA(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.Start(t, kind)
			f := newContentFixture(t, s)
			admin, editor := f.admin, f.editor
			ev := func(action, typ, id, space, cr string, payload map[string]any) eventCheck {
				return eventCheck{action: action, targetType: typ, targetID: id, spaceID: space, crID: cr, payload: payload}
			}

			// Spaces, through REST.
			resp := s.Call(t, "createSpace", admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"title": "Guide"}, 201)
			sp := resp.JSON(t)["id"].(string)
			expectEvents(t, s, resp, admin, ev("space.created", "space", sp, sp, "", map[string]any{"title": "Guide"}))
			resp = s.Call(t, "updateSpaceById", admin.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"title": "Guide 2", "emoji": "📘"}, 200)
			expectEvents(t, s, resp, admin, ev("space.updated", "space", sp, sp, "", map[string]any{"fields": []any{"title", "emoji"}}))
			resp = s.Call(t, "deleteSpaceById", admin.Token, "DELETE", "/v1/spaces/"+sp, nil, 205)
			expectEvents(t, s, resp, admin, ev("space.deleted", "space", sp, sp, "", nil))
			resp = s.Call(t, "restoreSpace", admin.Token, "POST", "/v1/spaces/"+sp+"/restore", nil, 200)
			expectEvents(t, s, resp, admin, ev("space.restored", "space", sp, sp, "", nil))

			// Direct edits of a live space's content, and a PDF of it.
			resp = s.Call(t, "updateSpaceById", admin.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"editMode": "live"}, 200)
			expectEvents(t, s, resp, admin, ev("space.updated", "space", sp, sp, "", map[string]any{"fields": []any{"editMode"}}))
			// (Folio's own operation: no reference document to check it against.)
			resp = s.Request(t, admin.Token, "POST", "/v1/spaces/"+sp+"/content",
				map[string]any{"changes": []any{insertPage("# Live\n\nEdited in place.\n", nil)}})
			if resp.Status != 200 {
				t.Fatalf("updateSpaceContent: %d %s", resp.Status, resp.Body)
			}
			expectEvents(t, s, resp, admin, ev("space.content_updated", "space", sp, sp, "", map[string]any{"revisionId": nil, "changes": float64(1)}))
			if got := writeEvents(t, s, resp)[0].Payload["revisionId"]; got != s.Call(t, "getCurrentRevision", admin.Token, "GET", "/v1/spaces/"+sp+"/content", nil, 200).JSON(t)["id"] {
				t.Fatalf("space.content_updated revisionId %v is not the space's revision", got)
			}
			resp = s.Call(t, "getSpacePDF", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/pdf", nil, 200)
			expectEvents(t, s, resp, f.reader, ev("pdf.exported", "space", f.space, f.space, "", map[string]any{"downloadId": nil, "only": false}))

			// Collections, through REST and GraphQL.
			resp = s.Call(t, "createCollection", admin.Token, "POST", "/v1/orgs/"+f.org+"/collections", map[string]any{"title": "Team"}, 201)
			coll := resp.JSON(t)["id"].(string)
			expectEvents(t, s, resp, admin, ev("collection.created", "collection", coll, "", "", map[string]any{"title": "Team"}))
			resp = graphQL(t, s, admin.Token, `mutation($id: ID!) { updateCollection(id: $id, input: {title: "Teams"}) { id } }`, map[string]any{"id": coll})
			expectEvents(t, s, resp, admin, ev("collection.updated", "collection", coll, "", "", map[string]any{"fields": []any{"title"}}))
			resp = graphQL(t, s, admin.Token, `mutation($id: ID!) { updateSpace(id: $id, input: {defaultLevel: null}) { id } }`, map[string]any{"id": sp})
			expectEvents(t, s, resp, admin, ev("space.updated", "space", sp, sp, "", map[string]any{"fields": []any{"defaultLevel"}}))

			// A change request: created, its content edited, merged.
			resp = s.Call(t, "createChangeRequest", editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": "Start"}, 201)
			cr := resp.JSON(t)["id"].(string)
			expectEvents(t, s, resp, editor, ev("change_request.created", "change-request", cr, f.space, cr, map[string]any{"subject": "Start"}))
			resp = s.Call(t, "updateChangeRequestContent", editor.Token, "POST", f.crPath(cr)+"/content",
				map[string]any{"changes": []any{insertPage("# Start\n\nLine one.\nLine two.\n", nil)}}, 200)
			expectEvents(t, s, resp, editor, ev("change_request.content_updated", "change-request", cr, f.space, cr, map[string]any{"revisionId": nil, "changes": float64(1)}))
			resp = s.Call(t, "mergeChangeRequest", editor.Token, "POST", f.crPath(cr)+"/merge", nil, 200)
			rev := resp.JSON(t)["revision"]
			expectEvents(t, s, resp, editor, ev("change_request.merged", "change-request", cr, f.space, cr, map[string]any{"revisionId": rev}))
			start := f.tree(t, "/v1/spaces/"+f.space+"/content/pages")[0]

			// Comments in a change request carry both ids.
			c := f.newCR(t, "Review")
			crp := f.crPath(c)
			resp = s.Call(t, "postCommentInChangeRequest", editor.Token, "POST", crp+"/comments", map[string]any{"body": md("Reword this."), "page": start.ID}, 200)
			cm := resp.JSON(t)["id"].(string)
			expectEvents(t, s, resp, editor, ev("comment.posted", "comment", cm, f.space, c, map[string]any{"commentId": cm, "pageId": start.ID}))
			resp = s.Call(t, "updateCommentInChangeRequest", editor.Token, "PUT", crp+"/comments/"+cm, map[string]any{"resolved": true, "addedReactions": []string{"👍"}}, 200)
			expectEvents(t, s, resp, editor,
				ev("comment.resolved", "comment", cm, f.space, c, map[string]any{"commentId": cm}),
				ev("comment.reactions_changed", "comment", cm, f.space, c, map[string]any{"added": []any{"👍"}, "removed": []any{}}))
			resp = s.Call(t, "postCommentReplyInChangeRequest", editor.Token, "POST", crp+"/comments/"+cm+"/replies", map[string]any{"body": md("Done.")}, 200)
			rp := resp.JSON(t)["id"].(string)
			expectEvents(t, s, resp, editor, ev("comment_reply.posted", "comment-reply", rp, f.space, c, map[string]any{"commentId": cm, "replyId": rp}))
			resp = s.Call(t, "deleteCommentInChangeRequest", editor.Token, "DELETE", crp+"/comments/"+cm, nil, 205)
			expectEvents(t, s, resp, editor, ev("comment.deleted", "comment", cm, f.space, c, map[string]any{"replies": float64(1)}))

			// A status change through GraphQL (closing it).
			resp = graphQL(t, s, editor.Token, `mutation($s: ID!, $id: String!) { updateChangeRequest(spaceId: $s, id: $id, input: {status: archived}) { id } }`,
				map[string]any{"s": f.space, "id": c})
			expectEvents(t, s, resp, editor, ev("change_request.updated", "change-request", c, f.space, c, map[string]any{"status": "archived", "fields": []any{"status"}}))

			// Failing writes record nothing: a merge conflict (409), bad
			// input (400), a refused one (403).
			body := "# Start\n\nLine one.\nLine two.\n"
			a, b, x := f.newCR(t, "Take one"), f.newCR(t, "Take two"), f.newCR(t, "Behind")
			f.edit(t, a, map[string]any{"operation": "update_page", "page": start.ID, "document": map[string]any{"markdown": strings.Replace(body, "Line two.", "Line 2 (a).", 1)}})
			f.edit(t, b, map[string]any{"operation": "update_page", "page": start.ID, "document": map[string]any{"markdown": strings.Replace(body, "Line two.", "Line 2 (b).", 1)}})
			f.merge(t, a, 200)
			// A change request behind the space catches up: its content moves.
			resp = s.Call(t, "updateChangeRequest", editor.Token, "POST", f.crPath(x)+"/update", nil, 200)
			expectEvents(t, s, resp, editor, ev("change_request.updated_from_main", "change-request", x, f.space, x, map[string]any{"revisionId": resp.JSON(t)["revision"]}))
			total := s.Client().Event.Query().CountX(context.Background())
			for _, r := range []*testkit.Response{
				s.Request(t, editor.Token, "POST", f.crPath(b)+"/merge", nil),
				s.Request(t, editor.Token, "POST", f.crPath(b)+"/update", nil),
				s.Request(t, admin.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"title": nil}),
				s.Request(t, admin.Token, "POST", "/v1/orgs/"+f.org+"/spaces", map[string]any{"title": strings.Repeat("x", 500)}),
				s.Request(t, f.reader.Token, "PATCH", "/v1/spaces/"+sp, map[string]any{"title": "Mine"}),
				s.Request(t, editor.Token, "POST", f.crPath(b)+"/content", map[string]any{"changes": []any{}}),
			} {
				if r.Status < 400 {
					t.Fatalf("a failing write answered %d: %s", r.Status, r.Body)
				}
				if evs := writeEvents(t, s, r); len(evs) != 0 {
					t.Fatalf("a failing write (%d) recorded %s", r.Status, evs[0].Action)
				}
			}
			if n := s.Client().Event.Query().CountX(context.Background()); n != total {
				t.Fatalf("failing writes recorded %d events", n-total)
			}
		})
	}
}

// TestEventsOfOpenAPISpecs: a spec created through the API records its
// creation as the caller; its processing, a background job, records as the
// system through a workflow, correlated by the job.
func TestEventsOfOpenAPISpecs(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, nil)
			admin, org := s.NewUser(t, "admin@acme.com", "Acme")
			base := "/v1/orgs/" + org + "/openapi"
			text := "openapi: 3.1.0\ninfo:\n  title: Pets\n  version: 1.0.0\npaths: {}\n"
			resp := s.Call(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": "pets", "source": map[string]any{"text": text}}, 201)
			id := resp.JSON(t)["id"].(string)
			expectEvents(t, s.Server, resp, admin, eventCheck{action: "openapi_spec.created", targetType: "openapi-spec", targetID: id, payload: map[string]any{"slug": "pets"}})
			spec := waitProcessed(t, s, admin.Token, base+"/pets")
			evs := s.Client().Event.Query().Where(event.TargetID(id), event.ActionNEQ("openapi_spec.created")).Order(ent.Asc(event.FieldID)).AllX(context.Background())
			var actions []string
			for _, e := range evs {
				actions = append(actions, e.Action)
				if e.Source != "workflow" || e.ActorType != "system" || e.CorrelationID == "" || e.Payload["tokenId"] != nil || e.OrganizationID != org {
					t.Fatalf("%s: source %s actor %s correlation %q payload %v org %s", e.Action, e.Source, e.ActorType, e.CorrelationID, e.Payload, e.OrganizationID)
				}
			}
			if !reflect.DeepEqual(actions, []string{"openapi_spec.processing_started", "openapi_spec.version_processed"}) {
				t.Fatalf("processing recorded %v", actions)
			}
			if evs[1].Payload["versionId"] != spec["lastVersion"] {
				t.Fatalf("version_processed payload %v, spec %v", evs[1].Payload, spec["lastVersion"])
			}
			resp = s.Call(t, "deleteOpenAPISpecBySlug", admin.Token, "DELETE", base+"/pets", nil, 205)
			expectEvents(t, s.Server, resp, admin, eventCheck{action: "openapi_spec.deleted", targetType: "openapi-spec", targetID: id, payload: map[string]any{"slug": "pets"}})
		})
	}
}
