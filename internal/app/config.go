// Package app wires Folio together: configuration, database, resolvers, the
// two APIs and the HTTP server around them. server.go is its command line;
// tests build the same App over their own databases.
package app

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gocloud.dev/blob"

	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/gate"
	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/mail"
	"github.com/folio/folio/internal/secrets"
)

// Config is every setting of the server. Each has an environment variable
// and a flag of the same meaning (the Settings table); flags win.
type Config struct {
	Addr         string
	DatabaseURL  string
	DataDir      string
	BaseURL      string
	BlobURL      string
	MaxBodyBytes int64
	// AllowPrivateFetch lets imports and OpenAPI sources reach loopback,
	// link-local and private addresses (off against SSRF).
	AllowPrivateFetch bool
	// GitKnownHosts and GitSSHKey let Git import and export reach SSH
	// remotes (graph.GitSettings).
	GitKnownHosts, GitSSHKey string
	// ShutdownTimeout bounds the drain after SIGTERM: requests and jobs
	// still running ShutdownTimeout after it began are cut (requests answer
	// 503), so the process always exits within DrainDelay+ShutdownTimeout.
	ShutdownTimeout time.Duration
	// DrainDelay is how long the server keeps taking requests after SIGTERM
	// with /readyz answering 503, so load balancers stop sending first.
	DrainDelay time.Duration
	// MetricsAddr is the listener of /metrics; empty: no metrics listener.
	MetricsAddr string
	// PurgeInterval is how often deleted spaces past their restore window
	// are removed for good.
	PurgeInterval time.Duration
	// AuditRetention is how long audit events are kept; the retention job
	// (every PurgeInterval) deletes older ones.
	AuditRetention time.Duration
	// RequestTimeout bounds every request's work (imports, PDF, GraphQL
	// alike); a request also stops when its client leaves.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds one GraphQL answer, and what the server holds
	// to build it: counted while it is built (graph/cost_response.go).
	MaxResponseBytes int64
	// MaxImports is the number of imports that run at once (each may hold
	// 100 MB unpacked); more wait their turn, then answer 503.
	MaxImports int
	// MaxPDFs is the number of PDFs printed at once (each holds its
	// document and a processor); more wait their turn, then answer 503.
	MaxPDFs int
	// SiteHosts maps host names to the published sites they serve at /
	// (host=siteId,…); ParseSiteHosts reads it.
	SiteHosts string
	// JobPoll is how often an idle job runner looks at the queue; JobLease
	// how long a claimed job holds without renewal; JobMaxAttempts and
	// JobBackoff bound the retries of fetch failures (the backoff doubles
	// each attempt).
	JobPoll        time.Duration
	JobLease       time.Duration
	JobMaxAttempts int
	JobBackoff     time.Duration
	// OpenAPIFetchTimeout bounds each fetch of an OpenAPI processing.
	OpenAPIFetchTimeout time.Duration
	// WebhookTimeout bounds one delivery attempt; WebhookMaxAttempts and
	// WebhookBackoff are a delivery's retries (the backoff doubles each
	// attempt); WebhookDisableAfter is how long an endpoint may fail
	// without a success before it is disabled.
	WebhookTimeout      time.Duration
	WebhookMaxAttempts  int
	WebhookBackoff      time.Duration
	WebhookDisableAfter time.Duration
	// Subscriptions bound live GraphQL streams (graph.SubscriptionSettings):
	// per WebSocket and per instance, the heartbeat, how long a WebSocket
	// may stay without a subscription, and how long any stream may last.
	SubscriptionsPerConnection int
	SubscriptionsPerInstance   int
	SubscriptionHeartbeat      time.Duration
	SubscriptionIdle           time.Duration
	SubscriptionMaxLifetime    time.Duration
	// SessionIdle and SessionLifetime end sign-in sessions: unused for
	// SessionIdle, or SessionLifetime after sign-in whatever the use.
	// OpenSignup lets anyone make a local account at /sign-up.
	SessionIdle     time.Duration
	SessionLifetime time.Duration
	// OAuthAccessLifetime and OAuthRefreshLifetime bound the tokens tools
	// get through OAuth (graph/oauth.go).
	OAuthAccessLifetime  time.Duration
	OAuthRefreshLifetime time.Duration
	OpenSignup           bool
	// CORSOrigins are the origins (scheme://host[:port], comma-separated)
	// whose pages may call /graphql and /v1 with a bearer token; empty:
	// none (ParseOrigins reads it).
	CORSOrigins string
	// SecretKey seals the secrets stored in the database (base64 or hex of
	// 32 bytes); empty: the key file of the data directory (SQLite only).
	SecretKey string
	// SearchRankLimit is the most matches a search ranks (graph's
	// Resolver.SearchRankLimit): a term matching more ranks the first ones
	// the index yields and counts the limit, as a lower bound.
	SearchRankLimit int
	// SMTPURL is the mail server invitations go through (internal/mail:
	// smtp:// or smtps://, with ?from=); empty: no mail is sent and
	// invitations answer their links instead. Its password is a secret:
	// shown redacted like DATABASE_URL's.
	SMTPURL string
	// TreeCachePages bounds the revision page trees kept across requests,
	// in pages (graph/loader/tree_cache.go); 0 keeps none.
	TreeCachePages int
}

