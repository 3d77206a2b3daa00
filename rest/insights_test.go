package rest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// insightsWorld is memberWorld (alice admin, carol read, gina guest of
// Acme; bob of Bobs) with a published site of Acme, basename
// insights-docs: sections Guide (space Guide: Install, a hidden page
// Secret, Linux under Install) and API (space API: Zebra API).
type insightsWorld struct {
	memberWorld
	s                      *testkit.Server
	site, base             string
	guide, api             string // spaces
	guideSS, apiSS         string // site spaces
	guideSection           string
	installPage, linuxPage string
}

func newInsightsWorld(t *testing.T, s *testkit.Server) *insightsWorld {
	t.Helper()
	w := &insightsWorld{memberWorld: newMemberWorld(t, s), s: s}
	space := func(title string, pages ...map[string]any) string {
		id := s.MustGraphQL(t, w.alice.Token, `mutation($o: ID!, $t: String!) { createSpace(organizationId: $o, input: {title: $t, editMode: live}) { id } }`,
			map[string]any{"o": w.acme, "t": title})["createSpace"].(map[string]any)["id"].(string)
		changes := make([]any, len(pages))
		for i, p := range pages {
			p["operation"] = "insert_page"
			changes[i] = p
		}
		s.MustGraphQL(t, w.alice.Token, `mutation($s: ID!, $c: [ContentChangeInput!]!) { updateSpaceContent(spaceId: $s, changes: $c) { revision { id } } }`,
			map[string]any{"s": id, "c": changes})
		return id
	}
	secret := map[string]any{"title": "Secret", "slug": "secret", "markdown": "# Secret\n\nThe zebra hides here.\n", "hidden": true}
	w.guide = space("Guide",
		map[string]any{"title": "Install", "slug": "install", "ref": "install", "markdown": "# Install\n\nUse the zebra installer.\n\n## Zebra steps\n\nRun it.\n"},
		map[string]any{"title": "Linux", "slug": "linux", "into": "install", "markdown": "# Linux\n\nOn Linux too.\n"},
		secret)
	w.api = space("API", map[string]any{"title": "Zebra API", "slug": "zebra-api", "markdown": "# Zebra API\n\nZebra endpoints.\n"})
	sites := "/v1/orgs/" + w.acme + "/sites"
	w.site = s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
	w.base = sites + "/" + w.site
	w.guideSection = s.Call(t, "addSectionToSite", w.alice.Token, "POST", w.base+"/sections", map[string]any{"spaceId": w.guide, "title": "Guide"}, 201).JSON(t)["id"].(string)
	s.Call(t, "addSectionToSite", w.alice.Token, "POST", w.base+"/sections", map[string]any{"spaceId": w.api, "title": "API"}, 201)
	var list struct{ Items []map[string]any }
	s.Call(t, "listSiteSpaces", w.alice.Token, "GET", w.base+"/site-spaces", nil, 200).Decode(t, &list)
	for _, ss := range list.Items {
		switch ss["space"].(map[string]any)["id"] {
		case w.guide:
			w.guideSS = ss["id"].(string)
		case w.api:
			w.apiSS = ss["id"].(string)
		}
	}
	s.Call(t, "updateSiteById", w.alice.Token, "PATCH", w.base, map[string]any{"basename": "insights-docs"}, 200)
	s.Call(t, "publishSite", w.alice.Token, "POST", w.base+"/publish", nil, 200)
	var pages struct{ Pages []map[string]any }
	s.Call(t, "listPages", w.alice.Token, "GET", "/v1/spaces/"+w.guide+"/content/pages", nil, 200).Decode(t, &pages)
	for _, p := range pages.Pages {
		if p["title"] == "Install" {
			w.installPage = p["id"].(string)
			w.linuxPage = p["pages"].([]any)[0].(map[string]any)["id"].(string)
		}
	}
	return w
}

