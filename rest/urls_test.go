package rest_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// urlsWorld: an organization (alice owns it, carol reads) with a
// published site "docs" (sections guide and api; in guide, a "beta"
// variant shown to visitor.claims.unsigned.isBeta), a published site
// "internal" of another space, an unpublished site, a visitor-auth site,
// and a stranger (bob, another organization).
type urlsWorld struct {
	alice, carol, bob                       testkit.User
	org                                     string
	guide, api, beta, other, secret         string
	guideRev, apiRev                        string
	docs, internal, unpub, secure, betaPath string
	secureKey                               string
}

func newURLsWorld(t *testing.T, s *testkit.Server) *urlsWorld {
	w := &urlsWorld{}
	w.alice, w.org = s.NewUser(t, "alice@example.com", "Acme")
	w.carol, _ = s.NewUser(t, "carol@example.com", "Carol's")
	s.AddMember(t, w.org, w.carol, testkit.RoleOf(access.Read))
	w.bob, _ = s.NewUser(t, "bob@example.com", "Bob's")
	space := func(title string) (string, string) {
		id := s.Call(t, "createSpace", w.alice.Token, "POST", "/v1/orgs/"+w.org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
		return id, s.SeedPages(t, id, 12).ID
	}
	w.guide, w.guideRev = space("Guide")
	w.api, w.apiRev = space("API")
	w.beta, _ = space("Beta")
	w.other, _ = space("Other")
	w.secret, _ = space("Secret")
	unpubSpace, _ := space("Draft")
	sites := "/v1/orgs/" + w.org + "/sites"
	newSite := func(title, basename string) string {
		id := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": title}, 201).JSON(t)["id"].(string)
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", sites+"/"+id, map[string]any{"basename": basename}, 200)
		return id
	}
	w.docs = newSite("Docs", "docs")
	base := sites + "/" + w.docs
	s.Call(t, "updateSiteAdaptiveSchema", w.alice.Token, "PUT", base+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
		"type": "object", "additionalProperties": false, "properties": map[string]any{
			"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
				"properties": map[string]any{"isBeta": map[string]any{"type": "boolean", "description": "Beta"}}}}}}, 200)
	guideSec := s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": w.guide, "title": "Guide"}, 201).JSON(t)["id"].(string)
	s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": w.api, "title": "API"}, 201)
	ss := s.Call(t, "addSpaceToSite", w.alice.Token, "POST", base+"/site-spaces", map[string]any{"spaceId": w.beta, "sectionId": guideSec}, 201).JSON(t)
	w.betaPath = ss["path"].(string)
	s.Call(t, "updateSiteSpaceById", w.alice.Token, "PATCH", base+"/site-spaces/"+ss["id"].(string),
		map[string]any{"condition": "visitor.claims.unsigned.isBeta"}, 200)
	s.Call(t, "publishSite", w.alice.Token, "POST", base+"/publish", nil, 200)

	w.internal = newSite("Internal", "internal")
	s.Call(t, "addSpaceToSite", w.alice.Token, "POST", sites+"/"+w.internal+"/site-spaces", map[string]any{"spaceId": w.other}, 201)
	s.Call(t, "publishSite", w.alice.Token, "POST", sites+"/"+w.internal+"/publish", nil, 200)

	w.unpub = newSite("Unpublished", "unpub")
	s.Call(t, "addSpaceToSite", w.alice.Token, "POST", sites+"/"+w.unpub+"/site-spaces", map[string]any{"spaceId": unpubSpace}, 201)

	w.secure = newSite("Secure", "secure")
	s.Call(t, "addSpaceToSite", w.alice.Token, "POST", sites+"/"+w.secure+"/site-spaces", map[string]any{"spaceId": w.secret}, 201)
	s.Call(t, "updateSiteById", w.alice.Token, "PATCH", sites+"/"+w.secure, map[string]any{"visibility": "visitor-auth"}, 200)
	s.Call(t, "updateSitePublishingAuthById", w.alice.Token, "PATCH", sites+"/"+w.secure+"/publishing/auth",
		map[string]any{"fallbackURL": "https://app.example.com/login"}, 200)
	w.secureKey = s.Call(t, "getSitePublishingAuthById", w.alice.Token, "GET", sites+"/"+w.secure+"/publishing/auth", nil, 200).JSON(t)["privateKey"].(string)
	s.Call(t, "publishSite", w.alice.Token, "POST", sites+"/"+w.secure+"/publish", nil, 200)
	return w
}

