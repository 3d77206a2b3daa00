package main

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
)

// backupEntries reads a backup file: its entries' contents by name, and
// their modes.
func backupEntries(t *testing.T, file string) (map[string]string, map[string]int64) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	out, modes := map[string]string{}, map[string]int64{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out, modes
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[hdr.Name], modes[hdr.Name] = string(b), hdr.Mode
	}
}

// ownerOnly checks that everything under dir is the owner's only:
// directories 0700, files 0600.
func ownerOnly(t *testing.T, dir string, must ...string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		seen[rel] = true
		want := os.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range must {
		if !seen[name] {
			t.Errorf("%s: no %s", dir, name)
		}
	}
}

// TestSecretsCommandsSQLite: the first start makes the data directory 0700
// with the database and the key file 0600 (an older 0755 directory and
// 0644 database are tightened); a backup holds the key only with
// --include-key; a restore makes its files 0600 and brings the key back
// when the backup has it, and without it the start refuses, naming the key
// file and FOLIO_SECRET_KEY, until the key is given; `folio secrets
// rotate` writes a new key file (made, or FOLIO_NEW_SECRET_KEY) that the
// next start uses, and the old key is refused.
func TestSecretsCommandsSQLite(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	env := func(d string, more ...string) []string { return append([]string{"FOLIO_DATA_DIR=" + d}, more...) }
	token := func(d string, more ...string) (string, int) {
		_, stderr, status := runFolio(t, env(d, more...), "token", "create", "--email", "ops@example.com")
		return stderr, status
	}
	if stderr, status := token(data); status != 0 {
		t.Fatalf("token create: %d %s", status, stderr)
	}
	ownerOnly(t, data, ".", "folio.db", secrets.KeyFileName)
	key, err := os.ReadFile(filepath.Join(data, secrets.KeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	// A data directory an older version made: tightened at start.
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(data, "folio.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	if stderr, status := token(data); status != 0 {
		t.Fatalf("token create: %d %s", status, stderr)
	}
	ownerOnly(t, data, ".", "folio.db", secrets.KeyFileName)

	without, with := filepath.Join(dir, "without.backup"), filepath.Join(dir, "with.backup")
	if _, stderr, status := runFolio(t, env(data), "backup", "--out", without); status != 0 || !strings.Contains(stderr, "--include-key") {
		t.Fatalf("backup: %d %s", status, stderr)
	}
	if _, stderr, status := runFolio(t, env(data), "backup", "--include-key", "--out", with); status != 0 || !strings.Contains(stderr, "holds the key") {
		t.Fatalf("backup --include-key: %d %s", status, stderr)
	}
	entries, modes := backupEntries(t, without)
	if _, ok := entries["secret.key"]; ok || entries["folio.db"] == "" {
		t.Fatalf("backup without --include-key holds %d entries, the key among them", len(entries))
	}
	if strings.Contains(entries["folio.db"], strings.TrimSpace(string(key))) {
		t.Fatal("the database in the backup holds the key")
	}
	entries, _ = backupEntries(t, with)
	if entries["secret.key"] != string(key) {
		t.Fatalf("backup --include-key: key %q, want the key file's", entries["secret.key"])
	}
	for name, m := range modes {
		if m != 0o600 {
			t.Errorf("backup entry %s: mode %o", name, m)
		}
	}

	// Restored with its key: private files, the key back, the start works.
	withKey := filepath.Join(dir, "with")
	if _, stderr, status := runFolio(t, env(withKey), "restore", "--in", with); status != 0 || !strings.Contains(stderr, "restored the key") {
		t.Fatalf("restore: %d %s", status, stderr)
	}
	ownerOnly(t, withKey, ".", "folio.db", secrets.KeyFileName)
	if stderr, status := token(withKey); status != 0 {
		t.Fatalf("token create after restore: %d %s", status, stderr)
	}

	// Restored without: refused until the key is given.
	noKey := filepath.Join(dir, "nokey")
	if _, stderr, status := runFolio(t, env(noKey), "restore", "--in", without); status != 0 || !strings.Contains(stderr, "holds no key") {
		t.Fatalf("restore: %d %s", status, stderr)
	}
	ownerOnly(t, noKey, ".", "folio.db")
	if stderr, status := token(noKey); status != 1 || !strings.Contains(stderr, "FOLIO_SECRET_KEY") || !strings.Contains(stderr, secrets.KeyFileName) {
		t.Fatalf("start without the key: %d %s", status, stderr)
	}
	if stderr, status := token(noKey, "FOLIO_SECRET_KEY="+strings.TrimSpace(string(key))); status != 0 {
		t.Fatalf("start with FOLIO_SECRET_KEY: %d %s", status, stderr)
	}

	// Rotate: a new key file; the old key is refused.
	if _, stderr, status := runFolio(t, env(data), "secrets", "rotate"); status != 0 || !strings.Contains(stderr, "re-sealed") {
		t.Fatalf("secrets rotate: %d %s", status, stderr)
	}
	rotated, _ := os.ReadFile(filepath.Join(data, secrets.KeyFileName))
	if len(rotated) == 0 || string(rotated) == string(key) {
		t.Fatalf("key file after rotate: %q", rotated)
	}
	ownerOnly(t, data, ".", "folio.db", secrets.KeyFileName)
	if stderr, status := token(data); status != 0 {
		t.Fatalf("token create after rotate: %d %s", status, stderr)
	}
	if stderr, status := token(data, "FOLIO_SECRET_KEY="+strings.TrimSpace(string(key))); status != 1 || !strings.Contains(stderr, "FOLIO_SECRET_KEY is not the key") {
		t.Fatalf("start with the old key: %d %s", status, stderr)
	}
	// A new key given: written to the key file all the same.
	given := secrets.NewKey()
	if _, stderr, status := runFolio(t, env(data, "FOLIO_NEW_SECRET_KEY="+given.String()), "secrets", "rotate"); status != 0 {
		t.Fatalf("secrets rotate with FOLIO_NEW_SECRET_KEY: %d %s", status, stderr)
	}
	if k, ok, err := secrets.ReadKeyFile(filepath.Join(data, secrets.KeyFileName)); err != nil || !ok || k != given {
		t.Fatalf("key file after rotate to a given key: %v %v", ok, err)
	}
	if stderr, status := token(data); status != 0 {
		t.Fatalf("token create after the second rotate: %d %s", status, stderr)
	}
	if _, stderr, status := runFolio(t, env(data), "secrets"); status != 2 || !strings.Contains(stderr, "secrets rotate") {
		t.Fatalf("folio secrets: %d %s", status, stderr)
	}
}

// TestSecretsCommandsPostgres: on PostgreSQL the start requires
// FOLIO_SECRET_KEY, naming it; rotation takes the new key from
// FOLIO_NEW_SECRET_KEY (required), after which only the new key starts.
func TestSecretsCommandsPostgres(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		if kind != "postgres" {
			continue
		}
		url := "DATABASE_URL=" + testkit.DatabaseURL(t, kind, "")
		k1, k2 := "FOLIO_SECRET_KEY="+secrets.NewKey().String(), secrets.NewKey().String()
		dataDir := "FOLIO_DATA_DIR=" + t.TempDir()
		if _, stderr, status := runFolio(t, []string{url, dataDir}, "migrate"); status != 1 || !strings.Contains(stderr, "FOLIO_SECRET_KEY is required") {
			t.Fatalf("start without FOLIO_SECRET_KEY: %d %s", status, stderr)
		}
		if _, stderr, status := runFolio(t, []string{url, dataDir, k1}, "migrate"); status != 0 {
			t.Fatalf("start with FOLIO_SECRET_KEY: %d %s", status, stderr)
		}
		if _, stderr, status := runFolio(t, []string{url, dataDir, k1}, "secrets", "rotate"); status != 1 || !strings.Contains(stderr, "FOLIO_NEW_SECRET_KEY is required") {
			t.Fatalf("rotate without a new key: %d %s", status, stderr)
		}
		if _, stderr, status := runFolio(t, []string{url, dataDir, k1, "FOLIO_NEW_SECRET_KEY=" + k2}, "secrets", "rotate"); status != 0 || !strings.Contains(stderr, "set FOLIO_SECRET_KEY") {
			t.Fatalf("rotate: %d %s", status, stderr)
		}
		if _, stderr, status := runFolio(t, []string{url, dataDir, k1}, "migrate"); status != 1 || !strings.Contains(stderr, "FOLIO_SECRET_KEY is not the key") {
			t.Fatalf("start with the old key: %d %s", status, stderr)
		}
		if _, stderr, status := runFolio(t, []string{url, dataDir, "FOLIO_SECRET_KEY=" + k2}, "migrate"); status != 0 {
			t.Fatalf("start with the new key: %d %s", status, stderr)
		}
	}
}
