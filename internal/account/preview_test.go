package account_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestSessionPreview: a signed-in member reads an unpublished site at
// /s/…; anyone else, signed in or not, finds nothing there.
func TestSessionPreview(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "frank@example.com", "Frank's")
		if err := s.App.SetPassword(context.Background(), u.Email, password); err != nil {
			t.Fatal(err)
		}
		newUserWithPassword(t, s, "grace@example.com")
		space := s.MustGraphQL(t, u.Token, `mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook"}) { id } }`,
			map[string]any{"org": org})["createSpace"].(map[string]any)["id"].(string)
		s.SeedPages(t, space, 2)
		site := s.MustGraphQL(t, u.Token, `mutation($org: ID!) { createSite(organization: $org, input: {title: "Docs"}) { id } }`,
			map[string]any{"org": org})["createSite"].(map[string]any)["id"].(string)
		s.MustGraphQL(t, u.Token, `mutation($site: ID!, $s: ID!) { addSiteSpace(site: $site, space: $s) { id } }`, map[string]any{"site": site, "s": space})

		if a := send(t, s, "GET", "/s/"+site+"/", "", "", "", ""); a.status != http.StatusNotFound {
			t.Fatalf("anonymous: %d", a.status)
		}
		grace := sessionCookie(t, signIn(t, s, "grace@example.com", password)).Value
		if a := send(t, s, "GET", "/s/"+site+"/", grace, "", "", ""); a.status != http.StatusNotFound {
			t.Fatalf("a stranger: %d", a.status)
		}
		frank := sessionCookie(t, signIn(t, s, u.Email, password)).Value
		a := send(t, s, "GET", "/s/"+site+"/", frank, "", "", "")
		if a.status != 200 || !strings.Contains(a.body, "Page 1") || a.header.Get("Cache-Control") != "private, no-store" ||
			a.header.Get("X-Robots-Tag") != "noindex" {
			t.Fatalf("member preview: %d %v\n%s", a.status, a.header, a.body)
		}
		// Sign-out ends the preview.
		send(t, s, "POST", "/sign-out", frank, s.URL, formType, "")
		if a := send(t, s, "GET", "/s/"+site+"/", frank, "", "", ""); a.status != http.StatusNotFound {
			t.Fatalf("after sign-out: %d", a.status)
		}
	})
}
