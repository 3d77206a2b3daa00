package rest_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/testkit"
)

// auditEvent is an item of listOrganizationAuditEvents.
type auditEvent struct {
	ID         string
	OccurredAt string
	Action     string
	Source     string
	Actor      struct{ Type, ID, Label string }
	Target     struct{ Type, ID, Label string }
	URLs       struct{ Location string }
}

type auditList struct {
	Items []auditEvent
	Count int
	Next  *struct{ Page string }
}

// auditFixture: an organization whose editor created four change requests
// and whose admin created one and commented, so the log holds events of
// two actions and two actors.
func newAuditFixture(t *testing.T, s *testkit.Server) (contentFixture, []string) {
	t.Helper()
	f := newContentFixture(t, s)
	// The log starts after the fixture's setup (organizations, members,
	// spaces): the tests count the six events made below.
	s.Client().Event.Delete().ExecX(context.Background())
	var crs []string
	for _, subject := range []string{"one", "two", "three", "four"} {
		crs = append(crs, f.newCR(t, subject))
	}
	crs = append(crs, s.Call(t, "createChangeRequest", f.admin.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": "five"}, 201).JSON(t)["id"].(string))
	s.Call(t, "postCommentInSpace", f.admin.Token, "POST", "/v1/spaces/"+f.space+"/comments", map[string]any{"body": md("Hello")}, 200)
	return f, crs
}

func listAudit(t *testing.T, s *testkit.Server, token, org string, q url.Values) auditList {
	t.Helper()
	var l auditList
	s.Call(t, "listOrganizationAuditEvents", token, "GET", "/v1/orgs/"+org+"/audit-events?"+q.Encode(), nil, 200).Decode(t, &l)
	return l
}

func TestAuditEvents(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f, crs := newAuditFixture(t, s)
		base := "/v1/orgs/" + f.org + "/audit-events"

		// Actions: the catalog, as AuditEventAction items.
		var actions struct {
			Items []struct{ Object, ID, Label string }
		}
		s.Call(t, "listOrganizationAuditEventActions", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/audit-event-actions", nil, 200).Decode(t, &actions)
		if len(actions.Items) != len(events.Actions()) {
			t.Fatalf("actions: %d items, catalog has %d", len(actions.Items), len(events.Actions()))
		}
		var ids []string
		for _, a := range actions.Items {
			if a.Object != "audit-event-action" || a.Label == "" {
				t.Fatalf("action %+v", a)
			}
			ids = append(ids, a.ID)
		}
		if !slices.Contains(ids, events.ChangeRequestCreated) || !slices.Contains(ids, events.CommentPosted) {
			t.Fatalf("actions %v", ids)
		}

		// The whole log, newest first; the default limit is 20.
		all := listAudit(t, s, f.admin.Token, f.org, nil)
		if all.Count != 6 || len(all.Items) != 6 || all.Next != nil {
			t.Fatalf("list: count %d, %d items, next %v", all.Count, len(all.Items), all.Next)
		}
		got := make([]string, len(all.Items))
		for i, e := range all.Items {
			got[i] = e.ID
			if _, err := uuid.Parse(e.ID); err != nil {
				t.Fatalf("id %q is not a UUID", e.ID)
			}
			if e.URLs.Location != s.URL+base+"/"+e.ID {
				t.Fatalf("location %q", e.URLs.Location)
			}
		}
		if !slices.IsSortedFunc(got, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Fatalf("not newest first: %v", got)
		}
		newest := all.Items[0]
		if newest.Action != events.CommentPosted || newest.Actor.ID != f.admin.ID || newest.Actor.Type != "user" || newest.Source != "api" {
			t.Fatalf("newest: %+v", newest)
		}
		oldest := all.Items[5]
		if oldest.Action != events.ChangeRequestCreated || oldest.Actor.ID != f.editor.ID || oldest.Target.ID != crs[0] || oldest.Target.Type == "" {
			t.Fatalf("oldest: %+v", oldest)
		}

		// Pages of 2 walk the same list; count is the whole list's.
		if paged := walkPages(t, s, "listOrganizationAuditEvents", f.admin.Token, base, 6); !slices.Equal(paged, got) {
			t.Fatalf("pages %v, list %v", paged, got)
		}

		// Filters: exact, combined.
		for _, c := range []struct {
			q    url.Values
			want int
		}{
			{url.Values{"action": {events.ChangeRequestCreated}}, 5},
			{url.Values{"action": {events.CommentPosted}}, 1},
			{url.Values{"action": {"change_request"}}, 0},
			{url.Values{"actor": {f.editor.ID}}, 4},
			{url.Values{"actor": {f.admin.ID}, "action": {events.ChangeRequestCreated}}, 1},
			{url.Values{"target": {crs[2]}}, 1},
			{url.Values{"target": {crs[2]}, "actor": {f.admin.ID}}, 0},
		} {
			l := listAudit(t, s, f.admin.Token, f.org, c.q)
			if l.Count != c.want || len(l.Items) != c.want {
				t.Errorf("%s: count %d, %d items, want %d", c.q.Encode(), l.Count, len(l.Items), c.want)
			}
		}
		// from and to are inclusive bounds of occurredAt.
		pivot := all.Items[2].OccurredAt
		pt, err := time.Parse(time.RFC3339, pivot)
		if err != nil {
			t.Fatal(err)
		}
		atOrAfter, atOrBefore := 0, 0
		for _, e := range all.Items {
			et, _ := time.Parse(time.RFC3339, e.OccurredAt)
			if !et.Before(pt) {
				atOrAfter++
			}
			if !et.After(pt) {
				atOrBefore++
			}
		}
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"from": {pivot}}); l.Count != atOrAfter || !slices.ContainsFunc(l.Items, func(e auditEvent) bool { return e.ID == all.Items[2].ID }) {
			t.Fatalf("from %s: count %d, want %d", pivot, l.Count, atOrAfter)
		}
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"to": {pivot}}); l.Count != atOrBefore {
			t.Fatalf("to %s: count %d, want %d", pivot, l.Count, atOrBefore)
		}
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"from": {pivot}, "to": {pivot}}); l.Count < 1 {
			t.Fatalf("from = to = %s: nothing", pivot)
		}
		future := pt.Add(time.Hour).Format(time.RFC3339)
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"from": {future}}); l.Count != 0 {
			t.Fatalf("from the future: %d", l.Count)
		}
		// An offset other than Z is the same instant.
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"from": {pt.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano)}}); l.Count != atOrAfter {
			t.Fatalf("from with an offset: count %d, want %d", l.Count, atOrAfter)
		}
		// Limit 1..100.
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"limit": {"1"}}); len(l.Items) != 1 || l.Next == nil || l.Count != 6 {
			t.Fatalf("limit 1: %+v", l)
		}
		if l := listAudit(t, s, f.admin.Token, f.org, url.Values{"limit": {"100"}}); len(l.Items) != 6 {
			t.Fatalf("limit 100: %d", len(l.Items))
		}

		// Details: schemaVersion, payload, correlationId.
		id := oldest.ID
		var d struct {
			auditEvent
			SchemaVersion int
			CorrelationID string
			Payload       map[string]any
		}
		s.Call(t, "getOrganizationAuditEvent", f.admin.Token, "GET", base+"/"+id, nil, 200).Decode(t, &d)
		if d.ID != id || d.SchemaVersion != 1 || d.CorrelationID == "" || d.Payload["subject"] != "one" || d.Action != events.ChangeRequestCreated {
			t.Fatalf("details: %+v", d)
		}
		for _, bad := range []string{"nope", uuid.NewString(), strings.ToUpper(id) + "x"} {
			s.Fail(t, "getOrganizationAuditEvent", f.admin.Token, "GET", base+"/"+bad, nil, 404)
		}
	})
}

func TestAuditEventsRefuseBadInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f, _ := newAuditFixture(t, s)
		base := "/v1/orgs/" + f.org + "/audit-events"
		for q, field := range map[string]string{
			"limit=0":                           "limit",
			"limit=101":                         "limit",
			"limit=-1":                          "limit",
			"limit=ten":                         "limit",
			"page=nonsense!":                    "page",
			"from=yesterday":                    "from",
			"from=2026-01-02":                   "from",
			"to=2026-01-02T15:04:05":            "to",
			"to=2026-13-02T15:04:05Z":           "to",
			"from=2026-01-02T15:04:05Z&to=soon": "to",
		} {
			msg := s.Fail(t, "listOrganizationAuditEvents", f.admin.Token, "GET", base+"?"+q, nil, 400)
			if !strings.Contains(msg, field) {
				t.Errorf("%s: message %q does not name %q", q, msg, field)
			}
		}
	})
}

func TestAuditEventsAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f, _ := newAuditFixture(t, s)
		base := "/v1/orgs/" + f.org
		id := listAudit(t, s, f.admin.Token, f.org, nil).Items[0].ID
		ops := []struct{ op, path string }{
			{"listOrganizationAuditEventActions", base + "/audit-event-actions"},
			{"listOrganizationAuditEvents", base + "/audit-events"},
			{"getOrganizationAuditEvent", base + "/audit-events/" + id},
		}
		for _, o := range ops {
			// Members without the admin role: 403; others' members: 404.
			s.Fail(t, o.op, f.editor.Token, "GET", o.path, nil, 403)
			s.Fail(t, o.op, f.reader.Token, "GET", o.path, nil, 403)
			s.Fail(t, o.op, f.stranger.Token, "GET", o.path, nil, 404)
		}
		// Another organization's admin asking in their own organization
		// for this organization's event: not found.
		s.Fail(t, "getOrganizationAuditEvent", f.stranger.Token, "GET", "/v1/orgs/"+f.strangerOrg+"/audit-events/"+id, nil, 404)
		if l := listAudit(t, s, f.stranger.Token, f.strangerOrg, nil); l.Count != 0 {
			t.Fatalf("the stranger's organization shows %d events", l.Count)
		}
	})
}

func TestAuditEventsGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f, crs := newAuditFixture(t, s)
		const q = `query($org: ID!, $after: String, $before: String, $first: Int, $last: Int, $actor: String) {
		  organization(id: $org) {
		    auditEventActions { actionId label }
		    auditEvents(first: $first, after: $after, last: $last, before: $before, actor: $actor) {
		      totalCount
		      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
		      edges { cursor node { id action source occurredAt schemaVersion correlationId payload
		        actor { type actorId label } target { type targetId label } urls { location } organization { id } } }
		    }
		  }
		}`
		type page struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage, HasPreviousPage bool
				StartCursor, EndCursor       *string
			}
			Edges []struct {
				Cursor string
				Node   struct {
					ID, Action, Source string
					Payload            map[string]any
					Target             struct {
						ID string `json:"targetId"`
					}
					Organization struct{ ID string }
					URLs         struct{ Location string } `json:"urls"`
				}
			}
		}
		run := func(vars map[string]any) page {
			t.Helper()
			vars["org"] = f.org
			data := s.MustGraphQL(t, f.admin.Token, q, vars)
			var out struct{ Organization struct{ AuditEvents page } }
			remarshal(t, data, &out)
			return out.Organization.AuditEvents
		}
		p1 := run(map[string]any{"first": 4})
		if p1.TotalCount != 6 || len(p1.Edges) != 4 || !p1.PageInfo.HasNextPage || p1.PageInfo.HasPreviousPage {
			t.Fatalf("first page: %+v", p1)
		}
		n := p1.Edges[3].Node
		if n.Organization.ID != f.org || n.URLs.Location != s.URL+"/v1/orgs/"+f.org+"/audit-events/"+n.ID {
			t.Fatalf("node %+v", n)
		}
		p2 := run(map[string]any{"first": 4, "after": *p1.PageInfo.EndCursor})
		if len(p2.Edges) != 2 || p2.PageInfo.HasNextPage || !p2.PageInfo.HasPreviousPage || p2.Edges[1].Node.Target.ID != crs[0] {
			t.Fatalf("second page: %+v", p2)
		}
		// Backward from the second page's first edge: the 4 newer events.
		back := run(map[string]any{"last": 4, "before": p2.Edges[0].Cursor})
		if len(back.Edges) != 4 || back.PageInfo.HasPreviousPage || !back.PageInfo.HasNextPage {
			t.Fatalf("backward: %+v", back)
		}
		for i := range back.Edges {
			if back.Edges[i].Node.ID != p1.Edges[i].Node.ID {
				t.Fatalf("backward page %d: %s, want %s", i, back.Edges[i].Node.ID, p1.Edges[i].Node.ID)
			}
		}
		if p := run(map[string]any{"actor": f.editor.ID}); p.TotalCount != 4 {
			t.Fatalf("actor filter: %d", p.TotalCount)
		}

		// node(id:) finds an event for admins.
		id := p1.Edges[0].Node.ID
		data := s.MustGraphQL(t, f.admin.Token, `query($id: ID!) { node(id: $id) { id ... on AuditEvent { action } } }`, map[string]any{"id": id})
		if node, _ := data["node"].(map[string]any); node["id"] != id {
			t.Fatalf("node: %v", data)
		}

		// Bad arguments name themselves.
		for _, c := range []struct {
			vars  map[string]any
			field string
		}{
			{map[string]any{"first": 0}, "first"},
			{map[string]any{"first": 101}, "first"},
			{map[string]any{"last": 101}, "last"},
			{map[string]any{"after": "nonsense!"}, "after"},
			{map[string]any{"first": 2, "last": 2}, "last"},
		} {
			c.vars["org"] = f.org
			_, errs := s.GraphQL(t, f.admin.Token, q, c.vars)
			if len(errs) == 0 || !strings.Contains(errs[0].Message, c.field) {
				t.Errorf("%v: errors %+v do not name %q", c.vars, errs, c.field)
			}
		}

		// Members without admin: null fields with errors, the rest of the
		// organization answered (partial data); node(id:) shows nothing.
		data, errs := s.GraphQL(t, f.reader.Token, `query($org: ID!) { organization(id: $org) { id auditEventActions { actionId } auditEvents { totalCount } } }`, map[string]any{"org": f.org})
		org, _ := data["organization"].(map[string]any)
		if org["id"] != f.org || org["auditEvents"] != nil || org["auditEventActions"] != nil || len(errs) != 2 {
			t.Fatalf("reader: %v %+v", data, errs)
		}
		for _, e := range errs {
			if e.Extensions["code"] != "FORBIDDEN" {
				t.Fatalf("reader error %+v", e)
			}
		}
		data, errs = s.GraphQL(t, f.stranger.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
		if data["node"] != nil || len(errs) != 1 {
			t.Fatalf("stranger's node: %v %+v", data, errs)
		}
	})
}

