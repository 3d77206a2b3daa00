package mergerules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// referencePath finds the GitBook reference beside the repository: the
// directory holding go.mod, then ../shared/reference.
func referencePath(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "reference", "gitbook-openapi-v0.202.0-subset.json")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the working directory")
		}
		dir = parent
	}
}

// The kinds are exactly the MergeRule enum values of the reference.
func TestKindsMatchReference(t *testing.T) {
	raw, err := os.ReadFile(referencePath(t))
	if os.IsNotExist(err) {
		t.Skip("reference file absent")
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				OneOf []struct {
					Properties struct {
						Rule struct {
							Enum []string `json:"enum"`
						} `json:"rule"`
						Users      json.RawMessage `json:"users"`
						Expression json.RawMessage `json:"expression"`
					} `json:"properties"`
				} `json:"oneOf"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	schema, ok := doc.Components.Schemas["MergeRule"]
	if !ok {
		t.Fatal("the reference has no MergeRule schema")
	}
	var want, withUsers []string
	for _, alt := range schema.OneOf {
		want = append(want, alt.Properties.Rule.Enum...)
		if alt.Properties.Users != nil {
			withUsers = append(withUsers, alt.Properties.Rule.Enum...)
		}
		if (alt.Properties.Expression != nil) != slices.Contains(alt.Properties.Rule.Enum, string(Custom)) {
			t.Errorf("expression is a property of %v in the reference", alt.Properties.Rule.Enum)
		}
	}
	var got, gotUsers []string
	for _, k := range kinds {
		got = append(got, string(k))
		if k.takesUsers() {
			gotUsers = append(gotUsers, string(k))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("kinds = %v\nreference MergeRule = %v", got, want)
	}
	slices.Sort(withUsers)
	slices.Sort(gotUsers)
	if !slices.Equal(gotUsers, withUsers) {
		t.Errorf("kinds taking users = %v\nreference = %v", gotUsers, withUsers)
	}
}
