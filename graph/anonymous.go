package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
)

// anonymousReads refuses, before any resolver runs, a mutation (or any
// operation that is not a query) from an anonymous caller: anonymous
// callers read published content and write nothing. Each write's guard
// would refuse it on its own, but a write that forgot its guard would
// otherwise run with an empty viewer; this keeps that from ever reaching
// the database. Answered 401 UNAUTHENTICATED with the challenge.
type anonymousReads struct{}

func (anonymousReads) ExtensionName() string                   { return "AnonymousReads" }
func (anonymousReads) Validate(graphql.ExecutableSchema) error { return nil }

func (anonymousReads) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation == ast.Query || auth.ViewerID(ctx) != "" {
		return nil
	}
	e := apperr.Unauthenticatedf("a %s needs an API token: send Authorization: Bearer <token>", oc.Operation.Operation)
	if siteScopeOf(ctx) != nil { // a site-scoped read token changes nothing
		e = apperr.Forbiddenf("a site-scoped read token cannot run a %s", oc.Operation.Operation)
	}
	err := gqlerror.Errorf("%s", e.Message)
	err.Extensions = e.Extensions()
	return err
}
