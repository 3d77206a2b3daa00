package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
)

// Area `links`: the links of a space, of a page (in the space or in a change
// request), and the pages linking to a file.
func (a *API) linkRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/links", handler(a.listLinks))
	r.Method("GET", "/spaces/{spaceId}/content/page/{pageId}/links", handler(a.listLinks))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links", handler(a.listLinks))
	r.Method("GET", "/spaces/{spaceId}/content/files/{fileId}/backlinks", handler(a.listBacklinks))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks", handler(a.listBacklinks))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/links", handler(a.listLinks))
	r.Method("GET", "/spaces/{spaceId}/content/page/{pageId}/backlinks", handler(a.listPageBacklinks))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks", handler(a.listPageBacklinks))
}

// listPageBacklinks answers the pages linking to a page, as locations.
func (a *API) listPageBacklinks(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	pages, err := a.res.PageBacklinks(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), chi.URLParam(r, "pageId"))
	if err != nil {
		return err
	}
	return writeList(w, r, rankedPage(args, pages), nil, nil, func(ctx context.Context, p *model.Page) (any, error) {
		return a.presentPageLocation(ctx, p, "")
	})
}

func (a *API) listLinks(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	// listChangeRequestLinks' brokenContext is accepted and changes nothing:
	// stats always give both the broken links and those the change request
	// introduces.
	if v := queryString(r, "brokenContext"); v != nil && *v != "change-request" && *v != "space" {
		return apperr.InvalidField("brokenContext", "must be change-request or space")
	}
	links, err := a.res.Links(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), chi.URLParam(r, "pageId"), queryString(r, "status"))
	if err != nil {
		return err
	}
	page := rankedPage(args, links.Items)
	items, err := presentEach(r.Context(), page.Items, a.presentLinkUsage)
	if err != nil {
		return err
	}
	broken := map[string]any{"total": links.Broken}
	if chi.URLParam(r, "changeRequestId") != "" {
		broken["changeRequest"] = links.BrokenInChange
	}
	body := map[string]any{"items": items, "count": page.Total, "stats": map[string]any{"total": links.Total, "broken": broken}}
	if page.Next != nil {
		body["next"] = nextPage{Page: *page.Next}
	}
	return writeJSON(w, http.StatusOK, body)
}

func (a *API) listBacklinks(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	pages, err := a.res.FileBacklinks(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), chi.URLParam(r, "fileId"))
	if err != nil {
		return err
	}
	return writeList(w, r, rankedPage(args, pages), nil, nil, func(ctx context.Context, p *model.Page) (any, error) {
		return a.presentPageLocation(ctx, p, "")
	})
}

// rankedPage pages through a list kept in memory in its own order.
func rankedPage[T any](args paging.Args, items []T) paging.Page[T] {
	return graph.RankedPage(args, items)
}

// presentLinkUsage is GitBook's ContentReferenceUsage.
func (a *API) presentLinkUsage(ctx context.Context, u *model.LinkUsage) (any, error) {
	var target any
	var err error
	t := u.Target
	switch {
	case t.Status == model.LinkBroken || t.Kind == model.LinkURL || t.Kind == model.LinkOpenAPI:
		// API reference blocks too: their tag, as a URL location.
		target = map[string]any{"kind": model.LinkURL, "url": t.URL}
	case t.Kind == model.LinkFile:
		target, err = a.presentFileLocation(ctx, u.SpaceID, t.File)
	default:
		target, err = a.presentPageLocation(ctx, &model.Page{Page: u.Tree.ByID[t.PageID], Tree: u.Tree, SpaceID: u.SpaceID}, t.Anchor)
	}
	if err != nil {
		return nil, err
	}
	locations := make([]any, len(u.Locations))
	for i, p := range u.Locations {
		if locations[i], err = a.presentPageLocation(ctx, &model.Page{Page: p, Tree: u.Tree, SpaceID: u.SpaceID}, ""); err != nil {
			return nil, err
		}
	}
	return map[string]any{"status": t.Status, "relation": "reference", "targetReference": target, "locationReferences": locations}, nil
}

// presentPageLocation is GitBook's ContentLocationPage.
func (a *API) presentPageLocation(ctx context.Context, p *model.Page, anchor string) (any, error) {
	space, org, err := a.spaceAndOrganization(ctx, p.SpaceID)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"kind": model.LinkPage, "organization": org, "space": space, "page": a.presentPage(p)}
	if anchor != "" {
		out["internalLocation"] = map[string]any{"type": "anchor", "anchor": anchor}
	}
	return out, nil
}

// presentFileLocation is GitBook's ContentLocationFile.
func (a *API) presentFileLocation(ctx context.Context, spaceID string, f *ent.File) (any, error) {
	space, org, err := a.spaceAndOrganization(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"kind": model.LinkFile, "organization": org, "space": space, "file": a.presentFile(f)}, nil
}

func (a *API) spaceAndOrganization(ctx context.Context, spaceID string) (any, any, error) {
	s, err := a.res.ReadSpace(ctx, spaceID, nil)
	if err != nil {
		return nil, nil, err
	}
	space, err := a.presentSpace(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	o, err := a.res.ReadOrganization(ctx, s.OrganizationID)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.presentOrganization(ctx, o)
	return space, org, err
}
