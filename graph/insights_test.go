package graph_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/testkit"
)

// siteSearchTitles are the page titles of a Site.search answer.
func siteSearchTitles(site any) string {
	var out []string
	for _, e := range dig(site, "search", "edges").([]any) {
		for _, p := range dig(e, "node", "pages").([]any) {
			out = append(out, dig(p, "title").(string))
		}
	}
	return strings.Join(out, ",")
}

// Site.search as the site's audience reads it: site spaces and sections
// hidden by their conditions are not searched, hidden pages never found;
// the visitor's claims show them. Members search every site space.
func TestSiteSearchUnderVisitorClaims(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newPublishedDocs(t, s)
		const q = `query($id: ID!, $q: String!, $tok: String, $u: Any) { publishedSite(id: $id, visitorToken: $tok, unsignedClaims: $u) {
			search(query: $q) { totalCount edges { node { title pages { title url sections { url } } } } } } }`
		anon, body := d.anonymous(t, q, map[string]any{"id": d.site, "q": "pro plans"})
		if len(anon.Errors) > 0 || siteSearchTitles(dig(anon.Data, "publishedSite")) != "" {
			t.Fatalf("anonymous visitor found conditioned pages: %s", body)
		}
		pro, body := d.anonymous(t, q, map[string]any{"id": d.site, "q": "pro plans", "tok": d.token(t, d.key, map[string]any{"plan": "pro"})})
		if got := siteSearchTitles(dig(pro.Data, "publishedSite")); got != "Pro guide,Pro features" && got != "Pro features,Pro guide" {
			t.Fatalf("pro visitor: %s", body)
		}
		beta, _ := d.anonymous(t, q, map[string]any{"id": d.site, "q": "testers", "u": map[string]any{"isBeta": true}})
		if got := siteSearchTitles(dig(beta.Data, "publishedSite")); got != "Beta notes" {
			t.Fatalf("beta visitor: %v", beta)
		}
		if hidden, body := d.anonymous(t, q, map[string]any{"id": d.site, "q": "hiddenword"}); siteSearchTitles(dig(hidden.Data, "publishedSite")) != "" {
			t.Fatalf("hidden page found: %s", body)
		}
		// A member sees every site space.
		member := s.MustGraphQL(t, d.alice.Token, `query($id: ID!) { site(id: $id) { search(query: "pro plans") { totalCount } } }`, map[string]any{"id": d.site})
		if dig(member, "site", "search", "totalCount") != 2.0 {
			t.Fatalf("member: %v", member)
		}
	})
}

// A site-scoped token (graph.WithSiteScope: what the token's middleware
// puts in the request) searches as its visitor and tracks events of its
// own site only, with its visitor's claims; insights stay the members'.
func TestSiteScopeSearchAndTrack(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newPublishedDocs(t, s)
		res := s.App.Resolver
		scoped := func(siteID string, claims map[string]any) context.Context {
			return graph.WithSiteScope(res.ReaderContext(context.Background()), &graph.SiteScope{OrganizationID: d.org, SiteID: siteID, Claims: claims})
		}
		args, _ := paging.New(nil, nil, nil, paging.RESTNames)
		titles := func(ctx context.Context) string {
			page, err := res.SearchSite(ctx, d.org, d.site, "pro plans", nil, args)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, sp := range page.Items {
				for _, p := range sp.Pages {
					out = append(out, p.Title)
				}
			}
			return strings.Join(out, ",")
		}
		if got := titles(scoped(d.site, map[string]any{"unsigned": map[string]any{}})); got != "" {
			t.Fatalf("anonymous scope: %s", got)
		}
		if got := titles(scoped(d.site, map[string]any{"plan": "pro", "unsigned": map[string]any{}})); got != "Pro guide,Pro features" && got != "Pro features,Pro guide" {
			t.Fatalf("pro scope: %s", got)
		}
		_, err := res.SearchSite(scoped("other", nil), d.org, d.site, "pro", nil, args)
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.NotFound {
			t.Fatalf("another site's scope: %v", err)
		}

		ev, _ := json.Marshal(map[string]any{"type": "page_view", "session": map[string]any{"visitorId": "v", "sessionId": "s",
			"visitorAuthClaims": map[string]any{"plan": "free"}}, "location": map[string]any{"url": s.URL + "/s/docs/"}})
		if err := res.TrackEventsInSite(scoped("other", nil), d.org, d.site, []json.RawMessage{ev}); !isKind(err, apperr.NotFound) {
			t.Fatalf("tracking with another site's scope: %v", err)
		}
		if err := res.TrackEventsInSite(scoped(d.site, map[string]any{"plan": "pro", "unsigned": map[string]any{}}), d.org, d.site, []json.RawMessage{ev}); err != nil {
			t.Fatal(err)
		}
		if _, err := res.SiteVisitorSegments(scoped(d.site, nil), d.org, d.site); !isKind(err, apperr.NotFound) {
			t.Fatalf("a visitor read segments: %v", err)
		}
		// The scope's claims count, not the tracker's.
		segs := s.MustGraphQL(t, d.alice.Token, `query($id: ID!) { site(id: $id) { visitorSegments { title events }
			insights(query: {range: "last24Hours", groupBy: [{column: "visitorAuthenticated"}]}) { columns { column values } } } }`, map[string]any{"id": d.site})
		if got := dig(segs, "site", "visitorSegments", 0, "title"); got != "plan=pro" {
			t.Fatalf("segments: %v", segs)
		}
		if got := dig(segs, "site", "insights", "columns", 0, "values", 0); got != true {
			t.Fatalf("insights: %v", segs)
		}
		// trackSiteEvents in GraphQL: the same checks.
		_, errs := s.GraphQL(t, d.alice.Token, `mutation($s: ID!) { trackSiteEvents(site: $s, events: [{type: "nope"}]) }`, map[string]any{"s": d.site})
		if len(errs) != 1 || !strings.Contains(errs[0].Message, "events[0].type") {
			t.Fatalf("bad event in GraphQL: %v", errs)
		}
	})
}

func isKind(err error, k apperr.Kind) bool {
	e, ok := apperr.As(err)
	return ok && e.Kind == k
}