// event is a SiteInsightsEvent of the site's Install page.
func (w *insightsWorld) event(typ, visitor string, extra map[string]any) map[string]any {
	e := map[string]any{
		"type": typ,
		"session": map[string]any{"visitorId": visitor, "sessionId": "s-" + visitor, "cookies": map[string]any{}, "userAgent": "test",
			"language": "en", "referrer": nil},
		"location": map[string]any{"url": w.s.URL + "/s/insights-docs/install?utm_source=news&shareKey=secret", "siteSection": w.guideSection,
			"siteSpace": w.guideSS, "siteShareKey": nil, "space": w.guide, "revision": nil, "page": w.installPage},
	}
	for k, v := range extra {
		e[k] = v
	}
	return e
}

func (w *insightsWorld) track(t *testing.T, token string, events []any, status int) string {
	t.Helper()
	if status == 204 {
		w.s.Call(t, "trackEventsInSiteById", token, "POST", w.base+"/insights/events", map[string]any{"events": events}, 204)
		return ""
	}
	return w.s.Fail(t, "trackEventsInSiteById", token, "POST", w.base+"/insights/events", map[string]any{"events": events}, status)
}

// aggregate answers the columns of an aggregation by name.
func (w *insightsWorld) aggregate(t *testing.T, token string, q map[string]any) map[string][]any {
	t.Helper()
	if q["range"] == nil {
		q["range"] = "last24Hours"
	}
	var res struct {
		Columns []struct {
			Column string
			Values []any
		}
	}
	w.s.Call(t, "aggregateSiteEvents", token, "POST", w.base+"/insights/events/aggregate", q, 200).Decode(t, &res)
	out := map[string][]any{}
	for _, c := range res.Columns {
		out[c.Column] = c.Values
	}
	return out
}

func col(name string, more ...any) map[string]any {
	c := map[string]any{"column": name}
	for i := 0; i+1 < len(more); i += 2 {
		c[more[i].(string)] = more[i+1]
	}
	return c
}

// byKey zips a grouped column with a count column.
func byKey(cols map[string][]any, key, count string) map[string]float64 {
	out := map[string]float64{}
	for i, k := range cols[key] {
		out[fmt.Sprint(k)] = cols[count][i].(float64)
	}
	return out
}

