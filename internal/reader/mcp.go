package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/textcheck"
	"github.com/folio/folio/internal/visitor"
)

// Every published site has a read-only MCP server (Model Context Protocol)
// at MCPPath below its root, as GitBook's docs sites do: AI tools search
// the site and read its pages as markdown. It speaks the protocol's
// "streamable HTTP" transport without streams: each POST carries one
// JSON-RPC 2.0 message (or, before 2025-06-18, a batch) and gets its
// answer as application/json, which the transport allows; GET, which
// would open a server-to-client stream, is 405. It keeps no session: the
// server has nothing to remember between messages.
//
// It reads what the HTML reader shows the same reader, through the same
// rules: the sites' visibility and claims (internal/visitor), what a
// visitor sees of the structure (internal/published.View), one search
// (search.go: find). Programs carry no cookie: on a site not open to
// anyone they bring Authorization: Bearer with a Folio API token or OAuth
// access token of someone who can see the site in Folio (they read it as
// its members' preview does, published or not), or a visitor token signed
// with the site's key (visitor-auth and adaptive claims); a share-link
// site also admits ?shareKey= on the server's address. Without them the
// answer is 401 naming the resource's metadata (RFC 9728), through which
// MCP clients find Folio's OAuth server ("OAuth for tools").

// MCPPath is where a site's MCP server is, below the site's root.
const MCPPath = "~gitbook/mcp"

// mcpMetadataPath is a mapped host's protected-resource metadata of its
// MCP server: its own host, as RFC 9728 wants the resource to be the
// address the client used.
const mcpMetadataPath = "/.well-known/oauth-protected-resource/" + MCPPath

// Bounds of the server.
const (
	maxMCPBody       = 64 << 10  // a request body
	maxMCPBatch      = 32        // messages of a batch
	maxMCPQuery      = 500       // searchDocumentation's query, in bytes
	maxMCPURL        = 2048      // getPage's url, in bytes
	mcpResults       = 20        // pages a search returns
	mcpSnippets      = 3         // excerpts per page found
	maxMCPSnippet    = 400       // characters of an excerpt
	maxMCPMarkdown   = 256 << 10 // bytes of markdown getPage returns
	mcpServerVersion = "1.0.0"
)

// mcpVersions are the protocol versions spoken, newest first. Batches went
// away in 2025-06-18.
var mcpVersions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// JSON-RPC error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
	// rpcRefused: an answer of the transport (HTTP), not of a method.
	rpcRefused = -32000
)

// mcpSite is the MCP server of one site as the client reached it.
type mcpSite struct {
	name, id string // /s/<name>/, or the site id of a mapped host
	// root is the site's absolute address as the client reaches it (with
	// a trailing slash): result URLs start with it.
	root string
	// metadata is the address of the server's protected-resource
	// metadata, for WWW-Authenticate.
	metadata string
}

// ServeMCP serves /s/<name>/~gitbook/mcp on the base URL.
func (h *Handler) ServeMCP(w http.ResponseWriter, r *http.Request) {
	if !h.admitURL(w, r) {
		return
	}
	name, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/s/"), "/"+MCPPath)
	if !ok || name == "" || strings.Contains(name, "/") {
		h.notFound(w, r)
		return
	}
	root := h.baseURL + "/s/" + url.PathEscape(name) + "/"
	h.mcp(w, r, mcpSite{name: name, root: root,
		metadata: h.baseURL + "/.well-known/oauth-protected-resource/s/" + url.PathEscape(name) + "/" + MCPPath})
}

// serveHostMCP serves a mapped host's MCP server, and its metadata, for
// site id.
func (h *Handler) serveHostMCP(w http.ResponseWriter, r *http.Request, id string) {
	if !h.admitURL(w, r) {
		return
	}
	scheme := "http"
	if r.TLS != nil || strings.HasPrefix(h.baseURL, "https://") {
		scheme = "https"
	}
	origin := scheme + "://" + r.Host
	if r.URL.Path == mcpMetadataPath {
		h.mcpResourceMetadata(w, r, origin+"/"+MCPPath)
		return
	}
	h.mcp(w, r, mcpSite{id: id, root: origin + "/", metadata: origin + mcpMetadataPath})
}

