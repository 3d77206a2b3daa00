package rest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/testkit"
)

// lastEvent is the newest event with action, failing when there is none.
func lastEvent(t *testing.T, s *testkit.Server, action string) *ent.Event {
	t.Helper()
	e, err := s.Client().Event.Query().Where(event.Action(action)).Order(ent.Desc(event.FieldID)).First(context.Background())
	if err != nil {
		t.Fatalf("no %s event: %v", action, err)
	}
	return e
}

func eventCount(t *testing.T, s *testkit.Server) int {
	t.Helper()
	n, err := s.Client().Event.Query().Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkAPIEvent holds e to a write user u made through the API with the
// request resp answered.
func checkAPIEvent(t *testing.T, s *testkit.Server, e *ent.Event, u testkit.User, orgID, targetType, targetID string, resp *testkit.Response) {
	t.Helper()
	if e.OrganizationID != orgID || e.TargetType != targetType || (targetID != "" && e.TargetID != targetID) {
		t.Fatalf("%s: organization %q target %s %q, want %q %s %q", e.Action, e.OrganizationID, e.TargetType, e.TargetID, orgID, targetType, targetID)
	}
	if e.Source != events.SourceAPI || e.ActorType != events.ActorUser || e.ActorID != u.ID {
		t.Fatalf("%s: source %q actor %s %q, want api user %s", e.Action, e.Source, e.ActorType, e.ActorID, u.ID)
	}
	if id := resp.Header.Get("X-Request-Id"); id == "" || e.CorrelationID != id {
		t.Fatalf("%s: correlation id %q, want the request id %q", e.Action, e.CorrelationID, id)
	}
	tok, err := s.Client().APIToken.Query().Where(apitoken.UserID(u.ID)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e.Payload["tokenId"] != tok.ID {
		t.Fatalf("%s: payload tokenId %v, want %s", e.Action, e.Payload["tokenId"], tok.ID)
	}
}

// payloadFields is the "fields" of an event's payload.
func payloadFields(e *ent.Event) []string {
	var out []string
	raw, _ := e.Payload["fields"].([]any)
	for _, v := range raw {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

func TestEventsOfOrganizationAndSiteWrites(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newOrgFixture(t, s)
		admin := f.admin.Token
		org := "/v1/orgs/" + f.org

		// The fixture's organization came from the command line's path.
		created := lastEvent(t, s, events.OrganizationCreated)
		if created.Source != events.SourceScript || created.ActorType != events.ActorSystem || created.ActorID != "cli" {
			t.Fatalf("organization.created by the command line: source %q actor %s %q", created.Source, created.ActorType, created.ActorID)
		}
		for _, a := range []string{events.UserCreated, events.APITokenCreated} {
			e := lastEvent(t, s, a)
			if e.Source != events.SourceScript || e.OrganizationID != "" {
				t.Fatalf("%s: source %q organization %q", a, e.Source, e.OrganizationID)
			}
			if _, ok := e.Payload["hash"]; ok {
				t.Fatalf("%s carries a hash: %v", a, e.Payload)
			}
		}

		// REST: organization, member, custom field, site, share link.
		resp := s.Request(t, admin, "PATCH", org, map[string]any{"title": "Acme Two"})
		if resp.Status != 200 {
			t.Fatalf("update organization: %d %s", resp.Status, resp.Body)
		}
		e := lastEvent(t, s, events.OrganizationUpdated)
		checkAPIEvent(t, s, e, f.admin, f.org, "organization", f.org, resp)
		if !slices.Contains(payloadFields(e), "title") || e.TargetLabel != "Acme Two" {
			t.Fatalf("organization.updated: %v %q", e.Payload, e.TargetLabel)
		}

		resp = s.Request(t, admin, "PATCH", org+"/members/"+f.reader.ID, map[string]any{"role": "edit"})
		if resp.Status != 200 {
			t.Fatalf("update member: %d %s", resp.Status, resp.Body)
		}
		e = lastEvent(t, s, events.MemberRoleUpdated)
		checkAPIEvent(t, s, e, f.admin, f.org, "member", f.reader.ID, resp)
		if e.Payload["role"] != "edit" || e.Payload["userId"] != f.reader.ID {
			t.Fatalf("member.role_updated payload: %v", e.Payload)
		}

		resp = s.Request(t, admin, "POST", org+"/custom-fields", map[string]any{"name": "tier", "type": "text"})
		if resp.Status != 201 {
			t.Fatalf("create custom field: %d %s", resp.Status, resp.Body)
		}
		e = lastEvent(t, s, events.CustomFieldCreated)
		checkAPIEvent(t, s, e, f.admin, f.org, "custom-field", "", resp)
		if e.Payload["name"] != "tier" {
			t.Fatalf("custom_field.created payload: %v", e.Payload)
		}

		resp = s.Request(t, admin, "POST", org+"/sites", map[string]any{"title": "Docs"})
		if resp.Status != 201 {
			t.Fatalf("create site: %d %s", resp.Status, resp.Body)
		}
		site := resp.JSON(t)["id"].(string)
		checkAPIEvent(t, s, lastEvent(t, s, events.SiteCreated), f.admin, f.org, "site", site, resp)

		resp = s.Request(t, admin, "POST", org+"/sites/"+site+"/share-links", map[string]any{"name": "Reviewers"})
		if resp.Status != 201 {
			t.Fatalf("create share link: %d %s", resp.Status, resp.Body)
		}
		link := resp.JSON(t)
		e = lastEvent(t, s, events.SiteShareLinkCreated)
		checkAPIEvent(t, s, e, f.admin, f.org, "site-share-link", link["id"].(string), resp)
		for k := range e.Payload {
			if !slices.Contains([]string{"siteId", "name", "tokenId"}, k) {
				t.Fatalf("site_share_link.created payload has %q: %v", k, e.Payload)
			}
		}

		// GraphQL: a team, correlated by its request's id too.
		resp = s.Request(t, admin, "POST", "/graphql", map[string]any{
			"query":     `mutation($org: ID!) { createTeam(organizationId: $org, title: "Writers") { id } }`,
			"variables": map[string]any{"org": f.org},
		})
		body := resp.JSON(t)
		if resp.Status != 200 || body["errors"] != nil {
			t.Fatalf("createTeam: %d %s", resp.Status, resp.Body)
		}
		team := body["data"].(map[string]any)["createTeam"].(map[string]any)["id"].(string)
		e = lastEvent(t, s, events.TeamCreated)
		checkAPIEvent(t, s, e, f.admin, f.org, "team", team, resp)
		if e.TargetLabel != "Writers" {
			t.Fatalf("team.created label %q", e.TargetLabel)
		}

		// Refused writes record nothing: 403, 400, 409.
		before := eventCount(t, s)
		if resp := s.Request(t, f.reader.Token, "PATCH", org, map[string]any{"title": "Mine"}); resp.Status != 403 {
			t.Fatalf("reader updates the organization: %d %s", resp.Status, resp.Body)
		}
		if resp := s.Request(t, admin, "POST", org+"/custom-fields", map[string]any{"name": "bad", "type": "colour"}); resp.Status != 400 {
			t.Fatalf("bad custom field type: %d %s", resp.Status, resp.Body)
		}
		if resp := s.Request(t, admin, "POST", org+"/custom-fields", map[string]any{"name": "tier", "type": "text"}); resp.Status != 409 {
			t.Fatalf("duplicate custom field: %d %s", resp.Status, resp.Body)
		}
		if resp := s.Request(t, f.reader.Token, "POST", "/graphql", map[string]any{
			"query":     `mutation($org: ID!) { createTeam(organizationId: $org, title: "Mine") { id } }`,
			"variables": map[string]any{"org": f.org},
		}); resp.Status != 200 || resp.JSON(t)["errors"] == nil {
			t.Fatalf("reader creates a team: %d %s", resp.Status, resp.Body)
		}
		if n := eventCount(t, s); n != before {
			t.Fatalf("refused writes recorded %d events", n-before)
		}
	})
}
