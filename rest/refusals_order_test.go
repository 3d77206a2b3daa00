package rest_test

import (
	"cmp"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/rest"
)

// writeRoutes calls visit with every POST, PUT and PATCH operation of /v1
// and its path filled from ids.
func writeRoutes(t *testing.T, ids map[string]string, visit func(method, route, path string)) int {
	t.Helper()
	router := chi.NewRouter()
	rest.Routes(router, nil)
	param := regexp.MustCompile(`\{(\w+)\}`)
	walked := 0
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method != "POST" && method != "PUT" && method != "PATCH" {
			return nil
		}
		walked++
		visit(method, route, "/v1"+param.ReplaceAllStringFunc(route, func(m string) string {
			id, ok := ids[m[1:len(m)-1]]
			if !ok {
				t.Errorf("%s %s: no id for %s", method, route, m)
			}
			return id
		}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return walked
}

func (w boundaryWorld) ids() map[string]string {
	return map[string]string{
		"organizationId": w.org, "spaceId": w.space, "collectionId": w.collection,
		"changeRequestId": w.changeRequest, "teamId": w.team, "inviteId": w.invite,
		"translationId": w.translation, "fieldName": w.field, "userId": w.admin.ID,
		"samlProviderId": "nosuchprovider", "commentId": w.comment, "commentReplyId": w.commentReply,
		"siteId": w.site, "siteSectionId": w.siteSection, "siteSectionGroupId": w.siteGroup,
		"siteSpaceId": w.siteSpace, "shareLinkId": w.shareLink, "specSlug": "pets",
		"webhookId": "nosuchwebhook", "deliveryId": "nosuchdelivery", "hostname": "nosuch.example.test",
		"siteRedirectId": "nosuchredirect",
	}
}

// TestCallersWhoMayNotChangeMeetForbiddenBeforeBadBodies: a member who may
// see a site, a space or a collection but may change nothing there gets the
// 403 of their role for a malformed write, not a 400 that reads their body
// first; a guest, who changes nothing of the organization, never gets a 400
// either. Nothing changes.
func TestCallersWhoMayNotChangeMeetForbiddenBeforeBadBodies(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newBoundaryWorld(t, s)
		reader, _ := s.NewUser(t, "reader@acme.com", "")
		s.AddMember(t, w.org, reader, testkit.RoleOf(access.Read))
		guest, _ := s.NewUser(t, "guest@acme.com", "")
		s.AddMember(t, w.org, guest, nil)
		// The reader sees the site and the space: reads answer 200.
		s.Call(t, "getSiteById", reader.Token, "GET", "/v1/orgs/"+w.org+"/sites/"+w.site, nil, 200)
		s.Call(t, "getSpaceById", reader.Token, "GET", "/v1/spaces/"+w.space, nil, 200)

		// Joining through an invite link is open to anyone with the link,
		// anyone may create an organization, and any member may say they
		// were here (ping takes no body); joining by email domain takes no
		// body, and a member who asks keeps their role (204).
		// Resolving a published URL is a read anyone may make (a POST
		// only for its body).
		skip := map[string]bool{"POST /orgs/{organizationId}/invites/{inviteId}": true, "POST /orgs": true,
			"POST /orgs/{organizationId}/ping": true, "POST /orgs/{organizationId}/join": true, "POST /urls/published": true}
		// A space that is not in the trash cannot be restored by anyone.
		want := map[string]int{"POST /spaces/{spaceId}/restore": http.StatusNotFound}
		before := s.Snapshot(t)
		forbidden := 0
		walked := writeRoutes(t, w.ids(), func(method, route, path string) {
			if skip[method+" "+route] {
				return
			}
			changesContent := strings.Contains(route, "{siteId}") || strings.Contains(route, "{spaceId}") || strings.Contains(route, "{collectionId}")
			for _, body := range []string{`{"title": `, `[1]`} {
				resp := s.Request(t, reader.Token, method, path, body)
				if changesContent {
					if code := cmp.Or(want[method+" "+route], http.StatusForbidden); resp.Status != code {
						t.Errorf("reader: %s %s with %s: status %d, want %d\n%s", method, route, body, resp.Status, code, resp.Body)
					}
					forbidden++
				}
				resp = s.Request(t, guest.Token, method, path, body)
				if resp.Status == http.StatusBadRequest || resp.Status < 400 {
					t.Errorf("guest: %s %s with %s: %d, want 403 or 404\n%s", method, route, body, resp.Status, resp.Body)
				}
			}
		})
		if walked < 30 || forbidden < 20 {
			t.Fatalf("walked %d operations, %d refusals to the reader", walked, forbidden)
		}
		s.Unchanged(t, before)

		// Someone who may change the site still hears what is wrong.
		resp := s.Request(t, w.admin.Token, "PATCH", "/v1/orgs/"+w.org+"/sites/"+w.site, `{"title": `)
		if resp.Status != http.StatusBadRequest {
			t.Fatalf("admin: %d %s", resp.Status, resp.Body)
		}
	})
}

