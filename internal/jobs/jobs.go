// Package jobs runs background work from durable rows (the jobs table of
// ent/schema Job): a job queued before a crash or a restart runs after it,
// and several server instances on one PostgreSQL share the queue.
//
// A runner claims one due job at a time with a single UPDATE … RETURNING
// whose subquery locks the row with FOR UPDATE SKIP LOCKED (PostgreSQL), so
// two instances never claim the same job; on SQLite the database has one
// writer and one process runs the jobs. The claim sets a lease (lease_until)
// and an owner token instead of holding a transaction open while the job
// fetches or parses: the runner renews the lease while the job runs, and a
// job whose lease ran out (its instance died) is claimed again by anyone.
// Completion is written only by the lease holder. Handlers must therefore be
// idempotent (a job may run again after a crash mid-way); OpenAPI versions
// are keyed by content hash for that reason.
//
// The package knows SQL, not ent: it works on any database/sql-like handle.
package jobs

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/folio/folio/internal/clock"
)

// DB is what the runner needs of a database handle (*sql.DB, an ent client
// with sql/execquery).
type DB interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Job is a claimed row.
type Job struct {
	ID       string
	Kind     string
	Payload  string
	Attempts int  // including this one
	Last     bool // no retry follows this attempt (MaxAttempts reached)
}

// Handler runs one job. Returning an error marked with Retry asks for
// another attempt after a backoff (until MaxAttempts); any other error, or
// nil, ends the job.
type Handler func(ctx context.Context, j Job) error

// Periodic is a job that runs every Every, as one durable row per kind
// (singleton) rescheduled after each run: with several instances it still
// runs once per period.
type Periodic struct {
	Kind  string
	Every time.Duration
}

// Runner claims and runs jobs until its context ends.
type Runner struct {
	DB      DB
	Dialect string // "postgres" or "sqlite"
	// Handlers by kind. A claimed job of an unknown kind fails.
	Handlers map[string]Handler
	Periodic []Periodic
	// Poll is how often the queue is looked at when it was empty (tests
	// shorten it); Lease how long a claim holds without renewal.
	Poll        time.Duration
	Lease       time.Duration
	MaxAttempts int
	// Backoff is the wait before the second attempt; it doubles with each
	// further attempt.
	Backoff time.Duration
	// Policies override MaxAttempts and Backoff for jobs of a kind
	// (webhook deliveries retry on their own schedule).
	Policies map[string]Policy
	// Workers is how many jobs one runner runs at once.
	Workers int
	Logger  *slog.Logger
	// Observe, when set, is told each finished run (for metrics).
	Observe func(kind string, ok bool)

	owner string
	wake  chan struct{}
	once  sync.Once
}

// Defaults of a Runner's zero fields.
const (
	DefaultPoll        = time.Second
	DefaultLease       = 30 * time.Second
	DefaultMaxAttempts = 4
	DefaultBackoff     = 5 * time.Second
	DefaultWorkers     = 2
)

// Policy is the retry schedule of a kind of job; zero fields take the
// runner's.
type Policy struct {
	MaxAttempts int
	Backoff     time.Duration
}

func (r *Runner) maxAttempts(kind string) int {
	if p, ok := r.Policies[kind]; ok && p.MaxAttempts > 0 {
		return p.MaxAttempts
	}
	return r.MaxAttempts
}

// BackoffAfter is the wait after failed attempt n (1-based) of a job of
// kind: the kind's backoff, doubled for each attempt after the first.
func (r *Runner) BackoffAfter(kind string, n int) time.Duration {
	r.init()
	b := r.Backoff
	if p, ok := r.Policies[kind]; ok && p.Backoff > 0 {
		b = p.Backoff
	}
	return time.Duration(float64(b) * math.Pow(2, float64(n-1)))
}

type retryable struct{ error }

func (r retryable) Unwrap() error { return r.error }

// Retry marks err as worth another attempt.
func Retry(err error) error { return retryable{err} }

// IsRetry tells whether err was marked with Retry.
func IsRetry(err error) bool { var r retryable; return errors.As(err, &r) }