// Kind is what a setting's text must be; it decides how the text is parsed
// and what is refused.
type Kind string

const (
	// Address is host:port to listen on.
	Address Kind = "address"
	// Directory is a path that is, or can be made, a directory.
	Directory Kind = "directory"
	// File is the path of a readable file.
	File Kind = "file"
	// URL is an absolute URL with one of the setting's schemes.
	URL Kind = "URL"
	// Number is a whole number greater than 0.
	Number Kind = "number"
	// Count is a whole number, 0 or more (0 turns the thing off).
	Count Kind = "count"
	// Duration is a Go duration greater than 0 (30s, 5m, 1h30m).
	Duration Kind = "duration"
	// Boolean is true or false (also 1 or 0).
	Boolean Kind = "boolean"
	// HostMap is host=id pairs separated by commas.
	HostMap Kind = "host map"
	// Origins is scheme://host[:port] origins separated by commas.
	Origins Kind = "origin list"
	// SecretKey is 32 bytes in base64 or hex; never shown in messages.
	SecretKey Kind = "secret key"
)

// Setting is one row of the Settings table.
type Setting struct {
	Env  string // environment variable
	Flag string // flag name, without dashes
	Kind Kind
	// Default is the value when the variable is unset or empty, as it
	// would be written; "" when Meaning says what an empty value does.
	Default string
	Meaning string
	// Schemes are the schemes a URL setting accepts; Example is a valid URL
	// for error messages.
	Schemes []string
	Example string
	// Max is the largest value a Number setting takes (0: no bound but
	// the integer's).
	Max   int64
	field func(*Config) any // pointer to the Config field it sets
}

