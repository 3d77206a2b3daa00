package graph

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/markdown"
)

// An answer is bounded while it is built, not after: gqlgen resolves a whole
// answer into values before it writes a byte, so a ceiling checked on the
// finished answer let a query within the cost limit (aliases of a large
// page, a fan-out over many objects) hold gigabytes first. Every field
// resolved goes through the middleware answerGuard installs, which adds what
// the field holds to the operation's running count (answer) and, once the
// count passes the ceiling, stops the operation: its context is cancelled
// with errAnswerTooLarge, no field starts after that, loader batches already
// queued do not run (loader.batched), nothing of what was built is written,
// and the answer is the one RESPONSE_TOO_LARGE error. The same stop serves
// the deadline and a client that leaves: once the operation's context is
// done (its request's is), no field starts.
//
// What a field counts (fieldBytes): its text by its length (a string, a
// document, a page tree: what it will write, quotes and syntax included,
// escapes not), and what gqlgen holds to build it, which for small values
// is far more than their JSON: fieldHeld a field, listObjectHeld each
// object of a list, counted when the list resolves, before gqlgen starts
// building them all at once. An answer of large text thus counts about its
// JSON, one of many small objects about the memory it takes; a finished
// answer is then measured exactly as well (InterceptResponse).

// What gqlgen holds to build an answer. On fan-outs of spaces
// (answers_bounded_test.go) an object of a list held 0.5 to 0.9 KB of live
// heap while the answer was built (its field contexts, field sets,
// marshallers, loader thunks, the edges of its connections), and about
// twice that counting the garbage it made on the way; a field about 50
// bytes. With these counts the live heap of a fan-out stopped at a 6 MB
// ceiling rose by 1.3 to 5.3 MB.
const (
	fieldHeld      = 32
	listObjectHeld = 1024
)

// answer is one operation's running count and its stop. Each operation
// has its own: those of a batch run one after the other (transport.go), and
// the parts of an operation answered in parts (@defer) share its count.
type answer struct {
	max   int64 // the ceiling; 0: none
	bytes atomic.Int64
	// inParts: the operation defers fragments (@defer). Its context is not
	// cancelled at the ceiling: gqlgen drops a deferred part whose context
	// has ended while the transport still waits for it, and the answer
	// would never end. No field starts once it stops all the same.
	inParts bool
	// perEvent: a subscription, whose every event is an answer of its
	// own, counted from zero.
	perEvent bool
	passed   atomic.Int64 // the count that first passed max
	stopped  atomic.Bool  // the operation stopped: no field starts
	once     sync.Once
	cancel   context.CancelCauseFunc
}

// answerStat keeps an operation's answer in its Stats.
const answerStat = "folio.answer"

// errAnswerTooLarge is the cause of an operation stopped at the ceiling.
var errAnswerTooLarge = errors.New("the answer passed the response ceiling")

func answerOf(ctx context.Context) *answer {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	a, _ := graphql.GetOperationContext(ctx).Stats.GetExtension(answerStat).(*answer)
	return a
}

// stoppedAnswer tells whether ctx's operation has stopped: its errors are
// then nobody's to read (it answers RESPONSE_TOO_LARGE, or 503 past the
// deadline, or to no one), and holding one per field not resolved would
// grow with the answer that was stopped.
func stoppedAnswer(ctx context.Context) bool {
	a := answerOf(ctx)
	return a != nil && a.stopped.Load()
}

// running gives the operation the context its fields run under, once (the
// parts of an answer in parts run under their first's): it ends when the
// request's does or when the answer passes the ceiling. It is left to end
// with the request's, since deferred parts go on under it after the first
// answer.
func (a *answer) running(ctx context.Context) context.Context {
	a.once.Do(func() {
		ctx, a.cancel = context.WithCancelCause(ctx)
		// A flag, not ctx.Err(), is what every field checks: a field's
		// context is a chain of gqlgen's values dozens deep, which Err
		// walks every time.
		context.AfterFunc(ctx, func() { a.stopped.Store(true) })
	})
	return ctx
}

// add counts n more bytes of the answer and stops the operation when they
// pass the ceiling.
func (a *answer) add(n int64) {
	if total := a.bytes.Add(n); total > a.max && a.passed.CompareAndSwap(0, total) {
		a.stopped.Store(true) // now, not when AfterFunc's goroutine runs
		if !a.inParts {
			a.cancel(errAnswerTooLarge) // unless the request had ended first
		}
	}
}

// over tells whether the answer was stopped at the ceiling.
func (a *answer) over() bool { return a.passed.Load() > 0 }

// answerGuard gives each operation its answer, counted while it is built,
// and replaces an answer over max bytes (0: no ceiling) with a
// RESPONSE_TOO_LARGE error. The cost limit bounds what a query can ask
// for; this bounds what it gets, for content larger than the cost model's
// caps foresee.
type answerGuard struct{ max int64 }

func (answerGuard) ExtensionName() string                          { return "ResponseCeiling" }
func (answerGuard) Validate(schema graphql.ExecutableSchema) error { return nil }

