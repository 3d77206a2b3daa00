// Package openapi reads an OpenAPI description from its source (a URL, or
// text given inline) into the files of a version: the root document and
// every file its relative external $refs reach, fetched the same way, under
// bounds. It parses and validates with kin-openapi (OpenAPI 3.0 and 3.1;
// Swagger 2.0 through openapi2conv), YAML or JSON.
//
// Failures come back as a Problem with GitBook's code (FETCH_TIMEOUT,
// FETCH_ERROR, PARSE_ERROR) and located messages: a file of the version and
// a line or a JSON pointer, never an address. The package knows nothing of
// HTTP servers, GraphQL or ent; it fetches through the Fetch it is given.
package openapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

// Error codes of a failed processing (GitBook's OpenAPISpecProcessingErrorCode).
const (
	FetchTimeout = "FETCH_TIMEOUT"
	FetchError   = "FETCH_ERROR"
	ParseError   = "PARSE_ERROR"
)

// Limits bound one processing. Zero fields take the defaults.
type Limits struct {
	FileBytes  int64         // one file
	TotalBytes int64         // all files together
	Files      int           // files, the root included (external $refs + 1)
	Depth      int           // chain of files from the root through $refs
	YAMLNodes  int           // YAML nodes once aliases are expanded
	FetchTime  time.Duration // one fetch
	TotalTime  time.Duration // the whole processing
}

// Defaults of Limits (documented in the README).
var Defaults = Limits{
	FileBytes:  5 << 20,
	TotalBytes: 20 << 20,
	Files:      100,
	Depth:      10,
	YAMLNodes:  1_000_000,
	FetchTime:  30 * time.Second,
	TotalTime:  2 * time.Minute,
}

func (l Limits) withDefaults() Limits {
	d := Defaults
	if l.FileBytes > 0 {
		d.FileBytes = l.FileBytes
	}
	if l.TotalBytes > 0 {
		d.TotalBytes = l.TotalBytes
	}
	if l.Files > 0 {
		d.Files = l.Files
	}
	if l.Depth > 0 {
		d.Depth = l.Depth
	}
	if l.YAMLNodes > 0 {
		d.YAMLNodes = l.YAMLNodes
	}
	if l.FetchTime > 0 {
		d.FetchTime = l.FetchTime
	}
	if l.TotalTime > 0 {
		d.TotalTime = l.TotalTime
	}
	return d
}

// Fetch downloads a URL (the server's guarded fetcher); its error messages
// must be fit to show.
type Fetch func(ctx context.Context, rawURL string) ([]byte, error)

// Source is where a spec comes from: URL or Text.
type Source struct {
	URL  string
	Text string
}

// Located is one problem and where it is.
type Located struct {
	Message string
	File    string
	Line    int
	Pointer string
}

// Problem is a failed processing.
type Problem struct {
	Code   string
	Errors []Located
	// Retry is true for failures that may pass on another attempt (the
	// host unreachable, a timeout, a 5xx answer).
	Retry bool
}

func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.Code)
	for _, e := range p.Errors {
		b.WriteString("; ")
		b.WriteString(e.String())
	}
	return b.String()
}

// String is the message with its location in front.
func (e Located) String() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Pointer != "" {
		loc += "#" + e.Pointer
	}
	if loc == "" {
		return e.Message
	}
	return loc + ": " + e.Message
}

// Result is a processed spec.
type Result struct {
	Root   string            // path of the root document among Files
	Files  map[string]string // path → text
	Format string            // json or yaml, of the root
	Hash   string            // of Root and Files: equal content, equal hash
	Doc    *openapi3.T
}

// FetchFailure is what a Fetch returns for a failure worth retrying;
// Process marks the Problem retryable when it sees one.
type FetchFailure struct {
	Err       error
	Retryable bool
}

func (f *FetchFailure) Error() string { return f.Err.Error() }
func (f *FetchFailure) Unwrap() error { return f.Err }

