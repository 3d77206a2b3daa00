package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/secrets"
	"github.com/folio/folio/internal/testkit"
	"github.com/folio/folio/internal/visitorauth"
)

// secretWorld holds one secret of each sealed column, as the APIs showed
// them when they were made.
type secretWorld struct {
	owner, stranger           string // tokens
	space, authSite, linkSite string
	spaceKey, authKey, link   string
	oidcSecret                string // an OpenID Connect provider's client secret
}

func newSecretWorld(t *testing.T, s *testkit.Server) secretWorld {
	t.Helper()
	owner, org := s.NewUser(t, "owner@example.com", "Acme")
	stranger, _ := s.NewUser(t, "stranger@example.com", "Elsewhere")
	w := secretWorld{owner: owner.Token, stranger: stranger.Token}
	must := func(r *testkit.Response, status int) map[string]any {
		t.Helper()
		if r.Status != status {
			t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
		}
		return r.JSON(t)
	}
	w.space = must(s.Request(t, w.owner, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Shared"}), 201)["id"].(string)
	must(s.Request(t, w.owner, "PATCH", "/v1/spaces/"+w.space, map[string]any{"visibility": "share-link"}), 200)
	// The sites show another space: a space on a published site is read
	// there, and its address then carries no share key.
	docs := must(s.Request(t, w.owner, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}), 201)["id"].(string)
	w.authSite = must(s.Request(t, w.owner, "POST", "/v1/orgs/"+org+"/sites", map[string]any{"title": "Private docs", "spaces": []string{docs}, "visibility": "visitor-auth"}), 201)["id"].(string)
	w.linkSite = must(s.Request(t, w.owner, "POST", "/v1/orgs/"+org+"/sites", map[string]any{"title": "Partner docs", "spaces": []string{docs}, "visibility": "share-link"}), 201)["id"].(string)
	for _, site := range []string{w.authSite, w.linkSite} {
		must(s.Request(t, w.owner, "POST", "/v1/orgs/"+org+"/sites/"+site+"/publish", nil), 200)
	}
	must(s.Request(t, w.owner, "POST", "/v1/orgs/"+org+"/sites/"+w.linkSite+"/share-links", map[string]any{"name": "Partners"}), 201)
	w.oidcSecret = "oidcClientSecret0123456789abcdef"
	if _, err := s.App.AddOIDCProvider(context.Background(), graph.OIDCProviderInput{Name: "idp", Issuer: "https://id.example.com",
		ClientID: "folio", ClientSecret: w.oidcSecret}); err != nil {
		t.Fatal(err)
	}
	w.spaceKey, w.authKey, w.link = w.shown(t, s)
	for _, k := range []string{w.spaceKey, w.authKey, w.link} {
		if len(k) < 20 {
			t.Fatalf("keys shown: %q %q %q", w.spaceKey, w.authKey, w.link)
		}
	}
	return w
}

// shown is what the APIs show managers: the space's share key (in its
// published address), the visitor-auth signing key, the share link's key.
func (w secretWorld) shown(t *testing.T, s *testkit.Server) (spaceKey, authKey, link string) {
	t.Helper()
	d := s.MustGraphQL(t, w.owner, `query($space: ID!) { space(id: $space) { urls { published } } }`, map[string]any{"space": w.space})
	published, _ := d["space"].(map[string]any)["urls"].(map[string]any)["published"].(string)
	_, spaceKey, _ = strings.Cut(published, "?shareKey=")
	org := s.Request(t, w.owner, "GET", "/v1/spaces/"+w.space, nil).JSON(t)["organization"].(string)
	authKey, _ = s.Request(t, w.owner, "GET", "/v1/orgs/"+org+"/sites/"+w.authSite+"/publishing/auth", nil).JSON(t)["privateKey"].(string)
	var list struct {
		Items []struct {
			Key string `json:"key"`
		} `json:"items"`
	}
	s.Request(t, w.owner, "GET", "/v1/orgs/"+org+"/sites/"+w.linkSite+"/share-links", nil).Decode(t, &list)
	if len(list.Items) == 1 {
		link = list.Items[0].Key
	}
	return spaceKey, authKey, link
}

// works checks that every secret still does its job on s and is shown
// unchanged: a visitor token signed with the site's key opens the
// visitor-auth site, the link's key the share-link site, the space's key
// the space for a stranger; wrong ones open nothing.
func (w secretWorld) works(t *testing.T, s *testkit.Server) {
	t.Helper()
	if a, b, c := w.shown(t, s); a != w.spaceKey || b != w.authKey || c != w.link {
		t.Fatalf("keys shown now %q %q %q, were %q %q %q", a, b, c, w.spaceKey, w.authKey, w.link)
	}
	token, err := visitorauth.Sign(w.authKey, map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	const site = `query($id: ID!, $key: String, $token: String) { publishedSite(id: $id, shareKey: $key, visitorToken: $token) { id } }`
	for _, c := range []struct {
		id, key, token string
		open           bool
	}{
		{w.authSite, "", token, true}, {w.authSite, "", "x" + token, false},
		{w.linkSite, w.link, "", true}, {w.linkSite, w.link + "x", "", false},
	} {
		d, _ := s.GraphQL(t, "", site, map[string]any{"id": c.id, "key": c.key, "token": c.token})
		if got := d["publishedSite"] != nil; got != c.open {
			t.Errorf("publishedSite(%s, key %q, token %.10q…): open %v, want %v", c.id, c.key, c.token, got, c.open)
		}
	}
	// The client secret is only ever read to talk to the provider.
	var sealed string
	if err := s.App.DB.SQL.QueryRow("SELECT client_secret FROM oidc_providers").Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if v, err := s.App.Resolver.Secrets.Open(secrets.OIDCClientSecret, sealed); err != nil || v != w.oidcSecret {
		t.Errorf("OpenID Connect client secret opens to %q (%v), want %q", v, err, w.oidcSecret)
	}
	const space = `query($id: ID!, $key: String) { space(id: $id, shareKey: $key) { id } }`
	for key, open := range map[string]bool{w.spaceKey: true, w.spaceKey + "x": false} {
		d, _ := s.GraphQL(t, w.stranger, space, map[string]any{"id": w.space, "key": key})
		if got := d["space"] != nil; got != open {
			t.Errorf("space(shareKey: %q) for a stranger: %v, want %v", key, got, open)
		}
	}
}

// stored is every value of the sealed columns, as the database holds them.
func stored(t *testing.T, s *testkit.Server) []string {
	t.Helper()
	var out []string
	for _, c := range secrets.Columns {
		cols := c.Column
		if c.Lookup != "" {
			cols += ", coalesce(" + c.Lookup + ", '')"
		}
		rows, err := s.App.DB.SQL.Query("SELECT " + cols + " FROM " + c.Table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			v, h := "", ""
			dest := []any{&v}
			if c.Lookup != "" {
				dest = append(dest, &h)
			}
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
			if c.Lookup != "" {
				out = append(out, h)
			}
		}
		rows.Close()
	}
	return out
}

// restart is another App over s's database with cfg (a restart of the
// process), serving on a server of its own.
func restart(t *testing.T, s *testkit.Server, cfg app.Config) (*testkit.Server, error) {
	t.Helper()
	a, err := app.New(cfg, s.App.DB, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(srv.Close)
	return &testkit.Server{Server: srv, App: a}, nil
}

// TestSecretsSealedAtRest: the signing keys, share-link keys and space
// share keys the APIs show, and an OpenID Connect client secret, are
// nowhere in the database in clear (rows read with SQL; on SQLite the bytes
// of the files too), each is sealed text of the server's key, share links
// carry a lookup hash; the data files are the owner's only.
func TestSecretsSealedAtRest(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSecretWorld(t, s)
		w.works(t, s)
		values := stored(t, s)
		if len(values) != 7 { // two spaces, two sites, a link and its hash, an OpenID Connect provider
			t.Fatalf("stored secrets: %q", values)
		}
		for _, v := range values {
			if !strings.HasPrefix(v, "v1:"+s.App.Resolver.Secrets.KeyID()+":") && !strings.HasPrefix(v, "h1:"+s.App.Resolver.Secrets.KeyID()+":") {
				t.Errorf("stored value %q is not sealed with the server's key", v)
			}
			for _, k := range []string{w.spaceKey, w.authKey, w.link, w.oidcSecret} {
				if strings.Contains(v, k) {
					t.Errorf("a key is stored in clear: %q", v)
				}
			}
		}
		if s.Dialect != "sqlite" {
			return
		}
		dir := s.App.Config.DataDir
		if _, err := s.App.Resolver.Blobs.Put(context.Background(), []byte("a file's bytes"), "text/plain"); err != nil {
			t.Fatal(err)
		}
		modes := privateModes(t, dir)
		for _, name := range []string{"folio.db", "folio.db-wal", "folio.db-shm", secrets.KeyFileName, "blobs"} {
			if _, ok := modes[name]; !ok {
				t.Errorf("%s missing from the data directory (%v)", name, modes)
			}
		}
		var raw []byte
		for _, name := range []string{"folio.db", "folio.db-wal"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			raw = append(raw, b...)
		}
		for _, k := range []string{w.spaceKey, w.authKey, w.link, w.oidcSecret} {
			if bytes.Contains(raw, []byte(k)) {
				t.Errorf("key %q is in the database file's bytes", k)
			}
		}
	})
}

// privateModes checks that everything under dir is the owner's only
// (directories 0700, files 0600) and returns the modes by relative path.
func privateModes(t *testing.T, dir string) map[string]os.FileMode {
	t.Helper()
	modes := map[string]os.FileMode{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		modes[rel] = info.Mode().Perm()
		want := os.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %o, want %o", rel, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return modes
}

// TestSecretsWrongKeyRefused: a start with a key that is not the
// database's stops, naming FOLIO_SECRET_KEY (SQLite: the key file too);
// PostgreSQL without the setting stops naming it; nothing is changed.
func TestSecretsWrongKeyRefused(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSecretWorld(t, s)
		before := stored(t, s)
		cfg := s.App.Config
		cfg.SecretKey = secrets.NewKey().String()
		if _, err := restart(t, s, cfg); err == nil || !strings.Contains(err.Error(), "FOLIO_SECRET_KEY is not the key") {
			t.Fatalf("start with another key: %v", err)
		}
		cfg.SecretKey = ""
		if s.Dialect == "postgres" {
			if _, err := restart(t, s, cfg); err == nil || !strings.Contains(err.Error(), "FOLIO_SECRET_KEY is required") {
				t.Fatalf("start without a key: %v", err)
			}
		} else {
			// Another key file; then none at all (a backup restored without
			// its key): refused, and no key file is made up.
			if err := secrets.WriteKeyFile(cfg.KeyFile(), secrets.NewKey()); err != nil {
				t.Fatal(err)
			}
			if _, err := restart(t, s, cfg); err == nil || !strings.Contains(err.Error(), cfg.KeyFile()) || !strings.Contains(err.Error(), "FOLIO_SECRET_KEY") {
				t.Fatalf("start with another key file: %v", err)
			}
			os.Remove(cfg.KeyFile())
			if _, err := restart(t, s, cfg); err == nil || !strings.Contains(err.Error(), "no key") || !strings.Contains(err.Error(), "FOLIO_SECRET_KEY") {
				t.Fatalf("start without the key file: %v", err)
			}
			if _, err := os.Stat(cfg.KeyFile()); !os.IsNotExist(err) {
				t.Fatalf("a refused start made a key file: %v", err)
			}
		}
		if after := stored(t, s); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Fatalf("a refused start changed the secrets:\n%q\n%q", before, after)
		}
		w.works(t, s)
	})
}

