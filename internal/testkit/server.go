// Package testkit runs Folio for end-to-end tests: a real server over HTTP on
// a fresh database per test, SQLite always and PostgreSQL when reachable
// (required when FOLIO_REQUIRE_POSTGRES=1, as in CI), with every REST
// response checked against GitBook's OpenAPI reference.
package testkit

import (
	"context"
	"database/sql"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/skiplog"
)

// DefaultPostgresURL is the local server the tests use unless
// TEST_DATABASE_URL names another.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/folio_test?sslmode=disable"

// Server is a running Folio over a fresh database.
type Server struct {
	*httptest.Server
	App     *app.App
	Dialect string
	t       testing.TB
	// loaders receives the loaders of each request while Loads runs.
	loaders atomic.Pointer[func(*loader.Loaders)]
	serving sync.WaitGroup // requests whose handler has not returned
}

// Client is the ent client of the server's database, for checking state.
func (s *Server) Client() *ent.Client { return s.App.DB.Client }

// Statements is the number of SQL statements run so far.
func (s *Server) Statements() int64 { return s.App.DB.Counter.Load() }

// Loads runs do (requests, one at a time) and returns the loader stats of
// the last request it made: how many rounds of loads it waited on.
func (s *Server) Loads(do func()) *loader.Stats {
	var last *loader.Loaders
	defer s.OnLoaders(func(l *loader.Loaders) { last = l })()
	do()
	if last == nil {
		s.t.Fatalf("Loads: no authenticated request was made")
	}
	return last.Stats()
}

// OnLoaders hands seen the loaders of each request, when the request first
// uses them (before its first load), until the returned stop is called.
func (s *Server) OnLoaders(seen func(*loader.Loaders)) (stop func()) {
	s.loaders.Store(&seen)
	return func() { s.loaders.Store(nil) }
}

// Served waits until every request the server has begun has returned from
// its handler: the server's side of a request its client gave up on.
func (s *Server) Served() { s.serving.Wait() }

// ForEachDB runs fn as a subtest on SQLite and, when reachable, PostgreSQL.
func ForEachDB(t *testing.T, fn func(t *testing.T, s *Server)) {
	t.Helper()
	for _, kind := range Databases(t) {
		t.Run(kind, func(t *testing.T) {
			fn(t, Start(t, kind))
		})
	}
}

// ForEachDBOnLocalhost is ForEachDB with the server's base URL (and URL)
// http://localhost:port instead of http://127.0.0.1:port: what needs a
// domain name, as a passkey's relying party ID does, works there.
func ForEachDBOnLocalhost(t *testing.T, fn func(t *testing.T, s *Server)) {
	t.Helper()
	for _, kind := range Databases(t) {
		t.Run(kind, func(t *testing.T) {
			var w io.Writer = io.Discard
			if os.Getenv("FOLIO_TEST_LOG") == "1" {
				w = os.Stderr
			}
			fn(t, startOn(t, kind, app.NewLogger(w), "localhost"))
		})
	}
}

// Databases lists the kinds of database this run can test on.
func Databases(t testing.TB) []string {
	kinds := []string{"sqlite"}
	if postgresReachable(t) {
		kinds = append(kinds, "postgres")
	}
	return kinds
}

var (
	pgOnce sync.Once
	pgOK   bool
	pgErr  error
)

func postgresURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

func postgresReachable(t testing.TB) bool {
	pgOnce.Do(func() {
		raw, err := sql.Open("postgres", postgresURL())
		if err == nil {
			err = raw.Ping()
			raw.Close()
		}
		pgOK, pgErr = err == nil, err
	})
	if !pgOK {
		if os.Getenv("FOLIO_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL is required (FOLIO_REQUIRE_POSTGRES=1) but %s is unreachable: %v", postgresURL(), pgErr)
		}
		t.Logf("PostgreSQL tests skipped: %s unreachable: %v", postgresURL(), pgErr)
		skiplog.Note("PostgreSQL tests", "unreachable: "+pgErr.Error())
	}
	return pgOK
}

// Start runs a server on a fresh database of the given kind. Its log lines
// are dropped (written to stderr with FOLIO_TEST_LOG=1).
func Start(t testing.TB, kind string) *Server {
	t.Helper()
	var w io.Writer = io.Discard
	if os.Getenv("FOLIO_TEST_LOG") == "1" {
		w = os.Stderr
	}
	return start(t, kind, app.NewLogger(w))
}

