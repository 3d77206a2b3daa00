package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/oidcprovider"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// TestOIDCCommands: `folio oidc add` reads the client secret from stdin
// (never a flag) and prints the redirect URI to register; `list` prints
// the providers without their secrets; `remove` removes one; missing
// flags and an empty stdin are usage errors.
func TestOIDCCommands(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			url := testkit.DatabaseURL(t, kind, dir)
			common := []string{"--data-dir", dir, "--database-url", url, "--base-url", "https://docs.example.com"}
			if kind == "postgres" {
				common = append(common, "--secret-key", testkit.SecretKey.String())
			}
			cmd := func(stdin string, args ...string) (string, string, int) {
				var out, errOut bytes.Buffer
				status := runWithInput(append(args, common...), strings.NewReader(stdin), &out, &errOut)
				return out.String(), errOut.String(), status
			}
			out, errOut, status := cmd("the-client-secret\n", "oidc", "add", "--name", "google", "--label", "Google",
				"--issuer", "https://accounts.google.com", "--client-id", "id-123", "--allowed-domains", "example.com,corp.example")
			if status != 0 || out != "" || !strings.Contains(errOut, "https://docs.example.com/sso/oidc/google/callback") {
				t.Fatalf("add: exit %d stdout %q stderr %q", status, out, errOut)
			}
			if _, errOut, status := cmd("s\n", "oidc", "add", "--name", "google", "--issuer", "https://accounts.google.com", "--client-id", "x"); status != 1 || !strings.Contains(errOut, "exists") {
				t.Fatalf("duplicate: exit %d %s", status, errOut)
			}
			if _, errOut, status := cmd("", "oidc", "add", "--name", "other", "--issuer", "https://id.example", "--client-id", "x"); status != 2 || !strings.Contains(errOut, "stdin") {
				t.Fatalf("no secret: exit %d %s", status, errOut)
			}
			if _, errOut, status := cmd("s\n", "oidc", "add", "--name", "other", "--client-id", "x"); status != 2 || !strings.Contains(errOut, "--issuer is required") {
				t.Fatalf("no issuer: exit %d %s", status, errOut)
			}
			if _, _, status := cmd("", "oidc", "frobnicate"); status != 2 {
				t.Fatalf("unknown subcommand: exit %d", status)
			}
			out, _, status = cmd("", "oidc", "list")
			if status != 0 || out != "google\tGoogle\thttps://accounts.google.com\tid-123\texample.com,corp.example\thttps://docs.example.com/sso/oidc/google/callback\t-\t-\n" ||
				strings.Contains(out, "the-client-secret") {
				t.Fatalf("list: exit %d %q", status, out)
			}

			d, err := db.Open(context.Background(), url, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Client.Close()
			p := d.Client.OIDCProvider.Query().Where(oidcprovider.Name("google")).OnlyX(context.Background())
			if strings.Contains(p.ClientSecretSealed, "the-client-secret") {
				t.Fatal("secret stored in clear")
			}

			if _, errOut, status := cmd("", "oidc", "remove", "--name", "nope"); status != 1 || !strings.Contains(errOut, "no OpenID Connect provider") {
				t.Fatalf("remove unknown: exit %d %s", status, errOut)
			}
			if _, errOut, status := cmd("", "oidc", "remove", "--name", "google"); status != 0 {
				t.Fatalf("remove: exit %d %s", status, errOut)
			}
			if out, _, _ := cmd("", "oidc", "list"); out != "" {
				t.Fatalf("list after remove %q", out)
			}
			for _, action := range []string{"oidc_provider.added", "oidc_provider.removed"} {
				if n := d.Client.Event.Query().Where(event.Action(action), event.Source("script")).CountX(context.Background()); n != 1 {
					t.Fatalf("%s: %d events", action, n)
				}
			}
		})
	}
}
