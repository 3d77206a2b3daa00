package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph/model"
)

// Area `search`: full-text search of a space and of an organization.
func (a *API) searchRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/search", handler(a.searchSpace))
	r.Method("GET", "/orgs/{organizationId}/search", handler(a.searchOrganization))
	r.Method("POST", "/orgs/{organizationId}/sites/{siteId}/search", handler(a.searchSiteContent))
}

func (a *API) searchSpace(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.SearchSpace(r.Context(), chi.URLParam(r, "spaceId"), params(r).Get("query"), args)
	return writeList(w, r, page, err, nil, func(_ context.Context, p *model.SearchPage) (any, error) { return a.presentSearchPage(p), nil })
}

func (a *API) searchOrganization(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.SearchOrganization(r.Context(), chi.URLParam(r, "organizationId"), params(r).Get("query"), args)
	return writeList(w, r, page, err, nil, func(_ context.Context, s *model.SearchSpace) (any, error) {
		pages := make([]any, len(s.Pages))
		for i, p := range s.Pages {
			pages[i] = a.presentSearchPage(p)
		}
		return map[string]any{"id": s.Space.ID, "title": s.Space.Title, "pages": pages}, nil
	})
}

// presentSearchPage is GitBook's SearchPageResult.
func (a *API) presentSearchPage(p *model.SearchPage) map[string]any {
	app := a.res.PageAppURL(p.Page)
	path := p.Page.Tree.Path(p.Page.Page)
	sections := make([]any, len(p.Sections))
	for i, s := range p.Sections {
		surl := app
		if s.Section.ID != "" {
			surl += "#" + s.Section.ID
		}
		sections[i] = map[string]any{"id": s.Section.ID, "title": s.Section.Title, "path": s.Path, "body": s.Excerpt, "urls": map[string]any{"app": surl}}
	}
	return map[string]any{"id": p.Page.PageID, "title": p.Page.Title, "path": path, "sections": sections, "urls": map[string]any{"app": app}}
}
