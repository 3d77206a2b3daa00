package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/graph/generated"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// NewHandler is the GraphQL executor: GET and POST, single operations and
// batches, JSON or multipart answers (transport.go), behind a check that
// the request is one (request.go: wellFormed), a query cache, document
// bounds before validation (cost_document.go), automatic persisted queries
// (persisted.go), depth and cost limits before any resolver (cost.go),
// anonymous callers kept to queries (anonymous.go), a ceiling of
// maxResponseBytes on answers, counted while they are built
// (cost_response.go; 0: none), no field started once an operation's
// context is done, errors that carry extensions.code, and page trees
// written straight to the client (streamTrees). Mount it behind
// Resolver.AuthenticateOptional (or Authenticate).
func NewHandler(r *Resolver, maxResponseBytes int64) http.Handler {
	es := generated.NewExecutableSchema(generated.Config{Resolvers: r})
	srv := handler.New(es)
	// Subscriptions: graphql-sse, then graphql-transport-ws
	// (subscriptions_transport.go); every other request is httpTransport's.
	srv.AddTransport(sseTransport{settings: r.SubscriptionSettings})
	srv.AddTransport(r.websocketTransport())
	srv.AddTransport(httpTransport{fresh: r.FreshLoaders})
	cache := lru.New[*ast.QueryDocument](1000)
	srv.SetQueryCache(cache)
	srv.SetParserTokenLimit(MaxTokens)
	persisted := newPersistedQueries()
	srv.Use(operationMetrics{}) // first: the outermost, it sees every error
	srv.Use(extension.Introspection{})
	// Bounds before the persisted-query store: it keeps only documents
	// within them (a hash-only request has no query to bound, and finds
	// one that was bounded when it was kept).
	srv.Use(documentBounds{cache: cache})
	srv.Use(extension.AutomaticPersistedQuery{Cache: persisted})
	srv.Use(costLimit{caps: newListCaps(es.Schema())})
	srv.Use(anonymousReads{})
	srv.Use(textBoundary{})
	srv.Use(answerGuard{max: maxResponseBytes})
	srv.Use(freshReads{})
	srv.Use(streams{}) // innermost: it swaps a subscription's loaders per event
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		slog.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v))
		return errors.New("internal error")
	})
	return r.streamOrigin(wellFormed(cache, persisted, rawText(streamTrees(srv))))
}

// streamTrees writes the page trees of answers straight to the client
// (model.TreeStream): an answer is then held once, as the rows it is made
// of, rather than three times over as gqlgen's buffer and its re-encoding.
func streamTrees(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, st := model.WithTreeStream(r.Context())
		next.ServeHTTP(st.Writer(w), r.WithContext(ctx))
	})
}

// presentError sets extensions.code from apperr and hides internal errors.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	gerr := graphql.DefaultErrorPresenter(ctx, err)
	if len(gerr.Path) > 0 && stoppedAnswer(ctx) || streamFailing(ctx) {
		return nil // a field's, kept for nobody (gqlgen drops a nil error)
	}
	if e, ok := apperr.As(err); ok {
		gerr.Message = e.Message
		gerr.Extensions = e.Extensions()
		return gerr
	}
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) && gqlErr.Err == nil {
		return gerr // parse and validation errors: already safe to show
	}
	apperr.LogInternal(ctx, err, "path", gerr.Path.String())
	gerr.Message = "internal error"
	gerr.Extensions = map[string]any{"code": "INTERNAL_SERVER_ERROR"}
	return gerr
}

// freshReads makes each mutation of an operation read afresh what lists
// nested in earlier ones' answers read for their whole level at once
// (loader.PerParent): a later mutation's answer shows the data as the
// earlier mutations left it.
type freshReads struct{}

func (freshReads) ExtensionName() string                          { return "FreshReads" }
func (freshReads) Validate(schema graphql.ExecutableSchema) error { return nil }

func (freshReads) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation == ast.Mutation {
		loader.For(ctx).ForgetReads()
	}
	return next(ctx)
}
