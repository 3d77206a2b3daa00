package graph_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestPublishedSiteSignedInStrangers: the published view of a signed-in
// caller who is not a member who can see the site — a user of another
// organization, a guest of the site's organization (a member without a
// role) — is the audience's view, exactly as for an anonymous visitor:
// sections, groups and site spaces hidden by conditions are absent from
// every list and 404 when addressed, no condition text, and the
// organization's title only to those who may see the organization (the
// guest, whom GET /v1/orgs/{id} answers; never the stranger). Over REST
// (the published content site and the share-key lists) and GraphQL.
func TestPublishedSiteSignedInStrangers(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newPublishedDocs(t, s)
		// A group whose only section is hidden by its condition is hidden.
		s.MustGraphQL(t, d.alice.Token, `mutation($site: ID!, $s: [ID!]) { addSiteSectionGroup(site: $site, title: "Testers corner", sections: $s) { id } }`,
			map[string]any{"site": d.site, "s": []any{d.betaSection}})
		stranger, _ := s.NewUser(t, "bob@other.com", "Other")
		guest, _ := s.NewUser(t, "gina@guest.org", "")
		s.AddMember(t, d.org, guest, nil)
		hidden := append(hiddenWords, "Testers corner", d.betaSection, d.proSite)

		callers := []struct {
			name     string
			token    string
			seesOrg  bool
			restOpen bool
		}{
			{"stranger", stranger.Token, false, true},
			{"guest", guest.Token, true, true},
			{"anonymous", "", false, false},
		}
		const view = `query($id: ID!) { publishedSite(id: $id) {
			title siteSpaceCount
			sections { id title condition path sectionGroup { title } siteSpaces { id title condition section { title condition }
				space { title } site { sections { title condition } } } }
			sectionGroups { title sections { title condition } }
			siteSpaces { title condition }
			beta: page(path: "beta") { url }
			pro: page(path: "guide/guide-pro") { url }
		} }`
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				data, errs := s.GraphQL(t, c.token, view, map[string]any{"id": d.site})
				if len(errs) != 0 {
					t.Fatalf("errors: %v", errs)
				}
				site := data["publishedSite"]
				if got := sectionTitles(site); got != "Guide,API" {
					t.Errorf("sections: %s", got)
				}
				if n := len(dig(site, "sectionGroups").([]any)); n != 0 || dig(site, "siteSpaceCount") != float64(3) {
					t.Errorf("groups %d, site spaces %v", n, dig(site, "siteSpaceCount"))
				}
				if dig(site, "beta") != nil || dig(site, "pro") != nil {
					t.Errorf("pages of hidden sections: %v %v", dig(site, "beta"), dig(site, "pro"))
				}
				all := fmt.Sprint(data)
				for _, w := range hidden {
					if strings.Contains(all, w) {
						t.Errorf("GraphQL shows %q: %s", w, all)
					}
				}

				// Addressed directly, hidden sections and site spaces do not exist.
				data, errs = s.GraphQL(t, c.token, `query($h: ID!, $p: ID!) {
					h: node(id: $h) { id ... on SiteSection { title condition } }
					p: node(id: $p) { id ... on SiteSpace { title condition } } }`, map[string]any{"h": d.betaSection, "p": d.proSite})
				if data["h"] != nil || data["p"] != nil || len(errs) != 2 {
					t.Errorf("hidden nodes: %v %v", data, errs)
				}
				for _, e := range errs {
					if e.Extensions["code"] != "NOT_FOUND" {
						t.Errorf("hidden node: %+v", e)
					}
				}

				// The organization: only to those who may see it.
				data, errs = s.GraphQL(t, c.token, `query($id: ID!) { publishedSite(id: $id) { organization { title }
					sections { siteSpaces { space { organization { title } } } } } }`, map[string]any{"id": d.site})
				org := strings.Contains(fmt.Sprint(data), "Acme]")
				if org != c.seesOrg {
					t.Errorf("organization shown: %v, want %v: %v %v", org, c.seesOrg, data, errs)
				}
				if dig(data, "publishedSite", "organization") != nil {
					t.Errorf("the site's organization: %v", data)
				}
				if c.token != "" {
					want := 404
					if c.seesOrg {
						want = 200
					}
					if got := s.Request(t, c.token, "GET", "/v1/orgs/"+d.org, nil).Status; got != want {
						t.Errorf("GET /v1/orgs/{id}: %d, want %d", got, want)
					}
				}

				if !c.restOpen {
					return
				}
				base := "/v1/orgs/" + d.org + "/sites/" + d.site
				for _, p := range []string{"/published", "/sections?shareKey=x", "/site-spaces?shareKey=x"} {
					r := s.Request(t, c.token, "GET", base+p, nil)
					if r.Status != 200 {
						t.Errorf("%s: %d %s", p, r.Status, r.Body)
						continue
					}
					body := string(r.Body)
					for _, w := range append(hidden, `"condition"`, `"Acme"`) {
						if strings.Contains(body, w) {
							t.Errorf("REST %s shows %q: %s", p, w, body)
						}
					}
					if !strings.Contains(body, `"API"`) {
						t.Errorf("REST %s: no shown section: %s", p, body)
					}
				}
			})
		}
	})
}
