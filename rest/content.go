package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/blob"
)

// Area `content`: revisions, pages and files of a space or of a change
// request, and direct edits of live spaces.
func (a *API) contentRoutes(r chi.Router) {
	space := func(r *http.Request) (*ent.Revision, error) {
		return a.res.SpaceRevision(r.Context(), chi.URLParam(r, "spaceId"))
	}
	changeRequest := func(r *http.Request) (*ent.Revision, error) {
		return a.res.ChangeRequestRevision(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"))
	}
	for prefix, rev := range map[string]revisionOf{
		"/spaces/{spaceId}": space,
		"/spaces/{spaceId}/change-requests/{changeRequestId}": changeRequest,
	} {
		r.Method("GET", prefix+"/content", a.getRevision(rev))
		r.Method("GET", prefix+"/content/pages", a.listPages(rev))
		r.Method("GET", prefix+"/content/page/{pageId}", a.getPage(rev))
		r.Method("GET", prefix+"/content/files", a.listFiles(rev))
		r.Method("GET", prefix+"/content/files/{fileId}", a.getFile(rev))
		r.Method("GET", prefix+"/content/path/*", a.getPageByPath(rev))
	}
	// Any revision of the space by id: current, earlier or a change request's.
	byID := func(r *http.Request) (*ent.Revision, error) {
		return a.res.SpaceRevisionByID(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "revisionId"))
	}
	const revisions = "/spaces/{spaceId}/revisions/{revisionId}"
	r.Method("GET", revisions, a.getRevision(byID))
	r.Method("GET", revisions+"/pages", a.listPages(byID))
	r.Method("GET", revisions+"/page/{pageId}", a.getPage(byID))
	r.Method("GET", revisions+"/files", a.listFiles(byID))
	r.Method("GET", revisions+"/files/{fileId}", a.getFile(byID))
	r.Method("GET", revisions+"/path/*", a.getPageByPath(byID))
	r.Method("POST", "/spaces/{spaceId}/content", handler(a.updateSpaceContent))
}

// revisionOf reads the revision a content path names: a space's current
// one or a change request's.
type revisionOf func(*http.Request) (*ent.Revision, error)

// fileDownloads serves file bytes at the downloadURL of files; the path
// holds the bytes' SHA-256, so no token is needed (as with GitBook's
// signed file URLs).
func (a *API) fileDownloads(r chi.Router) {
	r.Method("GET", "/files/{key}/{name}", handler(func(w http.ResponseWriter, r *http.Request) error {
		key := chi.URLParam(r, "key")
		f, err := a.res.FileByBlobKey(r.Context(), key)
		if err != nil {
			return err
		}
		body, err := a.res.Blobs.Open(r.Context(), key)
		if errors.Is(err, blob.ErrNotFound) {
			return apperr.NotFoundf("file not found")
		}
		if err != nil {
			return err
		}
		defer body.Close()
		inertFile(w, f.ContentType, f.Name)
		w.Header().Set("Content-Length", strconv.FormatInt(f.Size, 10))
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		_, _ = io.Copy(w, body)
		return nil
	}))
}

// contentQuery checks the metadata and computed flags GitBook accepts.
// Folio keeps no git metadata and no computed content, so they change
// nothing, but they must be booleans.
func contentQuery(r *http.Request) error {
	for _, name := range []string{"metadata", "computed"} {
		if v := queryString(r, name); v != nil {
			if _, err := strconv.ParseBool(*v); err != nil {
				return apperr.InvalidField(name, "must be true or false")
			}
		}
	}
	return nil
}

// contentRevision checks the content query, then reads the revision.
func contentRevision(r *http.Request, rev revisionOf) (*ent.Revision, error) {
	if err := contentQuery(r); err != nil {
		return nil, err
	}
	return rev(r)
}

func (a *API) getRevision(rev revisionOf) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		rv, err := contentRevision(r, rev)
		return writeOne(w, r, http.StatusOK, rv, err, a.presentRevision, nil)
	}
}

func (a *API) listPages(rev revisionOf) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		rv, err := contentRevision(r, rev)
		if err != nil {
			return err
		}
		pages, err := a.res.RevisionPages(r.Context(), rv)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, map[string]any{"pages": a.presentPageTree(pages)})
	}
}

// The ?format= of a page or a comment: its body as a structured document or
// as markdown.
const (
	formatDocument = "document"
	formatMarkdown = "markdown"
)

func (a *API) getPage(rev revisionOf) handler {
	return a.onePage(rev, func(r *http.Request, rv *ent.Revision) (*model.Page, error) {
		return a.res.RevisionPage(r.Context(), rv, chi.URLParam(r, "pageId"))
	})
}

// getPageByPath finds a page by the rest of the URL: a/b or a%2Fb (chi
// keeps the escaped form when the path holds %2F; the resolver unescapes).
func (a *API) getPageByPath(rev revisionOf) handler {
	return a.onePage(rev, func(r *http.Request, rv *ent.Revision) (*model.Page, error) {
		return a.res.RevisionPageByPath(r.Context(), rv, chi.URLParam(r, "*"))
	})
}

// bodyFormat is a request's ?format= (a body as a structured document or
// as markdown), def when absent: pages default to document, comments to
// markdown.
func bodyFormat(r *http.Request, def string) (string, error) {
	v := queryString(r, "format")
	if v == nil {
		return def, nil
	}
	if *v != formatDocument && *v != formatMarkdown {
		return "", apperr.InvalidField("format", "must be document or markdown")
	}
	return *v, nil
}

// onePage answers one page of a revision, its body in the ?format= asked.
func (a *API) onePage(rev revisionOf, find func(*http.Request, *ent.Revision) (*model.Page, error)) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := contentQuery(r); err != nil {
			return err
		}
		format, err := bodyFormat(r, formatDocument)
		if err != nil {
			return err
		}
		rv, err := rev(r)
		if err != nil {
			return err
		}
		p, err := find(r, rv)
		return writeOne(w, r, http.StatusOK, p, err, func(ctx context.Context, p *model.Page) (any, error) {
			return a.presentPageWithBody(ctx, p, format)
		}, nil)
	}
}

func (a *API) listFiles(rev revisionOf) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		args, err := listArgs(r)
		if err != nil {
			return err
		}
		rv, err := contentRevision(r, rev)
		if err != nil {
			return err
		}
		page, err := a.res.RevisionFiles(r.Context(), rv, args)
		return writeList(w, r, page, err, nil, func(_ context.Context, f *ent.File) (any, error) { return a.presentFile(f), nil })
	}
}

func (a *API) getFile(rev revisionOf) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		rv, err := contentRevision(r, rev)
		if err != nil {
			return err
		}
		f, err := a.res.RevisionFile(r.Context(), rv, chi.URLParam(r, "fileId"))
		return writeOne(w, r, http.StatusOK, f, err, func(_ context.Context, f *ent.File) (any, error) { return a.presentFile(f), nil }, nil)
	}
}

// updateSpaceContent (an extension of GitBook's API) applies a batch of
// changes directly to a space in live edit mode, with the body of
// updateChangeRequestContent; it answers the space.
func (a *API) updateSpaceContent(w http.ResponseWriter, r *http.Request) error {
	changes, err := decodeChanges(r)
	if err != nil {
		return err
	}
	s, err := a.res.UpdateSpaceContent(r.Context(), chi.URLParam(r, "spaceId"), changes)
	return writeOne(w, r, http.StatusOK, s, err, a.presentSpace, nil)
}
