package reader_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// mcpAnswer is an answer of a site's MCP server.
type mcpAnswer struct {
	status int
	header http.Header
	body   string
}

// mcpPost posts body to the MCP server at base+path (on host when not
// empty), with a bearer token when not empty and headers as name, value
// pairs.
func mcpPost(t testing.TB, base, host, path, token, body string, headers ...string) mcpAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return mcpAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (a mcpAnswer) must(t testing.TB, status int, what string) mcpAnswer {
	t.Helper()
	if a.status != status {
		t.Fatalf("%s: status %d, want %d\n%.2000s", what, a.status, status, a.body)
	}
	return a
}

// reply is the answer as one JSON-RPC response.
func (a mcpAnswer) reply(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(a.body), &m); err != nil {
		t.Fatalf("not a JSON-RPC response: %v\n%s", err, a.body)
	}
	if m["jsonrpc"] != "2.0" {
		t.Fatalf("jsonrpc %v in %s", m["jsonrpc"], a.body)
	}
	return m
}

// errorCode is the code of a JSON-RPC error answer, with its message.
func (a mcpAnswer) errorCode(t testing.TB) (float64, string) {
	t.Helper()
	e, ok := a.reply(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error: %s", a.body)
	}
	return e["code"].(float64), e["message"].(string)
}

func rpc(id int, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func toolCall(id int, tool string, args any) string {
	return rpc(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// toolResult is a tools/call's text and isError.
func toolResult(t testing.TB, a mcpAnswer) (string, bool) {
	t.Helper()
	res, ok := a.reply(t)["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %s", a.body)
	}
	content := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content %v", content)
	}
	c := content[0].(map[string]any)
	if c["type"] != "text" {
		t.Fatalf("content type %v", c["type"])
	}
	return c["text"].(string), res["isError"] == true
}

func contains(t testing.TB, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s: no %q in\n%.3000s", what, p, text)
		}
	}
}

func lacks(t testing.TB, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(strings.ToLower(text), strings.ToLower(p)) {
			t.Errorf("%s: %q should not be in\n%.3000s", what, p, text)
		}
	}
}

const mcpEndpoint = "/s/docs/~gitbook/mcp"

var initialize = rpc(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
	"clientInfo": map[string]any{"name": "test", "version": "1"}})