// mcpResourceMetadata is RFC 9728's metadata of a mapped host's MCP
// server: Folio (the base URL) is its authorization server. The base
// URL's own servers are described by internal/oauth.
func (h *Handler) mcpResourceMetadata(w http.ResponseWriter, r *http.Request, resource string) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.plain(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	mcpWrite(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{h.baseURL},
		"bearer_methods_supported": []string{"header"},
		"scopes_supported":         graph.OAuthScopes,
		"resource_name":            "Folio docs site",
	})
}

// mcp answers a request to a site's MCP server.
func (h *Handler) mcp(w http.ResponseWriter, r *http.Request, ms mcpSite) {
	hdr := w.Header()
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Robots-Tag", "noindex")
	if r.Method != http.MethodPost {
		// GET would open a stream of the server's own messages: it has
		// none. DELETE would end a session: there is none.
		hdr.Set("Allow", "POST")
		mcpRefuse(w, http.StatusMethodNotAllowed, rpcRefused, "the MCP server takes JSON-RPC messages by POST")
		return
	}
	// A browser page of another site must not use a reader's network
	// position (DNS rebinding, an intranet's docs): the MCP spec's
	// security note. Programs send no Origin.
	if origin := r.Header.Get("Origin"); origin != "" && !mcpSameOrigin(origin, ms.root) {
		mcpRefuse(w, http.StatusForbidden, rpcRefused, "requests from another origin's pages are refused")
		return
	}
	version := r.Header.Get("MCP-Protocol-Version")
	if version == "" {
		version = "2025-03-26" // what the transport says to assume
	} else if !mcpSupported(version) {
		mcpRefuse(w, http.StatusBadRequest, rpcRefused, "unsupported MCP-Protocol-Version "+version+"; supported: "+strings.Join(mcpVersions, ", "))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
			mcpRefuse(w, http.StatusUnsupportedMediaType, rpcRefused, "the body must be application/json")
			return
		}
	}
	ctx, v, ok := h.mcpAdmit(w, r, ms)
	if !ok {
		return
	}
	if r.ContentLength > maxMCPBody {
		mcpRefuse(w, http.StatusRequestEntityTooLarge, rpcInvalidRequest, "the body is larger than 64 KiB")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			mcpRefuse(w, http.StatusRequestEntityTooLarge, rpcInvalidRequest, "the body is larger than 64 KiB")
			return
		}
		mcpRefuse(w, http.StatusBadRequest, rpcParseError, "the body could not be read")
		return
	}
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		mcpWrite(w, http.StatusBadRequest, rpcError(nil, rpcParseError, "parse error: the body is not JSON"))
		return
	}
	srv := &mcpServer{h: h, ctx: ctx, view: v, site: ms, version: version}
	if body[0] != '[' {
		if reply := srv.handle(body, false); reply != nil {
			mcpWrite(w, http.StatusOK, reply)
		} else {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	var batch []json.RawMessage
	_ = json.Unmarshal(body, &batch) // valid JSON: an array decodes
	switch {
	case version >= "2025-06-18":
		mcpWrite(w, http.StatusBadRequest, rpcError(nil, rpcInvalidRequest, "batches are not part of MCP "+version))
		return
	case len(batch) == 0:
		mcpWrite(w, http.StatusBadRequest, rpcError(nil, rpcInvalidRequest, "an empty batch"))
		return
	case len(batch) > maxMCPBatch:
		mcpWrite(w, http.StatusBadRequest, rpcError(nil, rpcInvalidRequest, fmt.Sprintf("a batch holds at most %d messages", maxMCPBatch)))
		return
	}
	var replies []any
	for _, m := range batch {
		if reply := srv.handle(m, true); reply != nil {
			replies = append(replies, reply)
		}
	}
	if len(replies) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	mcpWrite(w, http.StatusOK, replies)
}

// mcpAdmit decides who reads the site and what they see of it, or answers
// the request itself (ok false): 401 without a credential the site
// accepts, 403 when the credential does not give access, 404.
func (h *Handler) mcpAdmit(w http.ResponseWriter, r *http.Request, ms mcpSite) (context.Context, *published.View, bool) {
	token := auth.BearerToken(r)
	// A visitor token is a JWT (three dot-separated parts); Folio's API
	// tokens have no dot.
	jwt := strings.Count(token, ".") == 2
	ctx := h.res.ReaderContext(r.Context())
	if token != "" && !jwt {
		c, err := h.res.MCPViewerContext(r.Context(), token)
		if err != nil {
			if e, ok := apperr.As(err); ok && e.Kind == apperr.Unauthenticated {
				h.mcpUnauthorized(w, ms, "invalid_token", "the token is unknown, expired or revoked")
			} else {
				h.mcpFail(w, r, err)
			}
			return nil, nil, false
		}
		ctx = c
	}
	s, member, err := h.res.MCPSite(ctx, ms.name, ms.id)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		if token == "" {
			// Unknown, unpublished and protected sites answer alike to
			// anonymous callers, and a member's client learns to sign in.
			h.mcpUnauthorized(w, ms, "", "this MCP server needs a token: Authorization: Bearer")
		} else {
			mcpRefuse(w, http.StatusNotFound, rpcRefused, "site not found")
		}
		return nil, nil, false
	}
	if err != nil {
		h.mcpFail(w, r, err)
		return nil, nil, false
	}
	// A member reads the site as a visitor without claims would, as in
	// the reader's preview: conditions are for the audience.
	claims := map[string]any{"unsigned": map[string]any{}}
	if !member {
		var creds visitor.Credentials
		if jwt {
			if creds.Signed = visitor.VerifyToken(s.VisitorKey, token); creds.Signed == nil {
				h.mcpUnauthorized(w, ms, "invalid_token", "the visitor token is not valid for this site")
				return nil, nil, false
			}
		}
		if key := r.URL.Query().Get(visitor.ShareKeyParam); key != "" && s.Visibility == "share-link" {
			active, err := h.res.SiteShareKeyActive(ctx, s.ID, key)
			if err != nil {
				h.mcpFail(w, r, err)
				return nil, nil, false
			}
			creds.ShareKeyActive = active
		}
		if visitor.Decide(s.Visibility, creds) != visitor.Admitted {
			if token == "" {
				h.mcpUnauthorized(w, ms, "", "this MCP server needs a token: Authorization: Bearer")
			} else {
				mcpRefuse(w, http.StatusForbidden, rpcRefused, "the token does not give access to this site")
			}
			return nil, nil, false
		}
		claims = visitor.VisitorOf(s.Visibility, creds).Claims
	}
	return ctx, published.NewView(s, ms.root, claims), true
}

