package model

import (
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
