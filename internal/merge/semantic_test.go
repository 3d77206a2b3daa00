package merge

import (
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	a := map[string]Page{
		"g": {Title: "Guide", Slug: "guide", Position: 0},
		"i": {Parent: "g", Title: "Install", Slug: "install", Position: 0, Body: "x"},
		"c": {Parent: "g", Title: "Configure", Slug: "configure", Position: 1},
		"o": {Title: "Old", Slug: "old", Position: 1},
		"r": {Title: "Ref", Slug: "ref", Position: 2},
	}
	b := map[string]Page{
		"g": {Title: "Guide", Slug: "guide", Position: 5}, // renumbered only
		"i": {Parent: "g", Title: "Setup", Slug: "setup", Position: 0, Body: "y"},
		"r": {Parent: "g", Title: "Ref", Slug: "ref", Position: 1},
		"c": {Title: "Configure", Slug: "configure", Position: 9},
		"n": {Parent: "c", Title: "New", Slug: "new"},
	}
	want := []Change{
		{Kind: PageEdited, PageID: "i", Fields: []Field{FieldTitle, FieldSlug, FieldBody}},
		{Kind: PageMoved, PageID: "r", ParentBefore: "", ParentAfter: "g"},
		{Kind: PageMoved, PageID: "c", ParentBefore: "g", ParentAfter: ""},
		{Kind: PageCreated, PageID: "n"},
		{Kind: PageDeleted, PageID: "o"},
	}
	if got := Diff(a, b); !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff:\n got %+v\nwant %+v", got, want)
	}
	if got := Diff(a, a); len(got) != 0 {
		t.Fatalf("Diff of a tree with itself: %+v", got)
	}
}