func resolve(t *testing.T, s *testkit.Server, token string, body map[string]any, status int) map[string]any {
	t.Helper()
	resp := s.Call(t, "resolvePublishedContentByUrl", token, "POST", "/v1/urls/published", body, status)
	if status != 200 {
		return nil
	}
	return resp.JSON(t)
}

// TestResolvePublishedURLs: every form of published address resolves as
// the reader resolves it, anonymously or with any token.
func TestResolvePublishedURLs(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newURLsWorld(t, s)
		root := s.URL + "/s/docs/"

		// The root: the default section and its default site space.
		got := resolve(t, s, "", map[string]any{"url": root}, 200)
		if got["site"] != w.docs || got["space"] != w.guide || got["organization"] != w.org || got["pathname"] != "" ||
			got["siteBasePath"] != "/s/docs/" || got["basePath"] != "/s/docs/" || got["complete"] != false ||
			got["canonicalUrl"] != root || !strings.HasPrefix(got["apiToken"].(string), "folio_site_") || got["siteSection"] == nil {
			t.Fatalf("root: %v", got)
		}
		// A section, then a page in it (any valid token resolves too).
		got = resolve(t, s, w.bob.Token, map[string]any{"url": root + "api/page-0/page-1"}, 200)
		if got["space"] != w.api || got["pathname"] != "page-0/page-1" || got["basePath"] != "/s/docs/api/" ||
			got["canonicalUrl"] != root+"api/page-0/page-1" || got["complete"] != true {
			t.Fatalf("page of a section: %v", got)
		}
		// The deprecated GET form answers the same.
		g := s.Call(t, "getPublishedContentByUrl", "", "GET", "/v1/urls/published?url="+url.QueryEscape(root+"api/"), nil, 200).JSON(t)
		if g["space"] != w.api {
			t.Fatalf("GET form: %v", g)
		}
		// A variant hidden by its condition exists only for visitors whose claims show it.
		variant := root + "guide/" + w.betaPath + "/page-0"
		s.Fail(t, "resolvePublishedContentByUrl", "", "POST", "/v1/urls/published", map[string]any{"url": variant}, 404)
		got = resolve(t, s, "", map[string]any{"url": variant, "visitor": map[string]any{"unsignedClaims": map[string]any{"isBeta": true}}}, 200)
		if got["space"] != w.beta || got["pathname"] != "page-0" || got["complete"] != true {
			t.Fatalf("variant: %v", got)
		}
		// A site root without its slash: the reader's redirect.
		got = resolve(t, s, "", map[string]any{"url": s.URL + "/s/docs"}, 200)
		if got["target"] != "content" || got["redirect"] != root {
			t.Fatalf("redirect: %v", got)
		}
		// A mapped host (FOLIO_SITE_HOSTS).
		s.App.Resolver.Hostnames.Configured = map[string]string{"docs.example.com": w.docs}
		got = resolve(t, s, "", map[string]any{"url": "https://docs.example.com/api/page-0"}, 200)
		if got["space"] != w.api || got["siteBasePath"] != "/" || got["basePath"] != "/api/" || got["canonicalUrl"] != "https://docs.example.com/api/page-0" {
			t.Fatalf("mapped host: %v", got)
		}
		// Unknown, unpublished, elsewhere: 404; not a URL: 400 naming url.
		for _, u := range []string{s.URL + "/s/nope/", s.URL + "/s/unpub/", "https://elsewhere.example.com/", s.URL + "/v1/spaces/" + w.guide} {
			s.Fail(t, "resolvePublishedContentByUrl", "", "POST", "/v1/urls/published", map[string]any{"url": u}, 404)
		}
		if msg := s.Fail(t, "resolvePublishedContentByUrl", "", "POST", "/v1/urls/published", map[string]any{"url": "docs"}, 400); !strings.Contains(msg, "url") {
			t.Fatalf("bad url: %s", msg)
		}
		s.Fail(t, "resolvePublishedContentByUrl", "", "POST", "/v1/urls/published", map[string]any{}, 400)
		s.Fail(t, "resolvePublishedContentByUrl", "folio_nonsense", "POST", "/v1/urls/published", map[string]any{"url": root}, 401)

		// Visitor-auth: 404 without a token, the fallback on request, in with one.
		sec := s.URL + "/s/secure/page-0"
		s.Fail(t, "resolvePublishedContentByUrl", "", "POST", "/v1/urls/published", map[string]any{"url": sec}, 404)
		got = resolve(t, s, "", map[string]any{"url": sec, "redirectOnError": true}, 200)
		if got["target"] != "external" || got["site"] != w.secure || !strings.HasPrefix(got["redirect"].(string), "https://app.example.com/login?location=") {
			t.Fatalf("fallback: %v", got)
		}
		jwt, _ := visitorauth.Sign(w.secureKey, map[string]any{"plan": "pro", "exp": time.Now().Add(time.Hour).Unix()})
		got = resolve(t, s, "", map[string]any{"url": sec, "visitor": map[string]any{"jwtToken": jwt}}, 200)
		if got["space"] != w.secret || got["contextId"] == nil {
			t.Fatalf("visitor token: %v", got)
		}
		g = s.Call(t, "getPublishedContentByUrl", "", "GET", "/v1/urls/published?url="+url.QueryEscape(sec)+"&visitorAuthToken="+jwt, nil, 200).JSON(t)
		if g["space"] != w.secret {
			t.Fatalf("GET with visitorAuthToken: %v", g)
		}
		// Members who can see the site get in without one.
		resolve(t, s, w.carol.Token, map[string]any{"url": sec}, 200)
		s.Fail(t, "resolvePublishedContentByUrl", w.bob.Token, "POST", "/v1/urls/published", map[string]any{"url": sec}, 404)

		// Previews: a member who can read the change request or revision; nobody else.
		cr := s.Call(t, "createChangeRequest", w.alice.Token, "POST", "/v1/spaces/"+w.guide+"/change-requests", map[string]any{"subject": "Fix"}, 201).JSON(t)["id"].(string)
		crURL := root + "~/changes/" + cr + "/page-0"
		got = resolve(t, s, w.carol.Token, map[string]any{"url": crURL}, 200)
		if got["changeRequest"] != cr || got["preview"] != true || got["space"] != w.guide || got["pathname"] != "page-0" ||
			got["basePath"] != "/s/docs/~/changes/"+cr+"/" {
			t.Fatalf("change-request preview: %v", got)
		}
		s.Fail(t, "resolvePublishedContentByUrl", "", "POST", "/v1/urls/published", map[string]any{"url": crURL}, 404)
		s.Fail(t, "resolvePublishedContentByUrl", w.bob.Token, "POST", "/v1/urls/published", map[string]any{"url": crURL}, 404)
		got = resolve(t, s, w.alice.Token, map[string]any{"url": root + "~/revisions/" + w.guideRev + "/"}, 200)
		if got["revision"] != w.guideRev || got["preview"] != true {
			t.Fatalf("revision preview: %v", got)
		}
		s.Fail(t, "resolvePublishedContentByUrl", w.alice.Token, "POST", "/v1/urls/published", map[string]any{"url": root + "~/revisions/" + w.apiRev + "/"}, 404)
	})
}

