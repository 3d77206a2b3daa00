package graph_test

import (
	"context"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestSiteShareKeyActive: the reader's share-key check answers true only for
// the active link's key of that very site, and needs no caller.
func TestSiteShareKeyActive(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "keys@example.com", "Keys")
		newSite := func() string {
			return s.Call(t, "createSite", u.Token, "POST", "/v1/orgs/"+org+"/sites", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		}
		site, other := newSite(), newSite()
		link := s.MustGraphQL(t, u.Token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { id key } }`,
			map[string]any{"site": site})["createSiteShareLink"].(map[string]any)
		key := link["key"].(string)
		ctx := context.Background() // no viewer: the key is the credential
		check := func(name, siteID, k string, want bool) {
			t.Helper()
			got, err := s.App.Resolver.SiteShareKeyActive(ctx, siteID, k)
			if err != nil || got != want {
				t.Errorf("%s: %v %v, want %v", name, got, err, want)
			}
		}
		check("active key", site, key, true)
		check("wrong key", site, key+"x", false)
		check("another site's id", other, key, false)
		check("empty key", site, "", false)
		check("empty site", "", key, false)
		s.MustGraphQL(t, u.Token, `mutation($id: ID!) { updateSiteShareLink(id: $id, active: false) { active } }`, map[string]any{"id": link["id"]})
		check("deactivated", site, key, false)
		s.MustGraphQL(t, u.Token, `mutation($id: ID!) { updateSiteShareLink(id: $id, active: true) { active } }`, map[string]any{"id": link["id"]})
		check("reactivated", site, key, true)
		s.MustGraphQL(t, u.Token, `mutation($id: ID!) { deleteSiteShareLink(id: $id) }`, map[string]any{"id": link["id"]})
		check("deleted", site, key, false)
	})
}
