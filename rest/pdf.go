package rest

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/blob"
)

// Area `pdf`: a change request's content printed to PDF.
func (a *API) pdfRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/pdf", handler(a.changeRequestPDF))
	r.Method("GET", "/spaces/{spaceId}/pdf", handler(a.spacePDF))
}

// pdfOnly reads the only flag of the PDF operations.
func pdfOnly(r *http.Request) (bool, error) {
	v := queryString(r, "only")
	if v == nil {
		return false, nil
	}
	only, err := strconv.ParseBool(*v)
	if err != nil {
		return false, apperr.InvalidField("only", "must be true or false")
	}
	return only, nil
}

func (a *API) changeRequestPDF(w http.ResponseWriter, r *http.Request) error {
	only, err := pdfOnly(r)
	if err != nil {
		return err
	}
	url, err := a.res.ChangeRequestPDF(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), params(r).Get("page"), only)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]string{"url": url})
}

func (a *API) spacePDF(w http.ResponseWriter, r *http.Request) error {
	only, err := pdfOnly(r)
	if err != nil {
		return err
	}
	url, err := a.res.SpacePDF(r.Context(), chi.URLParam(r, "spaceId"), params(r).Get("page"), only)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]string{"url": url})
}

// generatedDownloads serves files Folio made (PDFs) at /downloads/<id>
// until they expire; the id is the secret, so no token is needed.
func (a *API) generatedDownloads(r chi.Router) {
	r.Method("GET", "/downloads/{id}", handler(func(w http.ResponseWriter, r *http.Request) error {
		dl, err := a.res.Download(r.Context(), chi.URLParam(r, "id"))
		if err != nil {
			return err
		}
		body, err := a.res.Blobs.Open(r.Context(), dl.BlobKey)
		if errors.Is(err, blob.ErrNotFound) {
			return apperr.NotFoundf("download not found")
		}
		if err != nil {
			return err
		}
		defer body.Close()
		inertFile(w, dl.ContentType, dl.Name)
		w.Header().Set("Cache-Control", "private, no-store")
		_, _ = io.Copy(w, body)
		return nil
	}))
}
