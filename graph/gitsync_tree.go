package graph

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	entschema "github.com/folio/folio/ent/schema"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/gitsync"
	"github.com/folio/folio/internal/ids"
)

// A revision as a Git tree and back (internal/gitsync holds the layout).

// revisionTree is revision revID as a gitsync.Tree: pages with their
// bodies, files with their bytes (at most lim.MaxBytes together).
func (r *Resolver) revisionTree(ctx context.Context, revID string, lim gitsync.Limits) (*gitsync.Tree, map[*gitsync.Page]string, error) {
	l := loader.For(ctx)
	filesThunk := l.RevisionFiles.Load(ctx, revID)
	t, err := l.RevisionTree.Load(ctx, revID)()
	if err != nil {
		return nil, nil, err
	}
	files, err := filesThunk()
	if err != nil {
		return nil, nil, err
	}
	var hashes []string
	for _, p := range t.Pages {
		if p.ContentHash != "" {
			hashes = append(hashes, p.ContentHash)
		}
	}
	bodies := map[string]string{}
	if len(hashes) > 0 {
		values, errs := l.PageMarkdown.LoadMany(ctx, hashes)()
		for i, h := range hashes {
			if errs != nil && errs[i] != nil {
				return nil, nil, errs[i]
			}
			bodies[h] = values[i]
		}
	}
	children := map[string][]*ent.Page{}
	for _, p := range t.Pages {
		children[p.ParentPageID] = append(children[p.ParentPageID], p)
	}
	ids := map[*gitsync.Page]string{}
	var build func(parent string) []*gitsync.Page
	build = func(parent string) []*gitsync.Page {
		ps := children[parent]
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].Position != ps[j].Position {
				return ps[i].Position < ps[j].Position
			}
			return ps[i].PageID < ps[j].PageID
		})
		out := make([]*gitsync.Page, 0, len(ps))
		for _, p := range ps {
			gp := &gitsync.Page{Kind: string(p.Kind), Title: p.Title, Emoji: p.Emoji, Description: p.Description,
				Slug: p.Slug, Href: p.Href, Hidden: p.Hidden, Markdown: bodies[p.ContentHash]}
			gp.Children = build(p.PageID)
			ids[gp] = p.PageID
			out = append(out, gp)
		}
		return out
	}
	tree := &gitsync.Tree{Pages: build("")}
	var total int64
	for _, f := range files {
		total += f.Size
		if total > lim.MaxBytes {
			return nil, nil, fromGit(&gitsync.LimitError{Bound: "bytes", Message: fmt.Sprintf("the space's files hold more than the %d MB a Git sync may write", lim.MaxBytes>>20)})
		}
		data, err := r.Blobs.Get(ctx, f.BlobKey)
		if err != nil {
			return nil, nil, err
		}
		tree.Files = append(tree.Files, &gitsync.File{Ref: f.FileID, Name: f.Name, ContentType: f.ContentType, Data: data})
	}
	return tree, ids, nil
}

