package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// deadline gives every request's context the deadline RequestTimeout (read
// per request, so tests can shorten it on a running server), and ends it
// when a drain runs out of time (lifecycle.go; answered 503 ErrDraining).
// Work that
// honours its context (queries, fetches, imports, PDF, GraphQL) stops there,
// as it does when the client leaves (net/http cancels the context then).
//
// An answer the handler begins after the deadline, or never begins, is
// replaced by 503 in the error shape, as http.TimeoutHandler does, but
// without holding answers in memory: one already under way when the
// deadline passes cannot be taken back and is cut short instead.
//
// A stream (a GraphQL answer in parts: multipart @defer, a subscription
// over SSE; graph.IsStream, graph.IsEventStream) has no deadline as a whole: each part's
// work keeps RequestTimeout, counted from the part before (every Flush
// starts it again), and each Flush moves the connection's write deadline
// (the http.Server's WriteTimeout, set once per request) as far ahead.
func (a *App) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := r.Context(), context.CancelFunc(func() {})
		var parts *partDeadline
		switch timeout := a.Config.RequestTimeout; {
		case timeout <= 0: // a Config not from Defaults: no deadline
		case r.URL.Path == graphQLPath && graph.IsWebSocket(r):
			// A subscription's WebSocket: no deadline once upgraded
			// (Hijack), each event's work has its own
			// (graph.SubscriptionSettings) and the stream its lifetime.
		case r.URL.Path == graphQLPath && graph.IsEventStream(r):
			// A subscription over SSE: heartbeats keep it flushing while
			// no event comes.
			parts = newPartDeadline(ctx, timeout+a.Config.SubscriptionHeartbeat)
			ctx, cancel = parts.ctx, parts.stop
		case r.URL.Path == graphQLPath && graph.IsStream(r):
			parts = newPartDeadline(ctx, timeout)
			ctx, cancel = parts.ctx, parts.stop
		default:
			ctx, cancel = context.WithTimeout(ctx, timeout)
		}
		defer cancel()
		// A drain past its time cuts the request too (lifecycle.go).
		ctx, cut := context.WithCancelCause(ctx)
		defer cut(nil)
		stop := context.AfterFunc(a.life.cut, func() { cut(ErrDraining) })
		defer stop()
		r = r.WithContext(ctx)
		dw := &deadlineWriter{ResponseWriter: w, r: r, before: w.Header().Clone(), parts: parts}
		next.ServeHTTP(dw, r)
		dw.begin()
	})
}

// ErrTimedOut answers a request that ran past FOLIO_REQUEST_TIMEOUT.
var ErrTimedOut = &apperr.Error{Kind: apperr.Unavailable, Message: "the request took longer than the server's time limit (FOLIO_REQUEST_TIMEOUT)"}

type deadlineWriter struct {
	http.ResponseWriter
	r      *http.Request
	before http.Header // the headers set outside the handler
	begun  bool
	late   bool          // the deadline had passed when the answer began
	parts  *partDeadline // a stream's deadline, nil for other requests
}

// begin decides, once, whether the handler's answer goes out.
func (d *deadlineWriter) begin() bool {
	if !d.begun {
		d.begun = true
		ctx := d.r.Context()
		cut := errors.Is(context.Cause(ctx), ErrDraining)
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) || cut {
			d.late = true
			// Drop what the handler set for its own answer (a length, a
			// disposition, a page's policy) and keep the common headers.
			h := d.ResponseWriter.Header()
			for k := range h {
				delete(h, k)
			}
			for k, v := range d.before {
				h[k] = v
			}
			if cut {
				apperr.Write(d.ResponseWriter, d.r, ErrDraining)
			} else {
				apperr.Write(d.ResponseWriter, d.r, ErrTimedOut)
			}
		}
	}
	return !d.late
}

func (d *deadlineWriter) WriteHeader(code int) {
	if d.begin() {
		d.ResponseWriter.WriteHeader(code)
	}
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	if !d.begin() {
		return 0, http.ErrHandlerTimeout
	}
	return d.ResponseWriter.Write(b)
}

func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// Flush sends what was written; for a stream it ends a part, which starts
// the next part's deadline.
func (d *deadlineWriter) Flush() {
	if !d.begin() {
		return
	}
	_ = http.NewResponseController(d.ResponseWriter).Flush()
	if d.parts != nil {
		d.parts.next(d.ResponseWriter)
	}
}

// Hijack hands the connection over (a WebSocket): what happens on it is
// the hijacker's, deadlines included; the server's read and write
// deadlines of the upgrade request are lifted.
func (d *deadlineWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	d.begun = true
	conn, rw, err := http.NewResponseController(d.ResponseWriter).Hijack()
	if err == nil {
		_ = conn.SetDeadline(time.Time{})
	}
	return conn, rw, err
}

// writeGrace is how long past the request deadline writing an answer may
// take (the http.Server's WriteTimeout is RequestTimeout + writeGrace), so
// that the deadline's own 503 still reaches the client. A variable for
// tests.
var writeGrace = 10 * time.Second

// errPartTimedOut ends a stream whose next part took longer than
// RequestTimeout; it is a DeadlineExceeded, as the deadline of any other
// request.
var errPartTimedOut = fmt.Errorf("a part of the stream took longer than FOLIO_REQUEST_TIMEOUT: %w", context.DeadlineExceeded)

// partDeadline is a stream's deadline: its context ends when no part was
// flushed for timeout.
type partDeadline struct {
	ctx     context.Context
	cut     context.CancelCauseFunc
	timeout time.Duration
	mu      sync.Mutex
	timer   *time.Timer
}

func newPartDeadline(parent context.Context, timeout time.Duration) *partDeadline {
	p := &partDeadline{timeout: timeout}
	p.ctx, p.cut = context.WithCancelCause(parent)
	p.timer = time.AfterFunc(timeout, func() { p.cut(errPartTimedOut) })
	return p
}

// next starts the deadline of the next part, on the stream's context and
// on the connection (w is the server's writer or one that unwraps to it).
func (p *partDeadline) next(w http.ResponseWriter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return // too late: the stream is over
	}
	p.timer.Reset(p.timeout)
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(p.timeout + writeGrace))
}

// stop releases the timer when the request ends.
func (p *partDeadline) stop() {
	p.timer.Stop()
	p.cut(context.Canceled)
}
