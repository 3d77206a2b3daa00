package reader_test

import (
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// TestReaderLLMs: llms.txt, llms-full.txt and <page>.md list only what an
// anonymous visitor may read (no hidden page, no page that asks not to be
// indexed, no section or site space whose condition hides it), with ETags;
// a visitor-auth site's need the visitor's credential as its HTML does.
func TestReaderLLMs(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		root := s.URL + "/s/docs/"

		idx := get(t, s.URL, "", "/s/docs/llms.txt").must(t, 200, "llms.txt")
		if ct := idx.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("llms.txt Content-Type %q", ct)
		}
		idx.has(t, "llms.txt", "# Acme Docs\n", "\n> ", "\n## Guide — Guide\n", "\n## API\n",
			"- [Getting started]("+root+"getting-started.md)", "- [Ubuntu]("+root+"install/linux/ubuntu.md)",
			"- [Errors]("+root+"api/errors.md)", "welcome.md)", root+"llms-full.txt")
		idx.hasNot(t, "llms.txt", "secret", "private-notes")
		if tag := idx.header.Get("ETag"); tag == "" {
			t.Error("llms.txt has no ETag")
		} else {
			get(t, s.URL, "", "/s/docs/llms.txt", "If-None-Match", tag).must(t, 304, "llms.txt again")
		}

		full := get(t, s.URL, "", "/s/docs/llms-full.txt").must(t, 200, "llms-full.txt")
		full.has(t, "llms-full.txt", "# Acme Docs\n", "Welcome to the guide.", "Use apt on Ubuntu", "What fails.", "The second version.")
		full.hasNot(t, "llms-full.txt", "hiddenword", "Not for robots", "is cut here")

		md := get(t, s.URL, "", "/s/docs/install/linux/ubuntu.md").must(t, 200, "a page's markdown")
		if md.body != "# Ubuntu\n\nUse apt on Ubuntu: the zebracorn package.\n" || md.header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Errorf("ubuntu.md: %q %v", md.body, md.header)
		}
		get(t, s.URL, "", "/s/docs/api/errors.md").must(t, 200, "another section's page").has(t, "errors.md", "What fails.")
		get(t, s.URL, "", "/s/docs/secret.md").must(t, 404, "a hidden page's markdown")
		get(t, s.URL, "", "/s/docs/nothing.md").must(t, 404, "no such page")

		// Conditions: the API section and the Guide v2 site space hidden
		// from visitors without the beta claim.
		api(t, s, d.token, "PUT", d.siteBase()+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
			"type": "object", "additionalProperties": false, "properties": map[string]any{
				"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false, "properties": map[string]any{
					"beta": map[string]any{"type": "boolean", "description": "Beta"}}}}}}, 200)
		api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": "visitor.claims.unsigned.beta"}, 200)
		v2 := s.Client().SiteSpace.Query().Where(sitespace.SpaceID(d.guide2)).OnlyX(t.Context())
		api(t, s, d.token, "PATCH", d.siteBase()+"/site-spaces/"+v2.ID, map[string]any{"condition": "visitor.claims.unsigned.beta"}, 200)
		idx = get(t, s.URL, "", "/s/docs/llms.txt").must(t, 200, "llms.txt with conditions")
		idx.has(t, "llms.txt with conditions", "getting-started.md")
		idx.hasNot(t, "llms.txt with conditions", "/api/", "Errors", "welcome.md", "Welcome v2")
		full = get(t, s.URL, "", "/s/docs/llms-full.txt").must(t, 200, "llms-full.txt with conditions")
		full.has(t, "llms-full.txt with conditions", "Welcome to the guide.")
		full.hasNot(t, "llms-full.txt with conditions", "What fails.", "The second version.")
		get(t, s.URL, "", "/s/docs/api/errors.md").must(t, 404, "a hidden section's page")
		get(t, s.URL, "", "/s/docs/"+v2.Path+"/welcome.md").must(t, 404, "a hidden site space's page")
		get(t, s.URL, "", "/s/docs/api/errors.md?visitor.beta=true").must(t, 200, "with the claim")

		// A visitor-auth site: no credential, no llms.txt.
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "visitor-auth"}, 200)
		get(t, s.URL, "", "/s/docs/llms.txt").must(t, 401, "llms.txt without a token")
		get(t, s.URL, "", "/s/docs/getting-started.md").must(t, 401, "markdown without a token")
		key := api(t, s, d.token, "GET", d.siteBase()+"/publishing/auth", nil, 200)["privateKey"].(string)
		tok, err := visitorauth.Sign(key, map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		p := get(t, s.URL, "", "/s/docs/llms.txt?jwt_token="+tok).must(t, 302, "with a token")
		var cookies []string
		for _, c := range p.header.Values("Set-Cookie") {
			cookies = append(cookies, strings.Split(c, ";")[0])
		}
		p = get(t, s.URL, "", "/s/docs/llms.txt", "Cookie", strings.Join(cookies, "; ")).must(t, 200, "llms.txt with the cookie")
		p.has(t, "llms.txt with the cookie", "getting-started.md")
		if cc := p.header.Get("Cache-Control"); cc != "private, no-cache" {
			t.Errorf("protected llms.txt Cache-Control %q", cc)
		}
	})
}

