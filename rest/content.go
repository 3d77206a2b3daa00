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
	for prefix, rev := range map[string]func(*http.Request) (*ent.Revision, error){
		"/spaces/{spaceId}": space,
		"/spaces/{spaceId}/change-requests/{changeRequestId}": changeRequest,
	} {
		r.Get(prefix+"/content", a.getRevision(rev))
		r.Get(prefix+"/content/pages", a.listPages(rev))
		r.Get(prefix+"/content/page/{pageId}", a.getPage(rev))
		r.Get(prefix+"/content/files", a.listFiles(rev))
		r.Get(prefix+"/content/files/{fileId}", a.getFile(rev))
	}
	r.Post("/spaces/{spaceId}/content", a.updateSpaceContent)
}

// fileDownloads serves file bytes at the downloadURL of files; the path
// holds the bytes' SHA-256, so no token is needed (as with GitBook's
// signed file URLs).
func (a *API) fileDownloads(r chi.Router) {
	r.Get("/files/{key}/{name}", func(w http.ResponseWriter, r *http.Request) {
		key := chi.URLParam(r, "key")
		f, err := a.res.FileByBlobKey(r.Context(), key)
		if err != nil {
			writeError(w, r, err)
			return
		}
		body, err := a.res.Blobs.Open(r.Context(), key)
		if errors.Is(err, blob.ErrNotFound) {
			writeError(w, r, apperr.NotFoundf("file not found"))
			return
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		defer body.Close()
		inertFile(w, f.ContentType, f.Name)
		w.Header().Set("Content-Length", strconv.FormatInt(f.Size, 10))
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		_, _ = io.Copy(w, body)
	})
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

func (a *API) getRevision(rev func(*http.Request) (*ent.Revision, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := contentQuery(r); err != nil {
			writeError(w, r, err)
			return
		}
		rv, err := rev(r)
		writeOne(w, r, http.StatusOK, rv, err, a.presentRevision, nil)
	}
}

func (a *API) listPages(rev func(*http.Request) (*ent.Revision, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := contentQuery(r); err != nil {
			writeError(w, r, err)
			return
		}
		rv, err := rev(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		pages, err := a.res.RevisionPages(r.Context(), rv)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"pages": a.presentPageTree(pages)})
	}
}

func (a *API) getPage(rev func(*http.Request) (*ent.Revision, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := contentQuery(r); err != nil {
			writeError(w, r, err)
			return
		}
		format := "document"
		if v := queryString(r, "format"); v != nil {
			if *v != "document" && *v != "markdown" {
				writeError(w, r, apperr.InvalidField("format", "must be document or markdown"))
				return
			}
			format = *v
		}
		rv, err := rev(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		p, err := a.res.RevisionPage(r.Context(), rv, chi.URLParam(r, "pageId"))
		writeOne(w, r, http.StatusOK, p, err, func(ctx context.Context, p *model.Page) (any, error) {
			return a.presentPageWithBody(ctx, p, format)
		}, nil)
	}
}

func (a *API) listFiles(rev func(*http.Request) (*ent.Revision, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		args, err := listArgs(r)
		if err == nil {
			err = contentQuery(r)
		}
		if err != nil {
			writeError(w, r, err)
			return
		}
		rv, err := rev(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		page, err := a.res.RevisionFiles(r.Context(), rv, args)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeList(w, r, page, func(_ context.Context, f *ent.File) (any, error) { return a.presentFile(f), nil })
	}
}

func (a *API) getFile(rev func(*http.Request) (*ent.Revision, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := contentQuery(r); err != nil {
			writeError(w, r, err)
			return
		}
		rv, err := rev(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		f, err := a.res.RevisionFile(r.Context(), rv, chi.URLParam(r, "fileId"))
		writeOne(w, r, http.StatusOK, f, err, func(_ context.Context, f *ent.File) (any, error) { return a.presentFile(f), nil }, nil)
	}
}

// updateSpaceContent (an extension of GitBook's API) applies a batch of
// changes directly to a space in live edit mode, with the body of
// updateChangeRequestContent; it answers the space.
func (a *API) updateSpaceContent(w http.ResponseWriter, r *http.Request) {
	changes, err := decodeChanges(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s, err := a.res.Mutation().UpdateSpaceContent(r.Context(), chi.URLParam(r, "spaceId"), changes)
	writeOne(w, r, http.StatusOK, s, err, a.presentSpace, nil)
}
