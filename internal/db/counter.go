package db

import (
	"context"
	"database/sql"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// Counter counts the SQL statements sent to the database. Tests read it to
// hold nested reads to a cost that grows with depth, not with row count,
// and to check that cancelled work sends nothing more (OnStatement).
type Counter struct {
	n    atomic.Int64
	hook atomic.Pointer[func(ctx context.Context)]
}

// Load returns the number of statements so far.
func (c *Counter) Load() int64 { return c.n.Load() }

// OnStatement makes fn run (tests only) with each statement's context once
// the statement is counted, before it is sent: a test cancels work at a
// known statement with it. Restore puts back the hook before.
func (c *Counter) OnStatement(fn func(ctx context.Context)) (restore func()) {
	prev := c.hook.Swap(&fn)
	return func() { c.hook.Store(prev) }
}

// Uncounted marks ctx's statements as background polling that the
// counter leaves out (the webhook dispatcher's ticks, the hub's reads) or
// telemetry that the clock triggers (a token's or a session's last use,
// touched once a minute): tests' counts see requests and jobs, as the job
// runner's own polls through the raw pool are not seen.
func Uncounted(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncountedKey{}, true)
}

type uncountedKey struct{}

func (c *Counter) add(ctx context.Context) {
	if ctx.Value(uncountedKey{}) != nil {
		return
	}
	c.n.Add(1)
	if fn := c.hook.Load(); fn != nil {
		(*fn)(ctx)
	}
}

type countingDriver struct {
	dialect.Driver
	counter *Counter
}

func (d *countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	d.counter.add(ctx)
	return d.Driver.Exec(ctx, query, args, v)
}

func (d *countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.counter.add(ctx)
	return d.Driver.Query(ctx, query, args, v)
}

func (d *countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &countingTx{Tx: tx, counter: d.counter}, nil
}

type countingTx struct {
	dialect.Tx
	counter *Counter
}

func (t *countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.counter.add(ctx)
	return t.Tx.Exec(ctx, query, args, v)
}

func (t *countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.counter.add(ctx)
	return t.Tx.Query(ctx, query, args, v)
}

// Raw statements (full-text search) go through the same counter.

type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (d *countingDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	d.counter.add(ctx)
	return d.Driver.(execQuerier).ExecContext(ctx, query, args...)
}

func (d *countingDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	d.counter.add(ctx)
	return d.Driver.(execQuerier).QueryContext(ctx, query, args...)
}

func (t *countingTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.counter.add(ctx)
	return t.Tx.(execQuerier).ExecContext(ctx, query, args...)
}

func (t *countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.counter.add(ctx)
	return t.Tx.(execQuerier).QueryContext(ctx, query, args...)
}