// Settings is every setting of the server, in the order --help lists them.
// It drives the environment, the flags, the help text and the tests: a row
// added here is read, validated and documented everywhere.
var Settings = []Setting{
	{Env: "FOLIO_ADDR", Flag: "addr", Kind: Address, Default: "127.0.0.1:8080",
		Meaning: "address to listen on (host:port; :8080 listens on every interface)",
		field:   func(c *Config) any { return &c.Addr }},
	{Env: "DATABASE_URL", Flag: "database-url", Kind: URL,
		Meaning: "PostgreSQL server (postgres://user:password@host:5432/db); empty for the SQLite file folio.db in the data directory; sqlite:PATH for another SQLite file",
		Schemes: []string{"postgres", "postgresql", "sqlite", "file"},
		Example: "postgres://folio:password@localhost:5432/folio",
		field:   func(c *Config) any { return &c.DatabaseURL }},
	{Env: "FOLIO_DATA_DIR", Flag: "data-dir", Kind: Directory, Default: "./data",
		Meaning: "directory of the SQLite file (folio.db) and of the blobs; created if missing, must be writable",
		field:   func(c *Config) any { return &c.DataDir }},
	{Env: "FOLIO_BASE_URL", Flag: "base-url", Kind: URL,
		Meaning: "public URL of this server, used in every `urls` object; empty for http://ADDR",
		Schemes: []string{"http", "https"},
		Example: "https://docs.example.com",
		field:   func(c *Config) any { return &c.BaseURL }},
	{Env: "FOLIO_BLOB_URL", Flag: "blob-url", Kind: URL,
		Meaning: "blob storage: file:///dir, s3://bucket (S3-compatible stores: ?endpoint=URL&use_path_style=true&region=R), gs://bucket, mem://; empty for the directory blobs in the data directory",
		// The schemes of the gocloud drivers linked in (internal/blob).
		Schemes: blob.DefaultURLMux().BucketSchemes(),
		Example: "file:///var/lib/folio/blobs",
		field:   func(c *Config) any { return &c.BlobURL }},
	{Env: "FOLIO_MAX_BODY_BYTES", Flag: "max-body-bytes", Kind: Number, Default: "8388608",
		Meaning: "largest request body in bytes (8 MiB; 413 beyond)",
		field:   func(c *Config) any { return &c.MaxBodyBytes }},
	{Env: "FOLIO_ALLOW_PRIVATE_FETCH", Flag: "allow-private-fetch", Kind: Boolean, Default: "false",
		Meaning: "let imports and file URLs fetch loopback, private and link-local addresses",
		field:   func(c *Config) any { return &c.AllowPrivateFetch }},
	{Env: "FOLIO_GIT_KNOWN_HOSTS", Flag: "git-known-hosts", Kind: File,
		Meaning: "known_hosts file that SSH Git remotes are checked against; without it Git import and export take https URLs only",
		Example: "/etc/folio/known_hosts",
		field:   func(c *Config) any { return &c.GitKnownHosts }},
	{Env: "FOLIO_GIT_SSH_KEY", Flag: "git-ssh-key", Kind: File,
		Meaning: "private key Folio presents to SSH Git remotes (with FOLIO_GIT_KNOWN_HOSTS)",
		Example: "/etc/folio/id_ed25519",
		field:   func(c *Config) any { return &c.GitSSHKey }},
	{Env: "FOLIO_PURGE_INTERVAL", Flag: "purge-interval", Kind: Duration, Default: "1h",
		Meaning: "how often spaces deleted more than 7 days ago are purged",
		field:   func(c *Config) any { return &c.PurgeInterval }},
	{Env: "FOLIO_AUDIT_RETENTION", Flag: "audit-retention", Kind: Duration, Default: "8760h",
		Meaning: "how long audit events are kept (8760h: one year); older ones are deleted every purge interval",
		field:   func(c *Config) any { return &c.AuditRetention }},
	{Env: "FOLIO_REQUEST_TIMEOUT", Flag: "request-timeout", Kind: Duration, Default: "60s",
		Meaning: "longest a request may work; it also stops when its client leaves (503 beyond)",
		field:   func(c *Config) any { return &c.RequestTimeout }},
	{Env: "FOLIO_MAX_RESPONSE_BYTES", Flag: "max-response-bytes", Kind: Number, Default: "67108864",
		Meaning: "largest GraphQL answer in bytes, counted while it is built (64 MiB; RESPONSE_TOO_LARGE beyond)",
		field:   func(c *Config) any { return &c.MaxResponseBytes }},
	{Env: "FOLIO_METRICS_ADDR", Flag: "metrics-addr", Kind: Address,
		Meaning: "address of the Prometheus /metrics listener (host:port), never the public port; empty for none",
		field:   func(c *Config) any { return &c.MetricsAddr }},
	{Env: "FOLIO_SHUTDOWN_TIMEOUT", Flag: "shutdown-timeout", Kind: Duration, Default: "30s",
		Meaning: "after SIGTERM (and the drain delay), how long in-flight requests and jobs may finish; those still running are cut (503)",
		field:   func(c *Config) any { return &c.ShutdownTimeout }},
	{Env: "FOLIO_DRAIN_DELAY", Flag: "drain-delay", Kind: Duration,
		Meaning: "after SIGTERM, how long to keep serving with /readyz answering 503 before closing the port; empty for none",
		field:   func(c *Config) any { return &c.DrainDelay }},
	{Env: "FOLIO_MAX_IMPORTS", Flag: "max-imports", Kind: Number, Default: strconv.Itoa(importer.DefaultInFlight),
		Meaning: "imports running at once (each may hold 100 MB unpacked); more wait up to 10 s, then 503",
		field:   func(c *Config) any { return &c.MaxImports }},
	{Env: "FOLIO_MAX_PDFS", Flag: "max-pdfs", Kind: Number, Default: strconv.Itoa(gate.DefaultInFlight),
		Meaning: "PDFs printed at once (each busies a processor, up to 500 pages); more wait up to 10 s, then 503",
		field:   func(c *Config) any { return &c.MaxPDFs }},
	{Env: "FOLIO_SITE_HOSTS", Flag: "site-hosts", Kind: HostMap,
		Meaning: "hosts that serve one published site each at / (docs.example.com=SITE_ID,help.example.org=SITE_ID); the base URL's own host cannot be one; empty for none",
		field:   func(c *Config) any { return &c.SiteHosts }},
	{Env: "FOLIO_JOB_POLL_INTERVAL", Flag: "job-poll-interval", Kind: Duration, Default: "1s",
		Meaning: "how often an idle server looks for queued background jobs (OpenAPI processing, purge); jobs queued by the same server start at once",
		field:   func(c *Config) any { return &c.JobPoll }},
	{Env: "FOLIO_JOB_LEASE", Flag: "job-lease", Kind: Duration, Default: "30s",
		Meaning: "how long a claimed job is held without renewal (renewed every third of it); a job of a server that died runs again after it",
		field:   func(c *Config) any { return &c.JobLease }},
	{Env: "FOLIO_JOB_MAX_ATTEMPTS", Flag: "job-max-attempts", Kind: Number, Default: "4",
		Meaning: "attempts of a job whose fetch failed in a way that may pass (unreachable, timeout, 5xx); parse errors are final",
		field:   func(c *Config) any { return &c.JobMaxAttempts }},
	{Env: "FOLIO_JOB_BACKOFF", Flag: "job-backoff", Kind: Duration, Default: "5s",
		Meaning: "wait before the second attempt of a failed job, doubling for each further attempt",
		field:   func(c *Config) any { return &c.JobBackoff }},
	{Env: "FOLIO_OPENAPI_FETCH_TIMEOUT", Flag: "openapi-fetch-timeout", Kind: Duration, Default: "30s",
		Meaning: "longest fetch of one file of an OpenAPI spec (FETCH_TIMEOUT beyond)",
		field:   func(c *Config) any { return &c.OpenAPIFetchTimeout }},
	{Env: "FOLIO_WEBHOOK_TIMEOUT", Flag: "webhook-timeout", Kind: Duration, Default: "10s",
		Meaning: "longest wait for a webhook endpoint's answer to one delivery attempt",
		field:   func(c *Config) any { return &c.WebhookTimeout }},
	{Env: "FOLIO_WEBHOOK_MAX_ATTEMPTS", Flag: "webhook-max-attempts", Kind: Number, Default: "8",
		Meaning: "attempts of a webhook delivery before it is dead (each failure waits the backoff, doubling)",
		field:   func(c *Config) any { return &c.WebhookMaxAttempts }},
	{Env: "FOLIO_WEBHOOK_BACKOFF", Flag: "webhook-backoff", Kind: Duration, Default: "30s",
		Meaning: "wait before the second attempt of a webhook delivery, doubling for each further attempt",
		field:   func(c *Config) any { return &c.WebhookBackoff }},
	{Env: "FOLIO_WEBHOOK_DISABLE_AFTER", Flag: "webhook-disable-after", Kind: Duration, Default: "24h",
		Meaning: "a webhook whose endpoint has failed for this long without a success is disabled (webhook.disabled)",
		field:   func(c *Config) any { return &c.WebhookDisableAfter }},
	{Env: "FOLIO_SUBSCRIPTIONS_PER_CONNECTION", Flag: "subscriptions-per-connection", Kind: Number, Default: "20",
		Meaning: "GraphQL subscriptions one WebSocket may carry at once",
		field:   func(c *Config) any { return &c.SubscriptionsPerConnection }},
	{Env: "FOLIO_SUBSCRIPTIONS_PER_INSTANCE", Flag: "subscriptions-per-instance", Kind: Number, Default: "10000",
		Meaning: "GraphQL subscriptions one server instance serves at once; more are refused (503) until some end",
		field:   func(c *Config) any { return &c.SubscriptionsPerInstance }},
	{Env: "FOLIO_SUBSCRIPTION_HEARTBEAT", Flag: "subscription-heartbeat", Kind: Duration, Default: "15s",
		Meaning: "how often a subscription stream is pinged (WebSocket ping, SSE comment); a WebSocket that misses two pongs is closed",
		field:   func(c *Config) any { return &c.SubscriptionHeartbeat }},
	{Env: "FOLIO_SUBSCRIPTION_IDLE", Flag: "subscription-idle", Kind: Duration, Default: "1m",
		Meaning: "a WebSocket that carries no subscription for this long is closed",
		field:   func(c *Config) any { return &c.SubscriptionIdle }},
	{Env: "FOLIO_SUBSCRIPTION_MAX_LIFETIME", Flag: "subscription-max-lifetime", Kind: Duration, Default: "1h",
		Meaning: "a subscription stream (WebSocket or SSE) is ended this long after it began; clients reconnect and resume after their last event id",
		field:   func(c *Config) any { return &c.SubscriptionMaxLifetime }},
	{Env: "FOLIO_SESSION_IDLE", Flag: "session-idle", Kind: Duration, Default: "168h",
		Meaning: "a sign-in session unused for this long ends (168h: a week)",
		field:   func(c *Config) any { return &c.SessionIdle }},
	{Env: "FOLIO_SESSION_LIFETIME", Flag: "session-lifetime", Kind: Duration, Default: "720h",
		Meaning: "a sign-in session ends this long after sign-in, however much it is used (720h: 30 days)",
		field:   func(c *Config) any { return &c.SessionLifetime }},
	{Env: "FOLIO_OAUTH_ACCESS_LIFETIME", Flag: "oauth-access-lifetime", Kind: Duration, Default: "1h",
		Meaning: "an access token a tool gets through OAuth (gitbook login, MCP clients) authenticates for this long; the tool renews it with its refresh token",
		field:   func(c *Config) any { return &c.OAuthAccessLifetime }},
	{Env: "FOLIO_OAUTH_REFRESH_LIFETIME", Flag: "oauth-refresh-lifetime", Kind: Duration, Default: "720h",
		Meaning: "a tool's OAuth refresh token ends when unused for this long (each use replaces it with a new one; 720h: 30 days)",
		field:   func(c *Config) any { return &c.OAuthRefreshLifetime }},
	{Env: "FOLIO_OPEN_SIGNUP", Flag: "open-signup", Kind: Boolean, Default: "false",
		Meaning: "let anyone make a local account with an email and a password at /sign-up (off: accounts come from the command line)",
		field:   func(c *Config) any { return &c.OpenSignup }},
	{Env: "FOLIO_CORS_ORIGINS", Flag: "cors-origins", Kind: Origins,
		Meaning: "origins whose pages may call /graphql and /v1 with a bearer token (https://app.example.com,http://localhost:5173: exact, no path); empty for none (no cross-origin access)",
		field:   func(c *Config) any { return &c.CORSOrigins }},
	{Env: "FOLIO_SECRET_KEY", Flag: "secret-key", Kind: SecretKey,
		Meaning: "key that seals the secrets stored in the database (signing keys, share keys): 32 bytes in base64 or hex (openssl rand -base64 32); required with PostgreSQL, the same on every instance; empty with SQLite for the key file secret.key in the data directory, made on the first start",
		field:   func(c *Config) any { return &c.SecretKey }},
	{Env: "FOLIO_SEARCH_RANK_LIMIT", Flag: "search-rank-limit", Kind: Number, Default: "1000", Max: 100000,
		Meaning: "most pages a search ranks: a term matching more ranks the first ones the index yields, and its count is this limit with countIsLowerBound (1 to 100000)",
		field:   func(c *Config) any { return &c.SearchRankLimit }},
	{Env: "FOLIO_SMTP_URL", Flag: "smtp-url", Kind: URL,
		Meaning: "mail server for invitations: smtp://user:password@host:587?from=folio@example.com (STARTTLS when offered) or smtps://… (TLS from the start, port 465); empty for no mail (inviteUsersToOrganization answers the invitation links instead)",
		Schemes: []string{"smtp", "smtps"},
		Example: "smtp://folio:password@mail.example.com:587?from=folio@example.com",
		field:   func(c *Config) any { return &c.SMTPURL }},
	{Env: "FOLIO_TREE_CACHE_PAGES", Flag: "tree-cache-pages", Kind: Count, Default: strconv.Itoa(loader.DefaultTreeCachePages),
		Meaning: "pages of revision page trees kept in memory across requests, least recently read dropped first (about 750 bytes a page); 0 keeps none",
		field:   func(c *Config) any { return &c.TreeCachePages }},
}

