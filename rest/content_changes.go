package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
)

// Diffs of the area `content`: what a revision changed from its first
// parent, and what a change request changes from its merge base.
func (a *API) contentChangesRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/revisions/{revisionId}/changes", handler(a.getRevisionSemanticChanges))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/changes", handler(a.getChangeRequestChanges))
}

func (a *API) getRevisionSemanticChanges(w http.ResponseWriter, r *http.Request) error {
	if err := contentQuery(r); err != nil {
		return err
	}
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	c, err := a.res.RevisionSemanticChanges(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "revisionId"), limit)
	return writeOne(w, r, http.StatusOK, c, err, a.presentChanges, nil)
}

func (a *API) getChangeRequestChanges(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	c, err := a.res.ChangeRequestChanges(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), limit)
	return writeOne(w, r, http.StatusOK, c, err, a.presentChanges, nil)
}

// presentChanges is GitBook's RevisionSemanticChanges.
func (a *API) presentChanges(ctx context.Context, c *model.RevisionChanges) (any, error) {
	items, err := presentEach(ctx, c.Changes, a.presentChange)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"changes": items, "more": c.More}
	if c.MergedFrom != nil {
		if out["mergedFrom"], err = a.presentChangeRequest(ctx, c.MergedFrom); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// presentChange is one RevisionSemanticChange.
func (a *API) presentChange(ctx context.Context, c *model.RevisionChange) (any, error) {
	out := map[string]any{"type": c.Type}
	if c.File != nil {
		out["file"] = a.presentChangedFile(c.File)
		if c.Type == model.ChangeFileEdited {
			out["attributes"] = a.fileAttributes(c)
		}
		return out, nil
	}
	out["page"] = changedPage(c.Page)
	switch c.Type {
	case model.ChangePageMoved:
		parent := map[string]any{}
		if c.ParentBefore != nil {
			parent["before"] = changedPage(c.ParentBefore)
		}
		if c.ParentAfter != nil {
			parent["after"] = changedPage(c.ParentAfter)
		}
		out["parent"] = parent
	case model.ChangePageEdited:
		attrs, err := a.pageAttributes(ctx, c)
		if err != nil {
			return nil, err
		}
		out["attributes"] = attrs
	}
	return out, nil
}

// changedPage is GitBook's ChangedRevisionPage.
func changedPage(p *model.Page) map[string]any {
	return map[string]any{"id": p.PageID, "type": p.Kind.String(), "title": p.Title, "path": p.Tree.Path(p.Page)}
}

// presentChangedFile is GitBook's ChangedRevisionFile.
func (a *API) presentChangedFile(f *ent.File) map[string]any {
	return map[string]any{"id": f.FileID, "name": f.Name, "contentType": f.ContentType, "downloadURL": a.res.FileDownloadURL(f)}
}

func beforeAfter(before, after any) map[string]any {
	return map[string]any{"before": before, "after": after}
}

// pageAttributes are the before and after values of what an edit changed;
// a document's are its markdown.
func (a *API) pageAttributes(ctx context.Context, c *model.RevisionChange) (map[string]any, error) {
	b, p := c.Before, c.Page
	out := map[string]any{}
	for _, name := range c.Attributes {
		switch name {
		case model.AttrTitle:
			out[name] = beforeAfter(b.Title, p.Title)
		case model.AttrEmoji:
			out[name] = beforeAfter(b.Emoji, p.Emoji)
		case model.AttrDescription:
			out[name] = beforeAfter(b.Description, p.Description)
		case model.AttrSlug:
			out[name] = beforeAfter(b.Slug, p.Slug)
		case model.AttrType:
			out[name] = beforeAfter(b.Kind.String(), p.Kind.String())
		case model.AttrHidden:
			out[name] = beforeAfter(b.Hidden, p.Hidden)
		case model.AttrTarget:
			out[name] = beforeAfter(map[string]any{"kind": model.LinkURL, "url": b.Href}, map[string]any{"kind": model.LinkURL, "url": p.Href})
		case model.AttrDocument:
			before, err := a.res.PageMarkdown(ctx, b)
			if err != nil {
				return nil, err
			}
			after, err := a.res.PageMarkdown(ctx, p)
			if err != nil {
				return nil, err
			}
			out[name] = beforeAfter(before, after)
		}
	}
	return out, nil
}

// fileAttributes are the before and after values of a file's edit.
func (a *API) fileAttributes(c *model.RevisionChange) map[string]any {
	b, f := c.FileBefore, c.File
	out := map[string]any{}
	dims := func(f *ent.File) any {
		if f.Width == nil || f.Height == nil {
			return nil
		}
		return map[string]any{"width": *f.Width, "height": *f.Height}
	}
	for _, name := range c.Attributes {
		switch name {
		case model.AttrName:
			out[name] = beforeAfter(b.Name, f.Name)
		case model.AttrContentType:
			out[name] = beforeAfter(b.ContentType, f.ContentType)
		case model.AttrSize:
			out[name] = beforeAfter(b.Size, f.Size)
		case model.AttrDownloadURL:
			out[name] = beforeAfter(a.res.FileDownloadURL(b), a.res.FileDownloadURL(f))
		case model.AttrDimensions:
			out[name] = beforeAfter(dims(b), dims(f))
		}
	}
	return out
}
