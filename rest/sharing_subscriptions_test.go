package rest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/testkit"
)

// recordGrantEvent records a grant event as the grant operations do (they
// are another area's): the row, in the events table, that the hub hears.
func recordGrantEvent(t *testing.T, s *testkit.Server, action string, g *ent.Grant) {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	e := s.Client().Event.Create().SetID(id.String()).SetOccurredAt(time.Now()).SetOrganizationID(g.OrganizationID).
		SetAction(action).SetSource(events.SourceAPI).SetActorType(events.ActorUser).SetActorID("test").
		SetTargetType(string(g.ObjectKind)).SetTargetID(g.ObjectID).
		SetPayload(map[string]any{"objectKind": string(g.ObjectKind), "objectId": g.ObjectID,
			"principalKind": string(g.PrincipalKind), "principalId": g.PrincipalID, "role": string(g.Role)})
	if g.ObjectKind == grant.ObjectKindSpace {
		e.SetSpaceID(g.ObjectID)
	}
	e.ExecX(testkit.Fixture(context.Background()))
}

// TestSubscriptionEndsWhenAGrantGoes: a guest's space streams hear the
// grant events of the organization; one that leaves them their access
// sends nothing, and the stream goes on; removing a guest's grant, or the
// guest from the team a grant is to, ends their stream with NOT_FOUND at
// once, over the WebSocket transport, on both databases.
func TestSubscriptionEndsWhenAGrantGoes(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastStreams)
			f := newSharingFixture(t, s.Server)
			query := `subscription($space: ID!) { changeRequestUpdated(spaceId: $space) { eventId action changeRequest { id subject } } }`
			dial := func(tok string) *wsClient {
				ws, _, err := dialWS(t, s.Server, http.Header{"Authorization": {"Bearer " + tok}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				ws.subscribe("1", query, map[string]any{"space": f.space})
				return ws
			}
			// guestA: a grant on the space; guestB: their team's grant on
			// the collection above it.
			a, b := dial(f.guestA.Token), dial(f.guestB.Token)
			waitSubscribers(t, s, 2)

			// A grant that changes nothing for them: nothing is sent, the
			// streams go on.
			g := f.grant(t, grant.ObjectKindSpace, f.space, grant.PrincipalKindUser, f.guestC.ID, "read")
			recordGrantEvent(t, s.Server, events.GrantCreated, g)
			s.Call(t, "createChangeRequest", f.admin.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": "Seen"}, 201)
			for name, ws := range map[string]*wsClient{"guestA": a, "guestB": b} {
				if m := ws.next(t); m.Type != "next" || m.Payload.Data["changeRequestUpdated"].(map[string]any)["action"] != "change_request.created" {
					t.Fatalf("%s: %+v", name, m)
				}
			}

			// guestA's grant is removed: their stream ends now.
			ga := f.s.Client().Grant.Query().Where(grant.ObjectID(f.space), grant.PrincipalID(f.guestA.ID)).OnlyX(context.Background())
			f.s.Client().Grant.DeleteOne(ga).ExecX(testkit.Fixture(context.Background()))
			recordGrantEvent(t, s.Server, events.GrantRemoved, ga)
			ended := func(name string, ws *wsClient) {
				t.Helper()
				m := ws.next(t)
				if m.Type != "next" || m.Payload.Data != nil || len(m.Payload.Errors) != 1 || m.Payload.Errors[0].Extensions["code"] != "NOT_FOUND" {
					t.Fatalf("%s after losing access: %+v", name, m)
				}
				if m := ws.next(t); m.Type != "complete" {
					t.Fatalf("%s after the error: %+v", name, m)
				}
			}
			ended("guestA", a)
			waitSubscribers(t, s, 1)

			// guestB leaves the team: their stream ends too.
			s.Call(t, "deleteMemberFromOrganizationTeamById", f.admin.Token, "DELETE", "/v1/orgs/"+f.org+"/teams/"+f.team+"/members/"+f.guestB.ID, nil, 204)
			ended("guestB", b)
			waitSubscribers(t, s, 0)
		})
	}
}