// mcpUnauthorized is RFC 6750's 401, naming the server's RFC 9728
// metadata so that MCP clients find the authorization server.
func (h *Handler) mcpUnauthorized(w http.ResponseWriter, ms mcpSite, code, msg string) {
	challenge := `Bearer resource_metadata="` + ms.metadata + `"`
	if code != "" {
		challenge += `, error="` + code + `"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	mcpRefuse(w, http.StatusUnauthorized, rpcRefused, msg)
}

func (h *Handler) mcpFail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		mcpRefuse(w, http.StatusServiceUnavailable, rpcRefused, "the request was cut short")
		return
	}
	slog.ErrorContext(r.Context(), "internal error", "err", err)
	mcpRefuse(w, http.StatusInternalServerError, rpcInternalError, "internal error")
}

// mcpSameOrigin: origin is the site's own (the root's scheme and host).
func mcpSameOrigin(origin, root string) bool {
	o, err := url.Parse(origin)
	u, err2 := url.Parse(root)
	return err == nil && err2 == nil && o.Host != "" &&
		strings.EqualFold(o.Scheme, u.Scheme) && strings.EqualFold(o.Host, u.Host)
}

func mcpSupported(version string) bool {
	for _, v := range mcpVersions {
		if v == version {
			return true
		}
	}
	return false
}

// mcpRefuse answers a request the transport refuses, with a JSON-RPC
// error of no request.
func mcpRefuse(w http.ResponseWriter, status, code int, msg string) {
	mcpWrite(w, status, rpcError(nil, code, msg))
}

func mcpWrite(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// rpcReply is a JSON-RPC response.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcErr         `json:"error,omitempty"`
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func rpcError(id json.RawMessage, code int, msg string) *rpcReply {
	if id == nil {
		id = json.RawMessage("null")
	}
	return &rpcReply{JSONRPC: "2.0", ID: id, Error: &rpcErr{Code: code, Message: msg}}
}

// mcpServer answers the messages of one request.
type mcpServer struct {
	h       *Handler
	ctx     context.Context
	view    *published.View
	site    mcpSite
	version string // the request's protocol version
}

// rpcMessage is a message as a client sends it: a request (id and
// method), a notification (method, no id) or a response to the server
// (result or error: it sends no requests, so there are none to expect).
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// handle answers one message: nil for a notification or a response.
func (s *mcpServer) handle(raw json.RawMessage, inBatch bool) *rpcReply {
	var m rpcMessage
	if err := json.Unmarshal(raw, &m); err != nil || bytes.TrimSpace(raw)[0] != '{' {
		return rpcError(nil, rpcInvalidRequest, "invalid request: a message is a JSON object")
	}
	id := m.ID
	if len(id) > 0 && !validID(id) {
		return rpcError(nil, rpcInvalidRequest, "invalid request: id must be a string or a number")
	}
	if m.JSONRPC != "2.0" {
		return rpcError(id, rpcInvalidRequest, `invalid request: jsonrpc must be "2.0"`)
	}
	if m.Method == nil {
		if len(id) > 0 && (m.Result != nil || m.Error != nil) {
			return nil // a response to a request the server never sent
		}
		return rpcError(id, rpcInvalidRequest, "invalid request: method is missing")
	}
	if len(id) == 0 {
		return nil // notifications (initialized, cancelled, …) need nothing
	}
	out, fault := s.call(*m.Method, m.Params, inBatch)
	if fault != nil {
		return rpcError(id, fault.code, fault.msg)
	}
	return &rpcReply{JSONRPC: "2.0", ID: id, Result: out}
}

// validID: a string or a number (MCP forbids null).
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

type rpcFault struct {
	code int
	msg  string
}

func invalidParam(name, problem string) *rpcFault {
	return &rpcFault{code: rpcInvalidParams, msg: "invalid params: " + name + " " + problem}
}

func (s *mcpServer) call(method string, params json.RawMessage, inBatch bool) (any, *rpcFault) {
	switch method {
	case "initialize":
		if inBatch {
			return nil, &rpcFault{rpcInvalidRequest, "initialize must not be part of a batch"}
		}
		return s.initialize(params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": mcpTools}, nil
	case "tools/call":
		return s.callTool(params)
	}
	return nil, &rpcFault{rpcMethodNotFound, "method not found: " + clipRunes(method, 100)}
}

func (s *mcpServer) initialize(params json.RawMessage) (any, *rpcFault) {
	var p struct {
		ProtocolVersion any `json:"protocolVersion"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return nil, invalidParam("params", "must be an object")
	}
	asked, ok := p.ProtocolVersion.(string)
	if !ok {
		return nil, invalidParam("protocolVersion", "must be a string")
	}
	// The client's version when spoken, else the newest: the client
	// decides whether it can go on with it.
	version := mcpVersions[0]
	if mcpSupported(asked) {
		version = asked
	}
	title := s.view.Site.Title
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
		"serverInfo":      map[string]any{"name": "folio-docs", "title": title, "version": mcpServerVersion},
		"instructions": "The published documentation of " + title + " (" + s.site.root + "). " +
			"Use searchDocumentation to find pages, then getPage with a result's URL to read one as markdown.",
	}, nil
}

