package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// Area `sites`: docs sites, their sections, section groups and site spaces.
func (a *API) siteRoutes(r chi.Router) {
	const base = "/orgs/{organizationId}/sites/{siteId}"
	r.Method("GET", "/orgs/{organizationId}/sites", handler(a.listSites))
	r.Method("POST", "/orgs/{organizationId}/sites", handler(a.createSite))
	r.Method("GET", base, handler(a.getSite))
	r.Method("PATCH", base, handler(a.updateSite))
	r.Method("DELETE", base, handler(a.deleteSite))
	r.Method("POST", base+"/publish", handler(a.publishSite(true)))
	r.Method("POST", base+"/unpublish", handler(a.publishSite(false)))

	r.Method("GET", base+"/sections", handler(a.listSiteSections))
	r.Method("POST", base+"/sections", handler(a.addSiteSection))
	r.Method("PATCH", base+"/sections/{siteSectionId}", handler(a.updateSiteSection))
	r.Method("DELETE", base+"/sections/{siteSectionId}", handler(a.deleteSiteSection))
	r.Method("POST", base+"/sections/{siteSectionId}/move", handler(a.moveSiteSection))

	r.Method("GET", base+"/section-groups", handler(a.listSiteSectionGroups))
	r.Method("POST", base+"/section-groups", handler(a.addSiteSectionGroup))
	r.Method("PATCH", base+"/section-groups/{siteSectionGroupId}", handler(a.updateSiteSectionGroup))
	r.Method("DELETE", base+"/section-groups/{siteSectionGroupId}", handler(a.deleteSiteSectionGroup))
	r.Method("POST", base+"/section-groups/{siteSectionGroupId}/sections", handler(a.addSectionToGroup))
	r.Method("DELETE", base+"/section-groups/{siteSectionGroupId}/sections/{siteSectionId}", handler(a.removeSectionFromGroup))
	r.Method("POST", base+"/section-groups/{siteSectionGroupId}/move", handler(a.moveSiteSectionGroup))

	r.Method("GET", base+"/site-spaces", handler(a.listSiteSpaces))
	r.Method("POST", base+"/site-spaces", handler(a.addSiteSpace))
	r.Method("PATCH", base+"/site-spaces/{siteSpaceId}", handler(a.updateSiteSpace))
	r.Method("DELETE", base+"/site-spaces/{siteSpaceId}", handler(a.deleteSiteSpace))
	r.Method("POST", base+"/site-spaces/{siteSpaceId}/move", handler(a.moveSiteSpace))
}

func orgSite(r *http.Request) (string, string) {
	return chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId")
}

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string) (*bool, error) {
	raw := queryString(r, name)
	if raw == nil {
		return nil, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(*raw))
	if err != nil {
		return nil, apperr.InvalidField(name, "must be true or false")
	}
	return &b, nil
}

func (a *API) listSites(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	published, err := queryBool(r, "published")
	if err != nil {
		return err
	}
	page, err := a.res.OrganizationSites(r.Context(), chi.URLParam(r, "organizationId"), args,
		queryString(r, "space"), queryString(r, "title"), published)
	return writeList(w, r, page, err, a.res.PrimeSites, a.presentSite)
}

// createSiteBody is createSite's body: `spaces` is a list of space ids or
// the string "new".
type createSiteBody struct {
	Type       *string         `json:"type"`
	Title      *string         `json:"title"`
	Visibility *string         `json:"visibility"`
	Spaces     json.RawMessage `json:"spaces"`
}

func (a *API) createSite(w http.ResponseWriter, r *http.Request) error {
	var in createSiteBody
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	var gin model.CreateSiteInput
	if in.Type != nil {
		v := model.SiteType(*in.Type)
		gin.Type = graphql.OmittableOf(&v)
	}
	if in.Title != nil {
		gin.Title = graphql.OmittableOf(in.Title)
	}
	if in.Visibility != nil {
		v := model.SiteVisibility(*in.Visibility)
		gin.Visibility = graphql.OmittableOf(&v)
	}
	if raw := bytes.TrimSpace(in.Spaces); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		var list []string
		var word string
		switch {
		case json.Unmarshal(raw, &list) == nil:
			for _, id := range list {
				if id == "" {
					return apperr.InvalidField("spaces", "holds an empty space id")
				}
			}
			gin.Spaces = graphql.OmittableOf(list)
		case json.Unmarshal(raw, &word) == nil && word == "new":
			t := true
			gin.NewSpace = graphql.OmittableOf(&t)
		default:
			return apperr.InvalidField("spaces", "must be a list of space ids or \"new\"")
		}
	}
	s, err := a.res.CreateSite(r.Context(), chi.URLParam(r, "organizationId"), gin)
	return a.writeSite(w, r, http.StatusCreated, s, err)
}