// syncEntries are the page files of an encoded tree, for the next import
// to recognise its pages by.
func syncEntries(files map[string][]byte, pageIDs map[*gitsync.Page]string, pages []*gitsync.Page) []entschema.GitSyncEntry {
	var out []entschema.GitSyncEntry
	var walk func([]*gitsync.Page)
	walk = func(ps []*gitsync.Page) {
		for _, p := range ps {
			if p.Path != "" {
				out = append(out, entschema.GitSyncEntry{Path: p.Path, PageID: pageIDs[p], OID: blobOID(files[p.Path])})
			}
			walk(p.Children)
		}
	}
	walk(pages)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// blobOID is the object id Git gives a file's bytes.
func blobOID(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}

// importedDraft turns an imported tree into a draft over base: each page
// keeps the id of the page it was, found by its file in the last sync, by
// an unchanged blob that moved (a renamed file: the page moves, and a
// published page gets its redirect as a merge's would), or by its path in
// base; the others are new. Files keep the
// ids of base's files with the same bytes and name.
func (r *Resolver) importedDraft(ctx context.Context, base string, tree *gitsync.Tree, snap *gitsync.Snapshot, last []entschema.GitSyncEntry) (*draft, []entschema.GitSyncEntry, error) {
	d, err := newDraft(ctx, base)
	if err != nil {
		return nil, nil, err
	}
	basePages := d.pages
	d.pages = make(map[string]*draftPage, len(basePages))
	baseFiles := d.files
	d.files = nil

	byPath := map[string]string{}
	for _, p := range basePages {
		byPath[draftPath(basePages, p)] = p.ID
	}
	lastByPath := map[string]entschema.GitSyncEntry{}
	lastByOID := map[string][]entschema.GitSyncEntry{}
	for _, e := range last {
		lastByPath[e.Path] = e
		lastByOID[e.OID] = append(lastByOID[e.OID], e)
	}
	used := map[string]bool{}
	free := func(id string) bool { return id != "" && !used[id] }
	pick := func(gp *gitsync.Page, path string) string {
		if gp.Path != "" {
			if e, ok := lastByPath[gp.Path]; ok && free(e.PageID) {
				return e.PageID
			}
			if oid := snap.Blobs[gp.Path]; oid != "" {
				for _, e := range lastByOID[oid] {
					if _, still := snap.Files[e.Path]; !still && free(e.PageID) {
						return e.PageID
					}
				}
			}
		}
		if id := byPath[path]; free(id) {
			return id
		}
		return ids.New()
	}

	// Files: the same bytes and name keep their id (and blob).
	refs := map[string]string{}
	for _, f := range tree.Files {
		key, err := r.Blobs.Put(ctx, f.Data, f.ContentType)
		if err != nil {
			return nil, nil, err
		}
		id := ""
		for _, bf := range baseFiles {
			if bf.BlobKey == key && bf.Name == f.Name && !used[bf.ID] {
				id = bf.ID
				used[id] = true
				d.files = append(d.files, bf)
				break
			}
		}
		if id == "" {
			id = ids.New()
			d.files = append(d.files, &draftFile{ID: id, Name: f.Name, ContentType: f.ContentType, BlobKey: key, Size: int64(len(f.Data)), CreatedAt: clock.Now()})
		}
		refs["/files/"+f.Ref] = "/files/" + id
	}
	// Longest first: a ref that begins another (a.png, a.png.png) must
	// not take its place.
	olds := make([]string, 0, len(refs))
	for k := range refs {
		olds = append(olds, k)
	}
	sort.Slice(olds, func(i, j int) bool {
		return len(olds[i]) > len(olds[j]) || len(olds[i]) == len(olds[j]) && olds[i] < olds[j]
	})
	pairs := make([]string, 0, 2*len(olds))
	for _, k := range olds {
		pairs = append(pairs, k, refs[k])
	}
	replacer := strings.NewReplacer(pairs...)

	var entries []entschema.GitSyncEntry
	slugs := map[string]map[string]bool{}
	now := clock.Now()
	var add func(parent, parentPath string, ps []*gitsync.Page)
	add = func(parent, parentPath string, ps []*gitsync.Page) {
		for i, gp := range ps {
			path := strings.TrimPrefix(parentPath+"/"+gp.Slug, "/")
			id := pick(gp, path)
			used[id] = true
			p := &draftPage{ID: id, Parent: parent, Position: i, Kind: pageKind(gp.Kind), Title: truncate(gp.Title, 256),
				Emoji: gp.Emoji, Slug: gp.Slug, Description: truncate(gp.Description, 1000), Href: gp.Href, Hidden: gp.Hidden,
				CreatedAt: now, UpdatedAt: now}
			if p.Title == "" {
				p.Title = "Untitled"
			}
			d.setBody(p, replacer.Replace(gp.Markdown))
			if old, ok := basePages[id]; ok {
				p.CreatedAt = old.CreatedAt
				if same := *old; same.Parent == p.Parent && same.Position == p.Position {
					same.UpdatedAt = p.UpdatedAt
					if same == *p {
						p.UpdatedAt = old.UpdatedAt
					}
				}
			}
			d.pages[id] = p
			// Unique among siblings (the layout keeps them so; a repository
			// written by hand may not), without a scan of the draft per page.
			if slugs[parent] == nil {
				slugs[parent] = map[string]bool{}
			}
			for base, n := p.Slug, 2; slugs[parent][p.Slug]; n++ {
				p.Slug = base + "-" + strconv.Itoa(n)
			}
			slugs[parent][p.Slug] = true
			if gp.Path != "" {
				entries = append(entries, entschema.GitSyncEntry{Path: gp.Path, PageID: id, OID: snap.Blobs[gp.Path]})
			}
			add(id, path, gp.Children)
		}
	}
	add("", "", tree.Pages)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return d, entries, nil
}

// draftPath is a page's path: its ancestors' slugs and its own.
func draftPath(pages map[string]*draftPage, p *draftPage) string {
	parts := []string{p.Slug}
	for seen := 0; p.Parent != "" && seen < MaxPagesPerRevision; seen++ {
		parent, ok := pages[p.Parent]
		if !ok {
			break
		}
		parts = append(parts, parent.Slug)
		p = parent
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

func pageKind(k string) page.Kind {
	switch k {
	case "group":
		return page.KindGroup
	case "link":
		return page.KindLink
	}
	return page.KindDocument
}

// markdownLink is a link or image target in markdown: ](target) or
// ](target "title").
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)`)

// linkRepoFiles points relative links to files of the repository that are
// neither pages nor assets (source code, examples) at the repository's
// tree (repoTreeURL): in Folio they would lead nowhere.
func linkRepoFiles(pages []*gitsync.Page, files map[string][]byte, treeURL, dir string) {
	prefix := strings.TrimSuffix(treeURL, "/") + "/"
	for _, p := range pages {
		if p.Path != "" {
			base := path.Dir(p.Path)
			p.Markdown = markdownLink.ReplaceAllStringFunc(p.Markdown, func(m string) string {
				target := m[2:]
				file, anchor, _ := strings.Cut(target, "#")
				if file == "" || strings.HasPrefix(file, "/") || strings.Contains(file, ":") || strings.HasSuffix(file, ".md") {
					return m
				}
				if unescaped, err := url.PathUnescape(file); err == nil {
					file = unescaped
				}
				resolved := path.Join(base, file)
				if _, ok := files[resolved]; !ok || strings.HasPrefix(resolved, ".gitbook/") {
					return m
				}
				out := "](" + prefix + (&url.URL{Path: path.Join(dir, resolved)}).EscapedPath()
				if anchor != "" {
					out += "#" + anchor
				}
				return out
			})
		}
		linkRepoFiles(p.Children, files, treeURL, dir)
	}
}
