package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
)

// streamMsg is one message of a subscription, as either transport gives it.
type streamMsg struct {
	Type    string // next, error, complete
	ID      string // SSE: the message id
	Payload struct {
		Data       map[string]any         `json:"data"`
		Errors     []testkit.GraphQLError `json:"errors"`
		Extensions map[string]any         `json:"extensions"`
	}
}

// wsClient speaks graphql-transport-ws.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	msgs chan streamMsg
}

// dialWS opens a WebSocket to s's /graphql and sends connection_init with
// init as its payload; header is the upgrade's.
func dialWS(t *testing.T, s *testkit.Server, header http.Header, init map[string]any) (*wsClient, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: header})
	if err != nil {
		return nil, resp, err
	}
	c := &wsClient{t: t, conn: conn, msgs: make(chan streamMsg, 100)}
	t.Cleanup(func() { conn.CloseNow() })
	c.send(map[string]any{"type": "connection_init", "payload": init})
	for {
		var ack struct{ Type string }
		if err := c.read(&ack); err != nil {
			return nil, resp, err // a refusal: the close frame's status
		}
		if ack.Type == "connection_ack" {
			break
		}
	}
	go c.pump()
	return c, resp, nil
}

func (c *wsClient) send(v any) {
	b, _ := json.Marshal(v)
	if err := c.conn.Write(context.Background(), websocket.MessageText, b); err != nil {
		c.t.Errorf("websocket write: %v", err)
	}
}

