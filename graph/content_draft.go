package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"time"

	entdialect "entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/pagecontent"
	"github.com/folio/folio/ent/revision"
	entschema "github.com/folio/folio/ent/schema"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/ids"
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
	// sourceBuckets is the bucket count of source (0: no source), and
	// sourceFiles the ids of its files, which the write copies in the
	// database.
	sourceBuckets int
	sourceFiles   map[string]bool
	// changeRequest is the change request whose edits or import the draft
	// holds; its revision records it (contributors).
	changeRequest string
	// git is the commit a Git import's draft was read from.
	git *entschema.RevisionGit
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
	revThunk := l.RevisionByID.Load(ctx, revID)
	t, err := l.RevisionTree.Load(ctx, revID)()
	if err != nil {
		return nil, err
	}
	files, err := filesThunk()
	if err != nil {
		return nil, err
	}
	rev, err := revThunk()
	if err != nil {
		return nil, err
	}
	d := &draft{pages: make(map[string]*draftPage, len(t.Pages)), bodies: map[string]string{},
		source: revID, sourcePages: make(map[string]draftPage, len(t.Pages)), sourceBuckets: rev.Buckets}
	for _, p := range t.Pages {
		d.pages[p.PageID] = draftPageOf(p)
		d.sourcePages[p.PageID] = *d.pages[p.PageID]
	}
	d.setSourceFiles(files)
	return d, nil
}

// setSourceFiles starts the draft's files from its source's.
func (d *draft) setSourceFiles(files []*ent.File) {
	d.files = draftFilesOf(files)
	d.sourceFiles = make(map[string]bool, len(files))
	for _, f := range files {
		d.sourceFiles[f.FileID] = true
	}
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
	return freeSlug(taken, slug)
}

// freeSlug returns slug, or slug-2, slug-3... the first that taken does not
// hold.
func freeSlug(taken map[string]bool, slug string) string {
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
// its page chunks and file rows, and bodies not stored yet. Every new
// revision is written here, so here is where MaxPagesPerRevision holds.
// Pages go into chunks (internal/db/chunks.go): the revision names its
// source's chunks for the buckets the draft leaves as they were and writes
// new chunks for the others, copying their unchanged rows in the database;
// when the bucket count changes (the pages doubled or halved) every chunk
// is written anew.
func (d *draft) write(ctx context.Context, tx *ent.Client, dialect, spaceID string, typ revision.Type, parents []string, createdBy string) (*ent.Revision, error) {
	n := d.pageCount()
	if n > MaxPagesPerRevision {
		field, ok := pagesField[typ]
		if !ok {
			field = "pages"
		}
		return nil, apperr.InvalidField(field, "the content would hold %d pages, more than the limit of %d a revision", n, MaxPagesPerRevision)
	}
	buckets := db.Buckets(n, d.sourceBuckets)
	changed, exclude := d.changes()
	whole := d.source == "" || buckets != d.sourceBuckets || len(exclude) > maxExcluded
	if whole && d.partial {
		if err := d.fill(ctx, tx); err != nil {
			return nil, err
		}
	}
	// A partial draft is a merge into a canonical ours that keeps every
	// group it did not read whole as it is (changedSides): canonical too.
	canonical := d.partial || isCanonical(d.pages)
	create := tx.Revision.Create().SetSpaceID(spaceID).SetType(typ).SetParents(parents).SetCreatedBy(createdBy).
		SetBuckets(buckets).SetCanonical(canonical).SetPageCount(n)
	if d.changeRequest != "" {
		create.SetChangeRequestID(d.changeRequest)
	}
	if d.git != nil {
		create.SetGit(d.git)
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
			// On PostgreSQL a body that is already stored is locked, not
			// skipped (an update to itself): the purge of orphaned bodies
			// locks the rows it deletes, so a body this draft takes up again
			// cannot vanish between this statement and the commit
			// (PurgeOrphanedContents). SQLite runs one writer at a time, so
			// the purge cannot run meanwhile: there a stored body is skipped,
			// not written again (an import of content already stored
			// rewrote every body).
			conflict := sql.DoNothing()
			if dialect == entdialect.Postgres {
				conflict = sql.ResolveWith(func(u *sql.UpdateSet) { u.SetIgnore(pagecontent.FieldID) })
			}
			if err := tx.PageContent.CreateBulk(creates...).OnConflict(sql.ConflictColumns(pagecontent.FieldID), conflict).
				Exec(ctx); err != nil && !isNoRows(err) {
				return nil, err
			}
		}
	}
	if whole {
		all := make([]string, 0, len(d.pages))
		for id := range d.pages {
			all = append(all, id)
		}
		sort.Strings(all)
		err = d.writeChunks(ctx, tx, rev.ID, buckets, all, nil)
	} else {
		err = d.writeChanged(ctx, tx, dialect, rev.ID, buckets, changed, exclude)
	}
	if err != nil {
		return nil, err
	}
	if err := d.writeFiles(ctx, tx, dialect, rev.ID); err != nil {
		return nil, err
	}
	return rev, nil
}