func (a *API) getSite(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	s, err := a.res.OrganizationSite(r.Context(), org, id)
	return a.writeSite(w, r, http.StatusOK, s, err)
}

// updateSiteBody is updateSiteById's body; adaptiveContent is an object.
type updateSiteBody struct {
	model.UpdateSiteInput
	AdaptiveContent *struct {
		Enabled *bool `json:"enabled"`
	} `json:"adaptiveContent"`
}

func (a *API) updateSite(w http.ResponseWriter, r *http.Request) error {
	var in updateSiteBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.AdaptiveContent != nil {
		if in.AdaptiveContent.Enabled == nil {
			return apperr.InvalidField("adaptiveContent.enabled", "is required")
		}
		in.UpdateSiteInput.AdaptiveContent = graphql.OmittableOf(in.AdaptiveContent.Enabled)
	}
	org, id := orgSite(r)
	s, err := a.res.UpdateSite(r.Context(), org, id, in.UpdateSiteInput)
	return a.writeSite(w, r, http.StatusOK, s, err)
}

func (a *API) deleteSite(w http.ResponseWriter, r *http.Request) error {
	org, id := orgSite(r)
	if err := a.res.DeleteSite(r.Context(), org, id); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) publishSite(published bool) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		org, id := orgSite(r)
		s, err := a.res.PublishSite(r.Context(), org, id, published)
		return a.writeSite(w, r, http.StatusOK, s, err)
	}
}

func (a *API) writeSite(w http.ResponseWriter, r *http.Request, status int, s *ent.Site, err error) error {
	return writeOne(w, r, status, s, err, a.presentSite, func(s *ent.Site) string { return a.res.SiteURLsOf(s).Location })
}

// siteJSON is GitBook's Site object.
type siteJSON struct {
	Object          string         `json:"object"`
	ID              string         `json:"id"`
	Type            string         `json:"type"`
	Title           string         `json:"title"`
	Basename        *string        `json:"basename,omitempty"`
	Hostname        *string        `json:"hostname,omitempty"`
	Proxy           *siteProxyJSON `json:"proxy,omitempty"`
	Visibility      string         `json:"visibility"`
	Published       bool           `json:"published"`
	SiteSpaces      int            `json:"siteSpaces"`
	CreatedAt       string         `json:"createdAt"`
	AdaptiveContent struct {
		Enabled bool `json:"enabled"`
	} `json:"adaptiveContent"`
	Features      []any  `json:"features"`
	AgentsContext string `json:"agentsContext"`
	URLs          struct {
		Location  string  `json:"location"`
		App       string  `json:"app"`
		Published *string `json:"published,omitempty"`
	} `json:"urls"`
	// Permissions is a Folio extension (GitBook's site has none): what the
	// caller may do with the site, by the sharing rule.
	Permissions *access.SitePermissions `json:"permissions"`
}

type siteProxyJSON struct {
	Origin string `json:"origin"`
	Target string `json:"target"`
}

func (a *API) presentSite(ctx context.Context, s *ent.Site) (any, error) {
	n, err := a.res.SiteSpaceCount(ctx, s)
	if err != nil {
		return nil, err
	}
	out := siteJSON{Object: "site", ID: s.ID, Type: string(s.Type), Title: s.Title, Basename: s.Basename,
		Visibility: string(s.Visibility), Published: s.Published, SiteSpaces: n, CreatedAt: timestamp(s.CreatedAt),
		Features: []any{}, AgentsContext: "excluded"}
	if s.Proxy != nil {
		out.Proxy = &siteProxyJSON{Origin: *s.Proxy, Target: a.res.SiteProxyTarget(s)}
	}
	if out.Permissions, err = a.res.SitePermissions(ctx, s); err != nil {
		return nil, err
	}
	if out.Hostname, err = a.res.SiteHostname(ctx, s); err != nil {
		return nil, err
	}
	out.AdaptiveContent.Enabled = s.AdaptiveContent
	u := a.res.SiteURLsOf(s)
	out.URLs.Location, out.URLs.App, out.URLs.Published = u.Location, u.App, a.res.SitePublishedURL(s)
	return out, nil
}
