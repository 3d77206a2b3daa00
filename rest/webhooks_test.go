package rest_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
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

// receiver is a webhook endpoint that checks every signature the Standard
// Webhooks way (written here, apart from internal/webhook) and fails the
// first `fail` requests of each event (fail < 0: all of them).
type receiver struct {
	t      *testing.T
	secret string
	fail   int
	// ready closes once the secret is known: the webhook's own creation
	// event may arrive before createHook has returned it.
	ready chan struct{}

	mu       sync.Mutex
	requests map[string]int // event id → requests
	ok       map[string]int // event id → requests answered 2xx
	types    map[string]string
	badSig   int
}

func newReceiver(t *testing.T, fail int) (*receiver, *httptest.Server) {
	rc := &receiver{t: t, fail: fail, ready: make(chan struct{}), requests: map[string]int{}, ok: map[string]int{}, types: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(srv.Close)
	return rc, srv
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id, ts, sig := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature")
	select {
	case <-rc.ready:
	case <-time.After(10 * time.Second):
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if !rc.verify(id, ts, sig, body) {
		rc.badSig++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var msg struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			Action         string `json:"action"`
			OrganizationID string `json:"organizationId"`
			Actor          struct{ Type string }
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.ID != id || msg.Data.Action != msg.Type || msg.Data.OrganizationID == "" {
		rc.badSig++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.requests[id]++
	rc.types[id] = msg.Type
	if rc.fail < 0 || rc.requests[id] <= rc.fail {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	rc.ok[id]++
	w.WriteHeader(http.StatusNoContent)
}

// verify is the receiver's side of Standard Webhooks: HMAC-SHA256 keyed
// with the base64 after whsec_, over id.timestamp.body, in any v1
// signature of the header; the timestamp within five minutes.
func (rc *receiver) verify(id, ts, header string, body []byte) bool {
	if rc.secret == "" || id == "" {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(rc.secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := mac.Sum(nil)
	for _, s := range strings.Fields(header) {
		v, b64, _ := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if v == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

func (rc *receiver) setSecret(s string) {
	rc.mu.Lock()
	rc.secret = s
	rc.mu.Unlock()
	close(rc.ready)
}

func (rc *receiver) snapshot() (requests, ok map[string]int, types map[string]string, bad int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	cp := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	ty := map[string]string{}
	for k, v := range rc.types {
		ty[k] = v
	}
	return cp(rc.requests), cp(rc.ok), ty, rc.badSig
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fastWebhooks(c *app.Config) {
	c.WebhookBackoff = 20 * time.Millisecond
	c.WebhookMaxAttempts = 5
	c.WebhookTimeout = 5 * time.Second
}

type deliveryList struct {
	Items []struct {
		ID            string  `json:"id"`
		EventID       string  `json:"eventId"`
		Type          string  `json:"type"`
		Status        string  `json:"status"`
		Sequence      int     `json:"sequence"`
		ResponseCode  *int    `json:"responseCode"`
		NextAttemptAt *string `json:"nextAttemptAt"`
		Attempts      []struct {
			Sequence   int    `json:"sequence"`
			StatusCode int    `json:"statusCode"`
			Error      string `json:"error"`
		} `json:"attempts"`
	} `json:"items"`
	Count int `json:"count"`
}

func createHook(t *testing.T, s *testkit.JobServer, token, orgID, url string, evs []string) (id, secret string) {
	t.Helper()
	resp := s.Request(t, token, "POST", "/v1/orgs/"+orgID+"/webhooks", map[string]any{"url": url, "events": evs, "description": "test"})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create webhook: %d %s", resp.Status, resp.Body)
	}
	body := resp.JSON(t)
	return body["id"].(string), body["secret"].(string)
}

func TestWebhooks(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastWebhooks)
			admin, orgID := s.NewUser(t, "admin@hooks.test", "Hooks")
			base := "/v1/orgs/" + orgID + "/webhooks"

			// The secret: whsec_ and at least 24 random bytes, shown once.
			good, goodSrv := newReceiver(t, 0)
			goodID, secret := createHook(t, s, admin.Token, orgID, goodSrv.URL+"/hook", []string{"*"})
			good.setSecret(secret)
			key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
			if !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) < 24 {
				t.Fatalf("secret %q: want whsec_ and base64 of 24+ bytes", secret)
			}
			// Sealed at rest: the column holds sealed text, not the secret.
			var raw string
			if err := s.App.DB.SQL.QueryRow("SELECT secret FROM webhooks").Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(raw, strings.TrimPrefix(secret, "whsec_")) || !strings.HasPrefix(raw, "v1:") {
				t.Fatalf("webhook secret stored as %q", raw)
			}
			got := s.Request(t, admin.Token, "GET", base+"/"+goodID, nil)
			if got.Status != 200 || strings.Contains(string(got.Body), secret) || strings.Contains(string(got.Body), `"secret"`) {
				t.Fatalf("GET shows the secret or fails: %d %s", got.Status, got.Body)
			}
			list := s.Request(t, admin.Token, "GET", base, nil)
			if list.Status != 200 || strings.Contains(string(list.Body), secret) || !strings.Contains(string(list.Body), goodID) {
				t.Fatalf("list: %d %s", list.Status, list.Body)
			}

			// An endpoint that fails three times, then takes the event.
			flaky, flakySrv := newReceiver(t, 3)
			flakyID, flakySecret := createHook(t, s, admin.Token, orgID, flakySrv.URL, []string{"webhook.updated"})
			flaky.setSecret(flakySecret)
			// An endpoint that always fails: dead after the last attempt.
			dead, deadSrv := newReceiver(t, -1)
			deadID, deadSecret := createHook(t, s, admin.Token, orgID, deadSrv.URL, []string{"webhook.updated"})
			dead.setSecret(deadSecret)

			// One change the three see: webhook.updated.
			if r := s.Request(t, admin.Token, "PATCH", base+"/"+goodID, map[string]any{"description": "changed"}); r.Status != 200 {
				t.Fatalf("patch: %d %s", r.Status, r.Body)
			}

			// good sees webhook.created of itself (the first event it
			// receives), of flaky and of dead, and the update.
			eventually(t, "good receiver", func() bool { _, ok, _, _ := good.snapshot(); return len(ok) == 4 })
			eventually(t, "flaky receiver", func() bool { _, ok, _, _ := flaky.snapshot(); return len(ok) == 1 })
			eventually(t, "dead letter", func() bool {
				var l deliveryList
				s.Request(t, admin.Token, "GET", base+"/"+deadID+"/deliveries", nil).Decode(t, &l)
				return len(l.Items) == 1 && l.Items[0].Status == "dead"
			})
			s.Idle(t)
			time.Sleep(100 * time.Millisecond)

			req, ok, types, bad := good.snapshot()
			if bad != 0 {
				t.Fatalf("good receiver saw %d bad signatures", bad)
			}
			for id, n := range req {
				if n != 1 || ok[id] != 1 {
					t.Fatalf("good receiver: event %s (%s) sent %d times", id, types[id], n)
				}
			}
			seen := map[string]int{}
			for _, ty := range types {
				seen[ty]++
			}
			if seen["webhook.created"] != 3 || seen["webhook.updated"] != 1 {
				t.Fatalf("good receiver got %v", seen)
			}
			req, ok, _, bad = flaky.snapshot()
			if bad != 0 || len(req) != 1 {
				t.Fatalf("flaky: %v bad %d", req, bad)
			}
			for id, n := range req {
				if n != 4 || ok[id] != 1 {
					t.Fatalf("flaky receiver: %d requests, %d taken; want 4 and 1", n, ok[id])
				}
			}
			req, _, _, _ = dead.snapshot()
			for _, n := range req {
				if n != 5 {
					t.Fatalf("dead receiver got %d attempts, want 5 (FOLIO_WEBHOOK_MAX_ATTEMPTS)", n)
				}
			}

			// Deliveries list their attempts.
			var l deliveryList
			s.Request(t, admin.Token, "GET", base+"/"+flakyID+"/deliveries", nil).Decode(t, &l)
			if len(l.Items) != 1 || l.Items[0].Status != "succeeded" || len(l.Items[0].Attempts) != 4 ||
				l.Items[0].Attempts[0].StatusCode != 500 || l.Items[0].Attempts[3].StatusCode != 204 ||
				l.Items[0].ResponseCode == nil || *l.Items[0].ResponseCode != 204 || l.Items[0].NextAttemptAt != nil {
				t.Fatalf("flaky deliveries: %+v", l)
			}

			// Redelivery: a new sequence, one more request.
			d := l.Items[0]
			r := s.Request(t, admin.Token, "POST", base+"/"+flakyID+"/deliveries/"+d.ID+"/redeliver", nil)
			if r.Status != http.StatusAccepted {
				t.Fatalf("redeliver: %d %s", r.Status, r.Body)
			}
			eventually(t, "redelivery", func() bool { _, ok, _, _ := flaky.snapshot(); return ok[d.EventID] == 2 })
			s.Idle(t)
			s.Request(t, admin.Token, "GET", base+"/"+flakyID+"/deliveries", nil).Decode(t, &l)
			if l.Items[0].Sequence != 2 || l.Items[0].Status != "succeeded" || len(l.Items[0].Attempts) != 5 {
				t.Fatalf("after redelivery: %+v", l.Items[0])
			}

			// Bad input names the field.
			for _, c := range []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"url": "ftp://example.com/x", "events": []string{"*"}}, "url"},
				{map[string]any{"url": "/relative", "events": []string{"*"}}, "url"},
				{map[string]any{"events": []string{"*"}}, "url"},
				{map[string]any{"url": "https://example.com/x", "events": []string{"no.such.action"}}, "events"},
				{map[string]any{"url": "https://example.com/x", "events": []string{}}, "events"},
				{map[string]any{"url": "https://example.com/x"}, "events"},
			} {
				r := s.Request(t, admin.Token, "POST", base, c.body)
				if r.Status != 400 || !strings.Contains(string(r.Body), c.field) {
					t.Fatalf("%v: %d %s, want 400 naming %s", c.body, r.Status, r.Body, c.field)
				}
			}

			// Wrong role 403, wrong tenant 404.
			editor, _ := s.NewUser(t, "editor@hooks.test", "")
			s.AddMember(t, orgID, editor, testkit.RoleOf(access.Edit))
			stranger, otherOrg := s.NewUser(t, "stranger@hooks.test", "Other")
			for _, p := range []string{base, base + "/" + goodID, base + "/" + goodID + "/deliveries"} {
				if r := s.Request(t, editor.Token, "GET", p, nil); r.Status != 403 {
					t.Fatalf("editor GET %s: %d", p, r.Status)
				}
				if r := s.Request(t, stranger.Token, "GET", p, nil); r.Status != 404 {
					t.Fatalf("stranger GET %s: %d", p, r.Status)
				}
			}
			if r := s.Request(t, editor.Token, "POST", base, map[string]any{"url": "https://example.com", "events": []string{"*"}}); r.Status != 403 {
				t.Fatalf("editor POST: %d", r.Status)
			}
			if r := s.Request(t, stranger.Token, "DELETE", base+"/"+goodID, nil); r.Status != 404 {
				t.Fatalf("stranger DELETE: %d", r.Status)
			}
			// Another organization's admin does not see this one's webhook
			// through their own organization either.
			if r := s.Request(t, stranger.Token, "GET", "/v1/orgs/"+otherOrg+"/webhooks/"+goodID, nil); r.Status != 404 {
				t.Fatalf("webhook through another organization: %d", r.Status)
			}

			// Delete: 204, then 404.
			if r := s.Request(t, admin.Token, "DELETE", base+"/"+deadID, nil); r.Status != 204 {
				t.Fatalf("delete: %d %s", r.Status, r.Body)
			}
			if r := s.Request(t, admin.Token, "GET", base+"/"+deadID, nil); r.Status != 404 {
				t.Fatalf("deleted webhook: %d", r.Status)
			}
		})
	}
}

// TestWebhookPrivateAddress: with private fetch off, a loopback URL is
// refused at registration.
func TestWebhookPrivateAddress(t *testing.T) {
	s := testkit.StartJobs(t, "sqlite", func(c *app.Config) { c.AllowPrivateFetch = false })
	admin, orgID := s.NewUser(t, "admin@private.test", "Private")
	for _, u := range []string{"http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.1.2.3/x", "http://[::1]/x"} {
		r := s.Request(t, admin.Token, "POST", "/v1/orgs/"+orgID+"/webhooks", map[string]any{"url": u, "events": []string{"*"}})
		if r.Status != 400 || !strings.Contains(string(r.Body), "url") || !strings.Contains(string(r.Body), "FOLIO_ALLOW_PRIVATE_FETCH") {
			t.Fatalf("%s: %d %s, want 400 naming url", u, r.Status, r.Body)
		}
	}
}

// TestWebhooksTwoInstances: two servers on one database, both dispatching;
// every event reaches the endpoint once.
func TestWebhooksTwoInstances(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			url := testkit.DatabaseURL(t, kind, t.TempDir())
			a := testkit.StartJobsOn(t, kind, url, fastWebhooks)
			b := testkit.StartJobsOn(t, kind, url, fastWebhooks)
			admin, orgID := a.NewUser(t, "admin@two.test", "Two")
			rc, srv := newReceiver(t, 0)
			id, secret := createHook(t, a, admin.Token, orgID, srv.URL, []string{"*"})
			rc.setSecret(secret)
			for i := range 6 {
				s := a
				if i%2 == 1 {
					s = b
				}
				r := s.Request(t, admin.Token, "PATCH", "/v1/orgs/"+orgID+"/webhooks/"+id, map[string]any{"description": "n" + strconv.Itoa(i)})
				if r.Status != 200 {
					t.Fatalf("patch: %d %s", r.Status, r.Body)
				}
			}
			eventually(t, "seven events", func() bool { _, ok, _, _ := rc.snapshot(); return len(ok) == 7 })
			a.Idle(t)
			time.Sleep(300 * time.Millisecond) // a second fan-out would show by now
			req, _, _, bad := rc.snapshot()
			if bad != 0 || len(req) != 7 {
				t.Fatalf("got %v (bad %d)", req, bad)
			}
			for ev, n := range req {
				if n != 1 {
					t.Fatalf("event %s sent %d times", ev, n)
				}
			}
		})
	}
}

