package graph

import (
	"context"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Links of a revision: every link and image in its pages' markdown,
// resolved against the revision — pages by path (relative or from the
// root, with or without .md) or by /pages/<id>, files by /files/<id>,
// anchors against the target page's headings. External URLs are "ok"
// (Folio does not call them), URLs into Folio's own app are "in-app".

// linkSet is the resolved links of a revision.
type linkSet struct {
	usages []*model.LinkUsage
	total  int
	broken int
}

// revisionLinks resolves the links of the pages of rev (only pageID's when
// it is not "").
func (r *Resolver) revisionLinks(ctx context.Context, rev *ent.Revision, pageID string) (*linkSet, error) {
	l := loader.For(ctx)
	filesThunk := l.RevisionFiles.Load(ctx, rev.ID)
	t, err := l.RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	derived, err := revisionDerived(ctx, t)
	if err != nil {
		return nil, err
	}
	files, err := filesThunk()
	if err != nil {
		return nil, err
	}
	fileIDs := map[string]*ent.File{}
	for _, f := range files {
		fileIDs[f.FileID] = f
	}
	byPath := make(map[string]*ent.Page, len(t.Pages))
	for _, p := range t.Pages {
		byPath[t.Path(p)] = p
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(p *ent.Page) map[string]bool {
		if a, ok := anchors[p.PageID]; ok {
			return a
		}
		a := map[string]bool{}
		for _, id := range derived[p.ContentHash].Anchors {
			a[id] = true
		}
		anchors[p.PageID] = a
		return a
	}
	set := &linkSet{}
	byTarget := map[string]*model.LinkUsage{}
	add := func(target model.LinkTarget, p *ent.Page) {
		set.total++
		if target.Status == model.LinkBroken {
			set.broken++
		}
		key := target.Status + "\x00" + target.Kind + "\x00" + target.URL + "\x00" + target.PageID + "\x00" + target.FileID + "\x00" + target.Anchor
		u := byTarget[key]
		if u == nil {
			u = &model.LinkUsage{Target: target, Tree: t}
			byTarget[key] = u
			set.usages = append(set.usages, u)
		}
		if !containsPage(u.Locations, p) {
			u.Locations = append(u.Locations, p)
		}
	}
	var specs *specLinks // created at the first openapi block
	for _, p := range t.Pages {
		if pageID != "" && p.PageID != pageID {
			continue
		}
		if ctx.Err() != nil { // up to 10,000 pages of links: stop with the request
			return nil, context.Cause(ctx)
		}
		if p.ContentHash == "" {
			continue
		}
		for _, link := range derived[p.ContentHash].Links {
			add(r.resolveLink(link.Target, p, t, byPath, fileIDs, anchorsOf), p)
		}
		// API reference blocks: reported like links (openapi_blocks.go).
		for _, ref := range derived[p.ContentHash].Specs {
			if specs == nil {
				if specs, err = r.newSpecLinks(ctx, rev.SpaceID); err != nil {
					return nil, err
				}
			}
			target, err := specs.resolve(ctx, ref)
			if err != nil {
				return nil, err
			}
			add(target, p)
		}
	}
	return set, nil
}

func containsPage(ps []*ent.Page, p *ent.Page) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

// resolveLink classifies one link target found on page from.
func (r *Resolver) resolveLink(raw string, from *ent.Page, t *loader.Tree, byPath map[string]*ent.Page,
	fileIDs map[string]*ent.File, anchorsOf func(*ent.Page) map[string]bool) model.LinkTarget {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return model.LinkTarget{Status: model.LinkBroken, Kind: model.LinkURL, URL: raw}
	}
	if u.Scheme != "" || u.Host != "" {
		if rest, ok := strings.CutPrefix(raw, r.BaseURL+"/"); r.BaseURL != "" && ok {
			// A URL into Folio itself is not fetched: in-app when it is an
			// address Folio serves, broken when no route of Folio's answers
			// it (the old /o/, /c/ and /published/ addresses among them).
			status := model.LinkBroken
			if servedByFolio("/" + rest) {
				status = model.LinkInApp
			}
			return model.LinkTarget{Status: status, Kind: model.LinkURL, URL: raw}
		}
		return model.LinkTarget{Status: model.LinkOK, Kind: model.LinkURL, URL: raw}
	}
	anchor := u.Fragment
	p := u.Path
	// Same page: #anchor.
	if p == "" {
		if anchor != "" && !anchorsOf(from)[anchor] {
			return model.LinkTarget{Status: model.LinkBroken, Kind: model.LinkAnchor, URL: raw, PageID: from.PageID, Anchor: anchor}
		}
		return model.LinkTarget{Status: model.LinkOK, Kind: model.LinkAnchor, URL: raw, PageID: from.PageID, Anchor: anchor}
	}
	if id, ok := strings.CutPrefix(p, "/files/"); ok {
		id = strings.Trim(id, "/")
		if f := fileIDs[id]; f != nil {
			return model.LinkTarget{Status: model.LinkOK, Kind: model.LinkFile, URL: raw, FileID: id, File: f}
		}
		return model.LinkTarget{Status: model.LinkBroken, Kind: model.LinkFile, URL: raw, FileID: id}
	}
	var target *ent.Page
	if id, ok := strings.CutPrefix(p, "/pages/"); ok {
		target = t.ByID[strings.Trim(id, "/")]
	} else {
		resolved := p
		if !strings.HasPrefix(p, "/") {
			resolved = path.Join(path.Dir("/"+t.Path(from)), p)
		}
		resolved = strings.TrimSuffix(strings.TrimSuffix(strings.Trim(path.Clean(resolved), "/"), ".md"), "/README")
		target = byPath[resolved]
	}
	if target == nil {
		return model.LinkTarget{Status: model.LinkBroken, Kind: model.LinkPage, URL: raw}
	}
	if anchor != "" && !anchorsOf(target)[anchor] {
		return model.LinkTarget{Status: model.LinkBroken, Kind: model.LinkPage, URL: raw, PageID: target.PageID, Anchor: anchor}
	}
	return model.LinkTarget{Status: model.LinkOK, Kind: model.LinkPage, URL: raw, PageID: target.PageID, Anchor: anchor}
}

// Links lists the links of a space's current content (pageID: of one page),
// or of a change request's (crID), with status filter.
func (r *Resolver) Links(ctx context.Context, spaceID, crID, pageID string, status *string) (*model.LinksPage, error) {
	if status != nil && *status != model.LinkOK && *status != model.LinkBroken && *status != model.LinkInApp {
		return nil, apperr.InvalidField("status", "must be ok, broken or in-app")
	}
	s, _, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	revID := s.RevisionID
	if crID != "" {
		cr, err := r.FindChangeRequest(ctx, spaceID, crID)
		if err != nil {
			return nil, err
		}
		revID = cr.RevisionID
	}
	rev, err := loadRevision(ctx, revID)
	if err != nil {
		return nil, err
	}
	if pageID != "" {
		if _, err := r.RevisionPage(ctx, rev, pageID); err != nil {
			return nil, err
		}
	}
	set, err := r.revisionLinks(ctx, rev, pageID)
	if err != nil {
		return nil, err
	}
	out := &model.LinksPage{Total: set.total, Broken: set.broken}
	if crID != "" {
		// Broken links the change request introduces: broken here and not
		// broken (or absent) on the same page of the space.
		mainRev, err := loadRevision(ctx, s.RevisionID)
		if err != nil {
			return nil, err
		}
		mainSet, err := r.revisionLinks(ctx, mainRev, pageID)
		if err != nil {
			return nil, err
		}
		before := map[string]bool{}
		for _, u := range mainSet.usages {
			if u.Target.Status == model.LinkBroken {
				for _, p := range u.Locations {
					before[p.PageID+"\x00"+u.Target.URL] = true
				}
			}
		}
		for _, u := range set.usages {
			if u.Target.Status == model.LinkBroken {
				for _, p := range u.Locations {
					if !before[p.PageID+"\x00"+u.Target.URL] {
						out.BrokenInChange++
					}
				}
			}
		}
	}
	for _, u := range set.usages {
		if status == nil || u.Target.Status == *status {
			u.SpaceID = s.ID
			out.Items = append(out.Items, u)
		}
	}
	sort.SliceStable(out.Items, func(i, j int) bool { return out.Items[i].Target.URL < out.Items[j].Target.URL })
	return out, nil
}

// GraphQL's answer about links is bounded (the cost model counts on it:
// cost_caps.go), where REST pages through every item with limit and page:
// a revision's content may hold any number of distinct link targets, and a
// target may be linked from every page of it.
const (
	// MaxLinkItems is the most items (distinct targets) LinksResult holds.
	MaxLinkItems = paging.MaxLimit
	// MaxLinkPagesPerItem is the most pages LinkUsage.pages holds.
	MaxLinkPagesPerItem = 100
)

// CappedLinks is Links as GraphQL answers it: the first MaxLinkItems items,
// More counting those left out.
func (r *Resolver) CappedLinks(ctx context.Context, spaceID, crID, pageID string, status *string) (*model.LinksPage, error) {
	p, err := r.Links(ctx, spaceID, crID, pageID, status)
	if err != nil {
		return nil, err
	}
	if n := len(p.Items); n > MaxLinkItems {
		p.More, p.Items = n-MaxLinkItems, p.Items[:MaxLinkItems]
	}
	return p, nil
}

// LinkUsagePages are the first MaxLinkPagesPerItem pages that link to a
// target (LinkUsageMorePages counts the others).
func (r *Resolver) LinkUsagePages(u *model.LinkUsage) []*model.Page {
	locs := u.Locations[:min(len(u.Locations), MaxLinkPagesPerItem)]
	out := make([]*model.Page, len(locs))
	for i, p := range locs {
		out[i] = &model.Page{Page: p, Tree: u.Tree, SpaceID: u.SpaceID, InTree: true}
	}
	return out
}

// LinkUsageMorePages is how many pages linking to a target LinkUsagePages
// leaves out.
func (r *Resolver) LinkUsageMorePages(u *model.LinkUsage) int {
	return max(0, len(u.Locations)-MaxLinkPagesPerItem)
}

// FileBacklinks lists the pages of a revision that link to a file.
func (r *Resolver) FileBacklinks(ctx context.Context, spaceID, crID, fileID string) ([]*model.Page, error) {
	var rev *ent.Revision
	var err error
	if crID != "" {
		rev, err = r.ChangeRequestRevision(ctx, spaceID, crID)
	} else {
		rev, err = r.SpaceRevision(ctx, spaceID)
	}
	if err != nil {
		return nil, err
	}
	if _, err := r.RevisionFile(ctx, rev, fileID); err != nil {
		return nil, err
	}
	set, err := r.revisionLinks(ctx, rev, "")
	if err != nil {
		return nil, err
	}
	t, err := loader.For(ctx).RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return nil, err
	}
	var out []*model.Page
	for _, u := range set.usages {
		if u.Target.Kind == model.LinkFile && u.Target.FileID == fileID {
			for _, p := range u.Locations {
				out = append(out, &model.Page{Page: p, Tree: t, SpaceID: spaceID})
			}
		}
	}
	return out, nil
}

