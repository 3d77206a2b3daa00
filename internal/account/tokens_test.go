package account_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// getUser is GET /v1/user with token: its status.
func getUser(t *testing.T, s *testkit.Server, token string) int {
	t.Helper()
	return s.Request(t, token, "GET", "/v1/user", nil).Status
}

var secretOnPage = regexp.MustCompile(`<code id="secret">([^<]+)</code>`)

// TestAPITokensGraphQL: a user creates, lists and revokes their own tokens;
// the secret is answered once, last use is kept to the minute, an expired
// or revoked token is refused, another user's token is NOT_FOUND.
func TestAPITokensGraphQL(t *testing.T) {
	t.Cleanup(clock.Reset)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, _ := s.NewUser(t, "alice@example.com", "Acme")
		bob, _ := s.NewUser(t, "bob@example.com", "Bobs")
		data := s.MustGraphQL(t, alice.Token, `mutation { createAPIToken(input: {name: "ci"}) { secret token { id name createdAt lastUsedAt expiresAt } } }`, nil)
		res := data["createAPIToken"].(map[string]any)
		secret, tok := res["secret"].(string), res["token"].(map[string]any)
		id := tok["id"].(string)
		if tok["name"] != "ci" || tok["lastUsedAt"] != nil || tok["expiresAt"] != nil || len(secret) < 20 {
			t.Fatalf("created %v", res)
		}
		if strings.Contains(s.Snapshot(t), secret) {
			t.Fatal("the secret is stored")
		}
		if n := s.Client().Event.Query().Where(event.Action("api_token.created"), event.TargetID(id)).CountX(ctx); n != 1 {
			t.Fatalf("%d api_token.created events", n)
		}
		if st := getUser(t, s, secret); st != http.StatusOK {
			t.Fatalf("new token: %d", st)
		}
		first := s.Client().APIToken.GetX(ctx, id).LastUsedAt
		if first == nil {
			t.Fatal("last use not recorded")
		}
		// Within the minute: no touch. After it: touched again.
		getUser(t, s, secret)
		if again := s.Client().APIToken.GetX(ctx, id).LastUsedAt; !again.Equal(*first) {
			t.Fatalf("touched within the minute: %v then %v", first, again)
		}
		clock.Advance(2 * time.Minute)
		getUser(t, s, secret)
		if later := s.Client().APIToken.GetX(ctx, id).LastUsedAt; !later.After(*first) {
			t.Fatalf("not touched after a minute: %v then %v", first, later)
		}
		// The list: the viewer's tokens, never a secret.
		conn := s.MustGraphQL(t, alice.Token, `{ viewer { apiTokens(first: 1) { totalCount pageInfo { hasNextPage } edges { node { id name lastUsedAt } } } } }`, nil)["viewer"].(map[string]any)["apiTokens"].(map[string]any)
		edges := conn["edges"].([]any)
		if conn["totalCount"] != float64(2) || len(edges) != 1 || conn["pageInfo"].(map[string]any)["hasNextPage"] != true {
			t.Fatalf("list %v", conn)
		}
		if n := edges[0].(map[string]any)["node"].(map[string]any); n["id"] != id || n["lastUsedAt"] == nil {
			t.Fatalf("newest %v", n)
		}
		// Bad input names the field.
		for field, input := range map[string]string{
			"name":       `{name: "  "}`,
			"name ":      `{name: "` + strings.Repeat("n", 101) + `"}`,
			"expiresAt":  `{name: "x", expiresAt: "2001-01-01T00:00:00Z"}`,
			"expiresAt ": `{name: "x", expiresAt: "` + clock.Now().Add(400*24*time.Hour).Format(time.RFC3339) + `"}`,
		} {
			_, errs := s.GraphQL(t, alice.Token, `mutation { createAPIToken(input: `+input+`) { secret } }`, nil)
			if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" || errs[0].Extensions["field"] != strings.TrimSpace(field) {
				t.Fatalf("%s: %+v", input, errs)
			}
		}
		// Another user's token is not theirs to see or revoke.
		_, errs := s.GraphQL(t, bob.Token, `mutation($id: ID!) { revokeAPIToken(id: $id) }`, map[string]any{"id": id})
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("bob revokes alice's token: %+v", errs)
		}
		if n, errs := s.GraphQL(t, bob.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id}); n["node"] != nil || len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("bob sees alice's token: %v %+v", n, errs)
		}
		if n := s.MustGraphQL(t, alice.Token, `query($id: ID!) { node(id: $id) { ... on APIToken { name } } }`, map[string]any{"id": id}); n["node"].(map[string]any)["name"] != "ci" {
			t.Fatalf("alice's node: %v", n)
		}
		// An expiring token works until it expires, then is refused.
		exp := clock.Now().Add(time.Hour).Format(time.RFC3339)
		short := s.MustGraphQL(t, alice.Token, `mutation($e: Time) { createAPIToken(input: {name: "short", expiresAt: $e}) { secret token { expiresAt } } }`,
			map[string]any{"e": exp})["createAPIToken"].(map[string]any)["secret"].(string)
		if st := getUser(t, s, short); st != http.StatusOK {
			t.Fatalf("expiring token before expiry: %d", st)
		}
		clock.Advance(2 * time.Hour)
		if st := getUser(t, s, short); st != http.StatusUnauthorized {
			t.Fatalf("expired token: %d", st)
		}
		// Revoked: refused.
		if r := s.MustGraphQL(t, alice.Token, `mutation($id: ID!) { revokeAPIToken(id: $id) }`, map[string]any{"id": id}); r["revokeAPIToken"] != true {
			t.Fatalf("revoke %v", r)
		}
		if st := getUser(t, s, secret); st != http.StatusUnauthorized {
			t.Fatalf("revoked token: %d", st)
		}
		if n := s.Client().Event.Query().Where(event.Action("api_token.revoked"), event.TargetID(id)).CountX(ctx); n != 1 {
			t.Fatalf("%d api_token.revoked events", n)
		}
	})
}

