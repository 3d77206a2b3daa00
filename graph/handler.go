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
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/99designs/gqlgen/graphql/playground"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/graph/generated"
	"github.com/folio/folio/internal/apperr"
)

// Limits that refuse abusive queries before any SQL runs.
const (
	MaxDepth      = 20
	MaxComplexity = 5000
	MaxTokens     = 15000
)

// NewHandler is the GraphQL executor: POST and GET transports, a query
// cache, depth, complexity and parser-token limits, and errors that carry
// extensions.code.
func NewHandler(r *Resolver) http.Handler {
	srv := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: r}))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.SetParserTokenLimit(MaxTokens)
	srv.Use(extension.Introspection{})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(depthLimit{max: MaxDepth})
	srv.Use(textBoundary{})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		slog.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(v))
		return errors.New("internal error")
	})
	return rawText(srv)
}

// Explorer serves GraphiQL on GET /graphql.
func Explorer() http.Handler {
	return playground.Handler("Folio GraphQL", "/graphql")
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
	slog.ErrorContext(ctx, "internal error", "err", err, "path", gerr.Path.String())
	gerr.Message = "internal error"
	gerr.Extensions = map[string]any{"code": "INTERNAL_SERVER_ERROR"}
	return gerr
}

// depthLimit refuses operations nested deeper than max fields, counting
// through fragments; gqlgen has no such limit of its own.
type depthLimit struct{ max int }

func (depthLimit) ExtensionName() string                          { return "DepthLimit" }
func (depthLimit) Validate(schema graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0, d.max); depth > d.max {
		err := gqlerror.Errorf("query is nested deeper than the limit of %d", d.max)
		err.Extensions = map[string]any{"code": "QUERY_TOO_DEEP"}
		return err
	}
	return nil
}

// selectionDepth measures a selection set, stopping once past max so that
// fragment cycles (refused by validation anyway) cannot loop.
func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, depth, max int) int {
	if depth > max {
		return depth
	}
	deepest := depth
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = depth + 1
			} else {
				d = selectionDepth(s.SelectionSet, frags, depth+1, max)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, depth, max)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, depth, max)
			}
		}
		if d > deepest {
			deepest = d
		}
	}
	return deepest
}
