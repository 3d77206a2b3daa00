package model

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
)

// Revision is a revision as GraphQL shows it. Its pages are a PageTree,
// written by a marshaller of its own rather than object by object.
type Revision struct {
	*ent.Revision
	// AppURL is the revision's urls.app (Resolver.RevisionAppURL); a page
	// of it is at AppURL + "/page/" + its id.
	AppURL string
}

// Pages reads the revision's page tree, with the bodies (markdown) and
// documents when the query asks for them anywhere in the tree. Revisions
// that one list shows together read their trees, bodies and documents
// together, in one statement each (loader.RevisionLoaders.Together).
func (r *Revision) Pages(ctx context.Context) (*PageTree, error) {
	l := loader.For(ctx)
	t, err := l.RevisionTree.Load(ctx, r.ID)()
	if err != nil {
		return nil, err
	}
	pt := &PageTree{Tree: t, Roots: t.Children[""], AppURL: r.AppURL}
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		pt.sel = planPages(graphql.GetOperationContext(ctx), fc.Field.Selections)
	}
	// The tree is written in one pass without resolvers (PageTree): a
	// page's comments, a list of their own, are read one page at a time.
	if pt.sel.asks("comments") {
		return nil, apperr.Invalidf("Page.comments cannot be read inside Revision.pages: read it through revision { page(id:) { comments } }")
	}
	for _, f := range []string{"evaluatedDocument", "metaLinks"} { // per page, with reads of their own (graph/documents.go)
		if pt.sel.asks(f) {
			return nil, apperr.Invalidf("Page.%s cannot be read inside Revision.pages: read it through revision { page(id:) { %s } }", f, f)
		}
	}
	if pt.sel.asks("markdown") {
		if pt.Bodies, err = l.RevisionBodies.Load(ctx, r.ID)(); err != nil {
			return nil, err
		}
	}
	if pt.sel.asks("document") {
		if pt.Derived, err = l.RevisionDerived.Load(ctx, r.ID)(); err != nil {
			return nil, err
		}
	}
	return pt, nil
}

var errOutputOnly = errors.New("a page tree is output only")

// UnmarshalGQLContext is required of a bound GraphQL type; a tree is never
// an input.
func (*PageTree) UnmarshalGQLContext(context.Context, any) error { return errOutputOnly }
