package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/apperr"
)

// Publishing of docs sites: adaptive schema, share links, visitor-auth key,
// customization and the published view (area `sites`).
func (a *API) sitePublishingRoutes(r chi.Router) {
	const base = "/orgs/{organizationId}/sites/{siteId}"
	r.Method("GET", base+"/adaptive-schema", handler(a.getSiteAdaptiveSchema))
	r.Method("PUT", base+"/adaptive-schema", handler(a.updateSiteAdaptiveSchema))
	r.Method("GET", base+"/published", handler(a.getPublishedContentSite))
	r.Method("GET", base+"/share-links", handler(a.listSiteShareLinks))
	r.Method("POST", base+"/share-links", handler(a.createSiteShareLink))
	r.Method("PATCH", base+"/share-links/{shareLinkId}", handler(a.updateSiteShareLink))
	r.Method("DELETE", base+"/share-links/{shareLinkId}", handler(a.deleteSiteShareLink))
	r.Method("GET", base+"/publishing/auth", handler(a.getSitePublishingAuth))
	r.Method("PATCH", base+"/publishing/auth", handler(a.updateSitePublishingAuth))
	r.Method("POST", base+"/publishing/auth/regenerate", handler(a.regenerateSitePublishingAuth))
	r.Method("GET", base+"/customization", handler(a.getSiteCustomization))
	r.Method("PUT", base+"/customization", handler(a.updateSiteCustomization))
}

// adaptiveSchemaJSON is GitBook's SiteAdaptiveSchema.
type adaptiveSchemaJSON struct {
	Object     string          `json:"object"`
	JSONSchema json.RawMessage `json:"jsonSchema"`
	UpdatedAt  string          `json:"updatedAt"`
}

func writeAdaptiveSchema(w http.ResponseWriter, s *adaptive.Schema, at time.Time, err error) error {
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, adaptiveSchemaJSON{Object: "site-adaptive-schema", JSONSchema: s.JSON(), UpdatedAt: timestamp(at)})
}

func (a *API) getSiteAdaptiveSchema(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	s, at, err := a.res.SiteAdaptiveSchema(r.Context(), org, id)
	return writeAdaptiveSchema(w, s, at, err)
}

func (a *API) updateSiteAdaptiveSchema(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		JSONSchema json.RawMessage `json:"jsonSchema"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if len(in.JSONSchema) == 0 || string(in.JSONSchema) == "null" {
		return apperr.InvalidField("jsonSchema", "is required")
	}
	org, id := orgSite(r)
	s, at, err := a.res.UpdateSiteAdaptiveSchema(r.Context(), org, id, in.JSONSchema)
	return writeAdaptiveSchema(w, s, at, err)
}

// shareLinkJSON is GitBook's ShareLink, with its key (the shareKey that
// opens the site), which only the site's managers read.
type shareLinkJSON struct {
	Object    string   `json:"object"`
	ID        string   `json:"id"`
	CreatedAt string   `json:"createdAt"`
	Name      string   `json:"name"`
	Active    bool     `json:"active"`
	Key       string   `json:"key"`
	URLs      siteURLs `json:"urls"`
}

// siteURLs are the `urls` of a section, site space or share link: where
// the published site shows it (absent while the site is unpublished).
type siteURLs struct {
	Published *string `json:"published,omitempty"`
}

func (a *API) presentShareLink(ctx context.Context, l *ent.SiteShareLink) (any, error) {
	key, err := a.res.ShareLinkKey(l)
	if err != nil {
		return nil, err
	}
	out := shareLinkJSON{Object: "share-link", ID: l.ID, CreatedAt: timestamp(l.CreatedAt), Name: l.Name, Active: l.Active, Key: key}
	out.URLs.Published, err = a.res.ShareLinkPublishedURL(ctx, l)
	return out, err
}

func (a *API) listSiteShareLinks(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	page, err := a.res.SiteShareLinks(r.Context(), org, id, args)
	return writeList(w, r, page, err, nil, a.presentShareLink)
}

func (a *API) createSiteShareLink(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name *string `json:"name"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name == nil {
		return apperr.InvalidField("name", "is required")
	}
	org, id := orgSite(r)
	l, err := a.res.CreateSiteShareLink(r.Context(), org, id, *in.Name)
	return writeOne(w, r, http.StatusCreated, l, err, a.presentShareLink, func(l *ent.SiteShareLink) string {
		return a.res.BaseURL + "/v1/orgs/" + org + "/sites/" + id + "/share-links/" + l.ID
	})
}

