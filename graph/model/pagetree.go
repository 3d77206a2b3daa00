package model

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/folio/folio/ent"
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
	// AppURL is the revision's urls.app (Revision.AppURL); a page's is
	// AppURL + "/page/" + its id.
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

// MarshalGQLContext writes the root pages, or, when the answer streams
// (TreeStream), a place-holder for them that the stream fills in.
func (t *PageTree) MarshalGQLContext(ctx context.Context, w io.Writer) error {
	if t.sel == nil { // a tree made outside a query: nothing was asked
		t.sel = &pageSelection{}
	}
	if st := streamOf(ctx); st != nil {
		return st.hold(w, t)
	}
	return t.write(out{w: w})
}

// write writes the tree as gqlgen would, or, with o.html, as it reads
// once the transport has re-encoded gqlgen's answer (encoding/json
// escapes <, >, &, U+2028 and U+2029 and drops the newlines after
// documents).
func (t *PageTree) write(o out) error {
	if o.scratch == nil {
		o.scratch = new([]byte)
	}
	return t.writePages(o, t.Roots, t.sel)
}

// bound is at least the bytes write writes without html: every byte of a
// string escapes to at most six. A document has no cheap bound: a tree
// that asks for documents bounds itself by writing.
func (t *PageTree) bound() int64 {
	if t.sel.asks("document") {
		var n counter
		if t.write(out{w: &n}) != nil {
			return math.MaxInt64 / 2
		}
		return int64(n)
	}
	return t.pagesBound(t.Roots, t.sel)
}

func (t *PageTree) pagesBound(ps []*ent.Page, sel *pageSelection) int64 {
	n := int64(2 + len(ps))
	for _, p := range ps {
		n += 2
		for i, f := range sel.fields {
			n += int64(len(f.Alias)) + 5
			switch f.Name {
			case "pages":
				n += t.pagesBound(t.Tree.Children[p.PageID], sel.sub[i])
			case "urls":
				n += int64(len(sel.sub[i].fields))*16 + 6*int64(len(t.AppURL)+len("/page/")+len(p.PageID))
			default:
				n += 40 + 6*int64(max(2*len(t.Tree.RevisionID)+2*len(p.PageID)+24, len(p.Title), len(p.Emoji), len(p.Slug), len(t.Tree.Path(p)),
					len(p.Description), len(p.Href), len(t.Bodies[p.ContentHash])))
			}
		}
	}
	return n
}

// AnswerBytesAtLeast is a lower bound of the bytes write writes, found
// without writing: the answer counts a tree by it as the tree resolves
// (graph/cost_response.go), and bound or an exact count settle the finished
// answer's size.
func (t *PageTree) AnswerBytesAtLeast() int64 {
	if t == nil {
		return 4
	}
	if t.sel == nil {
		return 2
	}
	return t.pagesAtLeast(t.Roots, t.sel)
}

// pagesAtLeast counts the brackets, braces and commas of the pages, each
// field's quoted name and colon, and each value in its shortest form: a
// string's bytes and quotes, unescaped; null, booleans and times at 4.
func (t *PageTree) pagesAtLeast(ps []*ent.Page, sel *pageSelection) int64 {
	n := int64(1 + len(ps)) // [ ] and the commas between
	for _, p := range ps {
		n++ // { } and the commas between fields: one more than the fields
		for i, f := range sel.fields {
			n += int64(len(f.Alias)) + 4
			switch f.Name {
			case "__typename":
				n += int64(len(`"Page"`))
			case "id":
				n += 2 + int64(len(p.PageID))
			case "title":
				n += 2 + int64(len(p.Title))
			case "slug":
				n += 2 + int64(len(p.Slug))
			case "path":
				n += 2 + int64(len(t.Tree.Path(p)))
			case "type":
				n += 2 + int64(len(p.Kind.String()))
			case "markdown":
				n += 2 + int64(len(t.Bodies[p.ContentHash]))
			case "document":
				if d := t.Derived[p.ContentHash]; d != nil {
					n += d.Document.SizeAtLeast()
				} else {
					n += 4
				}
			case "pages":
				n += t.pagesAtLeast(t.Tree.Children[p.PageID], sel.sub[i])
			case "urls":
				n++
				for _, u := range sel.sub[i].fields {
					n += int64(len(u.Alias)) + 4
					if u.Name == "app" {
						n += 2 + int64(len(t.AppURL)+len("/page/")+len(p.PageID))
					} else {
						n += 4
					}
				}
			default: // optional strings (null), booleans, times
				n += 4
			}
		}
	}
	return n
}

// out is where a tree is written, and how; scratch, when set, is where
// values are built before they are written, reused from page to page.
type out struct {
	w       io.Writer
	html    bool
	scratch *[]byte
}

// pageNodeID writes a page's id (PageNodeID) as a JSON string: base64url,
// which needs no escape.
func (o out) pageNodeID(revisionID, pageID string) {
	if o.scratch == nil {
		o.str(PageNodeID(revisionID, pageID))
		return
	}
	b := appendNodeID(append((*o.scratch)[:0], '"'), PageNode, revisionID, pageID)
	*o.scratch = append(b, '"')
	o.w.Write(*o.scratch)
}