// Process reads src under limits.
func Process(ctx context.Context, src Source, fetch Fetch, limits Limits) (*Result, *Problem) {
	l := limits.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, l.TotalTime)
	defer cancel()
	c := &collector{ctx: ctx, fetch: fetch, l: l, files: map[string]string{}, nodes: map[string]*yaml.Node{}}
	var root string
	if src.URL != "" {
		u, err := url.Parse(src.URL)
		if err != nil {
			return nil, &Problem{Code: FetchError, Errors: []Located{{Message: "the source URL is not valid"}}}
		}
		c.base = u
		root = path.Base(u.Path)
		if root == "/" || root == "." || root == "" {
			root = "openapi"
		}
		body, p := c.get(u.String(), root)
		if p != nil {
			return nil, p
		}
		if p := c.add(root, body, 0); p != nil {
			return nil, p
		}
	} else {
		root = "openapi.yaml"
		if isJSON([]byte(src.Text)) {
			root = "openapi.json"
		}
		if int64(len(src.Text)) > l.FileBytes {
			return nil, parseProblem(root, 0, "", fmt.Sprintf("the text is larger than %d bytes", l.FileBytes))
		}
		if p := c.add(root, []byte(src.Text), 0); p != nil {
			return nil, p
		}
	}
	doc, p := load(ctx, root, c.files, c.nodes[root])
	if p != nil {
		return nil, p
	}
	format := "yaml"
	if isJSON([]byte(c.files[root])) {
		format = "json"
	}
	return &Result{Root: root, Files: c.files, Format: format, Hash: Hash(root, c.files), Doc: doc}, nil
}

// Hash is the content address of a version.
func Hash(root string, files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "%q\n", root)
	for _, n := range names {
		fmt.Fprintf(h, "%q %d\n", n, len(files[n]))
		h.Write([]byte(files[n]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Parse reads stored files back into a document (no fetching).
func Parse(ctx context.Context, root string, files map[string]string) (*openapi3.T, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(files[root]), &n); err != nil {
		return nil, err
	}
	doc, p := load(ctx, root, files, &n)
	if p != nil {
		return nil, p
	}
	return doc, nil
}

func isJSON(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

type collector struct {
	ctx   context.Context
	fetch Fetch
	l     Limits
	base  *url.URL // nil for text: external refs cannot be followed
	files map[string]string
	nodes map[string]*yaml.Node
	total int64
}

func (c *collector) get(rawURL, name string) ([]byte, *Problem) {
	if len(c.files) >= c.l.Files {
		return nil, parseProblem(name, 0, "", fmt.Sprintf("more than %d files are referenced", c.l.Files))
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.l.FetchTime)
	defer cancel()
	body, err := c.fetch(ctx, rawURL)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, &Problem{Code: FetchTimeout, Retry: true, Errors: []Located{{File: name,
				Message: fmt.Sprintf("fetching took longer than %s", c.l.FetchTime)}}}
		}
		var ff *FetchFailure
		retry := errors.As(err, &ff) && ff.Retryable
		return nil, &Problem{Code: FetchError, Retry: retry, Errors: []Located{{File: name, Message: err.Error()}}}
	}
	if int64(len(body)) > c.l.FileBytes {
		return nil, parseProblem(name, 0, "", fmt.Sprintf("the file is larger than %d bytes", c.l.FileBytes))
	}
	c.total += int64(len(body))
	if c.total > c.l.TotalBytes {
		return nil, parseProblem(name, 0, "", fmt.Sprintf("the files together are larger than %d bytes", c.l.TotalBytes))
	}
	return body, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// add parses file name, checks its bounds, and fetches what its external
// $refs reach (depth: its distance from the root).
func (c *collector) add(name string, body []byte, depth int) *Problem {
	if !isUTF8Text(body) {
		return parseProblem(name, 0, "", "the file is not UTF-8 text")
	}
	var n yaml.Node
	if err := yaml.Unmarshal(body, &n); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		msg = strings.TrimLeft(msg, ": ")
		return parseProblem(name, line, "", "not valid YAML or JSON: "+msg)
	}
	if size := expanded(&n, map[*yaml.Node]int{}, c.l.YAMLNodes); size > c.l.YAMLNodes {
		return parseProblem(name, 0, "", fmt.Sprintf("YAML aliases expand to more than %d nodes", c.l.YAMLNodes))
	}
	c.files[name] = string(body)
	c.nodes[name] = &n
	refs := externalRefs(&n, nil)
	for _, ref := range refs {
		target, p := c.resolve(name, ref)
		if p != nil {
			return p
		}
		if _, seen := c.files[target]; seen {
			continue
		}
		if depth+1 > c.l.Depth {
			return parseProblem(name, ref.line, "", fmt.Sprintf("$ref %q: references nest deeper than %d files", ref.value, c.l.Depth))
		}
		u := c.base.ResolveReference(&url.URL{Path: target})
		body, p := c.get(u.String(), target)
		if p != nil {
			return p
		}
		if p := c.add(target, body, depth+1); p != nil {
			return p
		}
	}
	return nil
}

// resolve is the path, among the version's files, of an external $ref of
// file from: relative, inside the root document's directory.
func (c *collector) resolve(from string, ref refAt) (string, *Problem) {
	file, _, _ := strings.Cut(ref.value, "#")
	if c.base == nil {
		return "", parseProblem(from, ref.line, "", fmt.Sprintf("$ref %q points to another file: a spec given as text must be one document (give a URL to use several files)", ref.value))
	}
	u, err := url.Parse(file)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(file, "/") {
		return "", parseProblem(from, ref.line, "", fmt.Sprintf("$ref %q: only relative references to files next to the spec (or below it) are followed", ref.value))
	}
	target := path.Clean(path.Join(path.Dir(from), u.Path))
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", parseProblem(from, ref.line, "", fmt.Sprintf("$ref %q leaves the spec's directory", ref.value))
	}
	return target, nil
}

