package app

import (
	"context"
	"errors"
	"net/http"

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
func (a *App) deadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := r.Context(), context.CancelFunc(func() {})
		if a.Config.RequestTimeout > 0 { // a Config not from Defaults: no deadline
			ctx, cancel = context.WithTimeout(ctx, a.Config.RequestTimeout)
		}
		defer cancel()
		// A drain past its time cuts the request too (lifecycle.go).
		ctx, cut := context.WithCancelCause(ctx)
		defer cut(nil)
		stop := context.AfterFunc(a.life.cut, func() { cut(ErrDraining) })
		defer stop()
		r = r.WithContext(ctx)
		dw := &deadlineWriter{ResponseWriter: w, r: r, before: w.Header().Clone()}
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
	late   bool // the deadline had passed when the answer began
}

// begin decides, once, whether the handler's answer goes out.
func (d *deadlineWriter) begin() bool {
	if !d.begun {
		d.begun = true
		ctx := d.r.Context()
		cut := errors.Is(context.Cause(ctx), ErrDraining)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || cut {
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
