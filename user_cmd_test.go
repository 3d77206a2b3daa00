package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// TestUserPasswordCommand: `folio user password --email E` reads the
// password from stdin, creates the user if needed and stores only an
// argon2id hash; without a password on stdin it is a usage error.
func TestUserPasswordCommand(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			url := testkit.DatabaseURL(t, kind, dir)
			args := []string{"user", "password", "--email", "Op@Example.com", "--data-dir", dir, "--database-url", url}
			if kind == "postgres" {
				args = append(args, "--secret-key", testkit.SecretKey.String())
			}
			var out, errOut bytes.Buffer
			if status := runWithInput(args, strings.NewReader("s3cret-enough\n"), &out, &errOut); status != 0 {
				t.Fatalf("exit %d: %s", status, errOut.String())
			}
			if out.Len() != 0 || !strings.Contains(errOut.String(), "password of Op@Example.com set") {
				t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
			}
			out.Reset()
			errOut.Reset()
			if status := runWithInput(args, strings.NewReader(""), &out, &errOut); status != 2 {
				t.Fatalf("empty stdin: exit %d: %s", status, errOut.String())
			}
			if status := runWithInput(append(args, "--bogus"), strings.NewReader("x\n"), &out, &errOut); status != 2 {
				t.Fatalf("bad flag: exit %d", status)
			}
			if status := runWithInput(args, strings.NewReader("short\n"), &out, &errOut); status != 1 || !strings.Contains(errOut.String(), "password: at least 8") {
				t.Fatalf("short password: exit %d: %s", status, errOut.String())
			}
			if stdout, _, status := runIn(t, "user", "password", "--help"); status != 0 || !strings.Contains(stdout, "--email") {
				t.Fatalf("help: %d %s", status, stdout)
			}
			d, err := db.Open(context.Background(), url, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Client.Close()
			u, err := d.Client.User.Query().Where(user.Email("op@example.com")).Only(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if u.PasswordHash == nil || !strings.HasPrefix(*u.PasswordHash, "$argon2id$") || !auth.CheckPassword(*u.PasswordHash, "s3cret-enough") {
				t.Fatalf("stored %v", u.PasswordHash)
			}
		})
	}
}