// TestAPITokensPage: the tokens page lists, creates (the secret shown in
// that answer only) and revokes, its forms from Folio's origin only.
func TestAPITokensPage(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		u := newUserWithPassword(t, s, "alice@example.com")
		cookie := sessionCookie(t, signIn(t, s, u.Email, password)).Value

		if a := send(t, s, "GET", "/account/tokens", "", "", "", ""); a.status != http.StatusSeeOther {
			t.Fatalf("signed out: %d", a.status)
		}
		a := send(t, s, "GET", "/account/tokens", cookie, "", "", "")
		if a.status != http.StatusOK || !strings.Contains(a.body, "cli") || strings.Contains(a.body, "<script") {
			t.Fatalf("page: %d %s", a.status, a.body)
		}
		// Another site's form: refused before anything is made.
		before := s.Client().APIToken.Query().CountX(ctx)
		if a := send(t, s, "POST", "/account/tokens", cookie, "https://evil.example", formType, form("name", "evil")); a.status != http.StatusForbidden {
			t.Fatalf("cross-origin: %d", a.status)
		}
		if s.Client().APIToken.Query().CountX(ctx) != before {
			t.Fatal("a cross-origin form made a token")
		}
		// Bad input: the page again, naming the field.
		if a := send(t, s, "POST", "/account/tokens", cookie, s.URL, formType, form("name", "")); a.status != http.StatusBadRequest || !strings.Contains(a.body, "name:") {
			t.Fatalf("empty name: %d %s", a.status, a.body)
		}
		if a := send(t, s, "POST", "/account/tokens", cookie, s.URL, formType, form("name", "x", "expiresDays", "400")); a.status != http.StatusBadRequest || !strings.Contains(a.body, "expiresAt:") {
			t.Fatalf("long expiry: %d %s", a.status, a.body)
		}
		a = send(t, s, "POST", "/account/tokens", cookie, s.URL, formType, form("name", "laptop", "expiresDays", "30"))
		m := secretOnPage.FindStringSubmatch(a.body)
		if a.status != http.StatusCreated || m == nil || a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("create: %d %v %s", a.status, a.header, a.body)
		}
		secret := m[1]
		if st := getUser(t, s, secret); st != http.StatusOK {
			t.Fatalf("page token: %d", st)
		}
		tok := s.Client().APIToken.Query().Where(apitoken.Name("laptop")).OnlyX(ctx)
		if tok.ExpiresAt == nil || tok.ExpiresAt.Sub(clock.Now()) < 29*24*time.Hour {
			t.Fatalf("expiry %v", tok.ExpiresAt)
		}
		a = send(t, s, "GET", "/account/tokens", cookie, "", "", "")
		if strings.Contains(a.body, secret) || !strings.Contains(a.body, "laptop") || !strings.Contains(a.body, tok.LastUsedAt.Format(time.RFC3339)) {
			t.Fatalf("list after: %s", a.body)
		}
		if a := send(t, s, "POST", "/account/tokens/"+tok.ID+"/revoke", cookie, "https://evil.example", formType, ""); a.status != http.StatusForbidden {
			t.Fatalf("cross-origin revoke: %d", a.status)
		}
		if a := send(t, s, "POST", "/account/tokens/"+tok.ID+"/revoke", cookie, s.URL, formType, ""); a.status != http.StatusSeeOther {
			t.Fatalf("revoke: %d %s", a.status, a.body)
		}
		if st := getUser(t, s, secret); st != http.StatusUnauthorized {
			t.Fatalf("revoked: %d", st)
		}
	})
}