// changes lists (sorted) the pages of the draft that differ from the
// source's or that it adds, and the source's pages the new revision does
// not keep as they are (changed or deleted).
func (d *draft) changes() (changed, exclude []string) {
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
	sort.Strings(exclude)
	return changed, exclude
}

// fill reads into a partial draft the source's pages it does not hold,
// which stay as they are: the draft becomes whole.
func (d *draft) fill(ctx context.Context, tx *ent.Client) error {
	rows, err := loader.RevisionPages(ctx, tx, []string{d.source})
	if err != nil {
		return err
	}
	for _, p := range rows[d.source] {
		if _, read := d.sourcePages[p.PageID]; read {
			continue
		}
		dp := draftPageOf(p)
		d.pages[p.PageID] = dp
		d.sourcePages[p.PageID] = *dp
	}
	d.partial = false
	return nil
}

// isCanonical tells whether every sibling group has positions 0..n-1 and
// unique slugs.
func isCanonical(pages map[string]*draftPage) bool {
	type group struct {
		positions map[int]bool
		slugs     map[string]bool
		n         int
	}
	groups := map[string]*group{}
	for _, p := range pages {
		g := groups[p.Parent]
		if g == nil {
			g = &group{positions: map[int]bool{}, slugs: map[string]bool{}}
			groups[p.Parent] = g
		}
		if g.positions[p.Position] || g.slugs[p.Slug] {
			return false
		}
		g.positions[p.Position], g.slugs[p.Slug] = true, true
		g.n++
	}
	for _, g := range groups {
		for i := 0; i < g.n; i++ {
			if !g.positions[i] {
				return false
			}
		}
	}
	return true
}

// writeChunks inserts the pages pageIDs of the draft into new chunks of
// revision revID, one per bucket of those pages (chunks gives the chunk of a
// bucket already started, which it fills), and names the new chunks in the
// revision's map.
func (d *draft) writeChunks(ctx context.Context, tx *ent.Client, revID string, buckets int, pageIDs []string, chunks map[int]string) error {
	named := chunks != nil
	if chunks == nil {
		chunks = map[int]string{}
	}
	for start := 0; start < len(pageIDs); start += pageChunk {
		var creates []*ent.PageCreate
		for _, id := range pageIDs[start:min(len(pageIDs), start+pageChunk)] {
			p := d.pages[id]
			k := db.Bucket(id, buckets)
			chunk, ok := chunks[k]
			if !ok {
				chunk = ids.New()
				chunks[k] = chunk
			}
			creates = append(creates, tx.Page.Create().SetChunkID(chunk).SetPageID(p.ID).SetParentPageID(p.Parent).
				SetPosition(p.Position).SetKind(p.Kind).SetTitle(p.Title).SetEmoji(p.Emoji).SetSlug(p.Slug).
				SetDescription(p.Description).SetHidden(p.Hidden).SetHref(p.Href).SetContentHash(p.Hash).
				SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt))
		}
		if err := tx.Page.CreateBulk(creates...).Exec(ctx); err != nil {
			return entError(err)
		}
	}
	if named {
		return nil
	}
	return writeMap(ctx, tx, revID, chunks)
}