// The tools, as tools/list presents them (GitBook's names).
var mcpTools = []map[string]any{
	{
		"name":  "searchDocumentation",
		"title": "Search the documentation",
		"description": "Search this documentation site. Answers the best matching pages (at most 20), each with its title, " +
			"URL and the passages that match. Read a page in full with getPage.",
		"inputSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{"type": "string", "minLength": 1, "maxLength": maxMCPQuery, "description": "What to look for: words or a question."},
			},
			"required":             []string{"query"},
			"additionalProperties": false,
		},
		"annotations": map[string]any{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
	},
	{
		"name":        "getPage",
		"title":       "Read a page",
		"description": "Read a page of this documentation site as markdown, by its URL (as searchDocumentation gives it) or its path below the site's address.",
		"inputSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"url": map[string]any{"type": "string", "minLength": 1, "maxLength": maxMCPURL, "description": "The page's URL, or its path below the site's address."},
			},
			"required":             []string{"url"},
			"additionalProperties": false,
		},
		"annotations": map[string]any{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
	},
}

// toolText is a tool's result: text, and whether it reports a failure
// the model may act on (not a protocol error).
func toolText(text string, isError bool) map[string]any {
	return map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "isError": isError}
}

func (s *mcpServer) callTool(params json.RawMessage) (any, *rpcFault) {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return nil, invalidParam("params", "must be an object with name and arguments")
	}
	if p.Name == nil {
		return nil, invalidParam("name", "is required")
	}
	var want string
	switch *p.Name {
	case "searchDocumentation":
		want = "query"
	case "getPage":
		want = "url"
	default:
		return nil, &rpcFault{rpcInvalidParams, "unknown tool: " + clipRunes(*p.Name, 100)}
	}
	args := map[string]json.RawMessage{}
	if len(p.Arguments) > 0 && string(p.Arguments) != "null" {
		if json.Unmarshal(p.Arguments, &args) != nil {
			return nil, invalidParam("arguments", "must be an object")
		}
	}
	for name := range args {
		if name != want {
			return nil, invalidParam(clipRunes(name, 100), "is not an argument of "+*p.Name)
		}
	}
	var value string
	if raw, ok := args[want]; !ok {
		return nil, invalidParam(want, "is required")
	} else if json.Unmarshal(raw, &value) != nil {
		return nil, invalidParam(want, "must be a string")
	}
	limit := maxMCPQuery
	if want == "url" {
		limit = maxMCPURL
	}
	value = strings.TrimSpace(value)
	switch {
	case value == "":
		return nil, invalidParam(want, "must not be empty")
	case len(value) > limit:
		return nil, invalidParam(want, fmt.Sprintf("must be at most %d bytes", limit))
	case textcheck.Problem(value) != "":
		return nil, invalidParam(want, textcheck.Problem(value))
	}
	if want == "query" {
		return s.searchDocumentation(value)
	}
	return s.getPage(value)
}