// TestSiteTokenReadsOnlyItsSite: the token a published URL hands out reads
// that site's published content, and nothing else; it expires and cannot
// be altered. A change-request preview's token also reads that change
// request.
func TestSiteTokenReadsOnlyItsSite(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		t.Cleanup(clock.Reset)
		w := newURLsWorld(t, s)
		tok := resolve(t, s, "", map[string]any{"url": s.URL + "/s/docs/"}, 200)["apiToken"].(string)
		sites := "/v1/orgs/" + w.org + "/sites/"

		// Its site's published content.
		sp := s.Call(t, "getSpaceById", tok, "GET", "/v1/spaces/"+w.guide, nil, 200).JSON(t)
		if sp["id"] != w.guide {
			t.Fatalf("space: %v", sp)
		}
		s.Call(t, "getSpaceById", tok, "GET", "/v1/spaces/"+w.api, nil, 200)
		s.Call(t, "getRevisionById", tok, "GET", "/v1/spaces/"+w.guide+"/revisions/"+w.guideRev, nil, 200)
		s.Call(t, "getCurrentRevision", tok, "GET", "/v1/spaces/"+w.api+"/content", nil, 200)
		p := s.Call(t, "getPageInRevisionByPath", tok, "GET", "/v1/spaces/"+w.guide+"/revisions/"+w.guideRev+"/path/page-0/page-1", nil, 200).JSON(t)
		if p["title"] != "Page 1" {
			t.Fatalf("page: %v", p)
		}
		pub := s.Call(t, "getPublishedContentSite", tok, "GET", sites+w.docs+"/published", nil, 200).JSON(t)
		if pub["site"].(map[string]any)["id"] != w.docs {
			t.Fatalf("published site: %v", pub)
		}
		s.Call(t, "getSiteById", tok, "GET", sites+w.docs, nil, 200)

		// Nothing else: other sites and spaces, the variant its claims hide,
		// change requests, comments, the organization, its members.
		cr := s.Call(t, "createChangeRequest", w.alice.Token, "POST", "/v1/spaces/"+w.guide+"/change-requests", map[string]any{"subject": "Fix"}, 201).JSON(t)["id"].(string)
		for _, c := range []struct{ op, path string }{
			{"getSpaceById", "/v1/spaces/" + w.other},
			{"getSpaceById", "/v1/spaces/" + w.beta},
			{"getSpaceById", "/v1/spaces/" + w.secret},
			{"getSiteById", sites + w.internal},
			{"getPublishedContentSite", sites + w.internal + "/published"},
			{"listChangeRequestsForSpace", "/v1/spaces/" + w.guide + "/change-requests"},
			{"getChangeRequestById", "/v1/spaces/" + w.guide + "/change-requests/" + cr},
			{"listCommentsInSpace", "/v1/spaces/" + w.guide + "/comments"},
			{"getOrganizationById", "/v1/orgs/" + w.org},
			{"listMembersInOrganizationById", "/v1/orgs/" + w.org + "/members"},
			{"listSites", "/v1/orgs/" + w.org + "/sites"},
		} {
			s.Fail(t, c.op, tok, "GET", c.path, nil, 404)
		}
		// No write: 403 where it sees the thing, 404 where it does not.
		before := s.Snapshot(t)
		s.Fail(t, "updateSpaceById", tok, "PATCH", "/v1/spaces/"+w.guide, map[string]any{"title": "X"}, 403)
		s.Fail(t, "createChangeRequest", tok, "POST", "/v1/spaces/"+w.guide+"/change-requests", map[string]any{}, 403)
		s.Fail(t, "updateSiteById", tok, "PATCH", sites+w.docs, map[string]any{"title": "X"}, 403)
		s.Fail(t, "updateSpaceById", tok, "PATCH", "/v1/spaces/"+w.other, map[string]any{"title": "X"}, 404)
		s.Fail(t, "createOrganization", tok, "POST", "/v1/orgs", map[string]any{"title": "X"}, 403)
		s.Fail(t, "getAuthenticatedUser", tok, "GET", "/v1/user", nil, 403)
		s.Unchanged(t, before)

		// Tampered: 401.
		bad := tok[:len(tok)-2] + "xx"
		if bad == tok {
			bad = tok[:len(tok)-2] + "yy"
		}
		s.Fail(t, "getSpaceById", bad, "GET", "/v1/spaces/"+w.guide, nil, 401)
		body, mac, _ := strings.Cut(strings.TrimPrefix(tok, "folio_site_"), ".")
		s.Fail(t, "getSpaceById", "folio_site_"+body+"e."+mac, "GET", "/v1/spaces/"+w.guide, nil, 401)

		// A change-request preview's token reads that change request too, and no other.
		other := s.Call(t, "createChangeRequest", w.alice.Token, "POST", "/v1/spaces/"+w.guide+"/change-requests", map[string]any{"subject": "Other"}, 201).JSON(t)["id"].(string)
		crTok := resolve(t, s, w.carol.Token, map[string]any{"url": s.URL + "/s/docs/~/changes/" + cr + "/"}, 200)["apiToken"].(string)
		s.Call(t, "getChangeRequestById", crTok, "GET", "/v1/spaces/"+w.guide+"/change-requests/"+cr, nil, 200)
		s.Call(t, "getRevisionOfChangeRequestById", crTok, "GET", "/v1/spaces/"+w.guide+"/change-requests/"+cr+"/content", nil, 200)
		s.Fail(t, "getChangeRequestById", crTok, "GET", "/v1/spaces/"+w.guide+"/change-requests/"+other, nil, 404)
		s.Fail(t, "listChangeRequestsForSpace", crTok, "GET", "/v1/spaces/"+w.guide+"/change-requests", nil, 404)

		// An hour later it has expired: 401.
		clock.Advance(SiteTokenLifetimeForTest + time.Second)
		s.Fail(t, "getSpaceById", tok, "GET", "/v1/spaces/"+w.guide, nil, 401)
		s.Fail(t, "getChangeRequestById", crTok, "GET", "/v1/spaces/"+w.guide+"/change-requests/"+cr, nil, 401)
	})
}

