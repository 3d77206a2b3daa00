package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// Bounds of a query document, checked before validation: validating
// repeated fields of the same name compares them pair by pair, so its work
// grows with the square of the fields (14,000 repeated fields cost 7.6 s;
// 1,000 nested ones about 70 ms).
const (
	// MaxTokens bounds the parser's work (gqlgen had a directive-flood CVE).
	MaxTokens = 15_000
	// MaxFields is the most fields a document may write, fragments
	// included (counted as written, not as expanded: the cost does that).
	MaxFields = 1_000
	// MaxSelections is the most selections one selection set may hold:
	// fields and fragment spreads, those of its inline fragments included
	// (validation compares them as one set).
	MaxSelections = 200
)

// documentBounds refuses documents past MaxTokens, MaxFields or
// MaxSelections. gqlgen validates a document before any operation-context
// extension runs, so this runs earlier, on the raw parameters: it parses the
// query itself (linear, and bounded by the token limit) and counts. Queries
// already in the cache passed these bounds and validation: they are not
// parsed again.
type documentBounds struct {
	cache graphql.Cache[*ast.QueryDocument]
}

func (documentBounds) ExtensionName() string                          { return "DocumentBounds" }
func (documentBounds) Validate(schema graphql.ExecutableSchema) error { return nil }

func (b documentBounds) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if b.cache != nil {
		if _, ok := b.cache.Get(ctx, params.Query); ok {
			return nil
		}
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, MaxTokens)
	if err != nil {
		if gerr, ok := err.(*gqlerror.Error); ok && gerr.Message == fmt.Sprintf("exceeded token limit of %d", MaxTokens) {
			return limitError("DOCUMENT_TOO_LARGE", "query has more tokens than the token limit of %d", MaxTokens)
		}
		return nil // gqlgen's own parse reports syntax errors, with their code
	}
	if graphql.HasOperationContext(ctx) { // for operationMetrics, should validation refuse it
		if op := doc.Operations.ForName(params.OperationName); op != nil {
			graphql.GetOperationContext(ctx).Stats.SetExtension(parsedOperationStat, op)
		}
	}
	return checkDocument(doc)
}

// checkDocument counts the fields of doc and the selections of each of its
// selection sets.
func checkDocument(doc *ast.QueryDocument) *gqlerror.Error {
	fields, widest := 0, 0
	var walk func(set ast.SelectionSet) int
	// walk counts set's selections as validation sees them (inline fragments
	// flattened) and visits the sets below.
	walk = func(set ast.SelectionSet) int {
		n := 0
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				n++
				fields++
				if len(s.SelectionSet) > 0 {
					widest = max(widest, walk(s.SelectionSet))
				}
			case *ast.FragmentSpread:
				n++
			case *ast.InlineFragment:
				n += walk(s.SelectionSet)
			}
		}
		return n
	}
	for _, op := range doc.Operations {
		widest = max(widest, walk(op.SelectionSet))
	}
	for _, f := range doc.Fragments {
		widest = max(widest, walk(f.SelectionSet))
	}
	if fields > MaxFields {
		return limitError("DOCUMENT_TOO_LARGE", "query has %d fields, more than the limit of %d", fields, MaxFields)
	}
	if widest > MaxSelections {
		return limitError("DOCUMENT_TOO_LARGE", "a selection set of the query has %d selections, more than the limit of %d", widest, MaxSelections)
	}
	return nil
}