func (s *mcpServer) searchDocumentation(q string) (any, *rpcFault) {
	results, err := s.h.find(s.ctx, s.view, q, mcpResults)
	if err != nil {
		return nil, s.internal(err)
	}
	if len(results) == 0 {
		return toolText(fmt.Sprintf("No page of %s matches %q.", s.view.Site.Title, q), false), nil
	}
	var b strings.Builder
	if len(results) == 1 {
		fmt.Fprintf(&b, "1 page of %s matches %q:\n", s.view.Site.Title, q)
	} else {
		fmt.Fprintf(&b, "%d pages of %s match %q, best first:\n", len(results), s.view.Site.Title, q)
	}
	for _, res := range results {
		fmt.Fprintf(&b, "\n## %s\nURL: %s\n", res.Title, res.URL)
		if res.Where != "" {
			fmt.Fprintf(&b, "In: %s\n", res.Where)
		}
		for i, sec := range res.Sections {
			if i == mcpSnippets {
				break
			}
			title := sec.Title
			if title == "" {
				title = res.Title
			}
			fmt.Fprintf(&b, "- %s (%s): %s\n", title, sec.URL, clipRunes(strings.Join(strings.Fields(sec.Text), " "), maxMCPSnippet))
		}
	}
	return toolText(b.String(), false), nil
}