// TestSecretsSealedAtFirstStart: a database whose secrets older versions
// stored in clear (and without key check) is sealed by the first start, in
// one go; the APIs show the same keys and they work as before; a second
// start changes nothing.
func TestSecretsSealedAtFirstStart(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSecretWorld(t, s)
		// As an older version left it: every secret in clear.
		w.authKey, w.link, w.spaceKey = "clearSiteKey0123456789abcdef", "clearLinkKey0123456789abcdef", "clearSpaceKey0123456789abcdef"
		w.oidcSecret = "clearOIDCSecret0123456789abcdef"
		for _, stmt := range []string{
			"UPDATE sites SET auth_private_key = '" + w.authKey + "' WHERE id = '" + w.authSite + "'",
			"UPDATE site_share_links SET key = '" + w.link + "', key_hash = NULL",
			"UPDATE spaces SET share_key = '" + w.spaceKey + "' WHERE id = '" + w.space + "'",
			"UPDATE oidc_providers SET client_secret = '" + w.oidcSecret + "'",
			"DELETE FROM key_checks",
		} {
			if _, err := s.App.DB.SQL.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
		started, err := restart(t, s, s.App.Config)
		if err != nil {
			t.Fatal(err)
		}
		sealed := stored(t, s)
		for _, v := range sealed {
			if strings.Contains(v, "clear") || !(strings.HasPrefix(v, "v1:") || strings.HasPrefix(v, "h1:")) {
				t.Fatalf("after the first start: %q", sealed)
			}
		}
		if err := secrets.CheckKey(context.Background(), s.App.DB.SQL, s.App.DB.Dialect, started.App.Resolver.Secrets); err != nil {
			t.Fatalf("key check after the first start: %v", err)
		}
		if s.Dialect == "sqlite" {
			// Not even in the file's free space or its log.
			for _, name := range []string{"folio.db", "folio.db-wal"} {
				b, err := os.ReadFile(filepath.Join(s.App.Config.DataDir, name))
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				for _, k := range []string{w.authKey, w.link, w.spaceKey, w.oidcSecret} {
					if bytes.Contains(b, []byte(k)) {
						t.Errorf("%s still holds %q", name, k)
					}
				}
			}
		}
		w.works(t, started)
		again, err := restart(t, s, s.App.Config)
		if err != nil {
			t.Fatal(err)
		}
		if after := stored(t, s); strings.Join(after, ",") != strings.Join(sealed, ",") {
			t.Fatalf("a second start changed the sealed secrets:\n%q\n%q", sealed, after)
		}
		w.works(t, again)
	})
}