// A batch is stored whole and read back through aggregates: counts by
// type, distinct visitors and sessions, by page, by day, ratings,
// referrers and campaigns (query strings, share keys among them, are not
// kept).
func TestSiteInsightsTrackAndAggregate(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newInsightsWorld(t, s)
		ref := w.event("page_view", "v2", nil)
		ref["session"].(map[string]any)["referrer"] = "https://example.com/blog?id=7"
		w.track(t, w.alice.Token, []any{
			w.event("page_view", "v1", nil), ref,
			w.event("search_type_query", "v1", map[string]any{"query": "zebra"}),
			w.event("page_post_feedback", "v1", map[string]any{"feedback": map[string]any{"rating": "good"}}),
			w.event("link_click", "v1", map[string]any{"link": map[string]any{"target": map[string]any{"kind": "url", "url": "https://github.com/x?y=1"}, "position": "content"}}),
		}, 204)

		got := w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("eventType")},
			"select": []any{col("eventsCount"), col("visitorsCount"), col("sessionsCount")}})
		if c := byKey(got, "eventType", "eventsCount"); c["page_view"] != 2 || c["search_type_query"] != 1 || c["page_post_feedback"] != 1 || c["link_click"] != 1 || len(c) != 4 {
			t.Fatalf("events by type: %v", got)
		}
		if v := byKey(got, "eventType", "visitorsCount"); v["page_view"] != 2 || v["search_type_query"] != 1 {
			t.Fatalf("visitors by type: %v", got)
		}
		// Biggest group first (no order given).
		if got["eventType"][0] != "page_view" {
			t.Fatalf("order: %v", got["eventType"])
		}
		// Totals: no groupBy.
		if got := w.aggregate(t, w.alice.Token, map[string]any{"select": []any{col("eventsCount"), col("visitorsCount"), col("sessionsCount"), col("pageFeedbackRating")}}); fmt.Sprint(got["eventsCount"], got["visitorsCount"], got["sessionsCount"]) != "[5] [2] [2]" ||
			fmt.Sprint(got["pageFeedbackRating"]) != "[map[bad:0 good:1 ok:0]]" {
			t.Fatalf("totals: %v", got)
		}
		// Page views by page and by day.
		got = w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("page"), col("datetime", "interval", "day")},
			"where": []any{map[string]any{"column": "eventType", "values": []any{"page_view"}}}})
		day := time.Now().UTC().Format("2006-01-02") + "T00:00:00Z"
		if len(got["page"]) != 1 || fmt.Sprint(got["page"][0]) != fmt.Sprintf("map[page:%s space:%s]", w.installPage, w.guide) ||
			got["datetime"][0] != day || got["eventsCount"][0] != 2.0 {
			t.Fatalf("page views by page and day (%s): %v", day, got)
		}
		// Referrers without their query strings; campaigns from the URL; URLs
		// without the share key.
		got = w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("referrer"), col("referrerDomain"), col("utmSource"), col("url")},
			"where": []any{map[string]any{"column": "eventType", "values": []any{"page_view"}}}})
		if fmt.Sprint(got["referrer"]) != "[ https://example.com/blog]" || fmt.Sprint(got["referrerDomain"]) != "[ example.com]" ||
			fmt.Sprint(got["utmSource"]) != "[news news]" || got["url"][0] != s.URL+"/s/insights-docs/install" {
			t.Fatalf("referrers: %v", got)
		}
		// Searches, link targets, a filter leaving events out.
		got = w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("eventSearchQuery")}})
		if fmt.Sprint(got["eventSearchQuery"], got["eventsCount"]) != "[zebra] [1]" {
			t.Fatalf("searches: %v", got)
		}
		got = w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("eventLinkTargetValue"), col("eventLinkTargetDomain"), col("eventLinkPosition")}})
		if fmt.Sprint(got["eventLinkTargetValue"], got["eventLinkTargetDomain"], got["eventLinkPosition"]) != "[map[kind:url url:https://github.com/x]] [github.com] [content]" {
			t.Fatalf("links: %v", got)
		}
		got = w.aggregate(t, w.alice.Token, map[string]any{"where": []any{map[string]any{"column": "eventType", "operator": "notIn", "values": []any{"page_view", "link_click"}}}})
		if fmt.Sprint(got["eventsCount"]) != "[2]" {
			t.Fatalf("notIn: %v", got)
		}
		// A range that ended before the events: nothing.
		past := map[string]any{"from": time.Now().Add(-48 * time.Hour).Format(time.RFC3339), "to": time.Now().Add(-24 * time.Hour).Format(time.RFC3339)}
		if got := w.aggregate(t, w.alice.Token, map[string]any{"range": past, "groupBy": []any{col("eventType")}}); len(got["eventType"]) != 0 {
			t.Fatalf("past range: %v", got)
		}
		// A member with the read role reads insights too.
		if got := w.aggregate(t, w.carol.Token, map[string]any{}); fmt.Sprint(got["eventsCount"]) != "[5]" {
			t.Fatalf("carol: %v", got)
		}

		// Bad aggregations: 400 naming the field.
		agg := w.base + "/insights/events/aggregate"
		for field, q := range map[string]map[string]any{
			"range":             {},
			"groupBy[0].column": {"range": "last7Days", "groupBy": []any{col("visitorGeoCountry")}},
			"select[0].column":  {"range": "last7Days", "select": []any{col("nope")}},
			"limit":             {"range": "last7Days", "limit": 5000},
			"where[0].values":   {"range": "last7Days", "where": []any{map[string]any{"column": "eventType", "values": []any{}}}},
			"order.by.column":   {"range": "last7Days", "order": map[string]any{"by": col("url"), "direction": "asc"}},
		} {
			if msg := s.Fail(t, "aggregateSiteEvents", w.alice.Token, "POST", agg, q, 400); !strings.Contains(msg, field) {
				t.Errorf("%s: %s", field, msg)
			}
		}
	})
}