// StartLogged is Start with the server's log lines written to w as in
// production. slog's default logger, which errors inside requests go
// through, writes there too until the test ends (server.go sets it the
// same way).
func StartLogged(t testing.TB, kind string, w io.Writer) *Server {
	t.Helper()
	logger := app.NewLogger(w)
	prev, logOut, logFlags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(logger)
	t.Cleanup(func() {
		slog.SetDefault(prev)
		log.SetOutput(logOut) // SetDefault redirected the log package too
		log.SetFlags(logFlags)
	})
	return start(t, kind, logger)
}

func start(t testing.TB, kind string, logger *slog.Logger) *Server {
	t.Helper()
	return startOn(t, kind, logger, "")
}

// startOn is start with the base URL's host named host ("": the
// listener's address).
func startOn(t testing.TB, kind string, logger *slog.Logger, host string) *Server {
	t.Helper()
	ctx := context.Background()
	// The settings a test sets in the environment apply, as in production.
	cfg := app.Defaults()
	if err := cfg.ApplyEnv(os.Getenv, nil); err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = t.TempDir()
	cfg.BlobURL = ""
	cfg.DatabaseURL = ""
	cfg.AllowPrivateFetch = true
	if kind == "postgres" {
		cfg.DatabaseURL = freshPostgresSchema(t)
		// Required with PostgreSQL; SQLite makes its key file, as in
		// production.
		if cfg.SecretKey == "" {
			cfg.SecretKey = SecretKey.String()
		}
	} else {
		cfg.DatabaseURL = "sqlite:" + filepath.Join(cfg.DataDir, "folio.db")
	}
	// As the server does before it opens the database (mode 0700).
	if err := cfg.PrepareDataDir(); err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		t.Fatalf("open %s: %v", kind, err)
	}
	s := &Server{Dialect: kind, t: t}
	s.Server = httptest.NewUnstartedServer(nil)
	s.Server.Start()
	if host != "" {
		_, port, _ := net.SplitHostPort(s.Server.Listener.Addr().String())
		s.Server.URL = "http://" + net.JoinHostPort(host, port)
	}
	cfg.BaseURL = s.Server.URL
	if s.App, err = app.New(cfg, d, logger); err != nil {
		t.Fatal(err)
	}
	s.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serving.Add(1)
		defer s.serving.Done()
		if seen := s.loaders.Load(); seen != nil {
			r = r.WithContext(loader.Observe(r.Context(), *seen))
		}
		s.App.Handler.ServeHTTP(w, r)
	})
	t.Cleanup(func() {
		s.Server.Close()
		// Page views the reader buffered are written while the database
		// is still open, as a server's shutdown does.
		s.App.Resolver.FlushSiteEvents()
		d.Client.Close()
	})
	if os.Getenv("FOLIO_TEST_LOAD") == "1" {
		// Every test runs with every processor busy: statement counts that
		// hang on goroutine timing show as failures (see UnderLoad).
		UnderLoad(t)
	}
	return s
}

// freshPostgresSchema creates a schema of its own for one test and returns
// a URL whose connections use it; the schema is dropped afterwards.
func freshPostgresSchema(t testing.TB) string {
	t.Helper()
	admin, err := sql.Open("postgres", postgresURL())
	if err != nil {
		t.Fatal(err)
	}
	name := "t_" + strings.ToLower(ids.New())
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP SCHEMA " + name + " CASCADE")
		admin.Close()
	})
	sep := "?"
	if strings.Contains(postgresURL(), "?") {
		sep = "&"
	}
	return postgresURL() + sep + "search_path=" + name
}

// DatabaseURL is a fresh, empty database of the given kind for a test that
// starts servers itself (several instances on one database, a restore):
// a PostgreSQL schema of its own, dropped afterwards, or an SQLite file in
// dir.
func DatabaseURL(t testing.TB, kind, dir string) string {
	t.Helper()
	if kind == "postgres" {
		return freshPostgresSchema(t)
	}
	return "sqlite:" + filepath.Join(dir, "folio.db")
}