// Defaults is the configuration with every setting at its default.
func Defaults() Config {
	var c Config
	for _, s := range Settings {
		if s.Default == "" {
			continue
		}
		if err := s.set(&c, s.Default); err != nil {
			panic(fmt.Sprintf("settings table: default of %s: %v", s.Env, err))
		}
	}
	return c
}

// ApplyEnv sets every setting from its environment variable, except those
// whose flag is in given (flags win). Unset or empty leaves the setting as
// it is; any other value that is not valid is an error naming the variable,
// the value and what is expected, one line per bad variable.
func (c *Config) ApplyEnv(getenv func(string) string, given map[string]bool) error {
	var errs []error
	for _, s := range Settings {
		v := getenv(s.Env)
		if v == "" || given[s.Flag] {
			continue
		}
		if err := s.set(c, v); err != nil {
			def := s.Default
			if def == "" {
				def = "empty"
			}
			errs = append(errs, fmt.Errorf("%s=%q is not valid: %w (unset for the default, %s)", s.Env, s.shown(v), err, def))
		}
	}
	return errors.Join(errs...)
}

// Flags binds a flag for every setting to c; each parses and validates its
// value as the environment variable does.
func (c *Config) Flags(fs *flag.FlagSet) {
	for _, s := range Settings {
		fs.Var(flagValue{s, c}, s.Flag, s.Meaning+" ("+s.Env+")")
	}
}

