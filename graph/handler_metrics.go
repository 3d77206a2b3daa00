package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/folio/folio/internal/metrics"
)

// Keys in an operation's Stats for operationMetrics: its computed cost (set
// by costLimit), and the operation as documentBounds parsed it, which names
// an operation that validation then refused (gqlgen drops the document).
const (
	costStat            = "folio.cost"
	parsedOperationStat = "folio.operation"
)

// operationMetrics counts every GraphQL answer by operation name, type and
// outcome, its errors by code and its cost. It is the outermost response
// interceptor, so it sees refusals (parse, validation, cost) and the errors
// added by the extensions inside it. A streamed answer is counted once, at
// its first response.
type operationMetrics struct{}

func (operationMetrics) ExtensionName() string                          { return "OperationMetrics" }
func (operationMetrics) Validate(schema graphql.ExecutableSchema) error { return nil }

func (operationMetrics) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	oc := graphql.GetOperationContext(ctx)
	name, kind := metrics.OperationName(""), "unknown"
	op := oc.Operation
	if op == nil {
		op, _ = oc.Stats.GetExtension(parsedOperationStat).(*ast.OperationDefinition)
	}
	if op != nil {
		name, kind = metrics.OperationName(op.Name), string(op.Operation)
	}
	outcome := "ok"
	if len(resp.Errors) > 0 {
		outcome = "error"
	}
	for _, e := range resp.Errors {
		code, _ := e.Extensions["code"].(string)
		if code == "" {
			code = "UNKNOWN"
		}
		metrics.GraphQLErrors.WithLabelValues(name, code).Inc()
	}
	metrics.GraphQLOperations.WithLabelValues(name, kind, outcome).Inc()
	if cost, ok := oc.Stats.GetExtension(costStat).(int64); ok {
		metrics.GraphQLCost.WithLabelValues(name).Observe(float64(cost))
	}
	return resp
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = operationMetrics{}
