package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenCreateExpires: --expires makes an expiring token; a negative
// duration is a usage error.
func TestTokenCreateExpires(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	t.Setenv("DATABASE_URL", "")
	stdout, stderr, status := runIn(t, "token", "create", "--data-dir", dir, "--email", "ada@example.com", "--expires", "720h")
	if status != 0 || !strings.HasPrefix(stdout, "folio_") {
		t.Fatalf("token create --expires: exit %d, stdout %q, stderr %s", status, stdout, stderr)
	}
	if _, stderr, status := runIn(t, "token", "create", "--data-dir", dir, "--email", "ada@example.com", "--expires", "-1h"); status != 2 || !strings.Contains(stderr, "--expires") {
		t.Fatalf("negative --expires: exit %d, stderr %s", status, stderr)
	}
}