// flagValue is a setting as a flag.Value.
type flagValue struct {
	s Setting
	c *Config
}

func (v flagValue) Set(text string) error { return v.s.set(v.c, text) }
func (v flagValue) IsBoolFlag() bool      { return v.s.Kind == Boolean }

func (v flagValue) String() string {
	if v.c == nil { // flag.PrintDefaults probes a zero value
		return ""
	}
	return fmt.Sprint(reflect.ValueOf(v.s.field(v.c)).Elem())
}

// Placeholder names the kind of value in help text (--addr HOST:PORT).
func (s Setting) Placeholder() string {
	switch s.Kind {
	case Address:
		return "HOST:PORT"
	case Directory:
		return "DIR"
	case File:
		return "FILE"
	case URL:
		return "URL"
	case Number, Count:
		return "N"
	case Duration:
		return "DURATION"
	case HostMap:
		return "HOST=SITE,…"
	case Origins:
		return "ORIGIN,…"
	case SecretKey:
		return "KEY"
	}
	return ""
}

// Expected says what a valid value looks like, for error messages.
func (s Setting) Expected() string {
	switch s.Kind {
	case Address:
		return "host:port, such as 127.0.0.1:8080 or :8080"
	case Directory:
		return "a directory, or a path where one can be created"
	case File:
		return "the path of a readable file"
	case URL:
		return "an absolute URL (scheme " + strings.Join(s.Schemes, ", ") + ") such as " + s.Example
	case Number:
		if s.Max > 0 {
			return fmt.Sprintf("a whole number from 1 to %d", s.Max)
		}
		return "a whole number greater than 0"
	case Count:
		return "a whole number, 0 or more"
	case Duration:
		return "a duration greater than 0 with its unit, such as 30s, 5m or 1h30m"
	case Boolean:
		return "true or false"
	case HostMap:
		return "host=siteId pairs separated by commas, such as docs.example.com=8ZDSuZyNkbNxBkIx0qM1"
	case Origins:
		return "origins scheme://host[:port] separated by commas, such as https://app.example.com,http://localhost:5173"
	case SecretKey:
		return "32 bytes in base64 or as 64 hex digits, such as the output of openssl rand -base64 32"
	}
	return ""
}

