package testkit

import (
	"encoding/json"
	"github.com/folio/folio/internal/skiplog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The contract check: every REST answer an end-to-end test receives is
// validated against the response schema of its operation in
// ../shared/reference/*.json (GitBook's published OpenAPI documents). Failures
// must carry the error shape with the answer's status.

type operation struct {
	doc    string
	op     *openapi3.Operation
	method string
	path   string // the reference's template, e.g. /spaces/{spaceId}/content
}

var (
	refOnce sync.Once
	refOps  map[string]operation
	refDir  string
	refErr  error
)

// referenceDir is FOLIO_REFERENCE_DIR, or shared/reference beside the
// repository's root.
func referenceDir() string {
	if d := os.Getenv("FOLIO_REFERENCE_DIR"); d != "" {
		return d
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "reference")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func loadReference() {
	refDir = referenceDir()
	files, _ := filepath.Glob(filepath.Join(refDir, "*.json"))
	// Newer documents first: an operation found in several is checked
	// against the newest description of it.
	sort.Sort(sort.Reverse(sort.StringSlice(files)))
	refOps = map[string]operation{}
	for _, f := range files {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(f)
		if err != nil {
			if filepath.Base(f) == "operations.json" {
				continue
			}
			refErr = err
			return
		}
		if doc.Paths == nil {
			continue
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				if _, seen := refOps[op.OperationID]; !seen && op.OperationID != "" {
					refOps[op.OperationID] = operation{doc: filepath.Base(f), op: op, method: method, path: path}
				}
			}
		}
	}
}

// CheckContract validates resp against operationID's documented response.
func CheckContract(t testing.TB, operationID, method, path string, resp *Response) {
	t.Helper()
	refOnce.Do(loadReference)
	if refErr != nil {
		t.Fatalf("contract check: loading %s: %v", refDir, refErr)
	}
	if len(refOps) == 0 {
		if os.Getenv("FOLIO_REQUIRE_REFERENCE") == "1" {
			t.Fatalf("contract check: no OpenAPI reference in %q (FOLIO_REQUIRE_REFERENCE=1)", refDir)
		}
		t.Logf("contract check skipped: no OpenAPI reference in %q (set FOLIO_REFERENCE_DIR)", refDir)
		skiplog.Note("GitBook contract check", "no OpenAPI reference in "+refDir+": set FOLIO_REFERENCE_DIR")
		return
	}
	op, ok := refOps[operationID]
	if !ok {
		t.Fatalf("contract check: operation %q is in no reference document", operationID)
	}
	// The call's shape: the operation's method and path template, as the
	// official client sends them.
	if !strings.EqualFold(method, op.method) || !pathMatches(op.path, path) {
		t.Fatalf("contract %s: %s %s is not the operation's %s %s", operationID, method, path, op.method, op.path)
	}
	if resp.Status >= 400 {
		checkErrorShape(t, method, path, resp)
		return
	}
	if reason, ok := bodySchemaException(operationID); ok {
		t.Logf("contract %s: body schema not checked (exceptions.go: %s)", operationID, reason)
		return
	}
	ref := op.op.Responses.Status(resp.Status)
	if ref == nil {
		// The seeds fix some success codes the reference spells otherwise
		// (204 for 205 and the like): check against the documented success.
		ref = documentedSuccess(op.op)
	}
	var schema *openapi3.SchemaRef
	if ref != nil && ref.Value != nil {
		if mt := ref.Value.Content.Get("application/json"); mt != nil {
			schema = mt.Schema
		}
	}
	if schema == nil || schema.Value == nil {
		if len(resp.Body) > 0 {
			t.Fatalf("contract %s (%s): %s %s answered %d with a body where none is documented:\n%s",
				operationID, op.doc, method, path, resp.Status, resp.Body)
		}
		return
	}
	var body any
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		t.Fatalf("contract %s: %s %s: body is not JSON: %v\n%s", operationID, method, path, err, resp.Body)
	}
	if checkMergeRules(t, operationID, body) {
		t.Logf("contract %s: mergeRules checked against GitBook 0.202.0's %s (exceptions.go)", operationID, mergeRulesSchema)
	}
	for _, reason := range standIns(operationID, body) {
		t.Logf("contract %s: a value read as the reference's stand-in (exceptions.go: %s)", operationID, reason)
	}
	if err := schema.Value.VisitJSON(body, openapi3.MultiErrors(), openapi3.SetSchemaRegexCompiler(referenceRegex)); err != nil {
		t.Fatalf("contract %s (%s): %s %s answered a body that does not match the schema:\n%v\nbody: %s",
			operationID, op.doc, method, path, err, resp.Body)
	}
}

func documentedSuccess(op *openapi3.Operation) *openapi3.ResponseRef {
	for code := 200; code < 300; code++ {
		if r := op.Responses.Status(code); r != nil {
			return r
		}
	}
	return nil
}

// checkErrorShape holds failures to {"error": {"code": <status>, "message": "..."}}.
func checkErrorShape(t testing.TB, method, path string, resp *Response) {
	t.Helper()
	var e struct {
		Error *struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp.Body, &e); err != nil || e.Error == nil || e.Error.Code == nil || e.Error.Message == nil {
		t.Fatalf("%s %s: failure %d is not in the error shape: %s", method, path, resp.Status, resp.Body)
	}
	if *e.Error.Code != resp.Status {
		t.Fatalf("%s %s: error code %d differs from status %d", method, path, *e.Error.Code, resp.Status)
	}
	if *e.Error.Message == "" {
		t.Fatalf("%s %s: error %s has an empty message", method, path, strconv.Itoa(resp.Status))
	}
}

// pathMatches tells whether a request path (with /v1 and a query) fits a
// reference path template: each {param} takes one non-empty segment, except
// a trailing {pagePath}, which takes the rest (a page path's slashes may
// come escaped, as %2F, or not).
func pathMatches(template, path string) bool {
	path, _, _ = strings.Cut(path, "?")
	path = strings.TrimPrefix(path, "/v1")
	want := strings.Split(strings.Trim(template, "/"), "/")
	got := strings.Split(strings.Trim(path, "/"), "/")
	for i, w := range want {
		if i >= len(got) {
			return false
		}
		if w == "{pagePath}" && i == len(want)-1 {
			return strings.Trim(strings.Join(got[i:], "/"), "/") != ""
		}
		if strings.HasPrefix(w, "{") {
			if got[i] == "" {
				return false
			}
			continue
		}
		if w != got[i] {
			return false
		}
	}
	return len(got) == len(want)
}
