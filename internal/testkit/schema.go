package testkit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// CheckSchema validates a JSON value against a named component schema of
// the reference (e.g. "JSONDocument"), from the newest reference document
// that has it, for answers whose operation is not body-checked (see
// exceptions.go). Skipped like CheckContract when there is no reference.
func CheckSchema(t testing.TB, name string, value any) {
	t.Helper()
	dir := referenceDir()
	files, _ := filepath.Glob(filepath.Join(dir, "gitbook-*.json"))
	sort.Sort(sort.Reverse(sort.StringSlice(files)))
	for _, f := range files {
		doc, err := openapi3.NewLoader().LoadFromFile(f)
		if err != nil {
			t.Fatalf("schema check: loading %s: %v", f, err)
		}
		s := doc.Components.Schemas[name]
		if s == nil || s.Value == nil {
			continue
		}
		raw, _ := json.Marshal(value)
		var v any
		_ = json.Unmarshal(raw, &v)
		if err := s.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
			t.Fatalf("schema %s (%s): value does not match:\n%v\nvalue: %s", name, filepath.Base(f), err, raw)
		}
		return
	}
	if os.Getenv("FOLIO_REQUIRE_REFERENCE") == "1" {
		t.Fatalf("schema check: no reference schema %q in %q", name, dir)
	}
	t.Logf("schema check skipped: no schema %q in %q", name, dir)
}
