package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/markdown"
)

// A draft is a revision being made: the pages and files of the revision it
// starts from, changed in memory, then written as a new revision in one go.

type draftPage struct {
	ID, Parent                            string
	Position                              int
	Kind                                  page.Kind
	Title, Emoji, Slug, Description, Href string
	Hidden                                bool
	Hash                                  string // content hash; "" for an empty body
	CreatedAt, UpdatedAt                  time.Time
}

type draftFile struct {
	ID, Name, ContentType, BlobKey string
	Size                           int64
	Width, Height                  *int
	CreatedAt                      time.Time
}

type draft struct {
	pages  map[string]*draftPage
	files  []*draftFile
	bodies map[string]string // new bodies by hash, to store
	// source is the revision the draft started from, and sourcePages its
	// pages as they were: pages still equal to them are copied inside the
	// database when the draft is written.
	source      string
	sourcePages map[string]draftPage
	// partial: pages and sourcePages hold only the pages a merge read (what
	// changed and around it), of sourceCount in source; every other page of
	// source is kept as it is.
	partial     bool
	sourceCount int
	// changeRequest is the change request whose edits or import the draft
	// holds; its revision records it (contributors).
	changeRequest string
}

// pageCount is the number of pages the draft's revision will hold.
func (d *draft) pageCount() int {
	if d.partial {
		return d.sourceCount - len(d.sourcePages) + len(d.pages)
	}
	return len(d.pages)
}

// before is the draft's source as it was, over the pages the draft holds:
// what the search index is updated from.
func (d *draft) before() *draft {
	old := &draft{pages: make(map[string]*draftPage, len(d.sourcePages))}
	for id, p := range d.sourcePages {
		p := p
		old.pages[id] = &p
	}
	return old
}

