package rest

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// URL resolution, the API's information and a site's publishing preview
// (area `urls`, issue 29).
func (a *API) urlRoutes(r chi.Router) {
	r.Method("GET", "/", handler(a.getAPIInformation))
	r.Method("GET", "/urls/published", handler(a.getPublishedContentByURL))
	r.Method("POST", "/urls/published", handler(a.resolvePublishedContentByURL))
	r.Method("GET", "/urls/content", handler(a.getContentByURL))
	r.Method("GET", "/orgs/{organizationId}/sites/{siteId}/publishing/preview", handler(a.getSitePublishingPreview))
}

// publicOperation says whether a /v1 request is one that anyone may make,
// with or without a token: the API's information, and resolving a
// published URL. GitBook's renderer resolves every request's URL with its
// GITBOOK_API_TOKEN, which a self-hosted renderer may not have; what a
// published URL shows is public anyway (the reader shows it to anyone),
// and a token only adds what its user may see (previews, protected sites).
func publicOperation(r *http.Request) bool {
	switch r.URL.Path {
	case "/v1", "/v1/":
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	case "/v1/urls/published":
		return r.Method == http.MethodGet || r.Method == http.MethodPost
	}
	return false
}

// Authenticate is /v1's authentication: the resolvers' Authenticate (a
// token or a session, 401 otherwise), except that the public operations
// (publicOperation) also run for callers who send no Authorization
// header at all (AuthenticateOptional). A header with a bad token is a 401
// there too.
func Authenticate(res *graph.Resolver) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		strict, optional := res.Authenticate(next), res.AuthenticateOptional(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if publicOperation(r) {
				optional.ServeHTTP(w, r)
				return
			}
			strict.ServeHTTP(w, r)
		})
	}
}

func (a *API) getAPIInformation(w http.ResponseWriter, r *http.Request) error {
	info := a.res.APIInformation(r.Context())
	return writeJSON(w, http.StatusOK, map[string]any{"version": info.Version, "build": info.Build})
}

// visitorJSON is GitBook's SiteVisitorPayload.
type visitorJSON struct {
	Type           *string        `json:"type"`
	JWTToken       *string        `json:"jwtToken"`
	UnsignedClaims map[string]any `json:"unsignedClaims"`
}

func (a *API) resolvePublishedContentByURL(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		URL             *string      `json:"url"`
		RedirectOnError *bool        `json:"redirectOnError"`
		Visitor         *visitorJSON `json:"visitor"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.URL == nil {
		return apperr.InvalidField("url", "is required")
	}
	var v graph.URLVisitor
	if in.Visitor != nil {
		if t := in.Visitor.Type; t != nil && *t != "human" && *t != "agent" {
			return apperr.InvalidField("visitor.type", "must be human or agent")
		}
		if in.Visitor.JWTToken != nil {
			v.JWTToken = *in.Visitor.JWTToken
		}
		v.UnsignedClaims = in.Visitor.UnsignedClaims
	}
	got, err := a.res.ResolvePublishedURL(r.Context(), *in.URL, v, in.RedirectOnError != nil && *in.RedirectOnError)
	return writeOne(w, r, http.StatusOK, got, err, a.presentPublishedLookup, nil)
}

// getPublishedContentByURL is the deprecated GET form: the visitor token in
// ?visitorAuthToken=, no unsigned claims.
func (a *API) getPublishedContentByURL(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if q.Get("url") == "" {
		return apperr.InvalidField("url", "is required")
	}
	redirect := false
	if s := q.Get("redirectOnError"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return apperr.InvalidField("redirectOnError", "must be true or false")
		}
		redirect = b
	}
	got, err := a.res.ResolvePublishedURL(r.Context(), q.Get("url"), graph.URLVisitor{JWTToken: q.Get("visitorAuthToken")}, redirect)
	return writeOne(w, r, http.StatusOK, got, err, a.presentPublishedLookup, nil)
}

// presentPublishedLookup is GitBook's PublishedSiteContentLookup.
func (a *API) presentPublishedLookup(_ context.Context, l *model.PublishedContentLookup) (any, error) {
	if d := l.Redirect; d != nil {
		out := map[string]any{"target": d.Target, "redirect": d.Redirect}
		if d.SiteID != nil {
			out["site"] = *d.SiteID
		}
		return out, nil
	}
	c := l.Content
	out := map[string]any{
		"organization": c.OrganizationID, "site": c.SiteID, "siteSpace": c.SiteSpaceID, "space": c.SpaceID,
		"pathname": c.Pathname, "basePath": c.BasePath, "siteBasePath": c.SiteBasePath, "canonicalUrl": c.CanonicalURL,
		"apiToken": c.APIToken, "complete": c.Complete,
	}
	optional := map[string]*string{"siteSection": c.SiteSectionID, "changeRequest": c.ChangeRequestID,
		"revision": c.RevisionID, "shareKey": c.ShareKey, "contextId": c.ContextID}
	for k, v := range optional {
		if v != nil {
			out[k] = *v
		}
	}
	if c.Preview {
		out["preview"] = true
	}
	return out, nil
}

func (a *API) getContentByURL(w http.ResponseWriter, r *http.Request) error {
	raw := r.URL.Query().Get("url")
	if raw == "" {
		return apperr.InvalidField("url", "is required")
	}
	got, err := a.res.ContentByURL(r.Context(), raw)
	return writeOne(w, r, http.StatusOK, got, err, a.presentContentLookup, nil)
}

// presentContentLookup is getContentByUrl's answer: {collection}, or
// {space, changeRequest?, page?} (documents and groups; a link page is
// left out, as the reference's page is one of those two).
func (a *API) presentContentLookup(ctx context.Context, l *graph.ContentLookup) (any, error) {
	if l.Collection != nil {
		c, err := a.presentCollection(ctx, l.Collection)
		return map[string]any{"collection": c}, err
	}
	s, err := a.presentSpace(ctx, l.Space)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"space": s}
	if l.ChangeRequest != nil {
		if out["changeRequest"], err = a.presentChangeRequest(ctx, l.ChangeRequest); err != nil {
			return nil, err
		}
	}
	if l.Page != nil && !l.Page.IsLink() {
		out["page"] = a.presentPage(l.Page)
	}
	return out, nil
}

func (a *API) getSitePublishingPreview(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	q := r.URL.Query()
	if d := q.Get("draft"); d != "" {
		if _, err := strconv.ParseBool(d); err != nil {
			return apperr.InvalidField("draft", "must be true or false")
		}
	}
	optional := func(name string) *string {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			return &v
		}
		return nil
	}
	u, _, err := a.res.SitePublishingPreview(r.Context(), org, id, optional("siteSpace"), optional("target"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"url": u})
}
