package db

import (
	"context"
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