// TestWebhookDisabledAfterFailing: an endpoint failing for longer than
// FOLIO_WEBHOOK_DISABLE_AFTER is turned off, and webhook.disabled is
// recorded (another webhook receives it).
func TestWebhookDisabledAfterFailing(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) {
				fastWebhooks(c)
				c.WebhookDisableAfter = 30 * time.Millisecond
			})
			admin, orgID := s.NewUser(t, "admin@disable.test", "Disable")
			watch, watchSrv := newReceiver(t, 0)
			_, watchSecret := createHook(t, s, admin.Token, orgID, watchSrv.URL, []string{"webhook.disabled"})
			watch.setSecret(watchSecret)
			failing, failSrv := newReceiver(t, -1)
			id, secret := createHook(t, s, admin.Token, orgID, failSrv.URL, []string{"*"})
			failing.setSecret(secret)
			eventually(t, "the webhook disabled", func() bool {
				body := s.Request(t, admin.Token, "GET", "/v1/orgs/"+orgID+"/webhooks/"+id, nil).JSON(t)
				return body["active"] == false && body["disabledAt"] != nil
			})
			eventually(t, "webhook.disabled delivered", func() bool {
				_, ok, types, _ := watch.snapshot()
				for ev := range ok {
					if types[ev] == "webhook.disabled" {
						return true
					}
				}
				return false
			})
		})
	}
}