// RankedPage pages through a list kept in memory in its own order.
func RankedPage[T any](args paging.Args, items []T) paging.Page[T] {
	p, _ := sliceRanked(args, items)
	return p
}

// revisionDerived loads the derived data of every body of a revision in one
// batch, by content hash ("" included: an empty body).
func revisionDerived(ctx context.Context, t *loader.Tree) (map[string]*loader.Derived, error) {
	hashes := []string{""}
	seen := map[string]bool{"": true}
	for _, p := range t.Pages {
		if !seen[p.ContentHash] {
			seen[p.ContentHash] = true
			hashes = append(hashes, p.ContentHash)
		}
	}
	values, errs := loader.For(ctx).PageDerived.LoadMany(ctx, hashes)()
	out := make(map[string]*loader.Derived, len(hashes))
	for i, h := range hashes {
		if errs != nil && errs[i] != nil {
			return nil, errs[i]
		}
		out[h] = values[i]
	}
	return out, nil
}

// folioPrefixes are the addresses Folio serves that content may link to:
// the REST API (where urls.app and urls.location point), published sites
// (urls.published), GraphQL and file downloads.
var folioPrefixes = []string{"/v1/", "/s/", "/files/", "/graphql"}

// servedByFolio tells whether a path (with any query or fragment) under
// FOLIO_BASE_URL is one of Folio's addresses.
func servedByFolio(p string) bool {
	for _, prefix := range folioPrefixes {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
