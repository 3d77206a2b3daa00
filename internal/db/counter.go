package db

import (
	"context"
	"database/sql"
	"sync/atomic"

	"entgo.io/ent/dialect"
)

// Counter counts the SQL statements sent to the database. Tests read it to
// hold nested reads to a cost that grows with depth, not with row count.
type Counter struct{ n atomic.Int64 }

// Load returns the number of statements so far.
func (c *Counter) Load() int64 { return c.n.Load() }

type countingDriver struct {
	dialect.Driver
	counter *Counter
}

func (d *countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	d.counter.n.Add(1)
	return d.Driver.Exec(ctx, query, args, v)
}

func (d *countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.counter.n.Add(1)
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
	t.counter.n.Add(1)
	return t.Tx.Exec(ctx, query, args, v)
}

func (t *countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.counter.n.Add(1)
	return t.Tx.Query(ctx, query, args, v)
}

// Raw statements (full-text search) go through the same counter.

type execQuerier interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func (d *countingDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	d.counter.n.Add(1)
	return d.Driver.(execQuerier).ExecContext(ctx, query, args...)
}

func (d *countingDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	d.counter.n.Add(1)
	return d.Driver.(execQuerier).QueryContext(ctx, query, args...)
}

func (t *countingTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.counter.n.Add(1)
	return t.Tx.(execQuerier).ExecContext(ctx, query, args...)
}

func (t *countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.counter.n.Add(1)
	return t.Tx.(execQuerier).QueryContext(ctx, query, args...)
}