func (r *Runner) init() {
	r.once.Do(func() {
		if r.Poll <= 0 {
			r.Poll = DefaultPoll
		}
		if r.Lease <= 0 {
			r.Lease = DefaultLease
		}
		if r.MaxAttempts <= 0 {
			r.MaxAttempts = DefaultMaxAttempts
		}
		if r.Backoff <= 0 {
			r.Backoff = DefaultBackoff
		}
		if r.Workers <= 0 {
			r.Workers = DefaultWorkers
		}
		if r.Logger == nil {
			r.Logger = slog.New(slog.DiscardHandler)
		}
		var b [12]byte
		_, _ = rand.Read(b[:])
		r.owner = hex.EncodeToString(b[:])
		r.wake = make(chan struct{}, 1)
	})
}

// Wake makes idle workers look at the queue now (after an enqueue in this
// process), instead of at the next poll.
func (r *Runner) Wake() {
	r.init()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *Runner) q(s string) string {
	// Placeholders are written $1…$n; SQLite takes ? in order.
	if r.Dialect == "postgres" {
		return s
	}
	for i := 9; i >= 1; i-- {
		s = strings.ReplaceAll(s, fmt.Sprintf("$%d", i), "?")
	}
	return s
}

func nowMillis() int64 { return clock.Now().UnixMilli() }

// Enqueue adds a job due now. db may be a transaction, so a job is queued
// together with the change that needs it.
func Enqueue(ctx context.Context, db DB, dialect, id, kind, payload string) error {
	r := &Runner{Dialect: dialect}
	now := clock.Now()
	_, err := db.ExecContext(ctx, r.q(`INSERT INTO jobs (id, created_at, updated_at, kind, payload, state, attempts, run_at, lease_until, owner, last_error, runs)
		VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, 0, '', '', 0)`), id, now, now, kind, payload, now.UnixMilli())
	return err
}

// Run claims and runs jobs with Workers goroutines until ctx ends or stop
// is closed; a job under way when stop closes finishes (runCtx, which the
// caller cuts at the end of its shutdown timeout, bounds it).
func (r *Runner) Run(stop <-chan struct{}, runCtx context.Context) {
	r.init()
	if err := r.ensurePeriodic(runCtx); err != nil && runCtx.Err() == nil {
		r.Logger.Error("jobs: cannot schedule periodic jobs", "err", err)
	}
	var wg sync.WaitGroup
	for range r.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(stop, runCtx)
		}()
	}
	wg.Wait()
}