func (o out) raw(s string) { io.WriteString(o.w, s) }

func (t *PageTree) writePages(o out, ps []*ent.Page, sel *pageSelection) error {
	o.raw("[")
	for i, p := range ps {
		if i > 0 {
			o.raw(",")
		}
		if err := t.writePage(o, p, sel); err != nil {
			return err
		}
	}
	o.raw("]")
	return nil
}

func (t *PageTree) writePage(o out, p *ent.Page, sel *pageSelection) error {
	o.raw("{")
	for i, f := range sel.fields {
		if i > 0 {
			o.raw(",")
		}
		o.str(f.Alias)
		o.raw(":")
		switch f.Name {
		case "__typename":
			o.raw(`"Page"`)
		case "id":
			o.pageNodeID(t.Tree.RevisionID, p.PageID)
		case "pageId":
			o.str(p.PageID)
		case "title":
			o.str(p.Title)
		case "emoji":
			o.optional(p.Emoji)
		case "type":
			o.str(EnumName(p.Kind.String()))
		case "slug":
			o.str(p.Slug)
		case "path":
			o.str(t.Tree.Path(p))
		case "description":
			o.optional(p.Description)
		case "hidden":
			o.raw(strconv.FormatBool(p.Hidden))
		case "href":
			o.optional(p.Href)
		case "createdAt":
			o.time(p.CreatedAt)
		case "updatedAt":
			o.time(p.UpdatedAt)
		case "pages":
			if err := t.writePages(o, t.Tree.Children[p.PageID], sel.sub[i]); err != nil {
				return err
			}
		case "markdown":
			o.str(t.Bodies[p.ContentHash])
		case "document":
			if err := t.writeDocument(o, p.ContentHash); err != nil {
				return err
			}
		case "urls":
			t.writeURLs(o, p, sel.sub[i])
		}
	}
	o.raw("}")
	return nil
}

func (t *PageTree) writeURLs(o out, p *ent.Page, sel *pageSelection) {
	o.raw("{")
	for i, f := range sel.fields {
		if i > 0 {
			o.raw(",")
		}
		o.str(f.Alias)
		o.raw(":")
		switch f.Name {
		case "__typename":
			o.raw(`"PageURLs"`)
		case "app":
			o.str(t.AppURL + "/page/" + p.PageID)
		}
	}
	o.raw("}")
}

// writeDocument writes a body's document as gqlgen writes the Any scalar
// (json.Encoder, which escapes HTML and ends with a newline); a page
// without a body has the document of an empty one.
func (t *PageTree) writeDocument(o out, hash string) error {
	var doc markdown.Document
	if d := t.Derived[hash]; d != nil {
		doc = d.Document
	} else {
		doc = loader.Derive("").Document
	}
	if !o.html {
		return json.NewEncoder(o.w).Encode(doc)
	}
	b, err := json.Marshal(doc)
	if err == nil {
		_, err = o.w.Write(b)
	}
	return err
}

func (o out) optional(s string) {
	if s == "" {
		o.raw("null")
		return
	}
	o.str(s)
}

func (o out) time(t time.Time) {
	if t.IsZero() {
		o.raw("null")
		return
	}
	o.raw(strconv.Quote(t.Format(time.RFC3339Nano)))
}

// controlEscapes are gqlgen's escapes of the control characters without
// a short one (upper-case hex), as constants: writing them allocates
// nothing.
var controlEscapes = func() (e [0x20]string) {
	const upperHex = "0123456789ABCDEF"
	for c := range e {
		e[c] = `\u00` + string([]byte{upperHex[c>>4], upperHex[c&0xf]})
	}
	return e
}()

// str writes s as a JSON string, escaping what gqlgen's MarshalString
// escapes, and with o.html what encoding/json then escapes too.
func (o out) str(s string) {
	start := 0
	o.raw(`"`)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c != '\\' && c != '"' && !(o.html && (c == '<' || c == '>' || c == '&' || c == 0xE2)):
			continue
		case c == 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 >= len(s) || s[i+1] != 0x80 || s[i+2]&^1 != 0xA8 {
				continue
			}
			o.raw(s[start:i])
			if s[i+2] == 0xA8 {
				o.raw(`\u2028`)
			} else {
				o.raw(`\u2029`)
			}
			i += 2
			start = i + 1
			continue
		}
		o.raw(s[start:i])
		switch c {
		case '\t':
			o.raw(`\t`)
		case '\r':
			o.raw(`\r`)
		case '\n':
			o.raw(`\n`)
		case '\\':
			o.raw(`\\`)
		case '"':
			o.raw(`\"`)
		case '<':
			o.raw(`\u003c`)
		case '>':
			o.raw(`\u003e`)
		case '&':
			o.raw(`\u0026`)
		default:
			o.raw(controlEscapes[c])
		}
		start = i + 1
	}
	o.raw(s[start:])
	o.raw(`"`)
}