func (c *wsClient) read(v any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := c.conn.Read(ctx)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// pump reads messages, answers pings and hands the rest to msgs.
func (c *wsClient) pump() {
	defer close(c.msgs)
	for {
		_, b, err := c.conn.Read(context.Background())
		if err != nil {
			return
		}
		var m struct {
			Type    string          `json:"type"`
			ID      string          `json:"id"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch m.Type {
		case "ping":
			c.send(map[string]any{"type": "pong"})
			continue
		case "pong", "ka":
			continue
		}
		msg := streamMsg{Type: m.Type, ID: m.ID}
		if m.Type == "error" {
			_ = json.Unmarshal(m.Payload, &msg.Payload.Errors)
		} else if len(m.Payload) > 0 {
			_ = json.Unmarshal(m.Payload, &msg.Payload)
		}
		c.msgs <- msg
	}
}

func (c *wsClient) subscribe(id, query string, vars map[string]any) {
	c.send(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
}

// refused is the error that ends subscription id at once (a `next` with
// errors, or an `error`), which `complete` follows for a `next`.
func (c *wsClient) refused(t *testing.T, id string) testkit.GraphQLError {
	t.Helper()
	m := c.next(t)
	if m.ID != id || len(m.Payload.Errors) == 0 || m.Payload.Data != nil {
		t.Fatalf("subscription %s: %+v, want an error", id, m)
	}
	if m.Type == "next" {
		if end := c.next(t); end.ID != id || end.Type != "complete" {
			t.Fatalf("subscription %s: %+v after its error, want complete", id, end)
		}
	}
	return m.Payload.Errors[0]
}

// next is the next message (failing after 10 s).
func (c *wsClient) next(t *testing.T) streamMsg {
	t.Helper()
	return nextOf(t, c.msgs)
}

func nextOf(t *testing.T, msgs <-chan streamMsg) streamMsg {
	t.Helper()
	select {
	case m, ok := <-msgs:
		if !ok {
			t.Fatal("the stream ended")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message in 10 s")
	}
	return streamMsg{}
}

// nothingFor checks that no message comes for d.
func nothingFor(t *testing.T, msgs <-chan streamMsg, d time.Duration) {
	t.Helper()
	select {
	case m, ok := <-msgs:
		if ok {
			t.Fatalf("unexpected message: %+v", m)
		}
	case <-time.After(d):
	}
}

// sseStream is a graphql-sse subscription.
type sseStream struct {
	msgs   chan streamMsg
	status int
	body   string // the answer, when it is not a stream
	cancel context.CancelFunc
}

// openSSE posts query with Accept: text/event-stream.
func openSSE(t *testing.T, s *testkit.Server, token, query string, vars map[string]any, header http.Header) *sseStream {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	st := &sseStream{msgs: make(chan streamMsg, 100), status: resp.StatusCode, cancel: cancel}
	t.Cleanup(cancel)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		st.body = b.String()
		close(st.msgs)
		return st
	}
	go func() {
		defer resp.Body.Close()
		defer close(st.msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var m streamMsg
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if m.Type != "" {
					st.msgs <- m
				}
				m = streamMsg{}
			case strings.HasPrefix(line, "event: "):
				m.Type = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				m.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m.Payload)
			}
		}
	}()
	return st
}

const contentSubscription = `subscription($space: ID!, $after: ID) {
  spaceContentUpdated(spaceId: $space, after: $after) { eventId action occurredAt space { id title } revision { id } }
}`

// fastStreams: events are heard at once and polled often.
func fastStreams(c *app.Config) { c.SubscriptionHeartbeat = time.Second }

func TestSubscriptionSpaceContentOverBothTransports(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			// Streams outlive FOLIO_REQUEST_TIMEOUT: each event's work keeps it.
			s := testkit.StartJobs(t, kind, func(c *app.Config) {
				c.RequestTimeout = 2 * time.Second
				c.SubscriptionHeartbeat = 300 * time.Millisecond
			})
			f := newContentFixture(t, s.Server)
			vars := map[string]any{"space": f.space}

			ws, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer " + f.reader.Token})
			if err != nil {
				t.Fatal(err)
			}
			ws.subscribe("1", contentSubscription, vars)
			sse := openSSE(t, s.Server, f.reader.Token, contentSubscription, vars, nil)
			if sse.status != 200 {
				t.Fatalf("SSE: %d %s", sse.status, sse.body)
			}
			waitSubscribers(t, s, 2)
			time.Sleep(2500 * time.Millisecond) // past the request timeout

			cr := f.newCR(t, "First")
			f.edit(t, cr, insertPage("# First\n\nHello.\n", nil))
			rev := f.merge(t, cr, 200)["revision"].(string)

			for name, m := range map[string]streamMsg{"websocket": ws.next(t), "sse": nextOf(t, sse.msgs)} {
				if m.Type != "next" || len(m.Payload.Errors) > 0 {
					t.Fatalf("%s: %+v", name, m)
				}
				ev := m.Payload.Data["spaceContentUpdated"].(map[string]any)
				if ev["action"] != "change_request.merged" || ev["revision"].(map[string]any)["id"] != rev ||
					ev["space"].(map[string]any)["id"] != f.space || ev["eventId"] != m.Payload.Extensions["eventId"] {
					t.Fatalf("%s: %v %v", name, ev, m.Payload.Extensions)
				}
				if name == "sse" && m.ID != ev["eventId"] {
					t.Fatalf("SSE message id %q, event %v", m.ID, ev["eventId"])
				}
			}
			// Other spaces' content and other actions are not sent.
			other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
			s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"title": "Docs 2"}, 200)
			c2 := s.Call(t, "createChangeRequest", f.admin.Token, "POST", "/v1/spaces/"+other+"/change-requests", map[string]any{"subject": "x"}, 201).JSON(t)["id"].(string)
			_ = c2
			nothingFor(t, ws.msgs, 300*time.Millisecond)
			// The next merge shows the space as it is now: the title
			// changed since the first event (fresh loaders per event).
			cr = f.newCR(t, "Second")
			f.edit(t, cr, insertPage("# Second\n\nHello.\n", nil))
			f.merge(t, cr, 200)
			m := ws.next(t)
			if title := m.Payload.Data["spaceContentUpdated"].(map[string]any)["space"].(map[string]any)["title"]; title != "Docs 2" {
				t.Fatalf("the second event shows the space titled %v", title)
			}
			if m := nextOf(t, sse.msgs); m.Type != "next" {
				t.Fatalf("sse: %+v", m)
			}
			// A client that stops its subscription gets complete... and
			// the server forgets it.
			ws.send(map[string]any{"id": "1", "type": "complete"})
			sse.cancel()
			waitSubscribers(t, s, 0)
		})
	}
}

// waitSubscribers waits until the instance serves n subscriptions.
func waitSubscribers(t *testing.T, s *testkit.JobServer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.App.Hub.Subscribers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions, want %d", s.App.Hub.Subscribers(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSubscriptionResumesAfterTheLastEvent(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastStreams)
			f := newContentFixture(t, s.Server)
			var eventIDs []string
			for _, subject := range []string{"One", "Two", "Three"} {
				cr := f.newCR(t, subject)
				f.edit(t, cr, insertPage("# "+subject+"\n\nText.\n", nil))
				f.merge(t, cr, 200)
			}
			// The space's content events, oldest first, from the audit log.
			var out struct{ Items []map[string]any }
			s.Call(t, "listOrganizationAuditEvents", f.admin.Token, "GET", "/v1/orgs/"+f.org+"/audit-events?action=change_request.merged", nil, 200).Decode(t, &out)
			for i := len(out.Items) - 1; i >= 0; i-- {
				eventIDs = append(eventIDs, out.Items[i]["id"].(string))
			}
			if len(eventIDs) != 3 {
				t.Fatalf("merges recorded: %v", eventIDs)
			}
			// WebSocket: after the first, the two it missed, in order.
			ws, _, err := dialWS(t, s.Server, nil, map[string]any{"authToken": f.reader.Token})
			if err != nil {
				t.Fatal(err)
			}
			ws.subscribe("a", contentSubscription, map[string]any{"space": f.space, "after": eventIDs[0]})
			for _, want := range eventIDs[1:] {
				if m := ws.next(t); m.Payload.Data["spaceContentUpdated"].(map[string]any)["eventId"] != want {
					t.Fatalf("resumed: %+v, want %s", m, want)
				}
			}
			// SSE: Last-Event-ID does the same.
			sse := openSSE(t, s.Server, f.reader.Token, contentSubscription, map[string]any{"space": f.space},
				http.Header{"Last-Event-Id": {eventIDs[1]}})
			if m := nextOf(t, sse.msgs); m.ID != eventIDs[2] {
				t.Fatalf("resumed over SSE: %+v, want %s", m, eventIDs[2])
			}
			// Then live events follow, once each.
			cr := f.newCR(t, "Four")
			f.edit(t, cr, insertPage("# Four\n\nText.\n", nil))
			f.merge(t, cr, 200)
			live := ws.next(t).Payload.Data["spaceContentUpdated"].(map[string]any)["eventId"]
			if m := nextOf(t, sse.msgs); m.ID != live {
				t.Fatalf("live over SSE %q, over WebSocket %v", m.ID, live)
			}
			nothingFor(t, ws.msgs, 300*time.Millisecond)

			// A bad after names the field.
			ws.subscribe("b", contentSubscription, map[string]any{"space": f.space, "after": "nope"})
			if e := ws.refused(t, "b"); !strings.Contains(e.Message, "after") {
				t.Fatalf("bad after: %+v", e)
			}
		})
	}
}

func TestSubscriptionEndsWhenAccessIsLost(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastStreams)
			f := newContentFixture(t, s.Server)
			ws, _, err := dialWS(t, s.Server, http.Header{"Authorization": {"Bearer " + f.reader.Token}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ws.subscribe("1", `subscription($space: ID!) { changeRequestUpdated(spaceId: $space) { eventId action changeRequest { id subject } } }`,
				map[string]any{"space": f.space})
			waitSubscribers(t, s, 1)
			cr := f.newCR(t, "Seen")
			if m := ws.next(t); m.Payload.Data["changeRequestUpdated"].(map[string]any)["action"] != "change_request.created" {
				t.Fatalf("created: %+v", m)
			}
			// The reader is removed from the organization while subscribed.
			s.Call(t, "removeMemberFromOrganizationById", f.admin.Token, "DELETE", "/v1/orgs/"+f.org+"/members/"+f.reader.ID, nil, 204)
			s.Call(t, "updateChangeRequestById", f.editor.Token, "PATCH", f.crPath(cr), map[string]any{"subject": "Secret"}, 200)
			m := ws.next(t)
			if m.Type != "next" || m.Payload.Data != nil || len(m.Payload.Errors) != 1 || m.Payload.Errors[0].Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("after removal: %+v", m)
			}
			if strings.Contains(m.Payload.Errors[0].Message, "Secret") {
				t.Fatalf("the error shows what the caller may no longer see: %s", m.Payload.Errors[0].Message)
			}
			if m := ws.next(t); m.Type != "complete" {
				t.Fatalf("after the error: %+v", m)
			}
			waitSubscribers(t, s, 0)
		})
	}
}

func TestSubscriptionRefusals(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) { fastStreams(c); c.SubscriptionsPerConnection = 2 })
			f := newContentFixture(t, s.Server)

			// A subscription sent as a plain request: 406.
			body, _ := json.Marshal(map[string]any{"query": contentSubscription, "variables": map[string]any{"space": f.space}})
			req, _ := http.NewRequest("POST", s.URL+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+f.reader.Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotAcceptable {
				t.Fatalf("subscription over a plain POST: %d", resp.StatusCode)
			}

			// urql accepts event streams among JSON types on every request:
			// its queries are answered as JSON.
			q, _ := json.Marshal(map[string]any{"query": "{ viewer { user { id } } }"})
			req, _ = http.NewRequest("POST", s.URL+"/graphql", bytes.NewReader(q))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed")
			req.Header.Set("Authorization", "Bearer "+f.reader.Token)
			if resp, err = http.DefaultClient.Do(req); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || strings.Contains(resp.Header.Get("Content-Type"), "event-stream") {
				t.Fatalf("a query from urql: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}

			// Anonymous: refused, over both transports.
			anon := openSSE(t, s.Server, "", contentSubscription, map[string]any{"space": f.space}, nil)
			if anon.status != http.StatusUnauthorized {
				t.Fatalf("anonymous SSE: %d %s", anon.status, anon.body)
			}
			// A bad token in connection_init closes the connection.
			if _, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer nope"}); websocket.CloseStatus(err) != 4403 {
				t.Fatalf("a WebSocket with an unknown token: %v, want closed with 4403", err)
			}

			ws, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer " + f.stranger.Token})
			if err != nil {
				t.Fatal(err)
			}
			// Another organization's space: NOT_FOUND.
			ws.subscribe("1", contentSubscription, map[string]any{"space": f.space})
			if e := ws.refused(t, "1"); e.Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("wrong tenant: %+v", e)
			}
			// A selection is costed like a query's: a fan-out is refused
			// before it starts, over either transport.
			costly := `subscription($space: ID!) { spaceContentUpdated(spaceId: $space) { space { organization { spaces(first: 1000) { edges { node {
				organization { spaces(first: 1000) { edges { node { organization { spaces(first: 1000) { edges { node { id } } } } } } } } } } } } } } }`
			ws.subscribe("c", costly, map[string]any{"space": f.space})
			if e := ws.refused(t, "c"); e.Extensions["code"] != "QUERY_TOO_COMPLEX" {
				t.Fatalf("costly subscription: %+v", e)
			}
			if x := openSSE(t, s.Server, f.reader.Token, costly, map[string]any{"space": f.space}, nil); x.status != 400 && !strings.Contains(x.body, "QUERY_TOO_COMPLEX") {
				t.Fatalf("costly subscription over SSE: %d %s", x.status, x.body)
			}
			// Organization events: admins only; unknown actions name the field.
			orgEvents := `subscription($org: ID!, $actions: [String!]) { organizationEvents(organizationId: $org, actions: $actions) { id action } }`
			rd, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer " + f.reader.Token})
			if err != nil {
				t.Fatal(err)
			}
			rd.subscribe("2", orgEvents, map[string]any{"org": f.org})
			if e := rd.refused(t, "2"); e.Extensions["code"] != "FORBIDDEN" && e.Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("a reader subscribed to the organization's events: %+v", e)
			}
			ad, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer " + f.admin.Token})
			if err != nil {
				t.Fatal(err)
			}
			ad.subscribe("3", orgEvents, map[string]any{"org": f.org, "actions": []string{"space.exploded"}})
			if e := ad.refused(t, "3"); !strings.Contains(e.Message, "actions") {
				t.Fatalf("unknown action: %+v", e)
			}
			// The admin hears what the filter names, from any area.
			ad.subscribe("4", orgEvents, map[string]any{"org": f.org, "actions": []string{"space.updated"}})
			ad.subscribe("5", orgEvents, map[string]any{"org": f.org})
			waitSubscribers(t, s, 2)
			// A third on the same connection is over the bound.
			ad.subscribe("6", orgEvents, map[string]any{"org": f.org})
			if e := ad.refused(t, "6"); !strings.Contains(e.Message, "FOLIO_SUBSCRIPTIONS_PER_CONNECTION") {
				t.Fatalf("over the bound: %+v", e)
			}
			waitSubscribers(t, s, 2)
			f.newCR(t, "Noise")
			s.Call(t, "updateSpaceById", f.admin.Token, "PATCH", "/v1/spaces/"+f.space, map[string]any{"title": "Renamed"}, 200)
			got := map[string][]string{}
			for len(got["4"])+len(got["5"]) < 3 {
				m := ad.next(t)
				got[m.ID] = append(got[m.ID], m.Payload.Data["organizationEvents"].(map[string]any)["action"].(string))
			}
			if strings.Join(got["4"], ",") != "space.updated" || strings.Join(got["5"], ",") != "change_request.created,space.updated" {
				t.Fatalf("organization events: %v", got)
			}

			// A stream sent with cookies from another site: 403, before
			// anything is read.
			_, r, err := dialWS(t, s.Server, http.Header{"Cookie": {"folio_session=x"}, "Origin": {"https://evil.example"}}, nil)
			if err == nil || r == nil || r.StatusCode != http.StatusForbidden {
				t.Fatalf("cross-origin upgrade with cookies: %v %v", err, r)
			}
			x := openSSE(t, s.Server, f.reader.Token, contentSubscription, map[string]any{"space": f.space},
				http.Header{"Cookie": {"folio_session=x"}, "Origin": {"https://evil.example"}})
			if x.status != http.StatusForbidden {
				t.Fatalf("cross-origin SSE with cookies: %d", x.status)
			}
			// From Folio's own origin it is served.
			if _, _, err := dialWS(t, s.Server, http.Header{"Cookie": {"folio_session=x"}, "Origin": {s.URL}},
				map[string]any{"Authorization": "Bearer " + f.reader.Token}); err != nil {
				t.Fatalf("same-origin upgrade with cookies: %v", err)
			}
		})
	}
}

func TestSubscriptionComments(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastStreams)
			f := newContentFixture(t, s.Server)
			cr := f.newCR(t, "Discuss")
			f.edit(t, cr, insertPage("# Discuss\n\nText.\n", nil))
			ws, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer " + f.reader.Token})
			if err != nil {
				t.Fatal(err)
			}
			ws.subscribe("c", `subscription($space: ID!, $cr: ID) { commentPosted(spaceId: $space, changeRequestId: $cr) {
				eventId action commentId comment { id } replyId reply { id } changeRequest { id } } }`, map[string]any{"space": f.space, "cr": cr})
			waitSubscribers(t, s, 1)
			c := s.Call(t, "postCommentInChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/comments", map[string]any{"body": md("Hmm.")}, 200).JSON(t)["id"].(string)
			rp := s.Call(t, "postCommentReplyInChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/comments/"+c+"/replies", map[string]any{"body": md("Yes.")}, 200).JSON(t)["id"].(string)
			// A comment on the space itself is not this change request's.
			s.Call(t, "postCommentInSpace", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/comments", map[string]any{"body": md("Elsewhere.")}, 200)
			a := ws.next(t).Payload.Data["commentPosted"].(map[string]any)
			if a["action"] != "comment.posted" || a["commentId"] != c || a["comment"].(map[string]any)["id"] != c || a["changeRequest"].(map[string]any)["id"] != cr || a["reply"] != nil {
				t.Fatalf("posted: %v", a)
			}
			b := ws.next(t).Payload.Data["commentPosted"].(map[string]any)
			if b["action"] != "comment_reply.posted" || b["commentId"] != c || b["replyId"] != rp || b["reply"].(map[string]any)["id"] != rp {
				t.Fatalf("reply: %v", b)
			}
			nothingFor(t, ws.msgs, 300*time.Millisecond)
		})
	}
}

func TestSubscriptionStreamsEndAtTheirLifetime(t *testing.T) {
	s := testkit.StartJobs(t, "sqlite", func(c *app.Config) { c.SubscriptionMaxLifetime = time.Second })
	f := newContentFixture(t, s.Server)
	sse := openSSE(t, s.Server, f.reader.Token, contentSubscription, map[string]any{"space": f.space}, nil)
	m := nextOf(t, sse.msgs)
	if len(m.Payload.Errors) != 1 || m.Payload.Errors[0].Extensions["code"] != "STREAM_ENDED" || !strings.Contains(m.Payload.Errors[0].Message, "FOLIO_SUBSCRIPTION_MAX_LIFETIME") {
		t.Fatalf("at the end of its lifetime: %+v", m)
	}
	if m := nextOf(t, sse.msgs); m.Type != "complete" {
		t.Fatalf("after the lifetime's error: %+v", m)
	}
	ws, _, err := dialWS(t, s.Server, nil, map[string]any{"Authorization": "Bearer " + f.reader.Token})
	if err != nil {
		t.Fatal(err)
	}
	ws.subscribe("1", contentSubscription, map[string]any{"space": f.space})
	// The server closes the WebSocket: the client's reads end.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ws.msgs:
			if !ok {
				waitSubscribers(t, s, 0)
				return
			}
		case <-deadline:
			t.Fatal("the WebSocket outlived FOLIO_SUBSCRIPTION_MAX_LIFETIME")
		}
	}
}

func TestSubscriptionsAcrossInstances(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			url := testkit.DatabaseURL(t, kind, t.TempDir())
			a := testkit.StartJobsOn(t, kind, url, fastStreams)
			b := testkit.StartJobsOn(t, kind, url, fastStreams)
			f := newContentFixture(t, a.Server)
			vars := map[string]any{"space": f.space}
			// A subscriber on A over a WebSocket, one on B over SSE.
			ws, _, err := dialWS(t, a.Server, nil, map[string]any{"Authorization": "Bearer " + f.reader.Token})
			if err != nil {
				t.Fatal(err)
			}
			ws.subscribe("1", contentSubscription, vars)
			sse := openSSE(t, b.Server, f.reader.Token, contentSubscription, vars, nil)
			waitSubscribers(t, a, 1)
			waitSubscribers(t, b, 1)
			// A merge through B reaches A's subscriber; one through A
			// reaches B's. Each arrives once.
			merge := func(on *testkit.JobServer, subject string) string {
				cr := on.Call(t, "createChangeRequest", f.editor.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": subject}, 201).JSON(t)["id"].(string)
				on.Call(t, "updateChangeRequestContent", f.editor.Token, "POST", f.crPath(cr)+"/content", map[string]any{"changes": []any{insertPage("# "+subject+"\n\nText.\n", nil)}}, 200)
				return on.Call(t, "mergeChangeRequest", f.editor.Token, "POST", f.crPath(cr)+"/merge", nil, 200).JSON(t)["revision"].(string)
			}
			for _, on := range []*testkit.JobServer{b, a} {
				rev := merge(on, "Via "+on.URL)
				for name, m := range map[string]streamMsg{"websocket on A": ws.next(t), "sse on B": nextOf(t, sse.msgs)} {
					if got := m.Payload.Data["spaceContentUpdated"].(map[string]any)["revision"].(map[string]any)["id"]; got != rev {
						t.Fatalf("%s: revision %v, want %s", name, got, rev)
					}
				}
			}
			nothingFor(t, ws.msgs, 500*time.Millisecond)
			nothingFor(t, sse.msgs, 100*time.Millisecond)
		})
	}
}

// The roles the tests above use exist.
var _ = access.Read