// TestReaderStoredHostname: a hostname set through the API is served like
// FOLIO_SITE_HOSTS's, llms.txt included; the TLS ask endpoint says yes to
// it while its site is published; removing it stops both at once on this
// instance.
func TestReaderStoredHostname(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		const host = "docs.acme.test"
		get(t, s.URL, "", "/_folio/tls-ask?domain="+host).must(t, 404, "ask before the hostname")
		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"hostname": host}, 200)

		get(t, s.URL, host, "/").must(t, 200, "stored host root").has(t, "stored host root", "<h1>Getting started</h1>", `href="/install"`)
		get(t, s.URL, host+":443", "/install/linux/ubuntu").must(t, 200, "with a port").has(t, "deep", "<h1>Ubuntu</h1>")
		get(t, s.URL, host, "/getting-started.md").must(t, 200, "markdown on the host").has(t, "md", "Welcome to the guide.")
		get(t, s.URL, host, "/llms.txt").must(t, 200, "llms.txt on the host").has(t, "llms on host",
			"- [Getting started](http://"+host+"/getting-started.md)", "(http://"+host+"/api/errors.md)")
		get(t, s.URL, host, "/v1/user").must(t, 404, "no API on the host")
		get(t, s.URL, "", "/s/docs/install").must(t, 200, "the base URL still serves /s/")

		get(t, s.URL, "", "/_folio/tls-ask?domain="+host).must(t, 200, "ask: a published site's host")
		get(t, s.URL, "", "/_folio/tls-ask?domain=DOCS.acme.test").must(t, 200, "ask: any case")
		get(t, s.URL, "", "/_folio/tls-ask?domain=other.acme.test").must(t, 404, "ask: another host")
		get(t, s.URL, "", "/_folio/tls-ask").must(t, 400, "ask without a domain")
		api(t, s, d.token, "POST", d.siteBase()+"/unpublish", nil, 200)
		get(t, s.URL, "", "/_folio/tls-ask?domain="+host).must(t, 404, "ask: an unpublished site's host")
		get(t, s.URL, host, "/").must(t, 404, "an unpublished site on its host")
		api(t, s, d.token, "POST", d.siteBase()+"/publish", nil, 200)

		api(t, s, d.token, "DELETE", "/custom-hostnames/"+host, nil, 204)
		get(t, s.URL, "", "/_folio/tls-ask?domain="+host).must(t, 404, "ask after removal")
		if p := get(t, s.URL, host, "/"); p.status == 200 && strings.Contains(p.body, "Getting started") {
			t.Fatal("the removed host still serves the site")
		}
	})
}
