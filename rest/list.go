package rest

import (
	"context"
	"net/http"

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
type listEnvelope[X any] struct {
	Items             []X       `json:"items"`
	Count             int       `json:"count"`
	CountIsLowerBound bool      `json:"countIsLowerBound,omitempty"`
	Next              *nextPage `json:"next,omitempty"`
}

type nextPage struct {
	Page string `json:"page"`
}

// writeList answers the result of an application call that lists: its
// error, or the page. prime reads, in one round, what presenting the page
// will ask the loaders for — one statement per kind of data for every
// item (nil: the items' presentation loads nothing the list's own reads
// did not bring) — and the items are then presented in order, one after
// another, into present's type: no presenter meets a loader batch, so the
// list's statements do not hang on scheduling, and the envelope is
// encoded once.
func writeList[T, X any](w http.ResponseWriter, r *http.Request, page paging.Page[T], err error,
	prime func(context.Context, []T) error, present func(context.Context, T) (X, error)) error {
	if err != nil {
		return err
	}
	ctx := r.Context()
	if prime != nil && len(page.Items) > 0 {
		if err := prime(ctx, page.Items); err != nil {
			return err
		}
	}
	items, err := presentEach(ctx, page.Items, present)
	if err != nil {
		return err
	}
	env := listEnvelope[X]{Items: items, Count: page.Total, CountIsLowerBound: page.TotalIsLowerBound}
	if page.Next != nil {
		env.Next = &nextPage{Page: *page.Next}
	}
	return writeJSON(w, http.StatusOK, env)
}

// presentEach presents items in order, one after another; the caller has
// primed what they load. An empty list is [] (never null).
func presentEach[T, X any](ctx context.Context, items []T, present func(context.Context, T) (X, error)) ([]X, error) {
	out := make([]X, 0, len(items))
	for _, it := range items {
		x, err := present(ctx, it)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
