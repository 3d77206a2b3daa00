package rest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// revokeWorld: an organization administered by owner, a guest in a team,
// and a space at the organization's root.
type revokeWorld struct {
	owner, guest testkit.User
	org, team    string
	space        string
}

func newRevokeWorld(t *testing.T, s *testkit.Server) revokeWorld {
	t.Helper()
	var w revokeWorld
	w.owner, w.org = s.NewUser(t, "owner@share.test", "Share")
	w.guest, _ = s.NewUser(t, "guest@share.test", "")
	s.AddMember(t, w.org, w.guest, nil)
	ctx := testkit.Fixture(context.Background())
	team, err := s.Client().Team.Create().SetOrganizationID(w.org).SetTitle("Writers").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.team = team.ID
	if err := s.Client().TeamMember.Create().SetTeamID(w.team).SetUserID(w.guest.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	w.space = s.Call(t, "createSpace", w.owner.Token, "POST", "/v1/orgs/"+w.org+"/spaces", map[string]any{"title": "Guide"}, 201).JSON(t)["id"].(string)
	return w
}

// give stores a grant directly: the grant operations are not what these
// tests are about.
func (w revokeWorld) give(t *testing.T, s *testkit.Server, kind grant.ObjectKind, object string, pk grant.PrincipalKind, principal string, role access.Role) string {
	t.Helper()
	g, err := s.Client().Grant.Create().SetOrganizationID(w.org).SetObjectKind(kind).SetObjectID(object).
		SetPrincipalKind(pk).SetPrincipalID(principal).SetRole(role).Save(testkit.Fixture(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	return g.ID
}

// Access given by a grant ends with the grant, the team membership or the
// organization membership behind it, on the very next request: nothing
// read for an earlier request outlives the change.
func TestSharingRevokedOnNextRequest(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newRevokeWorld(t, s)
		read := func(want int) {
			t.Helper()
			s.Call(t, "getSpaceById", w.guest.Token, "GET", "/v1/spaces/"+w.space, nil, want)
		}
		read(404)

		// A team grant, then the guest leaves the team (removed by an admin).
		w.give(t, s, grant.ObjectKindSpace, w.space, grant.PrincipalKindTeam, w.team, access.Read)
		read(200)
		s.Call(t, "deleteMemberFromOrganizationTeamById", w.owner.Token, "DELETE",
			"/v1/orgs/"+w.org+"/teams/"+w.team+"/members/"+w.guest.ID, nil, 204)
		read(404)

		// A grant to the guest, removed.
		id := w.give(t, s, grant.ObjectKindSpace, w.space, grant.PrincipalKindUser, w.guest.ID, access.Read)
		read(200)
		if err := s.Client().Grant.DeleteOneID(id).Exec(testkit.Fixture(context.Background())); err != nil {
			t.Fatal(err)
		}
		read(404)

		// A grant to the guest, who then leaves the organization: the
		// grant gives nothing without the membership.
		w.give(t, s, grant.ObjectKindSpace, w.space, grant.PrincipalKindUser, w.guest.ID, access.Read)
		read(200)
		s.Call(t, "removeMemberFromOrganizationById", w.owner.Token, "DELETE", "/v1/orgs/"+w.org+"/members/"+w.guest.ID, nil, 204)
		read(404)
	})
}

// A guest that a collection is shared with to create in may write at the
// organization's paths: a bad body answers its 400, not the 403 of a guest
// with nothing to create in (who still hears 403 before any word on the
// body).
func TestSharingGuestCreatesInSharedCollection(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newRevokeWorld(t, s)
		spaces := "/v1/orgs/" + w.org + "/spaces"
		shelf := s.Call(t, "createCollection", w.owner.Token, "POST", "/v1/orgs/"+w.org+"/collections", map[string]any{"title": "Shelf"}, 201).JSON(t)["id"].(string)
		long := strings.Repeat("x", 51)

		// Something shared, but nothing to create in: 403 before the body.
		w.give(t, s, grant.ObjectKindSpace, w.space, grant.PrincipalKindTeam, w.team, access.Admin)
		w.give(t, s, grant.ObjectKindCollection, shelf, grant.PrincipalKindUser, w.guest.ID, access.Edit)
		before := s.Snapshot(t)
		s.Fail(t, "createSpace", w.guest.Token, "POST", spaces, map[string]any{"title": long, "parent": shelf}, 403)
		s.Fail(t, "createSpace", w.guest.Token, "POST", spaces, map[string]any{"title": "Mine", "parent": shelf}, 403)
		s.Unchanged(t, before)

		// create on the collection through the team: the body's own answer.
		w.give(t, s, grant.ObjectKindCollection, shelf, grant.PrincipalKindTeam, w.team, access.Create)
		before = s.Snapshot(t)
		if msg := s.Fail(t, "createSpace", w.guest.Token, "POST", spaces, map[string]any{"title": long, "parent": shelf}, 400); !strings.Contains(msg, "title") {
			t.Fatalf("bad title answered %q, not naming title", msg)
		}
		// Not at the organization's root, which needs the create role there.
		s.Fail(t, "createSpace", w.guest.Token, "POST", spaces, map[string]any{"title": "Mine"}, 403)
		s.Unchanged(t, before)
		s.Call(t, "createSpace", w.guest.Token, "POST", spaces, map[string]any{"title": "Mine", "parent": shelf}, 201)
	})
}
