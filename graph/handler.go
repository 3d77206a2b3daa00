package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/graph/generated"
	"github.com/folio/folio/internal/apperr"
)

// NewHandler is the GraphQL executor: POST and GET transports, a query
// cache, document bounds before validation (cost_document.go), depth and
// cost limits before any resolver (cost.go), a ceiling of maxResponseBytes
// on answers (0: none), and errors that carry extensions.code.
func NewHandler(r *Resolver, maxResponseBytes int64) http.Handler {
	es := generated.NewExecutableSchema(generated.Config{Resolvers: r})
	srv := handler.New(es)
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	cache := lru.New[*ast.QueryDocument](1000)
	srv.SetQueryCache(cache)
	srv.SetParserTokenLimit(MaxTokens)
	srv.Use(extension.Introspection{})
	srv.Use(documentBounds{cache: cache})
	srv.Use(costLimit{caps: newListCaps(es.Schema())})
	srv.Use(textBoundary{})
	srv.Use(responseCeiling{max: maxResponseBytes})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		slog.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v))
		return errors.New("internal error")
	})
	return rawText(srv)
}

// writeGraphQLError answers a request refused before it reached the
// executor (no or an unknown token) with the status of err and a body in
// GraphQL's shape, the extensions presentError gives any other error.
func writeGraphQLError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apperr.As(err)
	if !ok {
		apperr.LogInternal(r.Context(), err, "method", r.Method, "path", r.URL.Path)
		e = &apperr.Error{Kind: apperr.Internal, Message: "internal error"}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Status())
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{
		"message":    e.Message,
		"extensions": map[string]any{"code": e.Code(), "status": e.Status()},
	}}})
}

// presentError sets extensions.code from apperr and hides internal errors.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	gerr := graphql.DefaultErrorPresenter(ctx, err)
	if e, ok := apperr.As(err); ok {
		gerr.Message = e.Message
		gerr.Extensions = map[string]any{"code": e.Code(), "status": e.Status()}
		if e.Field != "" {
			gerr.Extensions["field"] = e.Field
		}
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