// TestOversizeBodiesAreRefusedAfterTheTarget: the global body limit's 413
// reaches only a caller who may change the path's objects: a stranger gets
// the 404 of anything they cannot see, a reader their 403, whether the body
// declares its length or is sent in chunks.
func TestOversizeBodiesAreRefusedAfterTheTarget(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newBoundaryWorld(t, s)
		reader, _ := s.NewUser(t, "reader@acme.com", "")
		s.AddMember(t, w.org, reader, testkit.RoleOf(access.Read))
		big := `{"title":"` + strings.Repeat("a", 9<<20) + `"}`
		site := "/v1/orgs/" + w.org + "/sites/" + w.site
		before := s.Snapshot(t)
		for _, c := range []struct {
			who  testkit.User
			path string
			want int
		}{
			{w.stranger, site, 404},
			{w.stranger, "/v1/spaces/" + w.space, 404},
			{reader, site, 403},
			{reader, "/v1/spaces/" + w.space, 403},
			{w.admin, site, 413},
			{w.admin, "/v1/spaces/" + w.space, 413},
		} {
			for _, chunked := range []bool{false, true} {
				var body io.Reader = strings.NewReader(big)
				if chunked {
					body = io.MultiReader(body) // no length: read up to the limit
				}
				req, err := http.NewRequest("PATCH", s.URL+c.path, body)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+c.who.Token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.want {
					t.Errorf("%s PATCH %s (chunked %v): %d, want %d\n%s", c.who.Email, c.path, chunked, resp.StatusCode, c.want, raw)
				}
				errorOf(t, &testkit.Response{Status: resp.StatusCode, Body: raw})
			}
		}
		s.Unchanged(t, before)
	})
}

// TestEvery401CarriesTheBearerChallenge: whatever refuses a caller for want
// of a token (REST, GraphQL, a batch, a missing or an unknown token) says
// how to authenticate (RFC 6750).
func TestEvery401CarriesTheBearerChallenge(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		for _, c := range []struct{ token, method, path, body string }{
			{"", "GET", "/v1/orgs", ""},
			{"nosuchtoken", "GET", "/v1/orgs", ""},
			{"", "PATCH", "/v1/spaces/x", `{"title":"t"}`},
			{"nosuchtoken", "POST", "/graphql", `{"query":"{ viewer { id } }"}`},
			{"", "POST", "/graphql", `{"query":"mutation { deleteSpace(id: \"x\") }"}`},
		} {
			var body any
			if c.body != "" {
				body = c.body
			}
			resp := s.Request(t, c.token, c.method, c.path, body)
			if resp.Status != http.StatusUnauthorized {
				t.Errorf("%s %s %q: %d, want 401\n%s", c.method, c.path, c.body, resp.Status, resp.Body)
				continue
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer ") {
				t.Errorf("%s %s %q: WWW-Authenticate %q", c.method, c.path, c.body, got)
			}
		}
	})
}
