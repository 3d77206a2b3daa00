package rest

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
)

// pageLayout is the layout every page reports: Folio keeps no per-page
// layout yet, so pages show everything.
var pageLayout = map[string]any{
	"width": "default", "cover": false, "coverSize": "hero", "title": true, "description": true,
	"tableOfContents": true, "outline": true, "pagination": true, "metadata": true,
}

// presentPage is GitBook's RevisionPage without a body; subpages nest.
func (a *API) presentPage(p *model.Page) map[string]any {
	out := map[string]any{
		"id":        p.PageID,
		"title":     p.Title,
		"type":      p.Kind.String(),
		"createdAt": timestamp(p.CreatedAt),
		"updatedAt": timestamp(p.UpdatedAt),
		"hidden":    p.Hidden,
	}
	if p.Emoji != "" {
		out["emoji"] = p.Emoji
	}
	switch {
	case p.IsLink():
		out["kind"] = "link"
		out["href"] = p.Href
		out["target"] = map[string]any{"kind": model.LinkURL, "url": p.Href}
		return out
	case p.IsGroup():
		out["kind"] = "group"
	default:
		out["kind"] = "sheet"
		out["urls"] = map[string]any{"app": a.res.PageAppURL(p)}
		out["layout"] = pageLayout
		out["description"] = p.Description
	}
	out["slug"] = p.Slug
	out["path"] = p.Tree.Path(p.Page)
	out["pages"] = a.presentPageTree(a.res.Subpages(p))
	return out
}

func (a *API) presentPageTree(pages []*model.Page) []map[string]any {
	out := make([]map[string]any, len(pages))
	for i, p := range pages {
		out[i] = a.presentPage(p)
	}
	return out
}

// presentPageWithBody is a page with its body as markdown or as a
// structured document.
func (a *API) presentPageWithBody(ctx context.Context, p *model.Page, format string) (any, error) {
	out := a.presentPage(p)
	if !p.IsDocument() {
		return out, nil
	}
	if format == formatMarkdown {
		md, err := a.res.PageMarkdown(ctx, p)
		if err != nil {
			return nil, err
		}
		out["markdown"] = md
		return out, nil
	}
	doc, err := a.res.PageDocument(ctx, p)
	if err != nil {
		return nil, err
	}
	out["document"] = doc
	return out, nil
}

// presentFile is GitBook's RevisionFile.
func (a *API) presentFile(f *ent.File) map[string]any {
	out := map[string]any{
		"id":          f.FileID,
		"name":        f.Name,
		"contentType": f.ContentType,
		"downloadURL": a.res.FileDownloadURL(f),
		"size":        f.Size,
	}
	if f.Width != nil && f.Height != nil {
		out["dimensions"] = map[string]any{"width": *f.Width, "height": *f.Height}
	}
	return out
}

// presentRevision is GitBook's Revision: pages as a tree, files, and for a
// merge the change request it came from.
func (a *API) presentRevision(ctx context.Context, rev *ent.Revision) (any, error) {
	pages, err := a.res.RevisionPages(ctx, rev)
	if err != nil {
		return nil, err
	}
	files, err := a.res.AllRevisionFiles(ctx, rev)
	if err != nil {
		return nil, err
	}
	presented := make([]map[string]any, len(files))
	for i, f := range files {
		presented[i] = a.presentFile(f)
	}
	out := map[string]any{
		"object":           "revision",
		"id":               rev.ID,
		"type":             rev.Type.String(),
		"parents":          rev.Parents,
		"pages":            a.presentPageTree(pages),
		"files":            presented,
		"reusableContents": []any{},
		"createdAt":        timestamp(rev.CreatedAt),
		"urls":             map[string]any{"app": a.res.RevisionAppURL(rev)},
	}
	if rev.Parents == nil {
		out["parents"] = []string{}
	}
	if g := rev.Git; g != nil {
		git := map[string]any{"oid": g.OID, "message": g.Message, "ref": g.Ref, "createdByGitBook": g.CreatedByGitBook}
		if g.URL != "" {
			git["url"] = g.URL
		}
		out["git"] = git
	}
	cr, err := a.res.MergedFrom(ctx, rev)
	if err != nil || cr == nil {
		return out, err
	}
	if out["mergedFrom"], err = a.presentChangeRequest(ctx, cr); err != nil {
		return nil, err
	}
	return out, nil
}
