package graph

import (
	"slices"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Relay's backward paging (last/before) over the application's lists,
// which page forward only (paging.Args): the page that ends just before a
// cursor, in the list's order, is the page that starts just after it in
// the opposite order, turned around. The list methods stay as REST calls
// them; only GraphQL's arguments and pageInfo know the direction.

// relayArgs validates first/after/last/before for a list newest first
// (its default order). backward tells the caller to turn the page with
// backwardPage.
func relayArgs(first *int, after *string, last *int, before *string) (args paging.Args, backward bool, err error) {
	if (first != nil || after != nil) && (last != nil || before != nil) {
		return args, false, apperr.InvalidField("last", "page forward (first, after) or backward (last, before), not both")
	}
	if last == nil && before == nil {
		args, err = paging.New(first, after, nil, paging.GraphQLNames)
		return args, false, err
	}
	asc := string(paging.Asc)
	args, err = paging.New(last, before, &asc, paging.Names{Limit: "last", After: "before", Order: "order"})
	return args, true, err
}

// backwardPage turns a page read in the opposite order back into the
// list's order: what lay beyond it (Next) now lies before it, and after it
// lies at least the `before` cursor's item, when there was one.
func backwardPage[T any](page paging.Page[T], before bool) paging.Page[T] {
	slices.Reverse(page.Items)
	slices.Reverse(page.Cursors)
	page.HasPrevious = page.Next != nil
	page.Next = nil
	if before && len(page.Cursors) > 0 {
		page.Next = &page.Cursors[len(page.Cursors)-1]
	}
	return page
}
