package testkit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/folio/folio/ent/job"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
)

// JobServer is a Server whose background job runner runs (Start's does
// not), over a database it can be restarted on, as a process restart would.
type JobServer struct {
	*Server
	cfg  app.Config
	db   *db.DB
	tune func(*app.Config)
	// log receives the server's log lines too (StartJobsLogged).
	log io.Writer
}

// FastJobs are job settings for tests: the queue is polled every 10 ms and
// failed fetches are retried after 10 ms, so polling tests wait little.
func FastJobs(c *app.Config) {
	c.JobPoll = 10 * time.Millisecond
	c.JobBackoff = 10 * time.Millisecond
	c.JobLease = 3 * time.Second
	c.JobMaxAttempts = 2
}

// StartJobs is Start with the job runner running (FastJobs, then tune).
func StartJobs(t testing.TB, kind string, tune func(*app.Config)) *JobServer {
	t.Helper()
	return StartJobsOn(t, kind, DatabaseURL(t, kind, t.TempDir()), tune)
}

// StartJobsLogged is StartJobs whose log lines also go to w (tests that
// read them).
func StartJobsLogged(t testing.TB, kind string, w io.Writer, tune func(*app.Config)) *JobServer {
	t.Helper()
	return startJobs(t, kind, DatabaseURL(t, kind, t.TempDir()), w, tune)
}

// StartJobsOn starts a server with its job runner over databaseURL, which
// other servers of the test may share (several instances).
func StartJobsOn(t testing.TB, kind, databaseURL string, tune func(*app.Config)) *JobServer {
	t.Helper()
	return startJobs(t, kind, databaseURL, nil, tune)
}

func startJobs(t testing.TB, kind, databaseURL string, log io.Writer, tune func(*app.Config)) *JobServer {
	t.Helper()
	cfg := app.Defaults()
	if err := cfg.ApplyEnv(os.Getenv, nil); err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = t.TempDir()
	cfg.BlobURL = ""
	cfg.DatabaseURL = databaseURL
	cfg.AllowPrivateFetch = true
	// Servers of one database (several instances) share its key, as in
	// production: each has a data directory of its own.
	if cfg.SecretKey == "" {
		cfg.SecretKey = SecretKey.String()
	}
	FastJobs(&cfg)
	if tune != nil {
		tune(&cfg)
	}
	s := &JobServer{Server: &Server{Dialect: kind, t: t}, cfg: cfg, tune: tune, log: log}
	s.Server.Server = httptest.NewUnstartedServer(nil)
	s.Server.Server.Start()
	s.cfg.BaseURL = s.Server.Server.URL
	s.open(t)
	s.Server.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serving.Add(1)
		defer s.serving.Done()
		if seen := s.loaders.Load(); seen != nil {
			r = r.WithContext(loader.Observe(r.Context(), *seen))
		}
		s.App.Handler.ServeHTTP(w, r)
	})
	t.Cleanup(func() {
		s.Server.Server.Close()
		s.close()
	})
	return s
}

func (s *JobServer) open(t testing.TB) {
	t.Helper()
	d, err := db.Open(context.Background(), s.cfg.DatabaseURL, s.cfg.DataDir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	w := logWriter()
	if s.log != nil {
		w = io.MultiWriter(w, s.log)
	}
	a, err := app.New(s.cfg, d, app.NewLogger(w))
	if err != nil {
		t.Fatal(err)
	}
	s.db, s.App = d, a
	a.StartJobs()
}

func (s *JobServer) close() {
	if s.db == nil {
		return
	}
	s.App.StopJobs(true)
	s.db.Client.Close()
	s.db = nil
}

// Restart stops the job runner at once (jobs under way are cut, as by a
// crash: their leases run out), closes the database and opens a new App
// on it, at the same URL.
func (s *JobServer) Restart(t testing.TB) {
	t.Helper()
	s.close()
	s.open(t)
}

// StopJobs stops the runner (letting a job under way finish), for a test
// that counts statements without background work.
func (s *JobServer) StopJobs() { s.App.StopJobs(false) }

// Kill stops the runner at once without recording anything, and closes the
// database: the server is gone until Restart.
func (s *JobServer) Kill() { s.close() }

func logWriter() io.Writer {
	if os.Getenv("FOLIO_TEST_LOG") == "1" {
		return os.Stderr
	}
	return io.Discard
}

// Idle waits until no job is running or due, so a snapshot taken next sees
// no background write land (a processing marks its spec complete a moment
// before its job row is marked done).
func (s *JobServer) Idle(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		busy, err := s.Client().Job.Query().Where(job.Or(job.StateEQ(job.StateRunning),
			job.And(job.StateEQ(job.StateQueued), job.RunAtLTE(clock.Now().UnixMilli())))).Exist(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("background jobs still busy after 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