// SiteTokenLifetimeForTest is graph.SiteTokenLifetime, spelled out.
const SiteTokenLifetimeForTest = time.Hour

// TestContentByURL: Folio's own app addresses resolve for callers who can
// see what they name.
func TestContentByURL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newURLsWorld(t, s)
		get := func(token, u string, status int) map[string]any {
			resp := s.Call(t, "getContentByUrl", token, "GET", "/v1/urls/content?url="+url.QueryEscape(u), nil, status)
			if status != 200 {
				return nil
			}
			return resp.JSON(t)
		}
		sp := s.Call(t, "getSpaceById", w.alice.Token, "GET", "/v1/spaces/"+w.guide, nil, 200).JSON(t)
		app := sp["urls"].(map[string]any)["app"].(string)
		got := get(w.carol.Token, app, 200)
		if got["space"].(map[string]any)["id"] != w.guide {
			t.Fatalf("space: %v", got)
		}
		pages := s.Call(t, "listPagesInRevisionById", w.alice.Token, "GET", "/v1/spaces/"+w.guide+"/revisions/"+w.guideRev+"/pages", nil, 200).JSON(t)["pages"].([]any)
		pg := pages[0].(map[string]any)
		got = get(w.carol.Token, pg["urls"].(map[string]any)["app"].(string), 200)
		if got["page"].(map[string]any)["id"] != pg["id"] {
			t.Fatalf("page: %v", got)
		}
		cr := s.Call(t, "createChangeRequest", w.alice.Token, "POST", "/v1/spaces/"+w.guide+"/change-requests", map[string]any{"subject": "Fix"}, 201).JSON(t)
		got = get(w.carol.Token, cr["urls"].(map[string]any)["app"].(string), 200)
		if got["changeRequest"].(map[string]any)["id"] != cr["id"] {
			t.Fatalf("change request: %v", got)
		}
		col := s.Call(t, "createCollection", w.alice.Token, "POST", "/v1/orgs/"+w.org+"/collections", map[string]any{"title": "Handbooks"}, 201).JSON(t)
		got = get(w.alice.Token, col["urls"].(map[string]any)["app"].(string), 200)
		if got["collection"].(map[string]any)["id"] != col["id"] {
			t.Fatalf("collection: %v", got)
		}
		// A published page's address names its space and page.
		got = get(w.carol.Token, s.URL+"/s/docs/api/page-0", 200)
		if got["space"].(map[string]any)["id"] != w.api || got["page"].(map[string]any)["path"] != "page-0" {
			t.Fatalf("published page: %v", got)
		}
		// Strangers: 404; an organization's address: 400 naming url; no url: 400.
		get(w.bob.Token, app, 404)
		get(w.bob.Token, s.URL+"/s/docs/api/page-0", 404)
		get(w.alice.Token, s.URL+"/v1/spaces/nope", 404)
		if msg := s.Fail(t, "getContentByUrl", w.alice.Token, "GET", "/v1/urls/content?url="+url.QueryEscape(s.URL+"/v1/orgs/"+w.org), nil, 400); !strings.Contains(msg, "url") {
			t.Fatalf("organization: %s", msg)
		}
		s.Fail(t, "getContentByUrl", w.alice.Token, "GET", "/v1/urls/content", nil, 400)
		s.Fail(t, "getContentByUrl", "", "GET", "/v1/urls/content?url="+url.QueryEscape(app), nil, 401)
	})
}