// set parses text into the setting's field of c.
func (s Setting) set(c *Config, text string) error {
	if err := s.check(text); err != nil {
		return fmt.Errorf("%v; want %s", err, s.Expected())
	}
	switch p := s.field(c).(type) {
	case *string:
		*p = text
	case *bool:
		*p, _ = strconv.ParseBool(text)
	case *time.Duration:
		*p, _ = time.ParseDuration(text)
	case *int64:
		*p, _ = strconv.ParseInt(text, 10, 64)
	case *int:
		*p, _ = strconv.Atoi(text)
	default:
		panic(fmt.Sprintf("settings table: %s sets a %T", s.Env, p))
	}
	return nil
}

// check says why text is not a valid value of the setting, or nil.
func (s Setting) check(text string) error {
	switch s.Kind {
	case Address:
		_, port, err := net.SplitHostPort(text)
		if err != nil {
			return errors.New("not host:port")
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("port %q is not a port number", port)
		}
	case Directory:
		return checkDirectory(text)
	case File:
		f, err := os.Open(text)
		if err != nil {
			return errors.New("cannot be read")
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			return errors.New("is not a regular file")
		}
	case URL:
		return s.checkURL(text)
	case Number:
		n, err := strconv.ParseInt(text, 10, strconv.IntSize)
		if err != nil {
			return errors.New("not a whole number, or too large")
		}
		if n <= 0 {
			return errors.New("not greater than 0")
		}
		if s.Max > 0 && n > s.Max {
			return fmt.Errorf("greater than %d", s.Max)
		}
	case Count:
		n, err := strconv.ParseInt(text, 10, strconv.IntSize)
		if err != nil {
			return errors.New("not a whole number, or too large")
		}
		if n < 0 {
			return errors.New("less than 0")
		}
	case Duration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return errors.New("not a duration")
		}
		if d <= 0 {
			return errors.New("not greater than 0")
		}
	case Boolean:
		if _, err := strconv.ParseBool(text); err != nil {
			return errors.New("not a boolean")
		}
	case HostMap:
		_, err := ParseSiteHosts(text)
		return err
	case Origins:
		_, err := ParseOrigins(text)
		return err
	case SecretKey:
		_, err := secrets.ParseKey(text)
		return err
	default:
		panic(fmt.Sprintf("settings table: %s has kind %q", s.Env, s.Kind))
	}
	return nil
}

