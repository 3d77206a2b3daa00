// Package app wires Folio together: configuration, database, resolvers, the
// two APIs and the HTTP server around them. server.go is its command line;
// tests build the same App over their own databases.
package app

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/folio/folio/internal/importer"
)

// Config is every setting of the server. Each has an environment variable
// and a flag of the same meaning; flags win.
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
	ShutdownTimeout   time.Duration
	// PurgeInterval is how often deleted spaces past their restore window
	// are removed for good.
	PurgeInterval time.Duration
	// RequestTimeout bounds every request's work (imports, PDF, GraphQL
	// alike); a request also stops when its client leaves.
	RequestTimeout time.Duration
	// MaxResponseBytes is the last guard on one answer's size.
	MaxResponseBytes int64
	// MaxImports is the number of imports that run at once (each may hold
	// 100 MB unpacked); more wait their turn, then answer 503.
	MaxImports int
}

// FromEnv reads the configuration from the environment, with defaults.
func FromEnv() Config {
	c := Config{
		Addr:             env("FOLIO_ADDR", "127.0.0.1:8080"),
		DatabaseURL:      os.Getenv("DATABASE_URL"),
		DataDir:          env("FOLIO_DATA_DIR", "./data"),
		BaseURL:          os.Getenv("FOLIO_BASE_URL"),
		BlobURL:          os.Getenv("FOLIO_BLOB_URL"),
		MaxBodyBytes:     8 << 20,
		ShutdownTimeout:  30 * time.Second,
		PurgeInterval:    time.Hour,
		RequestTimeout:   60 * time.Second,
		MaxResponseBytes: 64 << 20,
		MaxImports:       importer.DefaultInFlight,
	}
	if v, err := strconv.Atoi(os.Getenv("FOLIO_MAX_IMPORTS")); err == nil && v > 0 {
		c.MaxImports = v
	}
	if d, err := time.ParseDuration(os.Getenv("FOLIO_REQUEST_TIMEOUT")); err == nil && d > 0 {
		c.RequestTimeout = d
	}
	if v, err := strconv.ParseInt(os.Getenv("FOLIO_MAX_RESPONSE_BYTES"), 10, 64); err == nil && v > 0 {
		c.MaxResponseBytes = v
	}
	if d, err := time.ParseDuration(os.Getenv("FOLIO_PURGE_INTERVAL")); err == nil && d > 0 {
		c.PurgeInterval = d
	}
	if v, err := strconv.ParseInt(os.Getenv("FOLIO_MAX_BODY_BYTES"), 10, 64); err == nil && v > 0 {
		c.MaxBodyBytes = v
	}
	c.AllowPrivateFetch, _ = strconv.ParseBool(os.Getenv("FOLIO_ALLOW_PRIVATE_FETCH"))
	return c
}

// Flags binds flags that override the environment.
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (FOLIO_ADDR)")
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "postgres:// URL; empty for embedded SQLite (DATABASE_URL)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory of the SQLite file and blobs (FOLIO_DATA_DIR)")
	fs.StringVar(&c.BaseURL, "base-url", c.BaseURL, "public URL used in `urls` (FOLIO_BASE_URL; default http://ADDR)")
	fs.StringVar(&c.BlobURL, "blob-url", c.BlobURL, "blob storage URL (FOLIO_BLOB_URL; default a directory under the data dir)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", c.MaxBodyBytes, "largest accepted request body (FOLIO_MAX_BODY_BYTES)")
	fs.DurationVar(&c.PurgeInterval, "purge-interval", c.PurgeInterval, "how often deleted spaces past 7 days are purged (FOLIO_PURGE_INTERVAL)")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", c.RequestTimeout, "longest a request may work (FOLIO_REQUEST_TIMEOUT)")
	fs.Int64Var(&c.MaxResponseBytes, "max-response-bytes", c.MaxResponseBytes, "largest answer (FOLIO_MAX_RESPONSE_BYTES)")
	fs.IntVar(&c.MaxImports, "max-imports", c.MaxImports, "imports running at once (FOLIO_MAX_IMPORTS)")
	fs.BoolVar(&c.AllowPrivateFetch, "allow-private-fetch", c.AllowPrivateFetch, "let imports fetch private addresses (FOLIO_ALLOW_PRIVATE_FETCH)")
}

// PublicBaseURL is BaseURL without a trailing slash, or http://Addr.
func (c Config) PublicBaseURL() string {
	if c.BaseURL != "" {
		return strings.TrimRight(c.BaseURL, "/")
	}
	return fmt.Sprintf("http://%s", c.Addr)
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