// TestAPIInformationAndPreview: GET /v1/ answers anyone; a site's
// publishing preview is a signed address the reader opens, published or
// not, for an hour.
func TestAPIInformationAndPreview(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		t.Cleanup(clock.Reset)
		w := newURLsWorld(t, s)
		info := s.Call(t, "getApiInformation", "", "GET", "/v1/", nil, 200).JSON(t)
		if info["version"] == "" || info["build"] == "" {
			t.Fatalf("info: %v", info)
		}
		s.Call(t, "getApiInformation", w.bob.Token, "GET", "/v1/", nil, 200)

		preview := "/v1/orgs/" + w.org + "/sites/" + w.unpub + "/publishing/preview"
		u := s.Call(t, "getSitePublishingPreviewById", w.carol.Token, "GET", preview, nil, 200).JSON(t)["url"].(string)
		if !strings.HasPrefix(u, s.URL+"/s/unpub/?folio_preview=") {
			t.Fatalf("preview url: %s", u)
		}
		path := strings.TrimPrefix(u, s.URL)
		if resp := s.Request(t, "", "GET", path, nil); resp.Status != 200 || !strings.Contains(string(resp.Body), "Page 0") {
			t.Fatalf("preview: %d", resp.Status)
		}
		if resp := s.Request(t, "", "GET", "/s/unpub/", nil); resp.Status != 404 {
			t.Fatalf("unpublished without preview: %d", resp.Status)
		}
		tampered := path[:len(path)-1] + "A"
		if path[len(path)-1] == 'A' {
			tampered = path[:len(path)-1] + "B"
		}
		if resp := s.Request(t, "", "GET", tampered, nil); resp.Status != 404 {
			t.Fatalf("tampered preview: %d", resp.Status)
		}
		s.Fail(t, "getSitePublishingPreviewById", w.bob.Token, "GET", preview, nil, 404)
		s.Fail(t, "getSitePublishingPreviewById", w.carol.Token, "GET", preview+"?siteSpace=nope", nil, 400)
		s.Fail(t, "getSitePublishingPreviewById", w.carol.Token, "GET", preview+"?target="+url.QueryEscape("https://evil.example.com/"), nil, 400)
		clock.Advance(time.Hour + time.Second)
		if resp := s.Request(t, "", "GET", path, nil); resp.Status != 404 {
			t.Fatalf("expired preview: %d", resp.Status)
		}
	})
}
