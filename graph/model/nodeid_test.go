package model

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func TestNodeIDRoundTrip(t *testing.T) {
	for _, parts := range [][]string{
		{"rev", "page"},
		{"a:b", `quote " and \ backslash`, "", "日本語 query"},
	} {
		id := NodeID(SearchSectionNode, parts...)
		if !strings.HasPrefix(id, compositePrefix) || strings.ContainsAny(id, "+/=") {
			t.Fatalf("%q: not a URL-safe composite id", id)
		}
		typ, got, ok := ParseNodeID(id)
		if !ok || typ != SearchSectionNode || strings.Join(got, "\x00") != strings.Join(parts, "\x00") {
			t.Fatalf("ParseNodeID(%q) = %q %q %v", id, typ, got, ok)
		}
	}
	for _, id := range []string{"", "0123456789abcdefghij", "WyJ", "WyJub3QganNvbg", NodeID("Page")} {
		if typ, _, ok := ParseNodeID(id); ok {
			t.Errorf("ParseNodeID(%q) = %q, want no composite id", id, typ)
		}
	}
}

// TestNodeIDIsJSONs: ids stay what they were when NodeID marshalled every
// array, whichever way it builds one now.
func TestNodeIDIsJSONs(t *testing.T) {
	for _, parts := range [][]string{
		{"0123456789abcdefghij", "abcdefghij0123456789"},
		{"a<b>&c", "tab\there"},
		{"é", "\x7f", "~ !#$%'()*+,-./:;=?@[]^_`{|}"},
		{strings.Repeat("x", 200), "y"},
		{},
	} {
		b, _ := json.Marshal(append([]string{PageNode}, parts...))
		if got, want := NodeID(PageNode, parts...), base64.RawURLEncoding.EncodeToString(b); got != want {
			t.Errorf("NodeID(%q) = %q, want %q", parts, got, want)
		}
	}
}
