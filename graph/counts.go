package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"
)

// Totals of lists (the GraphQL connections' totalCount and REST's count,
// one rule for both, here): a list every member of an organization sees
// alike and that no filter narrows reads its total as the database keeps
// it (db.CountMembers and the others, kept by triggers in the writing
// transaction), so a page costs the same for 100 members or 100,000. A
// filtered list counts what its filter keeps; a list filtered by access
// counts in the statement that reads its page (pageCount.inPage).

// keptCount is a pageCount that reads list's kept totals.
func (r *Resolver) keptCount(list string) pageCount {
	return pageCount{kept: func(ctx context.Context, parents []string) (map[string]int, error) {
		return r.keptCounts(ctx, list, parents)
	}}
}

// keptCounts are list's kept totals for parents, in one statement; a
// parent the table has no row for has none.
func (r *Resolver) keptCounts(ctx context.Context, list string, parents []string) (map[string]int, error) {
	d := sql.Dialect(r.Dialect)
	q, args := d.Select("parent", "n").From(d.Table("list_counts")).
		Where(sql.And(sql.EQ("list", list), sql.In("parent", anySlice(parents)...))).Query()
	rows, err := r.Client.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]int, len(parents))
	for rows.Next() {
		var p string
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			return nil, err
		}
		out[p] = n
	}
	return out, rows.Err()
}

// countedInPage counts a list in the statement that reads its page.
var countedInPage = pageCount{inPage: true}
