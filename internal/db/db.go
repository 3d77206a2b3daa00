// Package db opens the database behind ent: PostgreSQL through lib/pq when the
// URL says so, otherwise an embedded SQLite file (modernc.org/sqlite, pure Go,
// so Folio builds and cross-compiles without cgo).
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/lib/pq"
	_ "modernc.org/sqlite"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/migrate"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/search"
)

// DB is an open database: the ent client for the application, the raw pool
// for health checks, and the statement counter tests read.
type DB struct {
	Client  *ent.Client
	SQL     *sql.DB
	Dialect string
	Counter *Counter
	path    string // the SQLite file ("" on PostgreSQL), naming its local locks
	dsn     string // the PostgreSQL connection string ("" on SQLite), for ListenEvents
}

// IsPostgres tells whether a DATABASE_URL names a PostgreSQL server.
func IsPostgres(databaseURL string) bool {
	return strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://")
}

// Open connects to databaseURL (PostgreSQL) or, when it is empty, to the
// SQLite file folio.db under dataDir, and migrates the schema.
func Open(ctx context.Context, databaseURL, dataDir string) (*DB, error) {
	var (
		raw     *sql.DB
		dialect string
		dsn     string
		err     error
	)
	switch {
	case IsPostgres(databaseURL):
		raw, dsn, err = openPostgres(databaseURL)
		dialect = dialectPostgres
	case databaseURL == "" || strings.HasPrefix(databaseURL, "sqlite:") || strings.HasPrefix(databaseURL, "file:"):
		raw, err = openSQLite(databaseURL, dataDir)
		dialect = dialectSQLite
	default:
		return nil, fmt.Errorf("DATABASE_URL: unsupported scheme in %q (use postgres:// or leave empty for SQLite)", Redact(databaseURL))
	}
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ping(pingCtx, raw); err != nil {
		raw.Close()
		return nil, fmt.Errorf("database %s: %w", Redact(databaseURL), err)
	}
	counter := &Counter{}
	drv := &countingDriver{Driver: entsql.OpenDB(dialect, raw), counter: counter}
	client := ent.NewClient(ent.Driver(drv))
	client.Use(events.Guard)
	d := &DB{Client: client, SQL: raw, Dialect: dialect, Counter: counter, path: SQLitePath(databaseURL, dataDir), dsn: dsn}
	// Instances starting together on one database migrate one at a time:
	// the second finds the schema made and changes nothing.
	err = d.Exclusive(ctx, "migrate", func() error {
		old, err := beforeChunks(ctx, raw, dialect)
		if err != nil {
			return fmt.Errorf("migrate pages to chunks: %w", err)
		}
		if err := client.Schema.Create(ctx, migrate.WithDropIndex(true)); err != nil {
			return fmt.Errorf("migrate schema: %w", err)
		}
		if old {
			if err := nameOldChunks(ctx, raw); err != nil {
				return fmt.Errorf("migrate pages to chunks: %w", err)
			}
		}
		for _, stmt := range eventsSchema(dialect) {
			if _, err := raw.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("events notification: %w", err)
			}
		}
		for _, stmt := range search.Schema(dialect) {
			if _, err := raw.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("search index: %w", err)
			}
		}
		if err := keepCounts(ctx, raw, dialect); err != nil {
			return fmt.Errorf("kept counts: %w", err)
		}
		return nil
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	return d, nil
}

const (
	dialectPostgres = dialect.Postgres
	dialectSQLite   = dialect.SQLite
)

func openPostgres(databaseURL string) (*sql.DB, string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return nil, "", fmt.Errorf("DATABASE_URL: %w", err)
	}
	// lib/pq defaults to sslmode=require and waits forever on a dead host:
	// make both explicit unless the operator chose.
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "10")
	}
	// statement_cache=off (Folio's, not lib/pq's) turns off the prepared
	// statements of stmtcache.go, for a transaction-pooling PgBouncer older
	// than 1.21, which cannot keep them.
	cache := true
	switch v := q.Get("statement_cache"); v {
	case "", "on":
	case "off":
		cache = false
	default:
		return nil, "", fmt.Errorf("DATABASE_URL: statement_cache must be on or off, not %q", v)
	}
	q.Del("statement_cache")
	u.RawQuery = q.Encode()
	connector, err := pq.NewConnector(u.String())
	if err != nil {
		return nil, "", err
	}
	var raw *sql.DB
	if cache {
		raw = sql.OpenDB(cachingConnector{connector})
	} else {
		raw = sql.OpenDB(connector)
	}
	raw.SetMaxOpenConns(20)
	raw.SetMaxIdleConns(20)
	raw.SetConnMaxLifetime(30 * time.Minute)
	return raw, u.String(), nil
}

// SQLitePath is the file of the SQLite database Open uses for databaseURL
// and dataDir, or "" when databaseURL names a PostgreSQL server.
func SQLitePath(databaseURL, dataDir string) string {
	if IsPostgres(databaseURL) {
		return ""
	}
	if path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "file:"); path != "" {
		return path
	}
	if dataDir == "" {
		dataDir = "data"
	}
	return filepath.Join(dataDir, "folio.db")
}

func openSQLite(databaseURL, dataDir string) (*sql.DB, error) {
	path := SQLitePath(databaseURL, dataDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	if err := privateFiles(path); err != nil {
		return nil, fmt.Errorf("database file: %w", err)
	}
	// Foreign keys are off per connection unless asked for; WAL lets readers
	// run beside the single writer; the busy timeout queues writers instead
	// of failing them. It comes first: pragmas apply in order, and switching
	// a new file to WAL while another instance migrates it must wait too.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_time_format=sqlite&_txlock=immediate"
	raw, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	// One writer at a time (immediate transactions queue on the busy
	// timeout); enough connections that a writer reading outside its
	// transaction (dataloaders) never waits for a connection another
	// queued writer holds.
	raw.SetMaxOpenConns(16)
	raw.SetMaxIdleConns(16)
	return raw, nil
}

// ping opens a first connection, trying again while SQLite answers
// "database is locked": a new connection's pragmas switch the file to WAL,
// and while another instance does the same to a new file SQLite may answer
// busy without waiting out the busy timeout. The failed connection is
// dropped, so each try runs the pragmas afresh.
func ping(ctx context.Context, raw *sql.DB) error {
	for {
		err := raw.PingContext(ctx)
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// privateFiles makes the SQLite file at path readable by its owner only:
// created empty with mode 0600 when missing (SQLite takes an empty file as
// an empty database), tightened to 0600 when an older version made it
// 0644, with its -wal and -shm files. SQLite gives the -wal and -shm files
// it creates later the database file's mode.
func privateFiles(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Redact hides a password in a database URL before it is logged or shown.
func Redact(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil || u.User == nil {
		return databaseURL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
