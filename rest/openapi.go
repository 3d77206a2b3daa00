package rest

import (
	"context"
	"mime"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// Area `openapi`: OpenAPI specs of an organization and their versions. The
// rules (who reads and writes, processing in the background, versions by
// content) live in graph/openapi.go.
func (a *API) openAPIRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/openapi", handler(a.listOpenAPISpecs))
	r.Method("POST", "/orgs/{organizationId}/openapi", handler(a.createOpenAPISpec))
	r.Method("GET", "/orgs/{organizationId}/openapi/{specSlug}", handler(a.getOpenAPISpec))
	r.Method("PUT", "/orgs/{organizationId}/openapi/{specSlug}", handler(a.putOpenAPISpec))
	r.Method("DELETE", "/orgs/{organizationId}/openapi/{specSlug}", handler(a.deleteOpenAPISpec))
	r.Method("GET", "/orgs/{organizationId}/openapi/{specSlug}/versions", handler(a.listOpenAPISpecVersions))
	r.Method("GET", "/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}", handler(a.getOpenAPISpecVersion))
	r.Method("GET", "/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content", handler(a.getOpenAPISpecVersionContent))
	r.Method("PATCH", "/orgs/{organizationId}/openapi/{specSlug}", handler(a.updateOpenAPISpec))
	r.Method("GET", "/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content/raw", handler(a.getLatestOpenAPISpecRaw))
}

// openAPIContent serves versions' root documents at their unguessable
// public URLs, outside /v1 (the key is the secret), inert: declared as JSON
// or YAML from what Folio parsed, never the upstream's type, as an
// attachment under the sandboxing policy.
func (a *API) openAPIContent(r chi.Router) {
	r.Method("GET", graph.OpenAPIContentPath+"{key}/{name}", handler(a.serveOpenAPIContent))
}

func (a *API) listOpenAPISpecs(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OpenAPISpecs(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, nil, a.presentOpenAPISpec)
}

// openAPISpecBody is createOpenAPISpec's and PUT's body.
type openAPISpecBody struct {
	Slug   *string                   `json:"slug"`
	Source *graph.OpenAPISourceInput `json:"source"`
}

func (a *API) readOpenAPIBody(r *http.Request, needSlug bool) (openAPISpecBody, error) {
	var in openAPISpecBody
	if err := a.res.OpenAPIEditable(r.Context(), chi.URLParam(r, "organizationId")); err != nil {
		return in, err
	}
	if err := decodeJSON(r, &in); err != nil {
		return in, err
	}
	if needSlug && in.Slug == nil {
		return in, apperr.InvalidField("slug", "is required")
	}
	if in.Source == nil {
		return in, apperr.InvalidField("source", "is required")
	}
	return in, nil
}

func (a *API) createOpenAPISpec(w http.ResponseWriter, r *http.Request) error {
	in, err := a.readOpenAPIBody(r, true)
	if err != nil {
		return err
	}
	s, err := a.res.CreateOpenAPISpec(r.Context(), chi.URLParam(r, "organizationId"), *in.Slug, *in.Source)
	return a.writeOpenAPISpec(w, r, http.StatusCreated, s, err)
}