type refAt struct {
	value string
	line  int
}

// externalRefs lists the $ref values of n that name another file.
func externalRefs(n *yaml.Node, out []refAt) []refAt {
	if n == nil {
		return out
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode && v.Value != "" && !strings.HasPrefix(v.Value, "#") {
				out = append(out, refAt{v.Value, v.Line})
			}
		}
	}
	for _, ch := range n.Content {
		out = externalRefs(ch, out)
	}
	return out
}

// expanded counts n's nodes with aliases expanded, stopping past max.
func expanded(n *yaml.Node, memo map[*yaml.Node]int, max int) int {
	if n == nil {
		return 0
	}
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = max + 1 // an alias cycle counts as too many
	size := 1
	if n.Kind == yaml.AliasNode {
		size += expanded(n.Alias, memo, max)
	}
	for _, ch := range n.Content {
		if size > max {
			break
		}
		size += expanded(ch, memo, max)
	}
	memo[n] = size
	return size
}

func isUTF8Text(b []byte) bool {
	return !bytes.ContainsRune(b, 0) && strings.ToValidUTF8(string(b), "\uFFFD") == string(b)
}

func parseProblem(file string, line int, pointer, msg string) *Problem {
	return &Problem{Code: ParseError, Errors: []Located{{File: file, Line: line, Pointer: pointer, Message: msg}}}
}

// load parses and validates the root with kin-openapi, reading the other
// files from memory only.
func load(ctx context.Context, root string, files map[string]string, rootNode *yaml.Node) (*openapi3.T, *Problem) {
	top := topKeys(rootNode)
	if v, ok := top["swagger"]; ok {
		if v != "2.0" {
			return nil, parseProblem(root, 0, "/swagger", fmt.Sprintf("swagger version %q is not supported (2.0 is)", v))
		}
		var generic any
		if err := rootNode.Decode(&generic); err != nil {
			return nil, parseProblem(root, 0, "", err.Error())
		}
		raw, err := json.Marshal(generic)
		if err != nil {
			return nil, parseProblem(root, 0, "", "the document cannot be read as JSON: "+err.Error())
		}
		var doc2 openapi2.T
		if err := json.Unmarshal(raw, &doc2); err != nil {
			return nil, parseProblem(root, 0, "", "not a valid Swagger 2.0 document: "+err.Error())
		}
		doc, err := openapi2conv.ToV3(&doc2)
		if err != nil {
			return nil, parseProblem(root, 0, "", "not a valid Swagger 2.0 document: "+err.Error())
		}
		if err := doc.Validate(ctx); err != nil {
			return nil, parseProblem(root, 0, "", "not a valid Swagger 2.0 document: "+err.Error())
		}
		return doc, nil
	}
	v, ok := top["openapi"]
	if !ok {
		return nil, parseProblem(root, 1, "", "neither an OpenAPI (openapi: 3.x) nor a Swagger 2.0 (swagger: \"2.0\") document")
	}
	if !strings.HasPrefix(v, "3.0") && !strings.HasPrefix(v, "3.1") {
		return nil, parseProblem(root, 0, "/openapi", fmt.Sprintf("OpenAPI version %q is not supported (3.0 and 3.1 are)", v))
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.IsExternalRefsAllowed = true
	// Only the files collected (and bounded) above are read: no $ref
	// reaches the network or the disk from here.
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		name := strings.TrimPrefix(path.Clean(u.Path), "/")
		if text, ok := files[name]; ok {
			return []byte(text), nil
		}
		return nil, fmt.Errorf("file %q is not part of the spec", name)
	}
	doc, err := loader.LoadFromDataWithPath([]byte(files[root]), &url.URL{Path: root})
	if err != nil {
		return nil, parseProblem(root, 0, "", "cannot be read as OpenAPI: "+err.Error())
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, parseProblem(root, 0, "", "not a valid OpenAPI document: "+err.Error())
	}
	return doc, nil
}

// topKeys are the root mapping's scalar values by key.
func topKeys(n *yaml.Node) map[string]string {
	out := map[string]string{}
	if n == nil {
		return out
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i+1].Kind == yaml.ScalarNode {
			out[n.Content[i].Value] = n.Content[i+1].Value
		}
	}
	return out
}