// TestAuditRetention: the periodic retention job deletes the events older
// than FOLIO_AUDIT_RETENTION and keeps the others.
func TestAuditRetention(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) {
				c.AuditRetention = 24 * time.Hour
				c.PurgeInterval = 20 * time.Millisecond
			})
			ctx := context.Background()
			f, _ := newAuditFixture(t, s.Server)
			now := clock.Now()
			add := func(age time.Duration) string {
				id := events.NewID()
				s.Client().Event.Create().SetID(id).SetOccurredAt(now.Add(-age)).SetOrganizationID(f.org).
					SetAction(events.ChangeRequestCreated).SetSource(events.SourceAPI).SetActorType(events.ActorUser).
					SetActorID(f.admin.ID).SetTargetType("change_request").SetTargetID("cr").ExecX(ctx)
				return id
			}
			old := []string{add(25 * time.Hour), add(400 * 24 * time.Hour)}
			recent := add(23 * time.Hour)
			deadline := time.Now().Add(20 * time.Second)
			for s.Client().Event.Query().Where(event.IDIn(old...)).CountX(ctx) > 0 {
				if time.Now().After(deadline) {
					t.Fatal("events past retention still stored")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !s.Client().Event.Query().Where(event.ID(recent)).ExistX(ctx) {
				t.Fatal("an event within retention was deleted")
			}
			if n := s.Client().Event.Query().Where(event.OrganizationID(f.org)).CountX(ctx); n != 7 {
				t.Fatalf("%d events left, want the fixture's 6 and the recent one", n)
			}
		})
	}
}

// remarshal decodes a GraphQL answer's data into v.
func remarshal(t *testing.T, data any, v any) {
	t.Helper()
	b, err := json.Marshal(data)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}
