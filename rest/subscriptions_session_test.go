package rest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/folio/folio/internal/testkit"
)

// TestSubscriptionWithSessionCookie: a browser's WebSocket carries only the
// session cookie and Folio's own Origin, and receives a merge; the same
// cookie from another Origin is refused (403) before the upgrade.
func TestSubscriptionWithSessionCookie(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, fastStreams)
			f := newContentFixture(t, s.Server)
			const pw = "correct horse battery"
			if err := s.App.SetPassword(context.Background(), f.reader.Email, pw); err != nil {
				t.Fatal(err)
			}
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			req, _ := http.NewRequest("POST", s.URL+"/sign-in", strings.NewReader(url.Values{"email": {f.reader.Email}, "password": {pw}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", s.URL)
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var cookie *http.Cookie
			for _, c := range resp.Cookies() {
				if strings.HasSuffix(c.Name, "folio_session") {
					cookie = c
				}
			}
			if resp.StatusCode != http.StatusSeeOther || cookie == nil {
				t.Fatalf("sign-in: %d %v", resp.StatusCode, resp.Header)
			}
			session := cookie.Name + "=" + cookie.Value

			if _, r, err := dialWS(t, s.Server, http.Header{"Cookie": {session}, "Origin": {"https://evil.example"}}, nil); err == nil || r == nil || r.StatusCode != http.StatusForbidden {
				t.Fatalf("cross-origin upgrade with the session: %v %v", err, r)
			}
			ws, _, err := dialWS(t, s.Server, http.Header{"Cookie": {session}, "Origin": {s.URL}}, nil)
			if err != nil {
				t.Fatalf("same-origin upgrade with the session: %v", err)
			}
			ws.subscribe("1", contentSubscription, map[string]any{"space": f.space})
			waitSubscribers(t, s, 1)
			cr := f.newCR(t, "First")
			f.edit(t, cr, insertPage("# First\n\nHello.\n", nil))
			rev := f.merge(t, cr, 200)["revision"].(string)
			m := ws.next(t)
			if m.Type != "next" || len(m.Payload.Errors) > 0 {
				t.Fatalf("%+v", m)
			}
			if ev := m.Payload.Data["spaceContentUpdated"].(map[string]any); ev["revision"].(map[string]any)["id"] != rev {
				t.Fatalf("%v", ev)
			}
			ws.conn.Close(websocket.StatusNormalClosure, "")
		})
	}
}