// MutateOperationContext gives the operation its answer and wraps its field
// middleware, which holds the answer rather than finding it in every
// field's context.
func (g answerGuard) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	sub := oc.Operation != nil && oc.Operation.Operation == ast.Subscription
	a := &answer{max: g.max, inParts: deferred(oc) || sub, perEvent: sub}
	oc.Stats.SetExtension(answerStat, a)
	inner := oc.ResolverMiddleware
	oc.ResolverMiddleware = func(ctx context.Context, next graphql.Resolver) (any, error) {
		if a.stopped.Load() {
			return nil, cmp.Or(context.Cause(ctx), errAnswerTooLarge)
		}
		v, err := inner(ctx, next)
		if err == nil && a.max > 0 && !a.stopped.Load() {
			a.add(fieldBytes(graphql.GetFieldContext(ctx), v))
		}
		return v, err
	}
	return nil
}

// InterceptRootField keeps a root field's built answer from being written
// once the request has stopped: gqlgen writes the whole answer after every
// root field has resolved, and an answer stopped at the ceiling is replaced
// anyway, so writing what it had built would only hold its bytes once more.
func (answerGuard) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	m := next(ctx)
	a := answerOf(ctx)
	if a == nil || m == graphql.Null || m == graphql.RequiredNull {
		return m
	}
	return graphql.WriterFunc(func(w io.Writer) {
		if a.stopped.Load() {
			graphql.Null.MarshalGQL(w)
			return
		}
		m.MarshalGQL(w)
	})
}

func (answerGuard) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	a := answerOf(ctx)
	if a == nil { // a request refused before its operation was made
		return next(ctx)
	}
	if a.perEvent {
		a.bytes.Store(0)
		a.passed.Store(0)
		if ctx.Err() == nil {
			a.stopped.Store(false)
		}
	}
	resp := next(a.running(ctx))
	if resp == nil || a.max <= 0 {
		return resp
	}
	if a.over() {
		n := a.passed.Load()
		slog.WarnContext(ctx, "graphql answer stopped at the response ceiling", "counted", n, "max", a.max)
		return tooLarge(resp, fmt.Sprintf("the answer is more than the limit of %d bytes: it was stopped while being built, at %d "+
			"(text counts its bytes, each object of a list %d): ask for fewer fields or smaller pages", a.max, n, listObjectHeld))
	}
	// Built whole: measured exactly.
	size := int64(len(resp.Data))
	if len(resp.Errors) > 0 {
		b, _ := json.Marshal(resp.Errors)
		size += int64(len(b))
	}
	// Streamed page trees are place-holders in resp.Data (model.TreeStream).
	size += model.TreeBytes(ctx, a.max-size)
	if size <= a.max {
		return resp
	}
	slog.WarnContext(ctx, "graphql answer over the response ceiling", "bytes", size, "max", a.max)
	return tooLarge(resp, fmt.Sprintf("the answer is %d bytes, more than the limit of %d: ask for fewer fields or smaller pages", size, a.max))
}

// tooLarge is resp replaced by a RESPONSE_TOO_LARGE error, with no data. A
// part of an answer in parts keeps its place (its label and path) and
// whether parts follow: the ones that do are refused the same way.
func tooLarge(resp *graphql.Response, message string) *graphql.Response {
	err := gqlerror.Errorf("%s", message)
	err.Extensions = map[string]any{"code": "RESPONSE_TOO_LARGE"}
	return &graphql.Response{Errors: gqlerror.List{err}, Extensions: resp.Extensions,
		Label: resp.Label, Path: resp.Path, HasNext: resp.HasNext}
}

// sizedAnswer is a value that tells how many bytes it writes at least
// (model.PageTree).
type sizedAnswer interface{ AnswerBytesAtLeast() int64 }

// fieldBytes is what a resolved field counts: fieldHeld, its name quoted
// with a colon and a comma, its value in its shortest JSON (a string by its
// length and quotes, a document or a page tree by a walk over them, any
// other value by one byte: an object's fields and a list's elements count
// as they resolve), and listObjectHeld for each object of a list. A type
// switch, and reflection only on lists of objects: this runs for every
// field of every answer.
func fieldBytes(fc *graphql.FieldContext, v any) int64 {
	n := int64(fieldHeld + 4)
	if fc != nil {
		n += int64(len(fc.Field.Alias))
		if def := fc.Field.Definition; def != nil && def.Type.Elem != nil && len(fc.Field.Selections) > 0 {
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
				n += int64(rv.Len()) * listObjectHeld
			}
		}
	}
	switch v := v.(type) {
	case string:
		return n + 2 + int64(len(v))
	case *string:
		if v == nil {
			return n + 4
		}
		return n + 2 + int64(len(*v))
	case []string:
		n += 2
		for _, s := range v {
			n += 3 + int64(len(s))
		}
		return n
	case bool, time.Time, *time.Time:
		return n + 4 // true, null
	case markdown.Document:
		return n + v.SizeAtLeast()
	case *markdown.Document:
		if v == nil {
			return n + 4
		}
		return n + v.SizeAtLeast()
	case sizedAnswer:
		return n + v.AnswerBytesAtLeast()
	case json.RawMessage:
		return n + int64(len(v))
	}
	return n + 1
}
