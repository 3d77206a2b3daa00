package rest

import (
	"context"
	"net/http"
	"sync"

	"github.com/folio/folio/internal/paging"
)

// listArgs reads page, limit and order the same way for every list.
func listArgs(r *http.Request) (paging.Args, error) {
	limit, err := queryInt(r, "limit")
	if err != nil {
		return paging.Args{}, err
	}
	return paging.New(limit, queryString(r, "page"), queryString(r, "order"), paging.RESTNames)
}

// listEnvelope is GitBook's list shape; next is absent on the last page.
// countIsLowerBound, Folio's extension, is present (true) only when count
// is not the total but a lower bound (search past its rank limit).
type listEnvelope struct {
	Items             []any     `json:"items"`
	Count             int       `json:"count"`
	CountIsLowerBound bool      `json:"countIsLowerBound,omitempty"`
	Next              *nextPage `json:"next,omitempty"`
}

type nextPage struct {
	Page string `json:"page"`
}

// writeList answers the result of an application call that lists: its
// error, or the page. Items are presented concurrently, as GraphQL resolves
// list elements, so the dataloaders behind each item's fields batch into one
// query per field instead of one per item.
func writeList[T any](w http.ResponseWriter, r *http.Request, page paging.Page[T], err error, present func(context.Context, T) (any, error)) error {
	if err != nil {
		return err
	}
	items, err := presentAll(r.Context(), page.Items, present)
	if err != nil {
		return err
	}
	env := listEnvelope{Items: items, Count: page.Total, CountIsLowerBound: page.TotalIsLowerBound}
	if page.Next != nil {
		env.Next = &nextPage{Page: *page.Next}
	}
	return writeJSON(w, http.StatusOK, env)
}

// presentAll presents every item concurrently and keeps their order.
func presentAll[T any](ctx context.Context, items []T, present func(context.Context, T) (any, error)) ([]any, error) {
	out := make([]any, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = present(ctx, it)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