func (r *Runner) work(stop <-chan struct{}, ctx context.Context) {
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		j, err := r.claim(ctx)
		if err != nil && ctx.Err() == nil {
			r.Logger.Error("jobs: claim failed", "err", err)
		}
		if j != nil {
			r.run(ctx, j)
			continue // look again at once: the queue may hold more
		}
		t := time.NewTimer(r.Poll)
		select {
		case <-stop:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		case <-r.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// claim takes the oldest due job: queued and due, or running with a lease
// that ran out (its runner died).
func (r *Runner) claim(ctx context.Context) (*Job, error) {
	now := nowMillis()
	lock := ""
	if r.Dialect == "postgres" {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	rows, err := r.DB.QueryContext(ctx, r.q(`UPDATE jobs SET state = 'running', owner = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3
		WHERE id = (SELECT id FROM jobs
			WHERE (state = 'queued' AND run_at <= $4) OR (state = 'running' AND lease_until < $5)
			ORDER BY run_at, id LIMIT 1`+lock+`)
		RETURNING id, kind, payload, attempts`),
		r.owner, now+r.Lease.Milliseconds(), clock.Now(), now, now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	var j Job
	if err := rows.Scan(&j.ID, &j.Kind, &j.Payload, &j.Attempts); err != nil {
		return nil, err
	}
	j.Last = j.Attempts >= r.maxAttempts(j.Kind)
	return &j, rows.Err()
}

// run runs a claimed job, renewing its lease meanwhile, and records the
// outcome if the lease is still this runner's.
func (r *Runner) run(ctx context.Context, j *Job) {
	renewCtx, stopRenew := context.WithCancel(ctx)
	var renewed sync.WaitGroup
	renewed.Add(1)
	go func() {
		defer renewed.Done()
		t := time.NewTicker(r.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-renewCtx.Done():
				return
			case <-t.C:
				_, err := r.DB.ExecContext(renewCtx, r.q(`UPDATE jobs SET lease_until = $1 WHERE id = $2 AND owner = $3 AND state = 'running'`),
					nowMillis()+r.Lease.Milliseconds(), j.ID, r.owner)
				if err != nil && renewCtx.Err() == nil {
					r.Logger.Warn("jobs: lease renewal failed", "job", j.ID, "kind", j.Kind, "err", err)
				}
			}
		}
	}()
	err := r.call(ctx, j)
	stopRenew()
	renewed.Wait()
	if ctx.Err() != nil {
		// Cut by shutdown: the lease runs out and another run (here after a
		// restart, or another instance) takes the job up again.
		return
	}
	if err := r.finish(ctx, j, err); err != nil && ctx.Err() == nil {
		r.Logger.Error("jobs: cannot record the outcome", "job", j.ID, "kind", j.Kind, "err", err)
	}
}

func (r *Runner) call(ctx context.Context, j *Job) (err error) {
	h := r.Handlers[j.Kind]
	if h == nil {
		return fmt.Errorf("no handler for jobs of kind %q", j.Kind)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("job panicked: %v", p)
		}
	}()
	return h(ctx, *j)
}

// finish writes the outcome: done (or rescheduled, for periodic jobs),
// queued again after a backoff, or failed.
func (r *Runner) finish(ctx context.Context, j *Job, err error) error {
	now := nowMillis()
	period := r.period(j.Kind)
	var res sql.Result
	var werr error
	switch {
	case err == nil || period > 0:
		// A periodic job runs again next period whatever happened.
		state, next, attempts := "done", now, "attempts"
		if period > 0 {
			state, next, attempts = "queued", now+period.Milliseconds(), "0"
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		// owner stays: it tells which runner ran the job last.
		res, werr = r.DB.ExecContext(ctx, r.q(`UPDATE jobs SET state = $1, run_at = $2, lease_until = 0, runs = runs + 1, last_error = $3, attempts = `+attempts+`, updated_at = $4
			WHERE id = $5 AND owner = $6 AND state = 'running'`), state, next, msg, clock.Now(), j.ID, r.owner)
	case IsRetry(err) && j.Attempts < r.maxAttempts(j.Kind):
		wait := r.BackoffAfter(j.Kind, j.Attempts)
		res, werr = r.DB.ExecContext(ctx, r.q(`UPDATE jobs SET state = 'queued', run_at = $1, lease_until = 0, owner = '', last_error = $2, updated_at = $3
			WHERE id = $4 AND owner = $5 AND state = 'running'`), now+wait.Milliseconds(), err.Error(), clock.Now(), j.ID, r.owner)
	default:
		res, werr = r.DB.ExecContext(ctx, r.q(`UPDATE jobs SET state = 'failed', lease_until = 0, runs = runs + 1, last_error = $1, updated_at = $2
			WHERE id = $3 AND owner = $4 AND state = 'running'`), err.Error(), clock.Now(), j.ID, r.owner)
	}
	if werr != nil {
		return werr
	}
	if n, _ := res.RowsAffected(); n == 0 {
		r.Logger.Warn("jobs: lease lost before the job finished; its outcome was not recorded", "job", j.ID, "kind", j.Kind)
		return nil
	}
	if r.Observe != nil && !(IsRetry(err) && j.Attempts < r.maxAttempts(j.Kind) && period == 0) {
		r.Observe(j.Kind, err == nil)
	}
	if err != nil {
		r.Logger.Warn("jobs: run failed", "job", j.ID, "kind", j.Kind, "attempt", j.Attempts, "err", err)
	}
	return nil
}

func (r *Runner) period(kind string) time.Duration {
	for _, p := range r.Periodic {
		if p.Kind == kind {
			return p.Every
		}
	}
	return 0
}

// ensurePeriodic makes the one row of each periodic job, due now, unless
// it exists (another instance, or an earlier start, made it).
func (r *Runner) ensurePeriodic(ctx context.Context) error {
	for _, p := range r.Periodic {
		now := clock.Now()
		var b [10]byte
		_, _ = rand.Read(b[:])
		_, err := r.DB.ExecContext(ctx, r.q(`INSERT INTO jobs (id, created_at, updated_at, kind, payload, singleton, state, attempts, run_at, lease_until, owner, last_error, runs)
			VALUES ($1, $2, $3, $4, '', $5, 'queued', 0, $6, 0, '', '', 0) ON CONFLICT (singleton) DO NOTHING`),
			"job"+hex.EncodeToString(b[:]), now, now, p.Kind, p.Kind, now.UnixMilli())
		if err != nil {
			return err
		}
	}
	return nil
}
