package merge

import (
	"fmt"
	"reflect"
	"testing"
)

func tree(ps ...Page) map[string]Page {
	m := map[string]Page{}
	for _, p := range ps {
		m[p.ID] = p
	}
	return m
}

func pg(id, parent string, pos int, title, body string) Page {
	return Page{ID: id, Parent: parent, Position: pos, Title: title, Slug: title, Kind: "document", Body: body}
}

func TestTrees(t *testing.T) {
	base := tree(pg("a", "", 0, "a", "1\n2\n3\n"), pg("b", "", 1, "b", "x\n"), pg("c", "a", 0, "c", "c\n"))
	with := func(m map[string]Page, ps ...Page) map[string]Page {
		out := map[string]Page{}
		for k, v := range m {
			out[k] = v
		}
		for _, p := range ps {
			out[p.ID] = p
		}
		return out
	}
	without := func(m map[string]Page, ids ...string) map[string]Page {
		out := with(m)
		for _, id := range ids {
			delete(out, id)
		}
		return out
	}
	editA := func(body string) Page { p := base["a"]; p.Body = body; return p }

	// Disjoint edits on both sides of one page merge line by line.
	got, cs := Trees(base, with(base, editA("1 ours\n2\n3\n")), with(base, editA("1\n2\n3 theirs\n")))
	if cs != nil || got["a"].Body != "1 ours\n2\n3 theirs\n" {
		t.Fatalf("line merge: %v %+v", cs, got["a"])
	}
	// Same lines: conflict naming the page.
	_, cs = Trees(base, with(base, editA("1\n2 ours\n3\n")), with(base, editA("1\n2 theirs\n3\n")))
	if len(cs) != 1 || cs[0].PageID != "a" {
		t.Fatalf("conflict: %v", cs)
	}
	// Added on one side; deleted on both; deleted vs changed.
	got, cs = Trees(base, with(base, pg("d", "", 2, "d", "")), without(base, "b"))
	if cs != nil || got["d"].Title != "d" || got["b"].ID != "" {
		t.Fatalf("add/delete: %v %v", cs, got)
	}
	_, cs = Trees(base, without(base, "b"), with(base, Page{ID: "b", Position: 1, Title: "b2", Slug: "b", Kind: "document", Body: "x\n"}))
	if len(cs) != 1 || cs[0].PageID != "b" {
		t.Fatalf("delete vs change: %v", cs)
	}
	// Fields merge on their own; the same field differently conflicts.
	ot := base["b"]
	ot.Title = "B ours"
	tt := base["b"]
	tt.Emoji = "🚀"
	got, cs = Trees(base, with(base, ot), with(base, tt))
	if cs != nil || got["b"].Title != "B ours" || got["b"].Emoji != "🚀" {
		t.Fatalf("fields: %v %+v", cs, got["b"])
	}
	tt.Title = "B theirs"
	if _, cs = Trees(base, with(base, ot), with(base, tt)); len(cs) != 1 {
		t.Fatalf("title conflict: %v", cs)
	}
	// Orphan: a child added under a page the other side deleted.
	_, cs = Trees(base, with(base, pg("e", "b", 0, "e", "")), without(base, "b"))
	if len(cs) != 1 || cs[0].PageID != "e" {
		t.Fatalf("orphan: %v", cs)
	}
	// Moves: one side wins; different moves conflict.
	mo := base["c"]
	mo.Parent, mo.Position = "", 5
	got, cs = Trees(base, with(base, mo), base)
	if cs != nil || got["c"].Parent != "" || got["c"].Position != 2 {
		t.Fatalf("move: %v %+v", cs, got["c"])
	}
	mt := base["c"]
	mt.Parent = "b"
	if _, cs = Trees(base, with(base, mo), with(base, mt)); len(cs) != 1 {
		t.Fatalf("move conflict: %v", cs)
	}
	// Slugs stay unique: the page that had the slug in ours keeps it.
	got, cs = Trees(base, with(base, pg("f", "", 3, "b", "")), with(base, pg("g", "", 4, "b", "")))
	if cs != nil || got["b"].Slug != "b" || got["f"].Slug == got["g"].Slug || got["g"].Slug != "b-2" && got["f"].Slug != "b-2" {
		t.Fatalf("slugs: %v %+v %+v %+v", cs, got["b"], got["f"], got["g"])
	}
	// Idempotence.
	x := with(base, editA("changed\n"), pg("h", "", 9, "h", ""))
	for _, c := range []struct{ o, t map[string]Page }{{x, x}, {base, x}, {x, base}} {
		got, cs := Trees(base, c.o, c.t)
		want, _ := Trees(base, x, x)
		if cs != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("idempotence: %v", cs)
		}
	}
	if ch := Changed(base, x); !reflect.DeepEqual(ch, []string{"a", "h"}) {
		t.Fatalf("Changed: %v", ch)
	}
}

func BenchmarkTrees5000(b *testing.B) {
	base := map[string]Page{}
	for i := 0; i < 5000; i++ {
		id := fmt.Sprintf("p%04d", i)
		base[id] = pg(id, "", i, id, fmt.Sprintf("line 1 of %d\nline 2\nline 3\n", i))
	}
	ours, theirs := map[string]Page{}, map[string]Page{}
	for k, v := range base {
		ours[k], theirs[k] = v, v
	}
	for i := 0; i < 10; i++ {
		o := ours[fmt.Sprintf("p%04d", i)]
		o.Body = "ours\n" + o.Body
		ours[o.ID] = o
		t := theirs[fmt.Sprintf("p%04d", 100+i)]
		t.Body += "theirs\n"
		theirs[t.ID] = t
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, cs := Trees(base, ours, theirs); cs != nil {
			b.Fatal(cs)
		}
	}
}
