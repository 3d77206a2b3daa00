// Package apperr defines the errors every layer speaks: resolvers return them,
// REST writes them in the GitBook error shape and GraphQL sets
// extensions.code from them (and Write answers a refused GraphQL request in
// GraphQL's shape). One kind of failure, one status, everywhere.
package apperr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
)

// Kind is the class of a failure.
type Kind int

const (
	Internal Kind = iota
	Invalid
	Unauthenticated
	Forbidden
	NotFound
	MethodNotAllowed
	Conflict
	TooLarge
	Locked
	// Unavailable: the server cannot answer now (busy, or out of time): 503,
	// with Retry-After when RetryAfter is set.
	Unavailable
)

// Error is a failure the caller may see. Message names the offending field
// when there is one and never leaks internals.
type Error struct {
	Kind    Kind
	Field   string
	Message string
	// RetryAfter is the Retry-After of an Unavailable error, in seconds.
	RetryAfter int
}

func (e *Error) Error() string { return e.Message }

// Status is the HTTP status of the error.
func (e *Error) Status() int {
	switch e.Kind {
	case Invalid:
		return http.StatusBadRequest
	case Unauthenticated:
		return http.StatusUnauthorized
	case Forbidden:
		return http.StatusForbidden
	case NotFound:
		return http.StatusNotFound
	case MethodNotAllowed:
		return http.StatusMethodNotAllowed
	case Conflict:
		return http.StatusConflict
	case TooLarge:
		return http.StatusRequestEntityTooLarge
	case Locked:
		return http.StatusLocked
	case Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// Code is the GraphQL extensions.code of the error.
func (e *Error) Code() string {
	switch e.Kind {
	case Invalid:
		return "BAD_USER_INPUT"
	case Unauthenticated:
		return "UNAUTHENTICATED"
	case Forbidden:
		return "FORBIDDEN"
	case NotFound:
		return "NOT_FOUND"
	case MethodNotAllowed:
		return "METHOD_NOT_ALLOWED"
	case Conflict:
		return "CONFLICT"
	case TooLarge:
		return "PAYLOAD_TOO_LARGE"
	case Locked:
		return "LOCKED"
	case Unavailable:
		return "SERVICE_UNAVAILABLE"
	}
	return "INTERNAL_SERVER_ERROR"
}

// InvalidField reports a bad value of the named field.
func InvalidField(field, format string, args ...any) *Error {
	return &Error{Kind: Invalid, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// Invalidf reports bad input that no single field explains.
func Invalidf(format string, args ...any) *Error {
	return &Error{Kind: Invalid, Message: fmt.Sprintf(format, args...)}
}

// NotFoundf reports something absent or that the caller may not see; both
// answer the same so a stranger cannot tell whether an ID exists.
func NotFoundf(format string, args ...any) *Error {
	return &Error{Kind: NotFound, Message: fmt.Sprintf(format, args...)}
}

// Forbiddenf reports something the caller can see but not do.
func Forbiddenf(format string, args ...any) *Error {
	return &Error{Kind: Forbidden, Message: fmt.Sprintf(format, args...)}
}

// Conflictf reports a request that clashes with the current state.
func Conflictf(format string, args ...any) *Error {
	return &Error{Kind: Conflict, Message: fmt.Sprintf(format, args...)}
}

// ConflictField reports a value that clashes with another object's.
func ConflictField(field, format string, args ...any) *Error {
	return &Error{Kind: Conflict, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// Unauthenticatedf reports a missing or unknown token.
func Unauthenticatedf(format string, args ...any) *Error {
	return &Error{Kind: Unauthenticated, Message: fmt.Sprintf(format, args...)}
}

// Unavailablef reports a server too busy to do the request now; the caller
// may retry after retryAfter seconds.
func Unavailablef(retryAfter int, format string, args ...any) *Error {
	return &Error{Kind: Unavailable, RetryAfter: max(retryAfter, 1), Message: fmt.Sprintf(format, args...)}
}

// As finds the *Error in err's chain; anything else is internal.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Extensions are the GraphQL extensions of the error: its code, its HTTP
// status and the field it names, if any.
func (e *Error) Extensions() map[string]any {
	ext := map[string]any{"code": e.Code(), "status": e.Status()}
	if e.Field != "" {
		ext["field"] = e.Field
	}
	return ext
}

// Body is the GitBook error shape.
type Body struct {
	Error BodyError `json:"error"`
}

// BodyError is the inside of Body.
type BodyError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// graphQLBody is GraphQL's shape of a request error: errors and no data.
type graphQLBody struct {
	Errors []graphQLError `json:"errors"`
}

type graphQLError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

type graphQLKey struct{}

// ForGraphQL marks ctx as a request to the GraphQL endpoint, so that Write
// answers it in GraphQL's shape whoever refuses it: a middleware (the body
// limit, the deadline, a panic), the router or authentication.
func ForGraphQL(ctx context.Context) context.Context {
	return context.WithValue(ctx, graphQLKey{}, true)
}

type deferredKey struct{}

// Defer carries a refusal found before the route was known (an oversize
// body) to the handler that knows the route, which answers it after its own
// authorization checks (Deferred). A handler that never asks still sees no
// body.
func Defer(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, deferredKey{}, err)
}

// Deferred is the refusal Defer carried, or nil.
func Deferred(ctx context.Context) error {
	err, _ := ctx.Value(deferredKey{}).(error)
	return err
}

// Challenge is the WWW-Authenticate header of every 401, REST and GraphQL
// alike (RFC 6750): the APIs take a bearer token.
const Challenge = `Bearer realm="folio"`

// Write answers err with its status, in GitBook's error shape or, for a
// request marked ForGraphQL, in GraphQL's with the extensions the executor
// gives the same error. Errors that are not *Error are logged with the
// request id and answered as a bare 500.
func Write(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := As(err)
	if !ok {
		LogInternal(r.Context(), err, "method", r.Method, "path", r.URL.Path)
		e = &Error{Kind: Internal, Message: "internal error"}
	}
	status := e.Status()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if e.Kind == Unavailable {
		w.Header().Set("Retry-After", strconv.Itoa(max(e.RetryAfter, 1)))
	}
	if e.Kind == Unauthenticated {
		w.Header().Set("WWW-Authenticate", Challenge)
	}
	w.WriteHeader(status)
	var body any = Body{Error: BodyError{Code: status, Message: e.Message}}
	if graphQL, _ := r.Context().Value(graphQLKey{}).(bool); graphQL {
		body = graphQLBody{Errors: []graphQLError{{Message: e.Message, Extensions: e.Extensions()}}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

// LogInternal logs an error the caller is not shown, with the request's
// context (and so its request id). A failure after the request's context
// ended (its client left, or its deadline passed) is the stop, not a fault
// of the server, and is logged as a warning.
func LogInternal(ctx context.Context, err error, args ...any) {
	if cause := ctx.Err(); cause != nil {
		slog.WarnContext(ctx, "request stopped", append([]any{"err", err, "cause", cause.Error()}, args...)...)
		return
	}
	slog.ErrorContext(ctx, "internal error", append([]any{"err", err}, args...)...)
}
