package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/loader"
)

// TestPageTreeAnswerBytesAtLeast: what a tree counts while an answer is
// built is never more than what it writes, whatever fields are asked,
// however its text escapes: an answer that fits the ceiling is never
// stopped because of a tree.
func TestPageTreeAnswerBytesAtLeast(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	bodies, derived := map[string]string{}, map[string]*loader.Derived{}
	var pages []*ent.Page
	for i := range 12 {
		p := &ent.Page{PageID: fmt.Sprintf("p%02d", i), Position: i, Kind: page.KindDocument, Title: fmt.Sprintf("Page \"%d\"\n<&>\u2028", i),
			Slug: fmt.Sprintf("page-%d", i), CreatedAt: now, UpdatedAt: now}
		if i%3 == 0 {
			p.Emoji, p.Description, p.Hidden = "1f600", "A \\ description\t", true
		} else {
			p.ParentPageID = fmt.Sprintf("p%02d", i-i%3)
		}
		if i%4 == 1 {
			p.Kind, p.Href = page.KindLink, "https://example.com/?a=1&b=<2>"
		}
		if i%5 != 4 { // some pages have no body
			md := fmt.Sprintf("# Page %d\n\nText with \"quotes\", a [link](https://x.io) and a table:\n\n| a | b |\n|---|---|\n| 1 | <2> |\n", i)
			p.ContentHash = fmt.Sprintf("h%d", i)
			bodies[p.ContentHash], derived[p.ContentHash] = md, loader.Derive(md)
		}
		pages = append(pages, p)
	}
	tree := loader.NewTree(pages)

	field := func(name string) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Alias: name, Name: name}}
	}
	leaf := func(names ...string) *pageSelection {
		s := &pageSelection{}
		for _, n := range names {
			s.fields = append(s.fields, field(n))
			s.sub = append(s.sub, nil)
		}
		return s
	}
	all := []string{"__typename", "id", "title", "emoji", "type", "slug", "path", "description", "hidden", "href", "createdAt", "updatedAt", "markdown", "document"}
	withKids := func(s, kids *pageSelection) *pageSelection {
		s.fields = append(s.fields, field("pages"), field("urls"))
		s.sub = append(s.sub, kids, leaf("__typename", "app"))
		return s
	}
	for name, sel := range map[string]*pageSelection{
		"nothing":         {},
		"ids":             withKids(leaf("id"), leaf("id")),
		"every field":     withKids(leaf(all...), withKids(leaf(all...), leaf(all...))),
		"text only":       withKids(leaf("title", "markdown"), leaf("markdown")),
		"flags and times": withKids(leaf("hidden", "createdAt"), leaf("emoji")),
	} {
		pt := &PageTree{Tree: tree, Roots: tree.Children[""], AppURL: "https://folio.example/v1/spaces/s/revisions/r", Bodies: bodies, Derived: derived, sel: sel}
		for _, html := range []bool{false, true} {
			var n counter
			if err := pt.write(out{w: &n, html: html}); err != nil {
				t.Fatal(err)
			}
			if least := pt.AnswerBytesAtLeast(); least > int64(n) || least < int64(n)/4 {
				t.Errorf("%s (html %v): AnswerBytesAtLeast %d, writes %d", name, html, least, n)
			}
			t.Logf("%s (html %v): at least %d, writes %d", name, html, pt.AnswerBytesAtLeast(), n)
		}
	}
}
