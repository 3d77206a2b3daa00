package model

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/markdown"
)

// PageTree is a revision's pages as GraphQL's Revision.pages answers them:
// the root pages, in order, each with its subpages. It writes its own JSON.
//
// gqlgen writes an object field by field and a list of objects with a
// goroutine per element, so a 4,000-page tree cost 12,000 goroutines and
// as many field contexts and field sets. A revision is immutable and its
// pages are plain values, so the tree is written here in one pass, on one
// goroutine, with the query's selection worked out once per depth
// (planPages) rather than once per page. The output is what gqlgen writes
// for the same selection, byte for byte.
type PageTree struct {
	Tree  *loader.Tree
	Roots []*ent.Page
	// AppURL is where the space opens in the app (Revision.AppURL).
	AppURL string
	// Bodies are the pages' markdown by content hash, read when the query
	// asks for markdown; Derived their documents, when it asks for them.
	Bodies  map[string]string
	Derived map[string]*loader.Derived
	sel     *pageSelection
}

// pageSelection is what a query asks of the pages at one depth: the
// fields, and for each object field (pages, urls) what it asks of those.
type pageSelection struct {
	fields []graphql.CollectedField
	sub    []*pageSelection
}

var (
	pageImplementors     = []string{"Page"}
	pageURLsImplementors = []string{"PageURLs"}
)

func planPages(oc *graphql.OperationContext, set ast.SelectionSet) *pageSelection {
	return plan(oc, set, pageImplementors)
}

func plan(oc *graphql.OperationContext, set ast.SelectionSet, satisfies []string) *pageSelection {
	s := &pageSelection{fields: graphql.CollectFields(oc, set, satisfies)}
	s.sub = make([]*pageSelection, len(s.fields))
	for i, f := range s.fields {
		switch f.Name {
		case "pages":
			s.sub[i] = plan(oc, f.Selections, pageImplementors)
		case "urls":
			s.sub[i] = plan(oc, f.Selections, pageURLsImplementors)
		}
	}
	return s
}

// asks tells whether the selection asks for a field at any depth.
func (s *pageSelection) asks(name string) bool {
	if s == nil {
		return false
	}
	for i, f := range s.fields {
		if f.Name == name || s.sub[i].asks(name) {
			return true
		}
	}
	return false
}

// MarshalGQLContext writes the root pages.
func (t *PageTree) MarshalGQLContext(ctx context.Context, w io.Writer) error {
	if t.sel == nil { // a tree made outside a query: nothing was asked
		t.sel = &pageSelection{}
	}
	return t.writePages(w, t.Roots, t.sel)
}

func (t *PageTree) writePages(w io.Writer, ps []*ent.Page, sel *pageSelection) error {
	io.WriteString(w, "[")
	for i, p := range ps {
		if i > 0 {
			io.WriteString(w, ",")
		}
		if err := t.writePage(w, p, sel); err != nil {
			return err
		}
	}
	io.WriteString(w, "]")
	return nil
}

func (t *PageTree) writePage(w io.Writer, p *ent.Page, sel *pageSelection) error {
	io.WriteString(w, "{")
	for i, f := range sel.fields {
		if i > 0 {
			io.WriteString(w, ",")
		}
		writeString(w, f.Alias)
		io.WriteString(w, ":")
		switch f.Name {
		case "__typename":
			io.WriteString(w, `"Page"`)
		case "id":
			writeString(w, p.PageID)
		case "title":
			writeString(w, p.Title)
		case "emoji":
			writeOptional(w, p.Emoji)
		case "type":
			writeString(w, pageTypes[p.Kind])
		case "slug":
			writeString(w, p.Slug)
		case "path":
			writeString(w, t.Tree.Path(p))
		case "description":
			writeOptional(w, p.Description)
		case "hidden":
			io.WriteString(w, strconv.FormatBool(p.Hidden))
		case "href":
			writeOptional(w, p.Href)
		case "createdAt":
			writeTime(w, p.CreatedAt)
		case "updatedAt":
			writeTime(w, p.UpdatedAt)
		case "pages":
			if err := t.writePages(w, t.Tree.Children[p.PageID], sel.sub[i]); err != nil {
				return err
			}
		case "markdown":
			writeString(w, t.Bodies[p.ContentHash])
		case "document":
			if err := t.writeDocument(w, p.ContentHash); err != nil {
				return err
			}
		case "urls":
			t.writeURLs(w, p, sel.sub[i])
		}
	}
	io.WriteString(w, "}")
	return nil
}

// pageTypes are the GraphQL names of page kinds (gqlgen.yml: PageType).
var pageTypes = map[page.Kind]string{
	page.KindDocument: "document",
	page.KindGroup:    "group",
	page.KindLink:     "link",
}

func (t *PageTree) writeURLs(w io.Writer, p *ent.Page, sel *pageSelection) {
	io.WriteString(w, "{")
	for i, f := range sel.fields {
		if i > 0 {
			io.WriteString(w, ",")
		}
		writeString(w, f.Alias)
		io.WriteString(w, ":")
		switch f.Name {
		case "__typename":
			io.WriteString(w, `"PageURLs"`)
		case "app":
			writeString(w, t.AppURL+"/"+t.Tree.Path(p))
		}
	}
	io.WriteString(w, "}")
}

// writeDocument writes a body's document as gqlgen writes the Any scalar;
// a page without a body has the document of an empty one.
func (t *PageTree) writeDocument(w io.Writer, hash string) error {
	var doc markdown.Document
	if d := t.Derived[hash]; d != nil {
		doc = d.Document
	} else {
		doc = loader.Derive("").Document
	}
	return json.NewEncoder(w).Encode(doc)
}

func writeOptional(w io.Writer, s string) {
	if s == "" {
		io.WriteString(w, "null")
		return
	}
	writeString(w, s)
}

func writeTime(w io.Writer, t time.Time) {
	if t.IsZero() {
		io.WriteString(w, "null")
		return
	}
	io.WriteString(w, strconv.Quote(t.Format(time.RFC3339Nano)))
}

const hexDigits = "0123456789ABCDEF"

// writeString writes s as a JSON string, escaping what gqlgen's
// MarshalString escapes and nothing else.
func writeString(w io.Writer, s string) {
	start := 0
	io.WriteString(w, `"`)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '\\' && c != '"' {
			continue
		}
		io.WriteString(w, s[start:i])
		switch c {
		case '\t':
			io.WriteString(w, `\t`)
		case '\r':
			io.WriteString(w, `\r`)
		case '\n':
			io.WriteString(w, `\n`)
		case '\\':
			io.WriteString(w, `\\`)
		case '"':
			io.WriteString(w, `\"`)
		default:
			w.Write([]byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf]})
		}
		start = i + 1
	}
	io.WriteString(w, s[start:])
	io.WriteString(w, `"`)
}
