package ids

import (
	"strings"
	"testing"
)

func TestNewIsRandomAndURLSafe(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := New()
		if len(id) != Length || strings.Trim(id, alphabet) != "" {
			t.Fatalf("bad id %q", id)
		}
		if seen[id] {
			t.Fatalf("repeated id %q", id)
		}
		seen[id] = true
	}
}