func (s *mcpServer) getPage(addr string) (any, *rpcFault) {
	rest, ok := s.pathOf(addr)
	if !ok {
		return nil, invalidParam("url", "is not an address of this site ("+s.site.root+")")
	}
	missing := toolText("No page of "+s.view.Site.Title+" is at "+addr+". Find pages with searchDocumentation.", true)
	pl, ok := s.view.Resolve(rest)
	if !ok {
		return missing, nil
	}
	n, err := s.h.res.PublishedNav(s.ctx, pl.SiteSpace.RevisionID)
	if err != nil {
		return nil, s.internal(err)
	}
	p := n.PageAt(pl.PagePath)
	// Hidden pages stay out of tools as they stay out of the search: a
	// tool has no address bar to have been given their URL in.
	if p == nil || !n.Listed(p) {
		return missing, nil
	}
	switch p.Kind {
	case "link":
		return toolText(p.Title+" is a link to "+p.Href+", not a page of this site.", true), nil
	case "group":
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n%s is a group of pages:\n\n", p.Title, p.Title)
		base := s.view.SpaceURL(pl.Section, pl.SiteSpace)
		for _, c := range n.ListedOf(p.Children) {
			fmt.Fprintf(&b, "- [%s](%s)\n", c.Title, base+c.Path)
		}
		return toolText(b.String(), false), nil
	}
	md, err := s.h.res.ReaderMarkdown(s.ctx, p.ContentHash)
	if err != nil {
		return nil, s.internal(err)
	}
	if len(md) > maxMCPMarkdown {
		cut := maxMCPMarkdown
		for cut > 0 && !utf8.RuneStart(md[cut]) {
			cut--
		}
		md = md[:cut] + fmt.Sprintf("\n\n[The page is longer than %d KiB: the rest is left out.]\n", maxMCPMarkdown>>10)
	}
	return toolText(md, false), nil
}

// pathOf is the path below the site's root that addr names: an absolute
// URL under the root, a path from the root of its host ("/s/<name>/…"),
// or a path below the site's root. A query and a fragment are left out,
// and so are GitBook's ".md" ending and trailing slashes.
func (s *mcpServer) pathOf(addr string) (string, bool) {
	u, err := url.Parse(addr)
	if err != nil {
		return "", false
	}
	root, _ := url.Parse(s.site.root)
	p := u.Path
	if u.Scheme != "" || u.Host != "" {
		if !strings.EqualFold(u.Scheme, root.Scheme) || !strings.EqualFold(u.Host, root.Host) {
			return "", false
		}
		if !strings.HasPrefix(p+"/", root.Path) {
			return "", false
		}
	}
	if p+"/" == root.Path {
		p = root.Path
	}
	if strings.HasPrefix(p, root.Path) {
		p = strings.TrimPrefix(p, root.Path)
	}
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".md")
	return p, true
}

func (s *mcpServer) internal(err error) *rpcFault {
	if s.ctx.Err() == nil {
		slog.ErrorContext(s.ctx, "internal error", "err", err)
	}
	return &rpcFault{rpcInternalError, "internal error"}
}

// clipRunes is s cut to at most n characters.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