// checkURL refuses a URL without a scheme the setting accepts, without a
// host where the scheme needs one, or an SQLite URL without a path.
func (s Setting) checkURL(text string) error {
	u, err := url.Parse(text)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme == "" {
		return errors.New("no scheme")
	}
	if !slices.Contains(s.Schemes, strings.ToLower(u.Scheme)) {
		return fmt.Errorf("scheme %q is not supported", u.Scheme)
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "smtp" || scheme == "smtps":
		// Host, port and sender; its messages never hold the password.
		_, err := mail.Parse(text)
		return err
	case scheme == "postgres" || scheme == "postgresql":
		// lib/pq takes a Unix socket directory as ?host= instead.
		if u.Host == "" && u.Query().Get("host") == "" {
			return errors.New("no host")
		}
	case scheme == "sqlite" || scheme == "file":
		if u.Opaque == "" && u.Path == "" {
			return errors.New("no path")
		}
	case scheme != "mem" && u.Host == "": // http(s), and cloud buckets name theirs
		return errors.New("no host")
	}
	return nil
}

// shown is a value as an error message may print it: a database or mail
// server URL's password masked.
func (s Setting) shown(text string) string {
	if s.Kind == URL {
		return db.Redact(text)
	}
	if s.Kind == SecretKey {
		return "(hidden)" // a key, even a mistyped one, is not printed
	}
	return text
}