// A bad event refuses the whole batch, naming events[i].field; too many
// events or too big a body are refused; nothing is stored.
func TestSiteInsightsTrackRefusals(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newInsightsWorld(t, s)
		good := w.event("page_view", "v1", nil)
		noLocation := w.event("page_view", "v1", nil)
		delete(noLocation, "location")
		old := w.event("page_view", "v1", map[string]any{"timestamp": time.Now().Add(-time.Hour).Format(time.RFC3339)})
		badURL := w.event("page_view", "v1", nil)
		badURL["location"].(map[string]any)["url"] = "javascript:alert(1)"
		otherSiteSpace := w.event("page_view", "v1", nil)
		otherSiteSpace["location"].(map[string]any)["siteSpace"] = "nope"
		for field, batch := range map[string][]any{
			"events[1].type":               {good, w.event("nope", "v1", nil)},
			"events[0].feedback.rating":    {w.event("page_post_feedback", "v1", map[string]any{"feedback": map[string]any{}}), good},
			"events[1].location":           {good, noLocation},
			"events[0].timestamp":          {old},
			"events[0].location.url":       {badURL},
			"events[0].location.siteSpace": {otherSiteSpace},
			"events[0].query":              {w.event("search_type_query", "v1", map[string]any{"query": strings.Repeat("q", 600)})},
			"events[0].link.position":      {w.event("link_click", "v1", map[string]any{"link": map[string]any{"target": map[string]any{"kind": "page", "page": "p"}, "position": "middle"}})},
			"events[0].session.visitorId":  {w.event("page_view", strings.Repeat("v", 200), nil)},
			"events[0].feedback.comment":   {w.event("page_post_feedback_comment", "v1", map[string]any{"feedback": map[string]any{"rating": "bad"}})},
		} {
			if msg := w.track(t, w.alice.Token, batch, 400); !strings.Contains(msg, field) {
				t.Errorf("%s: %s", field, msg)
			}
		}
		many := make([]any, 101)
		for i := range many {
			many[i] = good
		}
		if msg := w.track(t, w.alice.Token, many, 400); !strings.Contains(msg, "events") || !strings.Contains(msg, "100") {
			t.Errorf("101 events: %s", msg)
		}
		if msg := s.Fail(t, "trackEventsInSiteById", w.alice.Token, "POST", w.base+"/insights/events", map[string]any{}, 400); !strings.Contains(msg, "events") {
			t.Errorf("no events: %s", msg)
		}
		huge := w.event("page_view", "v1", map[string]any{"padding": strings.Repeat("x", 300<<10)})
		w.track(t, w.alice.Token, []any{huge}, 413)
		if got := w.aggregate(t, w.alice.Token, map[string]any{}); fmt.Sprint(got["eventsCount"]) != "[0]" {
			t.Fatalf("refused batches stored events: %v", got)
		}
		// An empty batch is fine and stores nothing.
		w.track(t, w.alice.Token, []any{}, 204)
	})
}

// Who may track and read: members who can see the site track (a guest it
// is shared with too) and read insights (guests: 403); strangers and
// guests it is not shared with read nothing (404) and track only while the
// site is published and public, as anyone may read it then (GitBook's
// renderer sends page views with its own token).
func TestSiteInsightsAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newInsightsWorld(t, s)
		ev := []any{w.event("page_view", "v1", nil)}
		agg := w.base + "/insights/events/aggregate"
		segs := w.base + "/insights/visitor-segments"
		w.track(t, w.bob.Token, ev, 204)
		s.Fail(t, "trackEventsInSiteById", w.bob.Token, "POST", "/v1/orgs/"+w.bobs+"/sites/"+w.site+"/insights/events", map[string]any{"events": ev}, 404)
		s.Call(t, "unpublishSite", w.alice.Token, "POST", w.base+"/unpublish", nil, 200)
		for _, u := range []testkit.User{w.bob, w.gina} {
			w.track(t, u.Token, ev, 404)
			s.Fail(t, "aggregateSiteEvents", u.Token, "POST", agg, map[string]any{"range": "last7Days"}, 404)
			s.Fail(t, "listSiteVisitorSegments", u.Token, "GET", segs, nil, 404)
		}
		// Bob's organization in the path: 404 for Acme's site.
		s.Fail(t, "aggregateSiteEvents", w.alice.Token, "POST", "/v1/orgs/"+w.bobs+"/sites/"+w.site+"/insights/events/aggregate", map[string]any{"range": "last7Days"}, 404)
		s.Call(t, "inviteToSite", w.alice.Token, "POST", w.base+"/permissions", map[string]any{"role": "read", "users": []string{w.gina.ID}}, 204)
		w.track(t, w.gina.Token, ev, 204)
		s.Fail(t, "aggregateSiteEvents", w.gina.Token, "POST", agg, map[string]any{"range": "last7Days"}, 403)
		s.Fail(t, "listSiteVisitorSegments", w.gina.Token, "GET", segs, nil, 403)
		if got := w.aggregate(t, w.carol.Token, map[string]any{}); fmt.Sprint(got["eventsCount"]) != "[2]" {
			t.Fatalf("after bob's and gina's events: %v", got)
		}
	})
}