// TestMCPPublic: a public site's MCP server, anonymous: initialize, the
// tools, and what they find and read: only what an anonymous visitor may
// read.
func TestMCPPublic(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		post := func(body string, headers ...string) mcpAnswer {
			t.Helper()
			return mcpPost(t, s.URL, "", mcpEndpoint, "", body, headers...)
		}
		t.Run("initialize", func(t *testing.T) {
			a := post(initialize).must(t, 200, "initialize")
			if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			res := a.reply(t)["result"].(map[string]any)
			if res["protocolVersion"] != "2025-06-18" {
				t.Errorf("protocolVersion %v", res["protocolVersion"])
			}
			info := res["serverInfo"].(map[string]any)
			if info["name"] != "folio-docs" || info["title"] != "Acme Docs" || info["version"] == "" {
				t.Errorf("serverInfo %v", info)
			}
			if _, ok := res["capabilities"].(map[string]any)["tools"].(map[string]any); !ok {
				t.Errorf("capabilities %v", res["capabilities"])
			}
			old := post(rpc(2, "initialize", map[string]any{"protocolVersion": "2025-03-26"})).must(t, 200, "older version")
			if v := old.reply(t)["result"].(map[string]any)["protocolVersion"]; v != "2025-03-26" {
				t.Errorf("2025-03-26 answered %v", v)
			}
			future := post(rpc(3, "initialize", map[string]any{"protocolVersion": "2099-01-01"})).must(t, 200, "unknown version")
			if v := future.reply(t)["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
				t.Errorf("an unknown version answered %v", v)
			}
			if code, msg := post(rpc(4, "initialize", map[string]any{"protocolVersion": 7})).must(t, 200, "bad version").errorCode(t); code != -32602 || !strings.Contains(msg, "protocolVersion") {
				t.Errorf("bad protocolVersion: %v %s", code, msg)
			}
			a = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "MCP-Protocol-Version", "2025-06-18").must(t, 202, "initialized")
			if a.body != "" {
				t.Errorf("202 with a body %q", a.body)
			}
			ping := post(rpc(5, "ping", nil), "MCP-Protocol-Version", "2025-06-18").must(t, 200, "ping").reply(t)
			if r, ok := ping["result"].(map[string]any); !ok || len(r) != 0 || ping["id"] != float64(5) {
				t.Errorf("ping %v", ping)
			}
		})
		t.Run("tools/list", func(t *testing.T) {
			res := post(rpc(2, "tools/list", nil)).must(t, 200, "list").reply(t)["result"].(map[string]any)
			var names []string
			for _, tool := range res["tools"].([]any) {
				m := tool.(map[string]any)
				names = append(names, m["name"].(string))
				if m["inputSchema"].(map[string]any)["type"] != "object" || m["description"] == "" {
					t.Errorf("tool %v", m)
				}
			}
			if strings.Join(names, ",") != "searchDocumentation,getPage" {
				t.Errorf("tools %v", names)
			}
		})
		t.Run("searchDocumentation", func(t *testing.T) {
			text, isErr := toolResult(t, post(toolCall(3, "searchDocumentation", map[string]any{"query": "zebracorn"})).must(t, 200, "search"))
			if isErr {
				t.Fatalf("isError: %s", text)
			}
			contains(t, "search", text, "## Ubuntu", "URL: "+s.URL+"/s/docs/install/linux/ubuntu", "## Reference",
				"URL: "+s.URL+"/s/docs/api/reference", "zebracorn package")
			text, isErr = toolResult(t, post(toolCall(4, "searchDocumentation", map[string]any{"query": "hiddenword"})).must(t, 200, "hidden"))
			if isErr || !strings.Contains(text, "No page") {
				t.Errorf("a hidden page's word: %s", text)
			}
			lacks(t, "hidden", text, "Secret", "/s/docs/secret")
		})
		t.Run("getPage", func(t *testing.T) {
			for _, addr := range []string{s.URL + "/s/docs/install/linux/ubuntu", s.URL + "/s/docs/install/linux/ubuntu#x",
				"install/linux/ubuntu.md", "/s/docs/install/linux/ubuntu/", "/install/linux/ubuntu"} {
				text, isErr := toolResult(t, post(toolCall(5, "getPage", map[string]any{"url": addr})).must(t, 200, addr))
				if isErr {
					t.Errorf("%s: %s", addr, text)
				}
				contains(t, addr, text, "# Ubuntu", "Use apt on Ubuntu: the zebracorn package.")
			}
			text, _ := toolResult(t, post(toolCall(6, "getPage", map[string]any{"url": s.URL + "/s/docs/"})).must(t, 200, "root"))
			contains(t, "the site's root", text, "# Getting started", "[Ubuntu](install/linux/ubuntu.md)")
			text, _ = toolResult(t, post(toolCall(7, "getPage", map[string]any{"url": s.URL + "/s/docs/api/errors"})).must(t, 200, "api"))
			contains(t, "another section", text, "What fails.")
			for _, addr := range []string{s.URL + "/s/docs/secret", "secret", s.URL + "/s/docs/nope"} {
				text, isErr := toolResult(t, post(toolCall(8, "getPage", map[string]any{"url": addr})).must(t, 200, addr))
				if !isErr {
					t.Errorf("%s: read: %s", addr, text)
				}
				lacks(t, addr, text, "hiddenword")
			}
			for _, addr := range []string{"https://evil.example/s/docs/install", s.URL + "/s/other/install"} {
				if code, msg := post(toolCall(9, "getPage", map[string]any{"url": addr})).must(t, 200, addr).errorCode(t); code != -32602 || !strings.Contains(msg, "url") {
					t.Errorf("%s: %v %s", addr, code, msg)
				}
			}
		})
		t.Run("adaptive: a section hidden by its condition", func(t *testing.T) {
			api(t, s, d.token, "PUT", d.siteBase()+"/adaptive-schema", map[string]any{"jsonSchema": map[string]any{
				"type": "object", "additionalProperties": false, "properties": map[string]any{
					"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false, "properties": map[string]any{
						"beta": map[string]any{"type": "boolean", "description": "Beta"}}}}}}, 200)
			api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": "visitor.claims.unsigned.beta"}, 200)
			defer api(t, s, d.token, "PATCH", d.siteBase()+"/sections/"+d.apiSection, map[string]any{"condition": nil}, 200)
			text, _ := toolResult(t, post(toolCall(3, "searchDocumentation", map[string]any{"query": "zebracorn"})).must(t, 200, "search"))
			contains(t, "adaptive search", text, "## Ubuntu")
			lacks(t, "adaptive search", text, "/s/docs/api/", "Reference")
			text, isErr := toolResult(t, post(toolCall(4, "getPage", map[string]any{"url": s.URL + "/s/docs/api/errors"})).must(t, 200, "page"))
			if !isErr {
				t.Errorf("a hidden section's page: %s", text)
			}
			lacks(t, "adaptive page", text, "What fails")
		})
		t.Run("protocol errors", func(t *testing.T) {
			for _, tc := range []struct {
				name, body string
				status     int
				code       float64
				mention    string
			}{
				{"bad JSON", `{"jsonrpc":"2.0","id":1,`, 400, -32700, "parse"},
				{"not an object", `42`, 200, -32600, "object"},
				{"no jsonrpc", `{"id":1,"method":"ping"}`, 200, -32600, "jsonrpc"},
				{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 200, -32600, "id"},
				{"unknown method", rpc(1, "resources/list", nil), 200, -32601, "resources/list"},
				{"unknown tool", toolCall(1, "deletePage", map[string]any{"url": "x"}), 200, -32602, "deletePage"},
				{"no tool name", rpc(1, "tools/call", map[string]any{"arguments": map[string]any{}}), 200, -32602, "name"},
				{"no query", toolCall(1, "searchDocumentation", map[string]any{}), 200, -32602, "query"},
				{"query not a string", toolCall(1, "searchDocumentation", map[string]any{"query": 3}), 200, -32602, "query"},
				{"empty query", toolCall(1, "searchDocumentation", map[string]any{"query": "  "}), 200, -32602, "query"},
				{"long query", toolCall(1, "searchDocumentation", map[string]any{"query": strings.Repeat("a", 501)}), 200, -32602, "query"},
				{"NUL in query", toolCall(1, "searchDocumentation", map[string]any{"query": "a\x00b"}), 200, -32602, "query"},
				{"unknown argument", toolCall(1, "searchDocumentation", map[string]any{"query": "x", "limit": 5}), 200, -32602, "limit"},
				{"arguments not an object", toolCall(1, "getPage", []string{"x"}), 200, -32602, "arguments"},
				{"no url", toolCall(1, "getPage", nil), 200, -32602, "url"},
			} {
				a := post(tc.body).must(t, tc.status, tc.name)
				code, msg := a.errorCode(t)
				if code != tc.code || !strings.Contains(msg, tc.mention) {
					t.Errorf("%s: %v %q, want %v naming %q", tc.name, code, msg, tc.code, tc.mention)
				}
			}
		})
		t.Run("batches", func(t *testing.T) {
			a := post("["+rpc(1, "ping", nil)+`,{"jsonrpc":"2.0","method":"notifications/initialized"},`+rpc(2, "tools/list", nil)+"]").must(t, 200, "batch")
			var replies []map[string]any
			if err := json.Unmarshal([]byte(a.body), &replies); err != nil || len(replies) != 2 || replies[0]["id"] != float64(1) || replies[1]["id"] != float64(2) {
				t.Errorf("batch: %v %s", err, a.body)
			}
			post(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`).must(t, 202, "a batch of notifications")
			a = post("["+initialize+"]").must(t, 200, "initialize in a batch")
			if !strings.Contains(a.body, "-32600") {
				t.Errorf("initialize in a batch: %s", a.body)
			}
			if code, _ := post("["+rpc(1, "ping", nil)+"]", "MCP-Protocol-Version", "2025-06-18").must(t, 400, "no batches in 2025-06-18").errorCode(t); code != -32600 {
				t.Errorf("batch in 2025-06-18: %v", code)
			}
			post("[]").must(t, 400, "empty batch")
			post("["+strings.Repeat(rpc(1, "ping", nil)+",", 32)+rpc(1, "ping", nil)+"]").must(t, 400, "33 messages")
		})
		t.Run("transport", func(t *testing.T) {
			for _, m := range []string{http.MethodGet, http.MethodDelete} {
				req, _ := http.NewRequest(m, s.URL+mcpEndpoint, nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
					t.Errorf("%s: %d, Allow %q", m, resp.StatusCode, resp.Header.Get("Allow"))
				}
			}
			big := toolCall(1, "searchDocumentation", map[string]any{"query": strings.Repeat("a", 70<<10)})
			post(big).must(t, 413, "oversized body")
			post(initialize, "Origin", "https://evil.example").must(t, 403, "another origin")
			post(initialize, "Origin", "null").must(t, 403, "an opaque origin")
			post(initialize, "Origin", s.URL).must(t, 200, "the site's own origin")
			post(initialize, "MCP-Protocol-Version", "1999-01-01").must(t, 400, "unsupported protocol version")
			post(initialize, "Content-Type", "text/plain").must(t, 415, "not JSON")
			mcpPost(t, s.URL, "", "/s/nope/~gitbook/mcp", "", initialize).must(t, 401, "an unknown site, anonymously")
			mcpPost(t, s.URL, "", "/s/nope/~gitbook/mcp", d.token, initialize).must(t, 404, "an unknown site, with a token")
			mcpPost(t, s.URL, "", mcpEndpoint, "folio_nosuchtoken", initialize).must(t, 401, "an unknown token")
		})
	})
}

// TestMCPProtected: a site not open to anyone asks for a token (401 naming
// the resource's metadata); a member's API token reads it, published or
// not; a stranger's token does not; a visitor token and a share link's key
// admit as they do in the reader.
func TestMCPProtected(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		stranger, _ := s.NewUser(t, "eve@example.com", "Eve")
		metadata := s.URL + "/.well-known/oauth-protected-resource/s/docs/~gitbook/mcp"
		search := toolCall(2, "searchDocumentation", map[string]any{"query": "zebracorn"})
		challenged := func(a mcpAnswer, what string) {
			t.Helper()
			a.must(t, 401, what)
			if got := a.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer resource_metadata="`+metadata+`"`) {
				t.Errorf("%s: WWW-Authenticate %q", what, got)
			}
		}
		reads := func(token, what string, extra ...string) {
			t.Helper()
			text, isErr := toolResult(t, mcpPost(t, s.URL, "", mcpEndpoint+strings.Join(extra, ""), token, search).must(t, 200, what))
			if isErr || !strings.Contains(text, "## Ubuntu") {
				t.Errorf("%s: %s", what, text)
			}
		}
		t.Run("visitor auth", func(t *testing.T) {
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "visitor-auth"}, 200)
			challenged(mcpPost(t, s.URL, "", mcpEndpoint, "", initialize), "anonymous")
			challenged(mcpPost(t, s.URL, "", mcpEndpoint, "", search), "anonymous search")
			// The metadata it names leads to Folio's authorization server.
			meta := get(t, s.URL, "", strings.TrimPrefix(metadata, s.URL)).must(t, 200, "metadata")
			var m map[string]any
			if err := json.Unmarshal([]byte(meta.body), &m); err != nil || m["resource"] != s.URL+mcpEndpoint {
				t.Errorf("metadata %v %s", err, meta.body)
			}
			a := mcpPost(t, s.URL, "", mcpEndpoint, "folio_nosuchtoken", initialize)
			challenged(a, "unknown token")
			if !strings.Contains(a.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("unknown token: %q", a.header.Get("WWW-Authenticate"))
			}
			mcpPost(t, s.URL, "", mcpEndpoint, stranger.Token, initialize).must(t, 403, "a stranger's token")
			reads(d.token, "a member's token")
			key := api(t, s, d.token, "GET", d.siteBase()+"/publishing/auth", nil, 200)["privateKey"].(string)
			tok, err := visitorauth.Sign(key, map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
			if err != nil {
				t.Fatal(err)
			}
			reads(tok, "a visitor token")
			expired, _ := visitorauth.Sign(key, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})
			challenged(mcpPost(t, s.URL, "", mcpEndpoint, expired, initialize), "an expired visitor token")
		})
		t.Run("share link", func(t *testing.T) {
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "share-link"}, 200)
			link := s.MustGraphQL(t, d.token, `mutation($site: ID!) { createSiteShareLink(site: $site, name: "Partners") { key } }`,
				map[string]any{"site": d.site})["createSiteShareLink"].(map[string]any)["key"].(string)
			challenged(mcpPost(t, s.URL, "", mcpEndpoint, "", initialize), "without the key")
			challenged(mcpPost(t, s.URL, "", mcpEndpoint+"?shareKey=wrong", "", initialize), "a wrong key")
			reads("", "with the key", "?shareKey="+link)
			reads(d.token, "a member's token")
		})
		t.Run("unpublished", func(t *testing.T) {
			api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "public"}, 200)
			api(t, s, d.token, "POST", d.siteBase()+"/unpublish", nil, 200)
			challenged(mcpPost(t, s.URL, "", mcpEndpoint, "", initialize), "anonymous")
			mcpPost(t, s.URL, "", mcpEndpoint, stranger.Token, initialize).must(t, 404, "a stranger")
			reads(d.token, "a member previews it")
			api(t, s, d.token, "POST", d.siteBase()+"/publish", nil, 200)
			reads(stranger.Token, "a stranger's token on a public site reads as anyone")
		})
	})
}

