package paging

import (
	"testing"
	"time"

	"entgo.io/ent/dialect/sql"
)

func TestSliceWalksEveryItemOnce(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var items []Cursor
	for i := 0; i < 23; i++ {
		items = append(items, Cursor{Time: base.Add(time.Duration(i/3) * time.Millisecond), ID: string(rune('a' + i))})
	}
	key := func(c Cursor) Cursor { return c }
	for _, order := range []Order{Asc, Desc} {
		a := Args{Limit: 5, Order: order}
		var seen []Cursor
		for {
			p := Slice(a, items, key)
			if p.Total != 23 {
				t.Fatalf("total %d", p.Total)
			}
			if p.HasPrevious != (a.After != nil) {
				t.Fatalf("%s: HasPrevious %v on the page after %v", order, p.HasPrevious, a.After)
			}
			seen = append(seen, p.Items...)
			if p.Next == nil {
				break
			}
			c, err := DecodeCursor(*p.Next)
			if err != nil {
				t.Fatal(err)
			}
			a.After = c
		}
		if len(seen) != 23 {
			t.Fatalf("%s: saw %d items", order, len(seen))
		}
		for i := 1; i < len(seen); i++ {
			if (order == Asc) != seen[i-1].Less(seen[i]) {
				t.Fatalf("%s: out of order at %d", order, i)
			}
		}
	}
}

func TestNewRejectsBadArguments(t *testing.T) {
	bad := []struct {
		limit        *int
		after, order *string
	}{
		{limit: ptr(0)}, {limit: ptr(1001)}, {after: ptr("!!")}, {after: ptr("e30")}, {order: ptr("up")},
	}
	for _, b := range bad {
		if _, err := New(b.limit, b.after, b.order, RESTNames); err == nil {
			t.Errorf("accepted %+v", b)
		}
	}
	if a, err := New(nil, nil, nil, RESTNames); err != nil || a.Limit != DefaultLimit || a.Order != Desc {
		t.Fatalf("defaults: %+v %v", a, err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestKeysetIsOneRowValueComparison pins the shape of the cursor predicate:
// a row value the databases seek an index with, not an OR they filter by.
func TestKeysetIsOneRowValueComparison(t *testing.T) {
	after := &Cursor{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ID: "x"}
	for _, c := range []struct {
		order Order
		want  string
	}{
		{Desc, "SELECT * FROM `members` WHERE (`members`.`joined_at`, `members`.`id`) < (?, ?) ORDER BY `members`.`joined_at` DESC, `members`.`id` DESC"},
		{Asc, "SELECT * FROM `members` WHERE (`members`.`joined_at`, `members`.`id`) > (?, ?) ORDER BY `members`.`joined_at` ASC, `members`.`id` ASC"},
	} {
		a := Args{Limit: 10, Order: c.order, After: after}
		s := sql.Select("*").From(sql.Table("members"))
		a.Keyset("joined_at")(s)
		a.OrderBy("joined_at")(s)
		got, args := s.Query()
		if got != c.want || len(args) != 2 {
			t.Errorf("%s:\n got %s %v\nwant %s", c.order, got, args, c.want)
		}
	}
}