// Segments group events by the visitors' claims. (Flat claims: the
// contract check's validator recurses without end on a nested object under
// the reference's self-referencing PlainObject.)
func TestSiteVisitorSegments(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newInsightsWorld(t, s)
		pro := func(v string) map[string]any {
			e := w.event("page_view", v, nil)
			e["session"].(map[string]any)["visitorAuthClaims"] = map[string]any{"plan": "pro", "beta": true}
			return e
		}
		w.track(t, w.alice.Token, []any{pro("a"), pro("b"), pro("a"), w.event("page_view", "c", nil)}, 204)
		var list struct {
			Items []map[string]any
			Count int
		}
		s.Call(t, "listSiteVisitorSegments", w.carol.Token, "GET", w.base+"/insights/visitor-segments", nil, 200).Decode(t, &list)
		if list.Count != 2 || len(list.Items) != 2 {
			t.Fatalf("segments: %v", list)
		}
		first, second := list.Items[0], list.Items[1]
		if first["title"] != "beta=true, plan=pro" || first["events"] != 3.0 || first["visitors"] != 2.0 || first["sessions"] != 2.0 ||
			fmt.Sprint(first["claims"]) != "map[beta:true plan:pro]" {
			t.Fatalf("pro segment: %v", first)
		}
		if second["title"] != "Anonymous visitors" || second["events"] != 1.0 || fmt.Sprint(second["claims"]) != "map[]" {
			t.Fatalf("anonymous segment: %v", second)
		}
		got := w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("visitorAuthenticated")}})
		if fmt.Sprint(got["visitorAuthenticated"], got["eventsCount"]) != "[true <nil>] [3 1]" {
			t.Fatalf("authenticated: %v", got)
		}
	})
}

// The reader records a page view of every page it serves (not HEADs, not
// 304s), without a cookie, read back through aggregates.
func TestSiteInsightsReaderPageViews(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newInsightsWorld(t, s)
		get := func(method, path string, hdr ...string) *http.Response {
			req, _ := http.NewRequest(method, s.URL+path, nil)
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp
		}
		resp := get("GET", "/s/insights-docs/install/linux?utm_campaign=launch", "Referer", "https://news.example.org/item?id=1", "Accept-Language", "fr-CH, fr;q=0.9")
		if resp.StatusCode != 200 || resp.Header.Get("Set-Cookie") != "" {
			t.Fatalf("page: %d, cookies %q", resp.StatusCode, resp.Header.Get("Set-Cookie"))
		}
		get("HEAD", "/s/insights-docs/install/linux")
		get("GET", "/s/insights-docs/install/linux", "If-None-Match", resp.Header.Get("ETag"))
		s.App.Resolver.FlushSiteEvents()
		got := w.aggregate(t, w.alice.Token, map[string]any{"groupBy": []any{col("eventType"), col("page"), col("siteSpace"), col("referrerDomain"), col("utmCampaign"), col("visitorLanguage"), col("urlPath")}})
		if fmt.Sprint(got["eventType"], got["eventsCount"]) != "[page_view] [1]" ||
			fmt.Sprint(got["page"]) != fmt.Sprintf("[map[page:%s space:%s]]", w.linuxPage, w.guide) || fmt.Sprint(got["siteSpace"]) != "["+w.guideSS+"]" ||
			fmt.Sprint(got["referrerDomain"], got["utmCampaign"], got["visitorLanguage"], got["urlPath"]) != "[news.example.org] [launch] [fr-CH] [/s/insights-docs/install/linux]" {
			t.Fatalf("reader page view: %v", got)
		}
	})
}
