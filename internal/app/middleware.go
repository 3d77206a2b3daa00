package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/metrics"
)

type requestIDKey struct{}

// RequestIDHeader carries the request id back to the caller, so a reported
// failure can be found in the logs.
const RequestIDHeader = "X-Request-Id"

// requestLog gives every request an id (echoed in X-Request-Id and attached
// to every log line of the request by WithRequestID) and logs it when it
// ends.
func requestLog(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := ids.New()
			w.Header().Set(RequestIDHeader, id)
			ctx := events.WithCorrelationID(context.WithValue(r.Context(), requestIDKey{}, id), id)
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			start := time.Now()
			metrics.HTTPInFlight.Inc()
			defer func() {
				if v := recover(); v != nil {
					logger.ErrorContext(ctx, "panic", "panic", fmt.Sprint(v))
					if !rec.wrote {
						apperr.Write(rec, r.WithContext(ctx), fmt.Errorf("panic: %v", v))
					}
					rec.status = http.StatusInternalServerError
				}
				elapsed := time.Since(start)
				route := routePattern(r)
				metrics.HTTPInFlight.Dec()
				metrics.HTTPRequests.WithLabelValues(route, methodLabel(r.Method), metrics.Status(rec.status)).Observe(elapsed.Seconds())
				logger.InfoContext(ctx, "request",
					"method", r.Method, "path", r.URL.Path, "route", route,
					"status", rec.status, "bytes", rec.bytes, "duration_ms", elapsed.Milliseconds())
			}()
			next.ServeHTTP(rec, r.WithContext(ctx))
		})
	}
}

// routePattern is the route that answered r ("/v1/spaces/{spaceId}"), read
// after routing from chi's context, which the router fills in place:
// metrics are by route, never by raw path, so ids do not make series.
// Requests no route matched are "unmatched".
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" && p != "/*" {
			return p
		}
	}
	return "unmatched"
}

// methodLabel bounds the method label to the methods Folio routes;
// anything else a client sends is "other".
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// RequestID is the id of the request in ctx.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush passes through: gqlgen's streaming transports need an
// http.Flusher (and answer 500 without one). A flush sends the headers.
func (s *statusRecorder) Flush() {
	s.wrote = true
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

// Hijack passes through (WebSocket upgrades); the connection is the
// hijacker's from then on, logged as 101.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err == nil {
		s.status, s.wrote = http.StatusSwitchingProtocols, true
	}
	return conn, rw, err
}

// graphQLErrors marks the requests to path for apperr.Write, which then
// answers their errors in GraphQL's shape. It runs first, so that every
// refusal, by a middleware below it (the body limit, the deadline, a
// panic), the router or a handler, is marked alike.
func graphQLErrors(path string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				r = r.WithContext(apperr.ForGraphQL(r.Context()))
			}
			next.ServeHTTP(w, r)
		})
	}
}

// limitBody answers 413 in the error shape when a body exceeds max bytes.
// Bodies are read here in full (they are bounded), so every handler, REST or
// GraphQL, sees either a complete body or no request at all.
//
// Under /v1 the 413 is left to the API's boundary (apperr.Deferred), which
// answers it once the route is known and only to a caller who may see the
// path's objects: a stranger gets the 404 any other refusal gets, so an
// oversize body tells nothing about what exists. The body is not read.
func limitBody(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			refuse := func(err error) {
				if strings.HasPrefix(r.URL.Path, "/v1/") {
					r.Body = http.NoBody
					next.ServeHTTP(w, r.WithContext(apperr.Defer(r.Context(), err)))
					return
				}
				apperr.Write(w, r, err)
			}
			if r.ContentLength > max {
				refuse(tooLarge(max))
				return
			}
			if r.Body != nil && r.Body != http.NoBody {
				body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
				if err != nil {
					apperr.Write(w, r, apperr.Invalidf("could not read the request body"))
					return
				}
				if int64(len(body)) > max {
					refuse(tooLarge(max))
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			next.ServeHTTP(w, r)
		})
	}
}

func tooLarge(max int64) error {
	return &apperr.Error{Kind: apperr.TooLarge, Message: "request body is larger than the limit of " + strconv.FormatInt(max, 10) + " bytes"}
}
