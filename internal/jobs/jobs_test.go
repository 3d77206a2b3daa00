package jobs_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/testkit"
)

type row struct {
	state    string
	attempts int
	runs     int
	lastErr  string
}

func read(t *testing.T, d *db.DB, id string) row {
	t.Helper()
	q := `SELECT state, attempts, runs, last_error FROM jobs WHERE id = `
	if d.Dialect == "postgres" {
		q += "$1"
	} else {
		q += "?"
	}
	var r row
	if err := d.SQL.QueryRow(q, id).Scan(&r.state, &r.attempts, &r.runs, &r.lastErr); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitFor polls until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestRunner: retries only what the handler marks, with a bounded number
// of attempts; other errors are final; a periodic job runs again; a job
// whose lease ran out (its runner died) is claimed again.
func TestRunner(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			d, err := db.Open(context.Background(), testkit.DatabaseURL(t, kind, dir), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Client.Close()
			var flaky, periodic atomic.Int32
			r := &jobs.Runner{
				DB: d.SQL, Dialect: d.Dialect, Poll: 5 * time.Millisecond, Backoff: 5 * time.Millisecond, MaxAttempts: 3, Lease: 300 * time.Millisecond,
				Handlers: map[string]jobs.Handler{
					"flaky": func(ctx context.Context, j jobs.Job) error {
						flaky.Add(1)
						return jobs.Retry(errors.New("unreachable"))
					},
					"final": func(ctx context.Context, j jobs.Job) error { return errors.New("bad input") },
					"ok":    func(ctx context.Context, j jobs.Job) error { return nil },
					"tick":  func(ctx context.Context, j jobs.Job) error { periodic.Add(1); return nil },
				},
				Periodic: []jobs.Periodic{{Kind: "tick", Every: 20 * time.Millisecond}},
			}
			ctx := context.Background()
			// A job claimed by a runner that then died: running, lease past.
			if err := jobs.Enqueue(ctx, d.SQL, d.Dialect, "orphan", "ok", ""); err != nil {
				t.Fatal(err)
			}
			q := `UPDATE jobs SET state = 'running', owner = 'dead', lease_until = 1, attempts = 1 WHERE id = 'orphan'`
			if _, err := d.SQL.Exec(q); err != nil {
				t.Fatal(err)
			}
			for id, kind := range map[string]string{"f": "flaky", "x": "final", "o": "ok"} {
				if err := jobs.Enqueue(ctx, d.SQL, d.Dialect, id, kind, ""); err != nil {
					t.Fatal(err)
				}
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); r.Run(stop, ctx) }()
			defer func() { close(stop); wg.Wait() }()
			waitFor(t, "jobs to finish", func() bool {
				return read(t, d, "f").state == "failed" && read(t, d, "x").state == "failed" &&
					read(t, d, "o").state == "done" && read(t, d, "orphan").state == "done" && periodic.Load() >= 2
			})
			if f := read(t, d, "f"); f.attempts != 3 || flaky.Load() != 3 || f.runs != 1 || f.lastErr != "unreachable" {
				t.Fatalf("flaky: %+v, %d calls", f, flaky.Load())
			}
			if x := read(t, d, "x"); x.attempts != 1 || x.runs != 1 {
				t.Fatalf("final: %+v", x)
			}
			if o := read(t, d, "orphan"); o.attempts != 2 || o.runs != 1 {
				t.Fatalf("orphan: %+v", o)
			}
		})
	}
}
