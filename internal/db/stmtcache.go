package db

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"

	"github.com/lib/pq"
)

// stmtCacheSize bounds the statements each PostgreSQL connection keeps
// prepared. A read's statements differ only by the number of keys a batch
// holds, so a few hundred cover a workload; the least recently used one is
// closed when a new one needs the room.
const stmtCacheSize = 256

// cachingConnector gives every PostgreSQL connection a cache of prepared
// statements, by SQL text. lib/pq runs a query with arguments as two round
// trips — parse and describe, then bind and execute — and PostgreSQL parses
// and plans it anew each time. A statement prepared once per connection is
// one round trip from its second use on, and PostgreSQL keeps its plan:
// small reads, which are most of what Folio serves, cost about half.
type cachingConnector struct{ driver.Connector }

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(pgConn)
	if !ok {
		return conn, nil
	}
	return &cachingConn{pgConn: pc, byQuery: map[string]*list.Element{}, lru: list.New()}, nil
}

// pgConn is what database/sql uses of a lib/pq connection.
type pgConn interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.ConnBeginTx
	driver.QueryerContext
	driver.ExecerContext
	driver.NamedValueChecker
	driver.SessionResetter
	driver.Validator
	driver.Pinger
}

// cachingConn is a connection with its prepared statements. database/sql
// uses a connection from one goroutine at a time, so it needs no lock.
type cachingConn struct {
	pgConn
	byQuery map[string]*list.Element // of *cachedStmt
	lru     *list.List               // most recently used first
}

type cachedStmt struct {
	query string
	stmt  driver.Stmt
}

// stmt is the prepared statement of query, prepared now if need be.
func (c *cachingConn) stmt(ctx context.Context, query string) (driver.Stmt, error) {
	if e, ok := c.byQuery[query]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cachedStmt).stmt, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	for c.lru.Len() >= stmtCacheSize {
		oldest := c.lru.Back()
		c.forget(oldest)
		if err := oldest.Value.(*cachedStmt).stmt.Close(); err != nil {
			_ = st.Close()
			return nil, err
		}
	}
	c.byQuery[query] = c.lru.PushFront(&cachedStmt{query: query, stmt: st})
	return st, nil
}

func (c *cachingConn) forget(e *list.Element) {
	c.lru.Remove(e)
	delete(c.byQuery, e.Value.(*cachedStmt).query)
}

// gone reports an error saying the server no longer has the statement
// (a pooler or DISCARD ALL dropped it): nothing ran, so a retry is safe.
func gone(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "26000"
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 {
		// lib/pq's simple protocol: one round trip already.
		return c.pgConn.QueryContext(ctx, query, args)
	}
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if gone(err) {
		c.forget(c.byQuery[query])
		return c.pgConn.QueryContext(ctx, query, args)
	}
	return rows, err
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 0 {
		return c.pgConn.ExecContext(ctx, query, args)
	}
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	res, err := st.(driver.StmtExecContext).ExecContext(ctx, args)
	if gone(err) {
		c.forget(c.byQuery[query])
		return c.pgConn.ExecContext(ctx, query, args)
	}
	return res, err
}

// Close closes the connection; its statements go with it on the server.
func (c *cachingConn) Close() error {
	c.byQuery, c.lru = nil, nil
	return c.pgConn.Close()
}