// checkDirectory refuses a path that is, or lies under, something other
// than a directory, naming it. Whether the directory can be written is
// checked when the server starts (PrepareDataDir).
func checkDirectory(path string) error {
	for p := filepath.Clean(path); ; {
		info, err := os.Stat(p)
		switch {
		case err == nil && !info.IsDir():
			return fmt.Errorf("%s is a file, not a directory", absolute(p))
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("%s: %v", absolute(p), errors.Unwrap(err))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// PublicBaseURL is BaseURL without a trailing slash, or http://Addr.
func (c Config) PublicBaseURL() string {
	if c.BaseURL != "" {
		return strings.TrimRight(c.BaseURL, "/")
	}
	return fmt.Sprintf("http://%s", c.Addr)
}

// DatabaseLocation names the database for people: the SQLite file's
// absolute path, or the PostgreSQL URL without its password.
func (c Config) DatabaseLocation() string {
	if path := db.SQLitePath(c.DatabaseURL, c.DataDir); path != "" {
		return absolute(path)
	}
	return db.Redact(c.DatabaseURL)
}

// PrepareDataDir makes the data directory if it is missing and checks that
// it can be written, when the server keeps something there (the SQLite file
// or the blobs), so that a bad directory stops the start with its path and
// the cause rather than with a database driver's error.
func (c Config) PrepareDataDir() error {
	if c.DatabaseURL != "" && c.BlobURL != "" {
		return nil
	}
	dir := absolute(c.DataDir)
	if err := checkDirectory(dir); err != nil {
		return fmt.Errorf("data directory %s (FOLIO_DATA_DIR, --data-dir): %w", dir, err)
	}
	// Owner only: the directory holds the database, the blobs and the key
	// file (README "Secrets at rest"); one an older version made 0755 is
	// tightened.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s (FOLIO_DATA_DIR, --data-dir): cannot create it: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("data directory %s (FOLIO_DATA_DIR, --data-dir): cannot make it private (mode 0700): %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("data directory %s (FOLIO_DATA_DIR, --data-dir): cannot write in it: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// ParseSiteHosts reads FOLIO_SITE_HOSTS: host=siteId pairs separated by
// commas, each host (lower case, a port allowed) once.
func ParseSiteHosts(text string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	for pair := range strings.SplitSeq(text, ",") {
		host, id, ok := strings.Cut(strings.TrimSpace(pair), "=")
		host, id = strings.ToLower(strings.TrimSpace(host)), strings.TrimSpace(id)
		switch {
		case !ok || host == "" || id == "":
			return nil, fmt.Errorf("%q is not host=siteId", pair)
		case strings.ContainsAny(host, "/@ ") || strings.Contains(host, "://"):
			return nil, fmt.Errorf("%q is not a host name", host)
		case strings.ContainsAny(id, "/?# "):
			return nil, fmt.Errorf("%q is not a site id", id)
		}
		if _, dup := out[host]; dup {
			return nil, fmt.Errorf("host %s is given twice", host)
		}
		out[host] = id
	}
	return out, nil
}

// ParseOrigins reads FOLIO_CORS_ORIGINS: origins separated by commas, each
// scheme://host[:port] exactly as a browser sends it in Origin (no path,
// not even "/", no wildcard), each once. Scheme and host are compared in
// lower case, as browsers write them.
func ParseOrigins(text string) ([]string, error) {
	var out []string
	if strings.TrimSpace(text) == "" {
		return out, nil
	}
	for item := range strings.SplitSeq(text, ",") {
		origin := strings.ToLower(strings.TrimSpace(item))
		if err := checkOrigin(origin); err != nil {
			return nil, fmt.Errorf("%q is not an origin: %w", strings.TrimSpace(item), err)
		}
		if slices.Contains(out, origin) {
			return nil, fmt.Errorf("origin %s is given twice", origin)
		}
		out = append(out, origin)
	}
	return out, nil
}

// checkOrigin says why text is not scheme://host[:port].
func checkOrigin(text string) error {
	if text == "" {
		return errors.New("empty")
	}
	if strings.Contains(text, "*") {
		return errors.New("wildcards are not allowed: list each origin")
	}
	u, err := url.Parse(text)
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme == "" || u.Opaque != "" || !strings.HasPrefix(text, u.Scheme+"://"):
		return errors.New("no scheme://")
	case u.User != nil:
		return errors.New("it has user information")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("no host")
	case u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(text, "#"):
		return errors.New("it has a path, query or fragment (an origin ends after the host or port)")
	}
	if port := u.Port(); port != "" {
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return fmt.Errorf("port %q is not a port number", port)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return errors.New("empty port")
	}
	return nil
}