func (a *API) getOpenAPISpec(w http.ResponseWriter, r *http.Request) error {
	s, err := a.res.OpenAPISpecBySlug(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug"))
	return a.writeOpenAPISpec(w, r, http.StatusOK, s, err)
}

// putOpenAPISpec answers 200 whether it created the spec or replaced its
// source (the seed's one success code).
func (a *API) putOpenAPISpec(w http.ResponseWriter, r *http.Request) error {
	in, err := a.readOpenAPIBody(r, false)
	if err != nil {
		return err
	}
	s, _, err := a.res.PutOpenAPISpec(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug"), *in.Source)
	return a.writeOpenAPISpec(w, r, http.StatusOK, s, err)
}

func (a *API) deleteOpenAPISpec(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteOpenAPISpec(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) listOpenAPISpecVersions(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OpenAPISpecVersions(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug"), args)
	return writeList(w, r, page, err, nil, a.presentOpenAPIVersion)
}

// openAPIVersion reads the path's version; "latest" is the last one.
func (a *API) openAPIVersion(r *http.Request) (*model.OpenAPISpecVersion, error) {
	org, slug, id := chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug"), chi.URLParam(r, "versionId")
	if id == "latest" {
		return a.res.OpenAPISpecLatestVersion(r.Context(), org, slug)
	}
	return a.res.OpenAPISpecVersionByID(r.Context(), org, slug, id)
}

func (a *API) getOpenAPISpecVersion(w http.ResponseWriter, r *http.Request) error {
	v, err := a.openAPIVersion(r)
	if err != nil {
		return err
	}
	out, err := a.presentOpenAPIVersion(r.Context(), v)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (a *API) getOpenAPISpecVersionContent(w http.ResponseWriter, r *http.Request) error {
	v, err := a.openAPIVersion(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"filesystem": v.Files, "url": a.res.OpenAPIVersionPublicURL(v)})
}

func (a *API) serveOpenAPIContent(w http.ResponseWriter, r *http.Request) error {
	v, err := a.res.OpenAPIVersionByPublicKey(r.Context(), chi.URLParam(r, "key"))
	if err != nil {
		return err
	}
	if chi.URLParam(r, "name") != v.Root {
		return apperr.NotFoundf("not found")
	}
	ctype := "application/yaml; charset=utf-8"
	if v.Format == "json" {
		ctype = "application/json; charset=utf-8"
	}
	inertFile(w, ctype, v.Root)
	// inertFile shows text inline; a spec is always a download here.
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": v.Root}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "private, max-age=300")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(v.Files[v.Root]))
	return err
}

func (a *API) writeOpenAPISpec(w http.ResponseWriter, r *http.Request, status int, s *model.OpenAPISpec, err error) error {
	return writeOne(w, r, status, s, err, a.presentOpenAPISpec, func(s *model.OpenAPISpec) string { return a.res.OpenAPISpecURLs(s).Location })
}

// openAPISpecJSON is GitBook's OpenAPISpec.
type openAPISpecJSON struct {
	Object               string             `json:"object"`
	ID                   string             `json:"id"`
	CreatedAt            string             `json:"createdAt"`
	UpdatedAt            string             `json:"updatedAt"`
	Slug                 string             `json:"slug"`
	SourceURL            *string            `json:"sourceURL,omitempty"`
	ProcessingState      string             `json:"processingState"`
	Visibility           string             `json:"visibility"`
	LastVersion          *string            `json:"lastVersion,omitempty"`
	LastProcessedAt      *string            `json:"lastProcessedAt,omitempty"`
	LastProcessErrorCode *string            `json:"lastProcessErrorCode,omitempty"`
	LastProcessedErrors  []openAPIErrorJSON `json:"lastProcessedErrors,omitempty"`
	// LastProcessedErrorCount is required by GitBook 0.202.0's OpenAPISpec.
	LastProcessedErrorCount int                           `json:"lastProcessedErrorCount"`
	Permissions             access.OpenAPISpecPermissions `json:"permissions"`
	URLs                    openAPISpecURLsJSON           `json:"urls"`
}

// openAPISpecURLsJSON is a spec's urls; published only while it is public.
type openAPISpecURLsJSON struct {
	*model.OpenAPISpecURLs
	Published *string `json:"published,omitempty"`
}

// openAPIErrorJSON is GitBook's OpenAPIErrorObject, with where it is.
type openAPIErrorJSON struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Pointer string `json:"pointer,omitempty"`
}

func (a *API) presentOpenAPISpec(ctx context.Context, s *model.OpenAPISpec) (any, error) {
	perms, err := a.res.OpenAPISpecPermissions(ctx, s)
	if err != nil {
		return nil, err
	}
	out := openAPISpecJSON{
		Object: "openapi-spec", ID: s.ID, CreatedAt: timestamp(s.CreatedAt), UpdatedAt: timestamp(s.UpdatedAt),
		Slug: s.Slug, SourceURL: s.SourceURL, ProcessingState: string(s.ProcessingState), Visibility: string(s.Visibility),
		LastVersion: s.LastVersionID, Permissions: perms, LastProcessedErrorCount: len(s.LastProcessedErrors), URLs: openAPISpecURLsJSON{OpenAPISpecURLs: a.res.OpenAPISpecURLs(s)},
	}
	if out.URLs.Published, err = a.res.OpenAPISpecPublishedURL(ctx, s); err != nil {
		return nil, err
	}
	if s.LastProcessedAt != nil {
		t := timestamp(*s.LastProcessedAt)
		out.LastProcessedAt = &t
	}
	if s.LastProcessErrorCode != nil {
		c := string(*s.LastProcessErrorCode)
		out.LastProcessErrorCode = &c
	}
	for _, e := range s.LastProcessedErrors {
		out.LastProcessedErrors = append(out.LastProcessedErrors, openAPIErrorJSON(e))
	}
	return out, nil
}

type openAPIVersionJSON struct {
	Object    string `json:"object"`
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`
	URL       string `json:"url"`
	URLs      struct {
		Location string `json:"location"`
	} `json:"urls"`
}

func (a *API) presentOpenAPIVersion(ctx context.Context, v *model.OpenAPISpecVersion) (any, error) {
	loc, err := a.res.OpenAPIVersionURLLocation(ctx, v)
	if err != nil {
		return nil, err
	}
	out := openAPIVersionJSON{Object: "openapi-spec-version", ID: v.ID, CreatedAt: timestamp(v.CreatedAt), URL: a.res.OpenAPIVersionPublicURL(v)}
	out.URLs.Location = loc
	return out, nil
}

// updateOpenAPISpec sets a spec's visibility (updateOpenAPISpecBySlug).
func (a *API) updateOpenAPISpec(w http.ResponseWriter, r *http.Request) error {
	org, slug := chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug")
	if err := a.res.OpenAPIEditable(r.Context(), org); err != nil {
		return err
	}
	var in struct {
		Visibility *string `json:"visibility"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Visibility == nil {
		return apperr.InvalidField("visibility", "is required")
	}
	s, err := a.res.UpdateOpenAPISpecVisibility(r.Context(), org, slug, graph.OpenAPIVisibility(*in.Visibility))
	return writeOne(w, r, http.StatusOK, s, err, a.presentOpenAPISpec, nil)
}

// getLatestOpenAPISpecRaw is the latest version's root document as
// submitted (getLatestOpenAPISpecVersionContentRaw).
func (a *API) getLatestOpenAPISpecRaw(w http.ResponseWriter, r *http.Request) error {
	raw, err := a.res.OpenAPISpecLatestRaw(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "specSlug"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"text": raw.Text, "format": raw.Format})
}
