package app_test

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/skiplog"
)

// badValues are values a setting of kind must refuse, derived from the kind
// (and a URL setting's schemes). A kind with none fails the test, so a row
// cannot join the table without validation.
func badValues(t *testing.T, s app.Setting) []string {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	switch s.Kind {
	case app.Address:
		return []string{"8080", "localhost", "localhost:http", "127.0.0.1:99999"}
	case app.Directory:
		return []string{file, filepath.Join(file, "data")}
	case app.File:
		return []string{filepath.Join(file, "missing"), t.TempDir()}
	case app.URL:
		bad := []string{"example.com/path", "gopher://example.com/", "http://[::1", " "}
		for _, scheme := range s.Schemes {
			if scheme != "mem" { // mem:// is a whole URL: the memory bucket
				bad = append(bad, scheme+":") // no host, or no path
			}
		}
		return bad
	case app.Number:
		bad := []string{"abc", "0", "-1", "1.5", "8MB", "99999999999999999999"}
		if s.Max > 0 {
			bad = append(bad, strconv.FormatInt(s.Max+1, 10))
		}
		return bad
	case app.Count:
		return []string{"abc", "-1", "1.5", "8MB", "99999999999999999999", " "}
	case app.Duration:
		return []string{"abc", "10", "0s", "-1m"}
	case app.Boolean:
		return []string{"maybe", "yes", "2"}
	case app.HostMap:
		return []string{"docs.example.com", "=abc", "docs.example.com=", "a=1,a=2", "http://x=1", "a b=1"}
	case app.Origins:
		return []string{"app.example.com", "https://app.example.com/", "https://app.example.com/app", "*",
			"https://*.example.com", "https://app.example.com?x", "https://u@app.example.com", "https://app.example.com:99999",
			"https://a.example.com,https://A.example.com", "https://", "null", "https://a.example.com,,https://b.example.com"}
	case app.SecretKey:
		return []string{"short-key-not-32", "c2VjcmV0", strings.Repeat("ab", 31), strings.Repeat("zz", 32), strings.Repeat("A", 44) + "=="}
	}
	t.Fatalf("%s: kind %q has no bad values: teach this test what it must refuse", s.Env, s.Kind)
	return nil
}