// TestMCPSiteHost: on a mapped host the server is at /~gitbook/mcp, its
// URLs are the host's, and its resource metadata is the host's own.
func TestMCPSiteHost(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		d := newDocs(t, s)
		cfg := s.App.Config
		cfg.SiteHosts = "docs.example.test=" + d.site
		a, err := app.New(cfg, s.App.DB, app.NewLogger(io.Discard))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(a.Handler)
		defer srv.Close()
		const host = "docs.example.test"
		post := func(token, body string) mcpAnswer {
			return mcpPost(t, srv.URL, host, "/~gitbook/mcp", token, body)
		}
		post("", initialize).must(t, 200, "initialize")
		text, _ := toolResult(t, post("", toolCall(2, "searchDocumentation", map[string]any{"query": "zebracorn"})).must(t, 200, "search"))
		contains(t, "mapped search", text, "URL: http://"+host+"/install/linux/ubuntu", "URL: http://"+host+"/api/reference")
		text, isErr := toolResult(t, post("", toolCall(3, "getPage", map[string]any{"url": "http://" + host + "/install/linux/ubuntu"})).must(t, 200, "page"))
		if isErr {
			t.Errorf("page: %s", text)
		}
		contains(t, "mapped page", text, "zebracorn package")
		mcpPost(t, srv.URL, host, "/~gitbook/mcp", "", initialize, "Origin", "http://"+host).must(t, 200, "the host's own origin")
		mcpPost(t, srv.URL, host, "/~gitbook/mcp", "", initialize, "Origin", s.URL).must(t, 403, "the base URL's origin is another")
		get(t, srv.URL, host, "/~gitbook/mcp").must(t, 405, "GET")
		get(t, srv.URL, host, "/install").must(t, 200, "pages still served")

		api(t, s, d.token, "PATCH", d.siteBase(), map[string]any{"visibility": "visitor-auth"}, 200)
		resp := post("", initialize).must(t, 401, "visitor-auth")
		want := fmt.Sprintf(`Bearer resource_metadata="http://%s/.well-known/oauth-protected-resource/~gitbook/mcp"`, host)
		if got := resp.header.Get("WWW-Authenticate"); got != want {
			t.Errorf("WWW-Authenticate %q, want %q", got, want)
		}
		meta := get(t, srv.URL, host, "/.well-known/oauth-protected-resource/~gitbook/mcp").must(t, 200, "metadata")
		var m map[string]any
		if err := json.Unmarshal([]byte(meta.body), &m); err != nil || m["resource"] != "http://"+host+"/~gitbook/mcp" ||
			m["authorization_servers"].([]any)[0] != s.App.Config.BaseURL {
			t.Errorf("metadata %v %s (base %s)", err, meta.body, s.App.Config.BaseURL)
		}
		text, _ = toolResult(t, post(d.token, toolCall(4, "searchDocumentation", map[string]any{"query": "zebracorn"})).must(t, 200, "member"))
		contains(t, "member on the host", text, "## Ubuntu")
	})
}
