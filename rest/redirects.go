package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Area `redirects` (GitBook's site-redirects and site-structure): a site's
// redirects, the one that applies to a path, and the site's structure.
func (a *API) redirectRoutes(r chi.Router) {
	const site = "/orgs/{organizationId}/sites/{siteId}"
	r.Method("GET", site+"/structure", handler(a.getSiteStructure))
	r.Method("GET", site+"/redirects", handler(a.listSiteRedirects))
	r.Method("POST", site+"/redirects", handler(a.createSiteRedirect))
	r.Method("PUT", site+"/redirects", handler(a.bulkUpsertSiteRedirects))
	r.Method("PATCH", site+"/redirects/{siteRedirectId}", handler(a.updateSiteRedirect))
	r.Method("DELETE", site+"/redirects/{siteRedirectId}", handler(a.deleteSiteRedirect))
	r.Method("GET", site+"/redirect", handler(a.getSiteRedirectBySource))
}

func (a *API) getSiteStructure(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	s, err := a.res.SiteForStructure(r.Context(), org, id, queryString(r, "shareKey"))
	if err != nil {
		return err
	}
	st, err := a.siteStructure(r.Context(), s)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, st)
}

// siteRedirectJSON is GitBook's SiteRedirect.
type siteRedirectJSON struct {
	Object          string                         `json:"object"`
	ID              string                         `json:"id"`
	Source          string                         `json:"source"`
	Draft           bool                           `json:"draft"`
	CaptureWildcard bool                           `json:"captureWildcard"`
	Permanent       bool                           `json:"permanent"`
	Destination     *model.SiteRedirectDestination `json:"destination"`
	CreatedAt       string                         `json:"createdAt"`
	UpdatedAt       *string                        `json:"updatedAt,omitempty"`
}

func presentRedirect(rd *ent.SiteRedirect) siteRedirectJSON {
	out := siteRedirectJSON{Object: "site-redirect", ID: rd.ID, Source: rd.Source, Draft: rd.Draft,
		CaptureWildcard: rd.CaptureWildcard, Permanent: rd.Permanent, Destination: graph.RedirectDestination(rd),
		CreatedAt: timestamp(rd.CreatedAt)}
	if rd.EditedAt != nil {
		t := timestamp(*rd.EditedAt)
		out.UpdatedAt = &t
	}
	return out
}

func (a *API) presentRedirect(_ context.Context, rd *ent.SiteRedirect) (any, error) {
	return presentRedirect(rd), nil
}

// destinationBody is GitBook's SiteRedirectInputDestination.
type destinationBody struct {
	Kind          string  `json:"kind"`
	SiteSectionID *string `json:"siteSectionId"`
	SiteSpaceID   *string `json:"siteSpaceId"`
	PageID        *string `json:"pageId"`
	URL           *string `json:"url"`
	SpaceID       *string `json:"spaceId"`
	Path          *string `json:"path"`
}

// input is the destination as the application takes it: REST's kinds
// spell _ as -; another spelling is left for the application to refuse.
func (d *destinationBody) input() *model.SiteRedirectDestinationInput {
	if d == nil {
		return nil
	}
	kind := d.Kind
	if strings.Contains(kind, "_") {
		kind = "unknown"
	}
	return &model.SiteRedirectDestinationInput{Kind: model.SiteRedirectInputKind(strings.ReplaceAll(kind, "-", "_")),
		SiteSectionID: omittable(d.SiteSectionID), SiteSpaceID: omittable(d.SiteSpaceID), PageID: omittable(d.PageID),
		URL: omittable(d.URL), SpaceID: omittable(d.SpaceID), Path: omittable(d.Path)}
}

// omittable is a value given in a body (nil: left out).
func omittable[T any](p *T) graphql.Omittable[*T] {
	if p == nil {
		return graphql.Omittable[*T]{}
	}
	return graphql.OmittableOf(p)
}