// TestSecretsRotate: rotation re-seals every secret and the key check with
// the new key in one transaction; the old key is then refused at start,
// the new one opens everything, and tokens and links made before still
// work. With SQLite's key file, the new key replaces the file.
func TestSecretsRotate(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSecretWorld(t, s)
		ctx := context.Background()
		cfg := s.App.Config
		oldID := s.App.Resolver.Secrets.KeyID()
		var newKey *secrets.Key
		if s.Dialect == "postgres" {
			k := secrets.NewKey()
			newKey = &k
			if _, _, err := app.RotateSecrets(ctx, cfg, s.App.DB, nil); err == nil || !strings.Contains(err.Error(), "FOLIO_NEW_SECRET_KEY") {
				t.Fatalf("rotate without a new key: %v", err)
			}
		}
		bad := cfg
		bad.SecretKey = secrets.NewKey().String()
		if _, _, err := app.RotateSecrets(ctx, bad, s.App.DB, newKey); err == nil || !strings.Contains(err.Error(), "FOLIO_SECRET_KEY") {
			t.Fatalf("rotate from a wrong key: %v", err)
		}
		n, keyFile, err := app.RotateSecrets(ctx, cfg, s.App.DB, newKey)
		if err != nil || n != 6 { // two spaces, two sites, a link, an OpenID Connect provider
			t.Fatalf("rotate: %d, %v", n, err)
		}
		if s.Dialect == "sqlite" {
			if keyFile != cfg.KeyFile() {
				t.Fatalf("rotate wrote the key to %q", keyFile)
			}
			k, ok, err := secrets.ReadKeyFile(keyFile)
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			newKey = &k
			privateModes(t, cfg.DataDir)
		}
		to := secrets.New(*newKey)
		if err := secrets.CheckKey(ctx, s.App.DB.SQL, s.App.DB.Dialect, to); err != nil {
			t.Fatalf("key check after rotate: %v", err)
		}
		for _, v := range stored(t, s) {
			if strings.Contains(v, oldID) || !strings.Contains(v, ":"+to.KeyID()+":") {
				t.Errorf("after rotate: %q", v)
			}
		}
		old := cfg
		if s.Dialect == "postgres" {
			if _, err := restart(t, s, old); err == nil || !strings.Contains(err.Error(), "FOLIO_SECRET_KEY") {
				t.Fatalf("start with the old key after rotate: %v", err)
			}
		}
		cfg.SecretKey = ""
		if s.Dialect == "postgres" {
			cfg.SecretKey = newKey.String()
		}
		started, err := restart(t, s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		w.works(t, started)
	})
}