func getenv(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// TestSettingsRefuseBadValues walks the settings table: every bad value of
// every setting stops the configuration with a message naming the variable
// and the value, from the environment and from the flag alike.
func TestSettingsRefuseBadValues(t *testing.T) {
	for _, s := range app.Settings {
		for _, bad := range badValues(t, s) {
			c := app.Defaults()
			err := c.ApplyEnv(getenv(map[string]string{s.Env: bad}), nil)
			if err == nil {
				t.Errorf("%s=%q accepted", s.Env, bad)
				continue
			}
			// A key, even a mistyped one, is never printed.
			shown := s.Kind != app.SecretKey
			if msg := err.Error(); !strings.HasPrefix(msg, s.Env+"=") || strings.Contains(msg, bad) != shown || !strings.Contains(msg, "want ") {
				t.Errorf("%s=%q: message %q does not name the variable, the value (a key: hides it) and what is expected", s.Env, bad, msg)
			}

			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.Flags(fs)
			if err := fs.Parse([]string{"--" + s.Flag + "=" + bad}); err == nil || !strings.Contains(err.Error(), s.Flag) {
				t.Errorf("--%s=%q: %v", s.Flag, bad, err)
			}
		}
	}
}

// TestSettingsTable: every row is documented and reachable, its default
// parses, unset or empty means the default, and the valid values a user
// would write are taken.
func TestSettingsTable(t *testing.T) {
	def := app.Defaults() // panics on a default that does not parse
	if def.Addr != "127.0.0.1:8080" || def.DataDir != "./data" || def.RequestTimeout != 60*time.Second || def.MaxImports != 2 || def.MaxPDFs != 2 || def.MaxBodyBytes != 8<<20 || def.MaxResponseBytes != 64<<20 || def.PurgeInterval != time.Hour || def.AuditRetention != 365*24*time.Hour || def.AllowPrivateFetch || def.SearchRankLimit != 1000 {
		t.Fatalf("defaults %+v", def)
	}
	seen := map[string]bool{}
	for _, s := range app.Settings {
		if s.Env == "" || s.Flag == "" || s.Meaning == "" || seen[s.Env] || seen[s.Flag] {
			t.Errorf("row %+v: missing or repeated name or meaning", s)
		}
		seen[s.Env], seen[s.Flag] = true, true
		if s.Env != "DATABASE_URL" && !strings.HasPrefix(s.Env, "FOLIO_") {
			t.Errorf("%s: settings are FOLIO_*", s.Env)
		}
		if s.Kind == app.URL && (len(s.Schemes) == 0 || s.Example == "") {
			t.Errorf("%s: a URL setting names its schemes and an example", s.Env)
		}
		for _, empty := range []map[string]string{{}, {s.Env: ""}} {
			c := app.Defaults()
			if err := c.ApplyEnv(getenv(empty), nil); err != nil || c != def {
				t.Errorf("%s unset or empty: %v, %+v", s.Env, err, c)
			}
		}
	}

	keyFile := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(keyFile, []byte("example.com ssh-ed25519 AAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := map[string]string{
		"FOLIO_GIT_KNOWN_HOSTS":              keyFile,
		"FOLIO_GIT_SSH_KEY":                  keyFile,
		"FOLIO_ADDR":                         ":9090",
		"DATABASE_URL":                       "postgres://folio:secret@db.internal:5432/folio?sslmode=require",
		"FOLIO_DATA_DIR":                     filepath.Join(t.TempDir(), "not", "yet"),
		"FOLIO_BASE_URL":                     "https://docs.example.com/",
		"FOLIO_BLOB_URL":                     "mem://",
		"FOLIO_MAX_BODY_BYTES":               "1024",
		"FOLIO_ALLOW_PRIVATE_FETCH":          "true",
		"FOLIO_PURGE_INTERVAL":               "90m",
		"FOLIO_AUDIT_RETENTION":              "2160h",
		"FOLIO_REQUEST_TIMEOUT":              "5s",
		"FOLIO_MAX_RESPONSE_BYTES":           "2048",
		"FOLIO_MAX_IMPORTS":                  "4",
		"FOLIO_MAX_PDFS":                     "3",
		"FOLIO_METRICS_ADDR":                 "127.0.0.1:9100",
		"FOLIO_SHUTDOWN_TIMEOUT":             "45s",
		"FOLIO_DRAIN_DELAY":                  "5s",
		"FOLIO_SITE_HOSTS":                   "help.example.org=abc123, Docs.Example.net:8443=def456",
		"FOLIO_JOB_POLL_INTERVAL":            "2s",
		"FOLIO_JOB_LEASE":                    "1m",
		"FOLIO_JOB_MAX_ATTEMPTS":             "3",
		"FOLIO_JOB_BACKOFF":                  "7s",
		"FOLIO_OPENAPI_FETCH_TIMEOUT":        "10s",
		"FOLIO_WEBHOOK_TIMEOUT":              "3s",
		"FOLIO_WEBHOOK_MAX_ATTEMPTS":         "6",
		"FOLIO_WEBHOOK_BACKOFF":              "1m",
		"FOLIO_WEBHOOK_DISABLE_AFTER":        "12h",
		"FOLIO_SUBSCRIPTIONS_PER_CONNECTION": "5",
		"FOLIO_SUBSCRIPTIONS_PER_INSTANCE":   "100",
		"FOLIO_SUBSCRIPTION_HEARTBEAT":       "20s",
		"FOLIO_SUBSCRIPTION_IDLE":            "2m",
		"FOLIO_SUBSCRIPTION_MAX_LIFETIME":    "30m",
		"FOLIO_SESSION_IDLE":                 "24h",
		"FOLIO_SESSION_LIFETIME":             "240h",
		"FOLIO_OAUTH_ACCESS_LIFETIME":        "30m",
		"FOLIO_OAUTH_REFRESH_LIFETIME":       "2160h",
		"FOLIO_OPEN_SIGNUP":                  "true",
		"FOLIO_CORS_ORIGINS":                 "https://app.example.com, http://localhost:5173",
		"FOLIO_SECRET_KEY":                   "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=",
		"FOLIO_SEARCH_RANK_LIMIT":            "250",
		"FOLIO_SMTP_URL":                     "smtps://folio:secret@mail.example.com?from=folio@example.com",
		"FOLIO_TREE_CACHE_PAGES":             "50000",
	}
	c := app.Defaults()
	if err := c.ApplyEnv(getenv(good), nil); err != nil {
		t.Fatal(err)
	}
	want := app.Config{Addr: ":9090", DatabaseURL: good["DATABASE_URL"], DataDir: good["FOLIO_DATA_DIR"],
		BaseURL: "https://docs.example.com/", BlobURL: "mem://", MaxBodyBytes: 1024, AllowPrivateFetch: true,
		GitKnownHosts: keyFile, GitSSHKey: keyFile,
		ShutdownTimeout: 45 * time.Second, DrainDelay: 5 * time.Second, MetricsAddr: "127.0.0.1:9100", PurgeInterval: 90 * time.Minute, AuditRetention: 90 * 24 * time.Hour, RequestTimeout: 5 * time.Second,
		MaxResponseBytes: 2048, MaxImports: 4, MaxPDFs: 3, SiteHosts: good["FOLIO_SITE_HOSTS"],
		JobPoll: 2 * time.Second, JobLease: time.Minute, JobMaxAttempts: 3, JobBackoff: 7 * time.Second, OpenAPIFetchTimeout: 10 * time.Second,
		WebhookTimeout: 3 * time.Second, WebhookMaxAttempts: 6, WebhookBackoff: time.Minute, WebhookDisableAfter: 12 * time.Hour,
		SubscriptionsPerConnection: 5, SubscriptionsPerInstance: 100, SubscriptionHeartbeat: 20 * time.Second, SubscriptionIdle: 2 * time.Minute, SubscriptionMaxLifetime: 30 * time.Minute,
		SessionIdle: 24 * time.Hour, SessionLifetime: 240 * time.Hour, OpenSignup: true,
		OAuthAccessLifetime: 30 * time.Minute, OAuthRefreshLifetime: 90 * 24 * time.Hour,
		CORSOrigins: good["FOLIO_CORS_ORIGINS"], SecretKey: good["FOLIO_SECRET_KEY"], SMTPURL: good["FOLIO_SMTP_URL"],
		SearchRankLimit: 250, TreeCachePages: 50000}
	if c != want {
		t.Fatalf("from the environment\n got %+v\nwant %+v", c, want)
	}
	for _, s := range app.Settings {
		if good[s.Env] == "" {
			t.Errorf("%s: no valid example in this test", s.Env)
		}
	}
	for _, ok := range []string{"sqlite:/var/lib/folio/folio.db", "file:folio.db", "postgres:///folio?host=/run/postgresql"} {
		c := app.Defaults()
		if err := c.ApplyEnv(getenv(map[string]string{"DATABASE_URL": ok}), nil); err != nil {
			t.Errorf("DATABASE_URL=%s: %v", ok, err)
		}
	}
	// The object stores whose gocloud drivers internal/blob links in.
	for _, ok := range []string{"file:///var/lib/folio/blobs", "s3://folio-blobs?region=eu-west-1",
		"s3://folio?endpoint=http://127.0.0.1:9000&use_path_style=true&region=us-east-1", "gs://folio-blobs"} {
		c := app.Defaults()
		if err := c.ApplyEnv(getenv(map[string]string{"FOLIO_BLOB_URL": ok}), nil); err != nil || c.BlobURL != ok {
			t.Errorf("FOLIO_BLOB_URL=%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"s3://", "gs://", "azblob://container", "ftp://host/dir"} {
		c := app.Defaults()
		if err := c.ApplyEnv(getenv(map[string]string{"FOLIO_BLOB_URL": bad}), nil); err == nil {
			t.Errorf("FOLIO_BLOB_URL=%s accepted", bad)
		}
	}
}

// TestSettingsFlagsWin: a flag given wins over its variable, which is then
// not read at all; the other variables still are.
func TestSettingsFlagsWin(t *testing.T) {
	c := app.Defaults()
	err := c.ApplyEnv(getenv(map[string]string{"FOLIO_MAX_IMPORTS": "abc", "FOLIO_REQUEST_TIMEOUT": "nope"}), map[string]bool{"max-imports": true})
	if err == nil || strings.Contains(err.Error(), "FOLIO_MAX_IMPORTS") || !strings.Contains(err.Error(), "FOLIO_REQUEST_TIMEOUT") {
		t.Fatalf("got %v", err)
	}
}

// TestSettingsMaskPassword: a refused database URL is shown without its
// password.
func TestSettingsMaskPassword(t *testing.T) {
	c := app.Defaults()
	err := c.ApplyEnv(getenv(map[string]string{"DATABASE_URL": "mysql://folio:hunter2@db/folio"}), nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), `scheme "mysql"`) {
		t.Fatalf("got %v", err)
	}
	// The mail server's password alike, whatever else is wrong.
	for _, bad := range []string{"smtp://folio:hunter2@mail.example.com", "smtp://folio:hunter2@mail.example.com?from=nope", "smtp://folio:hunter2@?from=a@b.c"} {
		c := app.Defaults()
		err := c.ApplyEnv(getenv(map[string]string{"FOLIO_SMTP_URL": bad}), nil)
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "FOLIO_SMTP_URL") {
			t.Errorf("%s: got %v", bad, err)
		}
	}
}

// TestPrepareDataDir: a data directory that cannot be made or written stops
// the start with its path and the cause.
func TestPrepareDataDir(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := app.Defaults()
	c.DataDir = filepath.Join(file, "data")
	if err := c.PrepareDataDir(); err == nil || !strings.Contains(err.Error(), c.DataDir) || !strings.Contains(err.Error(), file+" is a file, not a directory") {
		t.Fatalf("data dir under a file: %v", err)
	}

	c.DataDir = filepath.Join(base, "new", "data")
	if err := c.PrepareDataDir(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(c.DataDir); err != nil || len(entries) != 0 {
		t.Fatalf("created %v (%v), want an empty directory", entries, err)
	}

	// PostgreSQL and a blob URL: the data directory is not used, not checked.
	c.DataDir, c.DatabaseURL, c.BlobURL = filepath.Join(file, "data"), "postgres://localhost/folio", "mem://"
	if err := c.PrepareDataDir(); err != nil {
		t.Fatalf("unused data directory checked: %v", err)
	}

	t.Run("not writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			skiplog.Skip(t, "unwritable data directory check", "running as root, who writes through permission bits")
		}
		locked := filepath.Join(base, "locked")
		if err := os.Mkdir(locked, 0o000); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(locked, 0o755) })
		c := app.Defaults()
		c.DataDir = locked
		err := c.PrepareDataDir()
		if !errors.Is(err, syscall.EACCES) || !strings.Contains(err.Error(), locked) || !strings.Contains(err.Error(), "cannot write in it: permission denied") {
			t.Fatalf("got %v", err)
		}
	})
}

// TestUnknownSettingsAreNamed: a FOLIO_ variable Folio does not read is
// warned about with the closest setting, instead of being ignored in
// silence; settings and the harness's own variables draw nothing.
func TestUnknownSettingsAreNamed(t *testing.T) {
	got := app.UnknownEnv([]string{
		"FOLIO_REQUEST_TIMOUT=20s", "FOLIO_ADDR=:0", "PATH=/bin", "FOLIO_TEST_LOG=1",
		"FOLIO_MAX_IMPORT=3", "FOLIO_SOMETHING_ELSE_ENTIRELY=1",
	})
	want := []string{
		"FOLIO_MAX_IMPORT is not a Folio setting and is ignored: did you mean FOLIO_MAX_IMPORTS?",
		"FOLIO_REQUEST_TIMOUT is not a Folio setting and is ignored: did you mean FOLIO_REQUEST_TIMEOUT?",
		"FOLIO_SOMETHING_ELSE_ENTIRELY is not a Folio setting and is ignored",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var env []string
	for _, s := range app.Settings {
		env = append(env, s.Env+"=x")
	}
	if w := app.UnknownEnv(env); len(w) != 0 {
		t.Fatalf("settings warned about: %v", w)
	}
}
