package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/db"
)

// runCaptured runs the command line and returns what it printed on stdout.
func runCaptured(t *testing.T, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	runErr := run(args)
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if runErr != nil {
		t.Fatalf("folio %v: %v", args, runErr)
	}
	return string(out)
}

func TestTokenCreate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATABASE_URL", "")
	out := runCaptured(t, "token", "create", "--data-dir", dir, "--email", "Ada@Example.com", "--name", "Ada", "--org", "Analytical")
	token := strings.TrimSpace(out)
	if !strings.HasPrefix(token, "folio_") || strings.Contains(token, "\n") {
		t.Fatalf("token create printed %q, want the token alone", out)
	}
	second := strings.TrimSpace(runCaptured(t, "token", "create", "--data-dir", dir, "--email", "ada@example.com"))
	if second == token {
		t.Fatal("the same token twice")
	}

	d, err := db.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Client.Close()
	ctx := context.Background()
	u := d.Client.User.Query().Where(user.Email("ada@example.com")).OnlyX(ctx)
	if u.DisplayName != "Ada" {
		t.Fatalf("user %+v", u)
	}
	// Only the hash is stored, and it is the token's.
	for _, tok := range []string{token, second} {
		if !d.Client.APIToken.Query().Where(apitoken.Hash(auth.HashToken(tok)), apitoken.UserID(u.ID)).ExistX(ctx) {
			t.Fatalf("token %s not stored for the user", tok)
		}
	}
	m := d.Client.Member.Query().Where(member.UserID(u.ID)).WithOrganization().OnlyX(ctx)
	if m.Edges.Organization.Title != "Analytical" || m.Role == nil || *m.Role != "admin" {
		t.Fatalf("membership %+v", m)
	}

	if err := run([]string{"token", "create", "--data-dir", dir}); err == nil || !strings.Contains(err.Error(), "--email") {
		t.Fatalf("missing --email: %v", err)
	}
	if err := run([]string{"nonsense"}); err == nil {
		t.Fatal("unknown command accepted")
	}
}