func (a *API) updateSiteShareLink(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name   *string `json:"name"`
		Active *bool   `json:"active"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	org, id := orgSite(r)
	l, err := a.res.UpdateSiteShareLink(r.Context(), org, id, chi.URLParam(r, "shareLinkId"), in.Name, in.Active)
	return writeOne(w, r, http.StatusOK, l, err, a.presentShareLink, nil)
}

func (a *API) deleteSiteShareLink(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.DeleteSiteShareLink(r.Context(), org, id, chi.URLParam(r, "shareLinkId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

// publishingAuthJSON is GitBook's SitePublishingAuth (the custom backend).
type publishingAuthJSON struct {
	Object      string  `json:"object"`
	Backend     string  `json:"backend"`
	PrivateKey  string  `json:"privateKey"`
	FallbackURL *string `json:"fallbackURL,omitempty"`
}

func writePublishingAuth(w http.ResponseWriter, p *model.SitePublishingAuth, err error) error {
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, publishingAuthJSON{Object: "publishing-auth", Backend: "custom", PrivateKey: p.PrivateKey, FallbackURL: p.FallbackURL})
}

func (a *API) getSitePublishingAuth(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	p, err := a.res.SitePublishingAuth(r.Context(), org, id)
	return writePublishingAuth(w, p, err)
}

func (a *API) updateSitePublishingAuth(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Backend     *string                    `json:"backend"`
		FallbackURL graphql.Omittable[*string] `json:"fallbackURL"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Backend != nil && *in.Backend != "custom" {
		return apperr.InvalidField("backend", "must be custom: Folio has no authentication integrations")
	}
	org, id := orgSite(r)
	p, err := a.res.UpdateSitePublishingAuth(r.Context(), org, id, in.FallbackURL)
	return writePublishingAuth(w, p, err)
}

func (a *API) regenerateSitePublishingAuth(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	p, err := a.res.RegenerateSitePublishingAuth(r.Context(), org, id)
	return writePublishingAuth(w, p, err)
}

func (a *API) getSiteCustomization(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	c, err := a.res.SiteCustomization(r.Context(), org, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, c)
}

func (a *API) updateSiteCustomization(w http.ResponseWriter, r *http.Request) error {
	var probe map[string]json.RawMessage
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return apperr.Invalidf("request body is required: send a JSON object")
	}
	if err := unmarshalObject(body, &probe); err != nil {
		return err
	}
	org, id := orgSite(r)
	c, err := a.res.UpdateSiteCustomization(r.Context(), org, id, body)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, c)
}

// publishedJSON is GitBook's PublishedContentSite.
type publishedJSON struct {
	Object         string `json:"object"`
	Site           any    `json:"site"`
	Structure      any    `json:"structure"`
	Customizations struct {
		Site       json.RawMessage `json:"site"`
		SiteSpaces map[string]any  `json:"siteSpaces"`
	} `json:"customizations"`
	Scripts []any `json:"scripts"`
}

type structureJSON struct {
	Type      string `json:"type"`
	Structure []any  `json:"structure"`
}

func (a *API) getPublishedContentSite(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	ctx := r.Context()
	s, err := a.res.PublishedSite(ctx, org, id, graph.VisitorArgs{ShareKey: queryString(r, "shareKey")})
	if err != nil {
		return err
	}
	out := publishedJSON{Object: "published-content-site", Scripts: []any{}}
	if out.Site, err = a.presentSite(ctx, s); err != nil {
		return err
	}
	out.Customizations.Site = graph.CustomizationOf(s)
	out.Customizations.SiteSpaces = map[string]any{}
	if out.Structure, err = a.siteStructure(ctx, s); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// siteStructure is GitBook's SiteStructure of a site: its top level
// (sections and groups) or, without sections, its site spaces; the
// published view's and getSiteStructure's.
func (a *API) siteStructure(ctx context.Context, s *ent.Site) (structureJSON, error) {
	st := structureJSON{Type: "sections", Structure: []any{}}
	top, err := a.res.SiteTopLevel(ctx, s)
	if err != nil {
		return st, err
	}
	if len(top) == 0 {
		st.Type = "siteSpaces"
		root, err := a.res.RootSiteSpaces(ctx, s)
		if err != nil {
			return st, err
		}
		for _, ss := range root {
			v, err := a.presentSiteSpace(ctx, ss)
			if err != nil {
				return st, err
			}
			st.Structure = append(st.Structure, v)
		}
	}
	for _, it := range top {
		var v any
		if it.Group != nil {
			v, err = a.presentGroup(ctx, it.Group)
		} else {
			v, err = a.presentSection(ctx, it.Section)
		}
		if err != nil {
			return st, err
		}
		st.Structure = append(st.Structure, v)
	}
	return st, nil
}
