package app

import (
	"context"
	"io"
	"log/slog"
)

// NewLogger is the server's logger: one JSON object a line on w, each
// carrying the request id of the context it was logged with. server.go makes
// it slog's default, so slog.ErrorContext(ctx, ...) anywhere in a request
// (apperr, GraphQL, resolvers) can be found by the X-Request-Id a caller
// reports.
func NewLogger(w io.Writer) *slog.Logger {
	return slog.New(WithRequestID(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})))
}

// WithRequestID wraps h so that every record logged with a request's
// context carries request_id. Wrapping twice adds it once.
func WithRequestID(h slog.Handler) slog.Handler {
	if _, ok := h.(requestIDHandler); ok {
		return h
	}
	return requestIDHandler{inner: h}
}

type requestIDHandler struct{ inner slog.Handler }

func (h requestIDHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.inner.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{inner: h.inner.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{inner: h.inner.WithGroup(name)}
}
