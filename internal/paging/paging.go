// Package paging holds the list conventions shared by REST and GraphQL:
// limits, order and opaque keyset cursors. A page costs the same at item
// 100,000 as at item 0 because cursors carry the last key, not an offset.
package paging

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/internal/apperr"
)

const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// Order is asc or desc; lists default to desc.
type Order string

const (
	Asc  Order = "asc"
	Desc Order = "desc"
)

// Args is a validated page request.
type Args struct {
	Limit int
	After *Cursor
	Order Order
}

// Names are the names the caller used for the paging arguments, so errors
// name the field the caller sent (REST: limit/page/order, GraphQL:
// first/after/order).
type Names struct{ Limit, After, Order string }

var (
	RESTNames    = Names{Limit: "limit", After: "page", Order: "order"}
	GraphQLNames = Names{Limit: "first", After: "after", Order: "order"}
)

// New validates paging arguments; nil means "not given".
func New(limit *int, after *string, order *string, names Names) (Args, error) {
	a := Args{Limit: DefaultLimit, Order: Desc}
	if limit != nil {
		if *limit < 1 || *limit > MaxLimit {
			return a, apperr.InvalidField(names.Limit, "must be between 1 and %d", MaxLimit)
		}
		a.Limit = *limit
	}
	if order != nil {
		switch Order(*order) {
		case Asc, Desc:
			a.Order = Order(*order)
		default:
			return a, apperr.InvalidField(names.Order, "must be asc or desc")
		}
	}
	if after != nil && *after != "" {
		c, err := DecodeCursor(*after)
		if err != nil {
			return a, apperr.InvalidField(names.After, "is not a valid page cursor")
		}
		a.After = c
	}
	return a, nil
}

// Cursor is the position after the last item of a page: its sort key (a
// time, a position for lists in a chosen order, or a string for lists
// sorted by name) and its id.
type Cursor struct {
	Time time.Time `json:"t,omitzero"`
	Pos  float64   `json:"p,omitempty"`
	Key  string    `json:"k,omitempty"`
	ID   string    `json:"i"`
}

// Less orders cursors by time, then position, then key, then id.
func (c Cursor) Less(o Cursor) bool {
	if !c.Time.Equal(o.Time) {
		return c.Time.Before(o.Time)
	}
	if c.Pos != o.Pos {
		return c.Pos < o.Pos
	}
	if c.Key != o.Key {
		return c.Key < o.Key
	}
	return c.ID < o.ID
}

// Encode makes the opaque page token.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a token made by Encode.
func DecodeCursor(s string) (*Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, err
	}
	var c Cursor
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if c.ID == "" {
		return nil, apperr.Invalidf("empty cursor")
	}
	return &c, nil
}

// Keyset returns the WHERE of a page over (timeColumn, id): the rows after
// the cursor in the requested order. Use it as an ent predicate.
//
// It is written as one row-value comparison, (time, id) > (t, i), rather
// than its expansion time > t OR (time = t AND id > i): both databases
// (PostgreSQL, SQLite 3.15+) turn a row value into a range start on an index
// over (scope…, time, id), so a page deep in a list is a seek, where the OR
// form makes them read and filter every row before the cursor.
// Sort columns are non-null: lists that sort by a nullable column leave its
// nulls out (members by lastSeenAt).
func (a Args) Keyset(timeColumn string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if a.After == nil {
			return
		}
		op := sql.OpGT
		if a.Order == Desc {
			op = sql.OpLT
		}
		t, id, after := s.C(timeColumn), s.C("id"), *a.After
		s.Where(sql.P(func(b *sql.Builder) {
			b.Wrap(func(b *sql.Builder) { b.WriteString(t).Comma().WriteString(id) })
			b.WriteOp(op)
			b.Wrap(func(b *sql.Builder) { b.Arg(after.Time).Comma().Arg(after.ID) })
		}))
	}
}

// PositionKeyset is Keyset for lists in position order (Cursor.Pos): the
// rows after the cursor's position and id.
func (a Args) PositionKeyset(posColumn string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if a.After == nil {
			return
		}
		op := sql.OpGT
		if a.Order == Desc {
			op = sql.OpLT
		}
		p, id, after := s.C(posColumn), s.C("id"), *a.After
		s.Where(sql.P(func(b *sql.Builder) {
			b.Wrap(func(b *sql.Builder) { b.WriteString(p).Comma().WriteString(id) })
			b.WriteOp(op)
			b.Wrap(func(b *sql.Builder) { b.Arg(after.Pos).Comma().Arg(after.ID) })
		}))
	}
}

// OrderBy returns the ORDER BY matching Keyset.
func (a Args) OrderBy(timeColumn string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if a.Order == Asc {
			s.OrderBy(sql.Asc(s.C(timeColumn)), sql.Asc(s.C("id")))
		} else {
			s.OrderBy(sql.Desc(s.C(timeColumn)), sql.Desc(s.C("id")))
		}
	}
}

// Page is one page of a list.
type Page[T any] struct {
	Items   []T
	Cursors []string // one per item
	Next    *string  // cursor of the following page; nil on the last page
	// HasPrevious tells that pages come before this one: it was asked for
	// after a cursor. (Keyset pages cannot cheaply tell whether the items
	// before the cursor still exist, so the cursor is the answer.)
	HasPrevious bool
	Total       int
	// TotalIsLowerBound tells that the list was cut before it was counted
	// (search ranks at most its limit of matches): more items may exist
	// than Total, and beyond the last page.
	TotalIsLowerBound bool
}

// Cut builds a page from rows fetched with Limit+1, so that the extra row
// tells whether another page follows.
func Cut[T any](a Args, rows []T, total int, key func(T) Cursor) Page[T] {
	p := Page[T]{Total: total, HasPrevious: a.After != nil}
	if len(rows) > a.Limit {
		rows = rows[:a.Limit]
		next := key(rows[len(rows)-1]).Encode()
		p.Next = &next
	}
	p.Items = rows
	p.Cursors = make([]string, len(rows))
	for i, r := range rows {
		p.Cursors[i] = key(r).Encode()
	}
	return p
}

// Slice pages through items already loaded and sorted ascending by key: for
// lists that are filtered by permission in memory or nested under a parent.
func Slice[T any](a Args, ascending []T, key func(T) Cursor) Page[T] {
	rows := ascending
	if a.Order == Desc {
		rows = make([]T, len(ascending))
		for i, it := range ascending {
			rows[len(ascending)-1-i] = it
		}
	}
	start := 0
	if a.After != nil {
		start = len(rows)
		for i, it := range rows {
			k := key(it)
			if (a.Order == Asc && a.After.Less(k)) || (a.Order == Desc && k.Less(*a.After)) {
				start = i
				break
			}
		}
	}
	end := min(len(rows), start+a.Limit+1)
	return Cut(a, rows[start:end], len(ascending), key)
}