func draftPageOf(p *ent.Page) *draftPage {
	return &draftPage{
		ID: p.PageID, Parent: p.ParentPageID, Position: p.Position, Kind: p.Kind,
		Title: p.Title, Emoji: p.Emoji, Slug: p.Slug, Description: p.Description, Href: p.Href,
		Hidden: p.Hidden, Hash: p.ContentHash, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

// newDraft starts from the pages and files of revision revID.
func newDraft(ctx context.Context, revID string) (*draft, error) {
	l := loader.For(ctx)
	filesThunk := l.RevisionFiles.Load(ctx, revID)
	t, err := l.RevisionTree.Load(ctx, revID)()
	if err != nil {
		return nil, err
	}
	files, err := filesThunk()
	if err != nil {
		return nil, err
	}
	d := &draft{pages: make(map[string]*draftPage, len(t.Pages)), bodies: map[string]string{},
		source: revID, sourcePages: make(map[string]draftPage, len(t.Pages))}
	for _, p := range t.Pages {
		d.pages[p.PageID] = draftPageOf(p)
		d.sourcePages[p.PageID] = *d.pages[p.PageID]
	}
	d.files = draftFilesOf(files)
	return d, nil
}

func draftFilesOf(files []*ent.File) []*draftFile {
	out := make([]*draftFile, 0, len(files))
	for _, f := range files {
		out = append(out, &draftFile{ID: f.FileID, Name: f.Name, ContentType: f.ContentType, BlobKey: f.BlobKey,
			Size: f.Size, Width: f.Width, Height: f.Height, CreatedAt: f.CreatedAt})
	}
	return out
}

// setBody gives a page a new markdown body.
func (d *draft) setBody(p *draftPage, markdown string) {
	if markdown == "" {
		p.Hash = ""
		return
	}
	p.Hash = contentHash(markdown)
	d.bodies[p.Hash] = markdown
}

func contentHash(markdown string) string {
	sum := sha256.Sum256([]byte(markdown))
	return hex.EncodeToString(sum[:])
}

// children lists a page's children (parent "" for the root) in order.
func (d *draft) children(parent string) []*draftPage {
	var out []*draftPage
	for _, p := range d.pages {
		if p.Parent == parent {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Position != out[j].Position {
			return out[i].Position < out[j].Position
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// place puts p among the children of parent at index at (-1: the end) and
// renumbers the siblings 0..n-1.
func (d *draft) place(p *draftPage, parent string, at int) {
	siblings := d.children(parent)
	kept := siblings[:0]
	for _, s := range siblings {
		if s != p {
			kept = append(kept, s)
		}
	}
	if at < 0 || at > len(kept) {
		at = len(kept)
	}
	ordered := append(append(append([]*draftPage{}, kept[:at]...), p), kept[at:]...)
	p.Parent = parent
	for i, s := range ordered {
		s.Position = i
	}
}

// descendants lists id and every page below it.
func (d *draft) descendants(id string) []string {
	out := []string{id}
	for i := 0; i < len(out); i++ {
		for _, p := range d.pages {
			if p.Parent == out[i] {
				out = append(out, p.ID)
			}
		}
	}
	return out
}

// uniqueSlug returns slug, or slug-2, slug-3... so that no other child of
// parent than p has it: paths stay unique in a revision.
func (d *draft) uniqueSlug(p *draftPage, parent, slug string) string {
	taken := map[string]bool{}
	for _, s := range d.children(parent) {
		if s != p {
			taken[s.Slug] = true
		}
	}
	if !taken[slug] {
		return slug
	}
	for i := 2; ; i++ {
		candidate := slug + "-" + strconv.Itoa(i)
		if !taken[candidate] {
			return candidate
		}
	}
}

// pageChunk keeps bulk inserts under every database's parameter limit.
const pageChunk = 400

// MaxPagesPerRevision is the most pages a revision may hold. It bounds the
// answer to a page tree (Revision.pages { pages { … } }) in the GraphQL cost
// however deep the query nests.
const MaxPagesPerRevision = 10_000

// pagesField names, by kind of revision, the input that brought its pages,
// for the error when a revision would hold too many.
var pagesField = map[revision.Type]string{
	revision.TypeEdits:  "changes",
	revision.TypeImport: "url",
	revision.TypeMerge:  "id",
	revision.TypeUpdate: "id",
}

// write stores the draft as a new revision of spaceID in tx: the revision,
// its page and file rows, and bodies not stored yet. Every new revision is
// written here, so here is where MaxPagesPerRevision holds.
func (d *draft) write(ctx context.Context, tx *ent.Client, dialect, spaceID string, typ revision.Type, parents []string, createdBy string) (*ent.Revision, error) {
	if n := d.pageCount(); n > MaxPagesPerRevision {
		field, ok := pagesField[typ]
		if !ok {
			field = "pages"
		}
		return nil, apperr.InvalidField(field, "the content would hold %d pages, more than the limit of %d a revision", n, MaxPagesPerRevision)
	}
	create := tx.Revision.Create().SetSpaceID(spaceID).SetType(typ).SetParents(parents).SetCreatedBy(createdBy)
	if d.changeRequest != "" {
		create.SetChangeRequestID(d.changeRequest)
	}
	rev, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	if len(d.bodies) > 0 {
		hashes := make([]string, 0, len(d.bodies))
		for h := range d.bodies {
			hashes = append(hashes, h)
		}
		sort.Strings(hashes)
		if err := d.checkBodies(hashes); err != nil {
			return nil, err
		}
		for start := 0; start < len(hashes); start += pageChunk {
			var creates []*ent.PageContentCreate
			for _, h := range hashes[start:min(len(hashes), start+pageChunk)] {
				creates = append(creates, tx.PageContent.Create().SetID(h).SetMarkdown(d.bodies[h]))
			}
			if err := tx.PageContent.CreateBulk(creates...).OnConflict().DoNothing().Exec(ctx); err != nil && !isNoRows(err) {
				return nil, err
			}
		}
	}
	ids, err := d.copyUnchanged(ctx, tx, dialect, rev.ID)
	if err != nil {
		return nil, err
	}
	for start := 0; start < len(ids); start += pageChunk {
		var creates []*ent.PageCreate
		for _, id := range ids[start:min(len(ids), start+pageChunk)] {
			p := d.pages[id]
			creates = append(creates, tx.Page.Create().SetRevisionID(rev.ID).SetPageID(p.ID).SetParentPageID(p.Parent).
				SetPosition(p.Position).SetKind(p.Kind).SetTitle(p.Title).SetEmoji(p.Emoji).SetSlug(p.Slug).
				SetDescription(p.Description).SetHidden(p.Hidden).SetHref(p.Href).SetContentHash(p.Hash).
				SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt))
		}
		if err := tx.Page.CreateBulk(creates...).Exec(ctx); err != nil {
			return nil, entError(err)
		}
	}
	for start := 0; start < len(d.files); start += pageChunk {
		var creates []*ent.FileCreate
		for _, f := range d.files[start:min(len(d.files), start+pageChunk)] {
			creates = append(creates, tx.File.Create().SetRevisionID(rev.ID).SetFileID(f.ID).SetName(f.Name).
				SetContentType(f.ContentType).SetSize(f.Size).SetBlobKey(f.BlobKey).SetNillableWidth(f.Width).
				SetNillableHeight(f.Height).SetCreatedAt(f.CreatedAt))
		}
		if err := tx.File.CreateBulk(creates...).Exec(ctx); err != nil {
			return nil, entError(err)
		}
	}
	return rev, nil
}

// checkBodies holds every new body to the markdown engine's bounds: all
// writes of page text (edits, merges, imports) store it here. Edits check
// their markdown earlier, naming the change; this catches the rest.
func (d *draft) checkBodies(hashes []string) error {
	for _, h := range hashes {
		if err := markdown.Check(d.bodies[h]); err != nil {
			title := ""
			for _, p := range d.pages {
				if p.Hash == h {
					title = p.Title
					break
				}
			}
			return apperr.InvalidField("markdown", "page %q %s", title, err.Error())
		}
	}
	return nil
}

// copyUnchanged copies the pages still equal to the source revision's
// inside the database when they are the majority (always for a partial
// draft, which holds no others), and returns the ids of the pages left to
// insert (sorted).
func (d *draft) copyUnchanged(ctx context.Context, tx *ent.Client, dialect, revID string) ([]string, error) {
	var changed, exclude []string
	for id, p := range d.pages {
		if sp, ok := d.sourcePages[id]; !ok || sp != *p {
			changed = append(changed, id)
			if ok {
				exclude = append(exclude, id)
			}
		}
	}
	for id := range d.sourcePages {
		if _, ok := d.pages[id]; !ok {
			exclude = append(exclude, id)
		}
	}
	sort.Strings(changed)
	if !d.partial && (d.source == "" || len(d.pages)-len(changed) <= len(changed) || len(exclude) > maxExcluded) {
		all := make([]string, 0, len(d.pages))
		for id := range d.pages {
			all = append(all, id)
		}
		sort.Strings(all)
		return all, nil
	}
	sort.Strings(exclude)
	q, args := db.CopyPages(dialect, revID, d.source, exclude)
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return nil, err
	}
	return changed, nil
}

// maxExcluded keeps the copy statement's parameters well under every
// database's limit; larger changes are written row by row.
const maxExcluded = 2000

// touch marks a page as changed now.
func (p *draftPage) touch() { p.UpdatedAt = clock.Now() }