func (a *API) createSiteRedirect(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	// Authorize before reading the body (403/404 before 400).
	if _, err := a.res.ManageableSite(r.Context(), org, id); err != nil {
		return err
	}
	var in struct {
		Source          *string          `json:"source"`
		CaptureWildcard *bool            `json:"captureWildcard"`
		Draft           *bool            `json:"draft"`
		Permanent       *bool            `json:"permanent"`
		Destination     *destinationBody `json:"destination"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Source == nil {
		return apperr.InvalidField("source", "is required")
	}
	rd, err := a.res.CreateSiteRedirect(r.Context(), org, id, model.CreateSiteRedirectInput{Source: *in.Source,
		Destination: in.Destination.input(), CaptureWildcard: omittable(in.CaptureWildcard), Draft: omittable(in.Draft),
		Permanent: omittable(in.Permanent)})
	return writeOne(w, r, http.StatusCreated, rd, err, a.presentRedirect, func(rd *ent.SiteRedirect) string {
		return a.res.BaseURL + "/v1/orgs/" + org + "/sites/" + id + "/redirects/" + rd.ID
	})
}

// bulkResultJSON is one item of bulkUpsertSiteRedirects' results.
type bulkResultJSON struct {
	Status string  `json:"status"`
	Source string  `json:"source"`
	Draft  bool    `json:"draft"`
	ID     *string `json:"id,omitempty"`
	Error  *string `json:"error,omitempty"`
}

func (a *API) bulkUpsertSiteRedirects(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if _, err := a.res.ManageableSite(r.Context(), org, id); err != nil {
		return err
	}
	var in struct {
		Redirects *[]struct {
			Source          *string         `json:"source"`
			Intent          *string         `json:"intent"`
			CaptureWildcard *bool           `json:"captureWildcard"`
			Permanent       *bool           `json:"permanent"`
			Destination     json.RawMessage `json:"destination"`
		} `json:"redirects"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Redirects == nil {
		return apperr.InvalidField("redirects", "is required")
	}
	items := make([]*model.SiteRedirectBulkInput, len(*in.Redirects))
	for i, it := range *in.Redirects {
		item := &model.SiteRedirectBulkInput{CaptureWildcard: omittable(it.CaptureWildcard), Permanent: omittable(it.Permanent)}
		if it.Source != nil {
			item.Source = *it.Source
		}
		if it.Intent != nil {
			v := model.SiteRedirectIntent(*it.Intent)
			item.Intent = graphql.OmittableOf(&v)
		}
		if len(it.Destination) > 0 {
			var d *destinationBody
			if err := json.Unmarshal(it.Destination, &d); err != nil {
				return apperr.InvalidField("redirects.destination", "must be an object or null")
			}
			item.Destination = graphql.OmittableOf(d.input())
		}
		items[i] = item
	}
	results, err := a.res.BulkUpsertSiteRedirects(r.Context(), org, id, items)
	if err != nil {
		return err
	}
	out := struct {
		Results []bulkResultJSON `json:"results"`
	}{Results: make([]bulkResultJSON, len(results))}
	for i, res := range results {
		out.Results[i] = bulkResultJSON{Status: string(res.Status), Source: res.Source, Draft: res.Draft, ID: res.ID, Error: res.Error}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (a *API) listSiteRedirects(w http.ResponseWriter, r *http.Request) error {
	draft, err := queryBool(r, "draft")
	if err != nil {
		return err
	}
	f := graph.RedirectFilter{Draft: draft != nil && *draft, OrderBy: model.SiteRedirectOrderByCreatedAt}
	if v := queryString(r, "orderBy"); v != nil {
		switch *v {
		case "createdAt":
		case "updatedAt":
			f.OrderBy = model.SiteRedirectOrderByUpdatedAt
		case "source":
			f.OrderBy = model.SiteRedirectOrderBySource
		default:
			return apperr.InvalidField("orderBy", "must be one of createdAt, updatedAt, source")
		}
	}
	if v := queryString(r, "search"); v != nil {
		f.Search = *v
	}
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	args, err := graph.SiteRedirectArgs(limit, queryString(r, "page"), queryString(r, "order"), f.OrderBy, paging.RESTNames)
	if err != nil {
		return err
	}
	org, id := orgSite(r)
	page, err := a.res.SiteRedirects(r.Context(), org, id, args, f)
	return writeList(w, r, page, err, nil, a.presentRedirect)
}

func (a *API) updateSiteRedirect(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if _, err := a.res.ManageableSite(r.Context(), org, id); err != nil {
		return err
	}
	var in struct {
		Source          *string          `json:"source"`
		CaptureWildcard *bool            `json:"captureWildcard"`
		Draft           *bool            `json:"draft"`
		Permanent       *bool            `json:"permanent"`
		Destination     *destinationBody `json:"destination"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	up := model.UpdateSiteRedirectInput{Source: omittable(in.Source), CaptureWildcard: omittable(in.CaptureWildcard),
		Draft: omittable(in.Draft), Permanent: omittable(in.Permanent)}
	if in.Destination != nil {
		up.Destination = graphql.OmittableOf(in.Destination.input())
	}
	rd, err := a.res.UpdateSiteRedirect(r.Context(), org, id, chi.URLParam(r, "siteRedirectId"), up)
	return writeOne(w, r, http.StatusOK, rd, err, a.presentRedirect, nil)
}

func (a *API) deleteSiteRedirect(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.DeleteSiteRedirect(r.Context(), org, id, chi.URLParam(r, "siteRedirectId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) getSiteRedirectBySource(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	source := queryString(r, "source")
	if source == nil {
		// The site first: a stranger learns nothing from the 400.
		if _, err := a.res.SiteForStructure(r.Context(), org, id, queryString(r, "shareKey")); err != nil {
			return err
		}
		return apperr.InvalidField("source", "is required")
	}
	rd, target, err := a.res.SiteRedirectBySource(r.Context(), org, id, *source, queryString(r, "shareKey"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		Redirect siteRedirectJSON `json:"redirect"`
		Target   string           `json:"target"`
	}{presentRedirect(rd), target})
}