// writeMap names chunks (bucket → chunk) in revision revID's map.
func writeMap(ctx context.Context, tx *ent.Client, revID string, chunks map[int]string) error {
	keys := make([]int, 0, len(chunks))
	for k := range chunks {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for start := 0; start < len(keys); start += pageChunk {
		var creates []*ent.RevisionChunkCreate
		for _, k := range keys[start:min(len(keys), start+pageChunk)] {
			creates = append(creates, tx.RevisionChunk.Create().SetRevisionID(revID).SetBucket(k).SetChunkID(chunks[k]))
		}
		if err := tx.RevisionChunk.CreateBulk(creates...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// writeChanged writes a revision with the source's bucket count: the
// source's chunks for the buckets no change touches, and for each touched
// bucket a new chunk of the source's rows the draft keeps (copied in the
// database) and the draft's changed pages. A bucket left without pages
// names an empty chunk.
func (d *draft) writeChanged(ctx context.Context, tx *ent.Client, dialect, revID string, buckets int, changed, exclude []string) error {
	chunks := map[int]string{}
	for _, id := range append(append([]string{}, changed...), exclude...) {
		k := db.Bucket(id, buckets)
		if _, ok := chunks[k]; !ok {
			chunks[k] = ids.New()
		}
	}
	touched := make([]int, 0, len(chunks))
	for k := range chunks {
		touched = append(touched, k)
	}
	sort.Ints(touched)
	q, args := db.CopyMap(dialect, revID, d.source, touched)
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	if len(chunks) == 0 {
		return nil
	}
	q, args = db.CopyChunkRows(dialect, d.source, chunks, exclude)
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return err
	}
	if err := d.writeChunks(ctx, tx, revID, buckets, changed, chunks); err != nil {
		return err
	}
	return writeMap(ctx, tx, revID, chunks)
}

// writeFiles gives revision revID the draft's files: the source's it keeps
// are copied in the database, the others inserted.
func (d *draft) writeFiles(ctx context.Context, tx *ent.Client, dialect, revID string) error {
	var fresh []*draftFile
	kept := map[string]bool{}
	for _, f := range d.files {
		if d.sourceFiles[f.ID] {
			kept[f.ID] = true
		} else {
			fresh = append(fresh, f)
		}
	}
	if len(kept) > 0 {
		var dropped []string
		for id := range d.sourceFiles {
			if !kept[id] {
				dropped = append(dropped, id)
			}
		}
		q, args := db.CopyFiles(dialect, revID, d.source, dropped)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	for start := 0; start < len(fresh); start += pageChunk {
		var creates []*ent.FileCreate
		for _, f := range fresh[start:min(len(fresh), start+pageChunk)] {
			creates = append(creates, tx.File.Create().SetRevisionID(revID).SetFileID(f.ID).SetName(f.Name).
				SetContentType(f.ContentType).SetSize(f.Size).SetBlobKey(f.BlobKey).SetNillableWidth(f.Width).
				SetNillableHeight(f.Height).SetCreatedAt(f.CreatedAt))
		}
		if err := tx.File.CreateBulk(creates...).Exec(ctx); err != nil {
			return entError(err)
		}
	}
	return nil
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

// maxExcluded keeps the copy statement's parameters well under every
// database's limit; larger changes write every chunk anew.
const maxExcluded = 2000

// touch marks a page as changed now.
func (p *draftPage) touch() { p.UpdatedAt = clock.Now() }
