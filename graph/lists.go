package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/paging"
)

// keysetQuery is what listPage needs of an ent query: every generated
// XQuery has these methods, each with its own predicate and order types
// (P, O), which are all functions of a selector.
type keysetQuery[Q any, P, O ~func(*sql.Selector), T any] interface {
	Clone() Q
	Where(...P) Q
	Order(...O) Q
	Limit(int) Q
	Count(context.Context) (int, error)
	All(context.Context) ([]T, error)
}

// listPage is one page of q, a query already filtered (and told what to
// load with its rows), in the order of column then id. The id tie-breaker
// is part of the order and of the cursor (paging.Args.Keyset, OrderBy), so
// rows that share a time, as rows written in the same millisecond do,
// neither repeat nor go missing between pages. key is a row's position:
// its column value and its id.
func listPage[Q keysetQuery[Q, P, O, T], P, O ~func(*sql.Selector), T any](ctx context.Context, q Q, args paging.Args, column string, key func(T) paging.Cursor) (paging.Page[T], error) {
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return paging.Page[T]{}, err
	}
	rows, err := q.Where(P(args.Keyset(column))).Order(O(args.OrderBy(column))).Limit(args.Limit + 1).All(ctx)
	if err != nil {
		return paging.Page[T]{}, err
	}
	return paging.Cut(args, rows, total, key), nil
}

// connectionShape and edgeShape are the Go types gqlgen generates for a
// Relay connection of T (XConnection, XEdge): the same fields, in the same
// order, for every T. A change in what gqlgen generates fails to compile
// here, not at run time.
type connectionShape[E any] interface {
	~struct {
		Edges      []*E            `json:"edges"`
		PageInfo   *model.PageInfo `json:"pageInfo"`
		TotalCount int             `json:"totalCount"`
	}
}

type edgeShape[T any] interface {
	~struct {
		Cursor string `json:"cursor"`
		Node   T      `json:"node"`
	}
}

// connectionOf is the GraphQL view of a page, as the connection type C:
// connectionOf[model.InviteConnection](page).
func connectionOf[C connectionShape[E], E edgeShape[T], T any](page paging.Page[T]) *C {
	return connectionWith[C](page, func(cursor string, node T) *E { return &E{Cursor: cursor, Node: node} })
}

// connectionWith is connectionOf for edges that carry more than the cursor
// and the node (TeamEdge's role): edge builds each.
func connectionWith[C connectionShape[E], E, T any](page paging.Page[T], edge func(cursor string, node T) *E) *C {
	edges := make([]*E, len(page.Items))
	for i, it := range page.Items {
		edges[i] = edge(page.Cursors[i], it)
	}
	return &C{Edges: edges, PageInfo: pageInfo(page), TotalCount: page.Total}
}

// memberConnection is a page of memberships as GraphQL's MemberConnection,
// each wrapped for its node id.
func memberConnection(page paging.Page[*ent.Member]) *model.MemberConnection {
	return connectionWith[model.MemberConnection](page, func(cursor string, m *ent.Member) *model.MemberEdge {
		return &model.MemberEdge{Cursor: cursor, Node: model.MemberOf(m)}
	})
}
