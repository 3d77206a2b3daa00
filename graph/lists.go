package graph

import (
	"context"
	"fmt"
	"strconv"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
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

// groupedQuery is a keysetQuery that can be modified (ent's sql/modifier
// feature): listPages groups it by parent and numbers its rows per parent.
// S is the query's XSelect, which scans what a modified query selects.
type groupedQuery[Q any, P, O ~func(*sql.Selector), T any, S scanner] interface {
	keysetQuery[Q, P, O, T]
	Modify(...func(*sql.Selector)) S
}

type scanner interface {
	Scan(context.Context, any) error
}

// listPages is listPage for the children of many parents at once: for each
// of parents, the page of q's rows whose parentColumn is that parent, with
// the same arguments (the cursor and q's filters apply to every parent
// alike). Two statements at most whatever the number of parents: one
// counts every parent's rows (GROUP BY; left out of a first page when no
// parent's page is full, as the rows then are all there is), one reads the
// first Limit+1 rows after the cursor of each (ROW_NUMBER() OVER (PARTITION BY parent ORDER BY column,
// id), on SQLite and PostgreSQL alike). Every parent gets a page, empty
// when it has no rows; cursors are listPage's.
func listPages[Q groupedQuery[Q, P, O, T, S], P, O ~func(*sql.Selector), T any, S scanner](ctx context.Context, q Q, parentColumn string, parents []string, args paging.Args, column string, key func(T) paging.Cursor, parentOf func(T) string) (map[string]paging.Page[T], error) {
	q = q.Where(P(sql.FieldIn(parentColumn, parents...)))
	return listPagesBy(ctx, q, byColumn(parentColumn), parents, args, column, key, parentOf)
}

// byColumn is a list's parent when it is a column of the rows.
func byColumn(column string) func(*sql.Selector) string {
	return func(s *sql.Selector) string { return s.C(column) }
}

// listPagesBy is listPages for rows whose parent is an SQL expression of
// the row (parent, given the query's selector) rather than a column of it
// (the organization of a change request's space): q's own filters keep
// the parents' rows.
func listPagesBy[Q groupedQuery[Q, P, O, T, S], P, O ~func(*sql.Selector), T any, S scanner](ctx context.Context, q Q, parent func(*sql.Selector) string, parents []string, args paging.Args, column string, key func(T) paging.Cursor, parentOf func(T) string) (map[string]paging.Page[T], error) {
	return listPagesKeyed(ctx, q, parent, parents, args, column, args.Keyset(column), key, parentOf)
}

// listPagesInScope is listPages for a list filtered by access (issue 22's
// contentScope): the filter is costly to run twice, so each parent's total
// is counted in the statement that reads the page. keyset is the cursor's
// predicate: args.Keyset(column), or args.PositionKeyset(column) for
// lists in position order (a collection's spaces and subcollections, whose
// cursors carry positions, paging.Cursor.Pos).
func listPagesInScope[Q groupedQuery[Q, P, O, T, S], P, O ~func(*sql.Selector), T any, S scanner](ctx context.Context, q Q, parentColumn string, parents []string, args paging.Args, column string, keyset func(*sql.Selector), key func(T) paging.Cursor, parentOf func(T) string) (map[string]paging.Page[T], error) {
	q = q.Where(P(sql.FieldIn(parentColumn, parents...)))
	return listPagesCounted(ctx, q, byColumn(parentColumn), parents, args, column, keyset, key, parentOf, countedInPage)
}

// listPagesKeyed is listPagesBy with the cursor's predicate given (keyset:
// rows after the cursor, in the order of column then id).
func listPagesKeyed[Q groupedQuery[Q, P, O, T, S], P, O ~func(*sql.Selector), T any, S scanner](ctx context.Context, q Q, parent func(*sql.Selector) string, parents []string, args paging.Args, column string, keyset func(*sql.Selector), key func(T) paging.Cursor, parentOf func(T) string) (map[string]paging.Page[T], error) {
	return listPagesCounted(ctx, q, parent, parents, args, column, keyset, key, parentOf, pageCount{})
}

// pageCount says how listPagesCounted finds each parent's total.
type pageCount struct {
	// kept, when set, reads the totals the database keeps (keptCounts):
	// for a list unfiltered, in one statement that replaces the count.
	kept func(ctx context.Context, parents []string) (map[string]int, error)
	// inPage counts in the statement that reads the page (a window count
	// over the filtered rows, before the cursor applies): for lists
	// filtered by access, whose filter a second statement would run again.
	inPage bool
}

// listPagesCounted is listPagesKeyed with the totals found as count says;
// without kept or inPage, a statement counts every parent's rows (GROUP
// BY), left out of a first page when no parent's page is full (the rows
// then are all there is).
func listPagesCounted[Q groupedQuery[Q, P, O, T, S], P, O ~func(*sql.Selector), T any, S scanner](ctx context.Context, q Q, parent func(*sql.Selector) string, parents []string, args paging.Args, column string, keyset func(*sql.Selector), key func(T) paging.Cursor, parentOf func(T) string, count pageCount) (map[string]paging.Page[T], error) {
	counts := q.Clone()
	byParent := map[string][]T{}
	total := map[string]int{}
	rowsOf := func(ps []string) error {
		if len(ps) == 0 {
			return nil
		}
		switch {
		case count.inPage:
			q.Order(O(args.OrderBy(column))).Modify(firstRowsCounted(parent, column, keyset, args))
		case len(ps) == 1:
			// One parent: its first rows after the cursor, which the
			// index on (parent, column, id) seeks to and stops after.
			if len(parents) > 1 {
				q.Where(P(func(s *sql.Selector) {
					s.Where(sql.P(func(b *sql.Builder) { b.WriteString(parent(s)).WriteOp(sql.OpEQ).Arg(ps[0]) }))
				}))
			}
			q.Where(P(keyset)).Order(O(args.OrderBy(column))).Limit(args.Limit + 1)
		default:
			q.Where(P(keyset)).Order(O(args.OrderBy(column))).Modify(firstRowsPerParent(parent, column, args))
		}
		rows, err := q.All(ctx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			p := parentOf(r)
			byParent[p] = append(byParent[p], r)
			if count.inPage {
				n, err := pageTotal(r)
				if err != nil {
					return err
				}
				total[p] = n
			}
		}
		return nil
	}
	countAll := func(parents []string) error {
		if count.kept != nil {
			kept, err := count.kept(ctx, parents)
			for p, n := range kept {
				total[p] = n
			}
			return err
		}
		var totals []struct {
			Parent string `json:"parent"`
			Count  int    `json:"count"`
		}
		if err := counts.Modify(func(s *sql.Selector) {
			s.Select(sql.As(parent(s), "parent"), sql.As(sql.Count("*"), "count")).GroupBy(parent(s))
		}).Scan(ctx, &totals); err != nil {
			return err
		}
		for _, t := range totals {
			total[t.Parent] = t.Count
		}
		return nil
	}
	switch {
	case count.inPage:
		if err := rowsOf(parents); err != nil {
			return nil, err
		}
		// A parent with no rows after the cursor said nothing of its
		// total: counted apart, only then.
		for _, p := range parents {
			if _, ok := total[p]; !ok && args.After != nil {
				if err := countAll(parents); err != nil {
					return nil, err
				}
				break
			}
		}
	case args.After == nil:
		// A first page that is not full holds every row of its parent:
		// the count is needed only when some parent's page is full.
		if err := rowsOf(parents); err != nil {
			return nil, err
		}
		var full []string
		for _, p := range parents {
			total[p] = len(byParent[p])
			if len(byParent[p]) > args.Limit {
				full = append(full, p)
			}
		}
		if len(full) > 0 {
			if err := countAll(parents); err != nil {
				return nil, err
			}
		}
	default:
		if err := countAll(parents); err != nil {
			return nil, err
		}
		// Only parents with rows need the second statement.
		var some []string
		for _, p := range parents {
			if total[p] > 0 {
				some = append(some, p)
			}
		}
		if err := rowsOf(some); err != nil {
			return nil, err
		}
	}
	pages := make(map[string]paging.Page[T], len(parents))
	for _, p := range parents {
		pages[p] = paging.Cut(args, byParent[p], total[p], key)
	}
	return pages, nil
}

// firstRowsPerParent turns a query of rows (filtered, after the cursor, in
// the page's order) into its first args.Limit+1 rows of each parent:
//
//	SELECT cols FROM (SELECT cols, ROW_NUMBER() OVER (PARTITION BY parent
//	  ORDER BY column, id) AS page_row FROM t WHERE …) AS t
//	WHERE page_row <= limit+1 ORDER BY column, id
//
// It runs last (ent applies modifiers after predicates, order and limit).
func firstRowsPerParent(parent func(*sql.Selector) string, column string, args paging.Args) func(*sql.Selector) {
	return func(s *sql.Selector) {
		inner := s.Clone().ClearOrder()
		window := sql.RowNumber().PartitionBy(parent(inner))
		if args.Order == paging.Asc {
			window.OrderBy(sql.Asc(inner.C(column)), sql.Asc(inner.C("id")))
		} else {
			window.OrderBy(sql.Desc(inner.C(column)), sql.Desc(inner.C("id")))
		}
		inner.AppendSelectExprAs(window, "page_row")
		table := s.TableName()
		outer := sql.Dialect(s.Dialect()).Select(s.UnqualifiedColumns()...).From(inner.As(table))
		outer.Where(sql.LTE(outer.C("page_row"), args.Limit+1))
		args.OrderBy(column)(outer)
		*s = *outer
	}
}

// firstRowsCounted is firstRowsPerParent for a query not yet cut at the
// cursor, with each row's parent's total (page_total) counted over the
// query's rows before the cursor applies: one statement reads the page
// and counts what the filter keeps.
//
//	SELECT cols, page_total FROM (SELECT cols, page_total, ROW_NUMBER()
//	  OVER (PARTITION BY page_parent ORDER BY column, id) AS page_row
//	  FROM (SELECT cols, parent AS page_parent, COUNT(*) OVER (PARTITION
//	    BY parent) AS page_total FROM t WHERE …) AS t
//	  WHERE keyset) AS t
//	WHERE page_row <= limit+1 ORDER BY column, id
func firstRowsCounted(parent func(*sql.Selector) string, column string, keyset func(*sql.Selector), args paging.Args) func(*sql.Selector) {
	return func(s *sql.Selector) {
		d := sql.Dialect(s.Dialect())
		table := s.TableName()
		cols := append(s.UnqualifiedColumns(), "page_total")
		inner := s.Clone().ClearOrder()
		inner.AppendSelectExprAs(sql.Raw(parent(inner)), "page_parent")
		inner.AppendSelectExprAs(sql.Window(func(b *sql.Builder) { b.WriteString("COUNT(*)") }).PartitionBy(parent(inner)), "page_total")
		middle := d.Select(cols...).From(inner.As(table))
		window := sql.RowNumber().PartitionBy(middle.C("page_parent"))
		if args.Order == paging.Asc {
			window.OrderBy(sql.Asc(middle.C(column)), sql.Asc(middle.C("id")))
		} else {
			window.OrderBy(sql.Desc(middle.C(column)), sql.Desc(middle.C("id")))
		}
		middle.AppendSelectExprAs(window, "page_row")
		keyset(middle)
		outer := d.Select(cols...).From(middle.As(table))
		outer.Where(sql.LTE(outer.C("page_row"), args.Limit+1))
		args.OrderBy(column)(outer)
		*s = *outer
	}
}

// pageTotal is the page_total a row of firstRowsCounted carries.
func pageTotal(row any) (int, error) {
	v, ok := row.(interface {
		Value(string) (ent.Value, error)
	})
	if !ok {
		return 0, fmt.Errorf("page total: %T has no selected values", row)
	}
	n, err := v.Value("page_total")
	if err != nil {
		return 0, err
	}
	switch n := n.(type) {
	case int64:
		return int(n), nil
	case int:
		return n, nil
	case float64:
		return int(n), nil
	case []byte:
		return strconv.Atoi(string(n))
	}
	return 0, fmt.Errorf("page total: unexpected %T", n)
}

// pageUnder is one parent's page of a connection nested under a list (a
// space's change requests, a comment's replies): read for every parent its
// list shows at once (loader.PerParent, with listPages), so the list's
// statements do not grow with its length or vary with scheduling. kind
// names the connection and every filter the caller applied to q (the page
// arguments are added here); read makes the parents' query.
func pageUnder[T any](ctx context.Context, of loader.Parents, kind, parent string, args paging.Args, read func(ctx context.Context, parents []string) (map[string]paging.Page[T], error)) (paging.Page[T], error) {
	after := ""
	if args.After != nil {
		after = args.After.Encode()
	}
	kind = fmt.Sprintf("page %s|%d|%s|%s", kind, args.Limit, args.Order, after)
	return loader.PerParent(ctx, of, kind, parent, read)
}

// itemsOf is every item of pages, in no particular order: what a level of
// pages shows, to be primed together.
func itemsOf[T any](pages map[string]paging.Page[T]) []T {
	var out []T
	for _, p := range pages {
		out = append(out, p.Items...)
	}
	return out
}

// optionKey is an optional filter's part of a level read's kind: absent
// and "" differ.
func optionKey(s *string) string {
	if s == nil {
		return "-"
	}
	return strconv.Quote(*s)
}

// anySlice is ids as the values of an SQL IN.
func anySlice(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
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
