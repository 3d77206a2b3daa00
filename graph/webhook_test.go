package graph_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
)

// hookReceiver is a webhook endpoint that verifies every signature the
// Standard Webhooks way (written here, apart from internal/webhook) and
// answers 500 to the first request of each event, 204 to the others.
type hookReceiver struct {
	mu       sync.Mutex
	secret   string
	requests map[string]int // event id → requests with a good signature
	ok       map[string]int // event id → requests answered 2xx
	bad      int
}

func newHookReceiver(t *testing.T) (*hookReceiver, string) {
	rc := &hookReceiver{requests: map[string]int{}, ok: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(srv.Close)
	return rc, srv.URL + "/hook"
}

func (rc *hookReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	id := r.Header.Get("webhook-id")
	if !standardWebhookSignature(rc.secret, id, r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), body) {
		rc.bad++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	rc.requests[id]++
	if rc.requests[id] == 1 {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	rc.ok[id]++
	w.WriteHeader(http.StatusNoContent)
}

func (rc *hookReceiver) taken(eventID string) (ok, bad int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.ok[eventID], rc.bad
}

// standardWebhookSignature: HMAC-SHA256 keyed with the base64 after
// whsec_, over id.timestamp.body, in any v1 signature of the header; the
// timestamp within five minutes.
func standardWebhookSignature(secret, id, ts, header string, body []byte) bool {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if secret == "" || id == "" || err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	for _, s := range strings.Fields(header) {
		v, b64, _ := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if v == "v1" && err == nil && hmac.Equal(got, mac.Sum(nil)) {
			return true
		}
	}
	return false
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const (
	createWebhookOp = `mutation($org: ID!, $in: CreateWebhookInput!) { createWebhook(organizationId: $org, input: $in) {
	secret webhook { id url events description active failingSince disabledAt createdAt updatedAt urls { location } organization { id } } } }`
	updateWebhookOp = `mutation($org: ID!, $id: ID!, $in: UpdateWebhookInput!) { updateWebhook(organizationId: $org, id: $id, input: $in) { id description active updatedAt } }`
	deleteWebhookOp = `mutation($org: ID!, $id: ID!) { deleteWebhook(organizationId: $org, id: $id) }`
	redeliverOp     = `mutation($org: ID!, $hook: ID!, $id: ID!) { redeliverWebhookDelivery(organizationId: $org, webhookId: $hook, id: $id) { id status sequence attemptCount nextAttemptAt } }`
	webhookOp       = `query($org: ID!, $id: ID!) { webhook(organizationId: $org, id: $id) { id url } }`
	webhooksOp      = `query($org: ID!, $first: Int, $after: String, $last: Int, $before: String) { organization(id: $org) {
	webhooks(first: $first, after: $after, last: $last, before: $before) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id url active } } } } }`
	deliveriesOp = `query($org: ID!, $id: ID!, $first: Int) { webhook(organizationId: $org, id: $id) { deliveries(first: $first) { totalCount edges { node {
	id eventId action status sequence attemptCount responseCode lastError nextAttemptAt createdAt updatedAt webhook { id }
	attempts { sequence at statusCode error durationMs } } } } } }`
	nodeOp = `query($id: ID!) { node(id: $id) { __typename id ... on Webhook { url active } ... on WebhookDelivery { status webhook { id } } } }`
)

// TestWebhooksGraphQL: the webhooks of REST's area `webhook` through
// GraphQL, on the same application methods: the secret once, the
// connection and node(id:), changes, deliveries to a receiver that checks
// every signature, redelivery, the admin-only rule, other organizations'
// ids, bad input naming the field, and the events each change records.
func TestWebhooksGraphQL(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) {
				c.WebhookBackoff = 20 * time.Millisecond
				c.WebhookMaxAttempts = 5
				c.WebhookTimeout = 5 * time.Second
			})
			admin, acme := s.NewUser(t, "admin@ghooks.test", "GHooks")
			editor, _ := s.NewUser(t, "editor@ghooks.test", "")
			s.AddMember(t, acme, editor, testkit.RoleOf(access.Edit))
			stranger, other := s.NewUser(t, "stranger@ghooks.test", "Other")
			gql := func(t *testing.T, token, query string, vars map[string]any) map[string]any {
				t.Helper()
				return s.MustGraphQL(t, token, query, vars)
			}
			refused := func(t *testing.T, token, query string, vars map[string]any, code, field string) {
				t.Helper()
				data, errs := s.GraphQL(t, token, query, vars)
				if len(errs) != 1 || errs[0].Extensions["code"] != code || (field != "" && errs[0].Extensions["field"] != field) {
					t.Fatalf("%v: %v %+v, want %s %s", vars, data, errs, code, field)
				}
			}
			recorded := func(t *testing.T, action, target string) int {
				t.Helper()
				n := dig(gql(t, admin.Token, `query($org: ID!, $a: String, $t: String) { organization(id: $org) { auditEvents(action: $a, target: $t) { totalCount } } }`,
					map[string]any{"org": acme, "a": action, "t": target}), "organization", "auditEvents", "totalCount").(float64)
				return int(n)
			}

			rc, url := newHookReceiver(t)
			var hook, idle, secret, delivery, eventID string

			t.Run("create returns the secret once", func(t *testing.T) {
				created := dig(gql(t, admin.Token, createWebhookOp, map[string]any{"org": acme, "in": map[string]any{
					"url": url, "events": []string{"webhook.updated"}, "description": "CI"}}), "createWebhook").(map[string]any)
				secret = created["secret"].(string)
				key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
				if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) < 24 {
					t.Fatalf("secret %q: want whsec_ and base64 of 24+ bytes", secret)
				}
				rc.mu.Lock()
				rc.secret = secret
				rc.mu.Unlock()
				w := created["webhook"].(map[string]any)
				hook = w["id"].(string)
				if w["url"] != url || dig(w, "events", 0) != "webhook.updated" || w["description"] != "CI" || w["active"] != true ||
					w["failingSince"] != nil || w["disabledAt"] != nil || w["createdAt"] == nil ||
					dig(w, "urls", "location") != s.URL+"/v1/orgs/"+acme+"/webhooks/"+hook || dig(w, "organization", "id") != acme {
					t.Fatalf("created: %v", w)
				}
				// A second one, off: it receives nothing.
				idle = dig(gql(t, admin.Token, createWebhookOp, map[string]any{"org": acme, "in": map[string]any{
					"url": url + "/idle", "events": []string{"*"}, "description": "off", "active": false}}), "createWebhook", "webhook", "id").(string)
				// No read shows the secret: Webhook has no such field.
				refused(t, admin.Token, `query($org: ID!, $id: ID!) { webhook(organizationId: $org, id: $id) { secret } }`,
					map[string]any{"org": acme, "id": hook}, "GRAPHQL_VALIDATION_FAILED", "")
				if recorded(t, "webhook.created", hook) != 1 || recorded(t, "webhook.created", idle) != 1 {
					t.Fatal("createWebhook recorded no webhook.created")
				}
			})

			t.Run("list and read", func(t *testing.T) {
				conn := dig(gql(t, admin.Token, webhooksOp, map[string]any{"org": acme, "first": 1}), "organization", "webhooks").(map[string]any)
				if conn["totalCount"] != float64(2) || dig(conn, "edges", 0, "node", "id") != idle || dig(conn, "pageInfo", "hasNextPage") != true {
					t.Fatalf("first page, newest first: %v", conn)
				}
				next := dig(gql(t, admin.Token, webhooksOp, map[string]any{"org": acme, "first": 1, "after": dig(conn, "pageInfo", "endCursor")}),
					"organization", "webhooks").(map[string]any)
				if dig(next, "edges", 0, "node", "id") != hook || dig(next, "pageInfo", "hasNextPage") != false || dig(next, "pageInfo", "hasPreviousPage") != true {
					t.Fatalf("second page: %v", next)
				}
				// Backward: the last one (the oldest), then the one before it.
				last := dig(gql(t, admin.Token, webhooksOp, map[string]any{"org": acme, "last": 1}), "organization", "webhooks").(map[string]any)
				if dig(last, "edges", 0, "node", "id") != hook || dig(last, "pageInfo", "hasPreviousPage") != true || dig(last, "pageInfo", "hasNextPage") != false {
					t.Fatalf("last: %v", last)
				}
				prev := dig(gql(t, admin.Token, webhooksOp, map[string]any{"org": acme, "last": 5, "before": dig(last, "pageInfo", "startCursor")}),
					"organization", "webhooks").(map[string]any)
				if len(prev["edges"].([]any)) != 1 || dig(prev, "edges", 0, "node", "id") != idle || dig(prev, "pageInfo", "hasNextPage") != true ||
					dig(prev, "pageInfo", "hasPreviousPage") != false {
					t.Fatalf("before the last: %v", prev)
				}
				if got := dig(gql(t, admin.Token, webhookOp, map[string]any{"org": acme, "id": hook}), "webhook", "url"); got != url {
					t.Fatalf("webhook(id): %v", got)
				}
				n := dig(gql(t, admin.Token, nodeOp, map[string]any{"id": idle}), "node").(map[string]any)
				if n["__typename"] != "Webhook" || n["id"] != idle || n["active"] != false {
					t.Fatalf("node: %v", n)
				}
			})

			t.Run("update", func(t *testing.T) {
				u := dig(gql(t, admin.Token, updateWebhookOp, map[string]any{"org": acme, "id": hook, "in": map[string]any{"description": "changed"}}),
					"updateWebhook").(map[string]any)
				if u["description"] != "changed" || u["active"] != true {
					t.Fatalf("updated: %v", u)
				}
				// Null clears the description.
				u = dig(gql(t, admin.Token, updateWebhookOp, map[string]any{"org": acme, "id": idle, "in": map[string]any{"description": nil}}),
					"updateWebhook").(map[string]any)
				if u["description"] != "" || u["active"] != false {
					t.Fatalf("description cleared: %v", u)
				}
				if recorded(t, "webhook.updated", hook) != 1 {
					t.Fatal("updateWebhook recorded no webhook.updated")
				}
			})

			t.Run("deliveries", func(t *testing.T) {
				// The two updates above are the events the receiver subscribes
				// to (webhook.updated, of any webhook): each refused once, then
				// taken.
				var edges []any
				waitUntil(t, "the deliveries", func() bool {
					conn := dig(gql(t, admin.Token, deliveriesOp, map[string]any{"org": acme, "id": hook}), "webhook", "deliveries").(map[string]any)
					edges = conn["edges"].([]any)
					return conn["totalCount"] == float64(2) && dig(edges, 0, "node", "status") == "succeeded" && dig(edges, 1, "node", "status") == "succeeded"
				})
				for _, e := range edges {
					d := dig(e, "node").(map[string]any)
					attempts := d["attempts"].([]any)
					if d["action"] != "webhook.updated" || d["sequence"] != float64(1) || d["attemptCount"] != float64(2) || len(attempts) != 2 ||
						dig(attempts, 0, "statusCode") != float64(500) || dig(attempts, 0, "error") == nil ||
						dig(attempts, 1, "statusCode") != float64(204) || dig(attempts, 1, "error") != nil ||
						d["responseCode"] != float64(204) || d["nextAttemptAt"] != nil || d["lastError"] != nil || dig(d, "webhook", "id") != hook {
						t.Fatalf("delivery: %v", d)
					}
					if ok, bad := rc.taken(d["eventId"].(string)); ok != 1 || bad != 0 {
						t.Fatalf("receiver took event %s %d times, %d bad signatures", d["eventId"], ok, bad)
					}
				}
				delivery, eventID = dig(edges, 0, "node", "id").(string), dig(edges, 0, "node", "eventId").(string)
				n := dig(gql(t, admin.Token, nodeOp, map[string]any{"id": delivery}), "node").(map[string]any)
				if n["__typename"] != "WebhookDelivery" || n["status"] != "succeeded" || dig(n, "webhook", "id") != hook {
					t.Fatalf("node: %v", n)
				}
				// The webhook that is off got nothing.
				if c := dig(gql(t, admin.Token, deliveriesOp, map[string]any{"org": acme, "id": idle}), "webhook", "deliveries", "totalCount"); c != float64(0) {
					t.Fatalf("idle webhook's deliveries: %v", c)
				}
			})

			t.Run("redeliver", func(t *testing.T) {
				r := dig(gql(t, admin.Token, redeliverOp, map[string]any{"org": acme, "hook": hook, "id": delivery}), "redeliverWebhookDelivery").(map[string]any)
				if r["id"] != delivery || r["sequence"] != float64(2) || r["attemptCount"] != float64(0) {
					t.Fatalf("redelivered: %v", r)
				}
				waitUntil(t, "the redelivery", func() bool { ok, _ := rc.taken(eventID); return ok == 2 })
				s.Idle(t)
				var d map[string]any
				for _, e := range dig(gql(t, admin.Token, deliveriesOp, map[string]any{"org": acme, "id": hook}), "webhook", "deliveries", "edges").([]any) {
					if dig(e, "node", "id") == delivery {
						d = dig(e, "node").(map[string]any)
					}
				}
				if d["sequence"] != float64(2) || d["status"] != "succeeded" || d["attemptCount"] != float64(1) || len(d["attempts"].([]any)) != 3 ||
					dig(d, "attempts", 2, "sequence") != float64(2) {
					t.Fatalf("after redelivery: %v", d)
				}
				if _, bad := rc.taken(eventID); bad != 0 {
					t.Fatalf("%d bad signatures", bad)
				}
			})

			t.Run("wrong role", func(t *testing.T) {
				vars := map[string]any{"org": acme, "id": hook}
				refused(t, editor.Token, webhooksOp, map[string]any{"org": acme}, "FORBIDDEN", "")
				refused(t, editor.Token, webhookOp, vars, "FORBIDDEN", "")
				refused(t, editor.Token, createWebhookOp, map[string]any{"org": acme, "in": map[string]any{"url": url, "events": []string{"*"}}}, "FORBIDDEN", "")
				refused(t, editor.Token, updateWebhookOp, map[string]any{"org": acme, "id": hook, "in": map[string]any{"active": false}}, "FORBIDDEN", "")
				refused(t, editor.Token, deleteWebhookOp, vars, "FORBIDDEN", "")
				refused(t, editor.Token, redeliverOp, map[string]any{"org": acme, "hook": hook, "id": delivery}, "FORBIDDEN", "")
				// node(id:) answers a caller who may not read as it answers an unknown id.
				refused(t, editor.Token, nodeOp, map[string]any{"id": hook}, "NOT_FOUND", "")
				refused(t, editor.Token, nodeOp, map[string]any{"id": delivery}, "NOT_FOUND", "")
			})

			t.Run("wrong tenant", func(t *testing.T) {
				// An admin of another organization: not through it, not
				// through this one, not by node(id:).
				for _, org := range []string{other, acme} {
					refused(t, stranger.Token, webhookOp, map[string]any{"org": org, "id": hook}, "NOT_FOUND", "")
					refused(t, stranger.Token, updateWebhookOp, map[string]any{"org": org, "id": hook, "in": map[string]any{"description": "mine"}}, "NOT_FOUND", "")
					refused(t, stranger.Token, deleteWebhookOp, map[string]any{"org": org, "id": hook}, "NOT_FOUND", "")
					refused(t, stranger.Token, redeliverOp, map[string]any{"org": org, "hook": hook, "id": delivery}, "NOT_FOUND", "")
				}
				refused(t, stranger.Token, webhooksOp, map[string]any{"org": acme}, "NOT_FOUND", "")
				refused(t, stranger.Token, nodeOp, map[string]any{"id": hook}, "NOT_FOUND", "")
				refused(t, stranger.Token, nodeOp, map[string]any{"id": delivery}, "NOT_FOUND", "")
				// A delivery under another webhook of the same organization.
				refused(t, admin.Token, redeliverOp, map[string]any{"org": acme, "hook": idle, "id": delivery}, "NOT_FOUND", "")
				if got := dig(gql(t, admin.Token, webhookOp, map[string]any{"org": acme, "id": hook}), "webhook", "url"); got != url {
					t.Fatalf("changed by a stranger: %v", got)
				}
			})

			t.Run("bad input names the field", func(t *testing.T) {
				create := func(in map[string]any) map[string]any { return map[string]any{"org": acme, "in": in} }
				update := func(in map[string]any) map[string]any { return map[string]any{"org": acme, "id": hook, "in": in} }
				for _, c := range []struct {
					query string
					vars  map[string]any
					field string
				}{
					{createWebhookOp, create(map[string]any{"url": "ftp://example.com/x", "events": []string{"*"}}), "url"},
					{createWebhookOp, create(map[string]any{"url": "/relative", "events": []string{"*"}}), "url"},
					{createWebhookOp, create(map[string]any{"url": url, "events": []string{}}), "events"},
					{createWebhookOp, create(map[string]any{"url": url, "events": []string{"no.such.action"}}), "events"},
					{createWebhookOp, create(map[string]any{"url": url, "events": []string{"*", "webhook.updated"}}), "events"},
					{createWebhookOp, create(map[string]any{"url": url, "events": []string{"*"}, "description": strings.Repeat("x", 501)}), "description"},
					{updateWebhookOp, update(map[string]any{"url": nil}), "url"},
					{updateWebhookOp, update(map[string]any{"events": nil}), "events"},
					{updateWebhookOp, update(map[string]any{"active": nil}), "active"},
					{updateWebhookOp, update(map[string]any{"url": "not a url"}), "url"},
					{webhooksOp, map[string]any{"org": acme, "first": 0}, "first"},
					{webhooksOp, map[string]any{"org": acme, "first": 1, "last": 1}, "last"},
					{webhooksOp, map[string]any{"org": acme, "before": "not-a-cursor"}, "before"},
				} {
					refused(t, admin.Token, c.query, c.vars, "BAD_USER_INPUT", c.field)
				}
				if n := dig(gql(t, admin.Token, webhooksOp, map[string]any{"org": acme}), "organization", "webhooks", "totalCount"); n != float64(2) {
					t.Fatalf("refused creations created: %v", n)
				}
			})

			t.Run("delete", func(t *testing.T) {
				if done := dig(gql(t, admin.Token, deleteWebhookOp, map[string]any{"org": acme, "id": hook}), "deleteWebhook"); done != true {
					t.Fatalf("deleteWebhook: %v", done)
				}
				refused(t, admin.Token, webhookOp, map[string]any{"org": acme, "id": hook}, "NOT_FOUND", "")
				refused(t, admin.Token, nodeOp, map[string]any{"id": delivery}, "NOT_FOUND", "")
				if recorded(t, "webhook.deleted", hook) != 1 {
					t.Fatal("deleteWebhook recorded no webhook.deleted")
				}
				// A redelivery is a record of sending: it records nothing.
				if recorded(t, "", delivery) != 0 {
					t.Fatal("redelivery recorded an event")
				}
			})
		})
	}
}

// TestWebhookGraphQLPrivateAddress: with private fetch off, createWebhook
// refuses a loopback URL naming url, as REST does.
func TestWebhookGraphQLPrivateAddress(t *testing.T) {
	s := testkit.StartJobs(t, "sqlite", func(c *app.Config) { c.AllowPrivateFetch = false })
	admin, org := s.NewUser(t, "admin@private.test", "Private")
	_, errs := s.GraphQL(t, admin.Token, createWebhookOp, map[string]any{"org": org, "in": map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"*"}}})
	if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || errs[0].Extensions["field"] != "url" ||
		!strings.Contains(errs[0].Message, "FOLIO_ALLOW_PRIVATE_FETCH") {
		t.Fatalf("private address: %+v", errs)
	}
}
