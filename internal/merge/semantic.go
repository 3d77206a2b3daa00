package merge

// ChangeKind is what happened to a page between two trees.
type ChangeKind int

const (
	PageCreated ChangeKind = iota
	PageEdited
	PageMoved
	PageDeleted
)

// Field names a page field an edit changed.
type Field string

const (
	FieldTitle       Field = "title"
	FieldEmoji       Field = "emoji"
	FieldDescription Field = "description"
	FieldSlug        Field = "slug"
	FieldKind        Field = "kind"
	FieldHidden      Field = "hidden"
	FieldHref        Field = "href"
	FieldBody        Field = "body"
)

// Change is one semantic change of a page from tree a to tree b.
type Change struct {
	Kind   ChangeKind
	PageID string
	// Fields are the fields an edit changed, in the order of Page's fields.
	Fields []Field
	// ParentBefore and ParentAfter are a move's parents ("" for the root).
	ParentBefore, ParentAfter string
}

// Diff reports what changed from tree a to tree b, with the places of
// Changed and Trees: a page only in b was created, only in a deleted; a page
// in both was moved when its parent changed or it left the common order of
// its siblings (renumbering alone moves nobody), and edited when any other
// field differs — a page can be both. Changes come in b's tree order
// (depth first, siblings in order), a page's move before its edit, then the
// deleted pages in a's tree order.
func Diff(a, b map[string]Page) []Change {
	ta, tb := index(a), index(b)
	mv := moved(ta, tb)
	var out []Change
	var walk func(t *tree, parent string, visit func(id string))
	walk = func(t *tree, parent string, visit func(id string)) {
		for _, id := range t.children[parent] {
			visit(id)
			walk(t, id, visit)
		}
	}
	walk(tb, "", func(id string) {
		pb := tb.pages[id]
		pa, inA := ta.pages[id]
		if !inA {
			out = append(out, Change{Kind: PageCreated, PageID: id})
			return
		}
		if mv[id] {
			out = append(out, Change{Kind: PageMoved, PageID: id, ParentBefore: pa.Parent, ParentAfter: pb.Parent})
		}
		if fields := changedFields(pa, pb); len(fields) > 0 {
			out = append(out, Change{Kind: PageEdited, PageID: id, Fields: fields})
		}
	})
	walk(ta, "", func(id string) {
		if _, inB := tb.pages[id]; !inB {
			out = append(out, Change{Kind: PageDeleted, PageID: id})
		}
	})
	return out
}

func changedFields(a, b Page) []Field {
	var out []Field
	add := func(changed bool, f Field) {
		if changed {
			out = append(out, f)
		}
	}
	add(a.Title != b.Title, FieldTitle)
	add(a.Emoji != b.Emoji, FieldEmoji)
	add(a.Description != b.Description, FieldDescription)
	add(a.Slug != b.Slug, FieldSlug)
	add(a.Kind != b.Kind, FieldKind)
	add(a.Hidden != b.Hidden, FieldHidden)
	add(a.Href != b.Href, FieldHref)
	add(a.Body != b.Body, FieldBody)
	return out
}
