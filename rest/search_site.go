package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// searchSiteBody is searchSiteContent's body: query and scope, or the
// deprecated forms without scope ({mode: "specific", siteSpaceIds},
// {mode: "current", siteSpaceId}, {mode: "all"}). Neither: everything the
// caller sees, as {mode: "all"}.
type searchSiteBody struct {
	Query *string `json:"query"`
	Scope *struct {
		Mode             *string  `json:"mode"`
		SiteSpaceIDs     []string `json:"siteSpaceIds"`
		CurrentSiteSpace *string  `json:"currentSiteSpace"`
		RestrictTo       *string  `json:"restrictTo"`
	} `json:"scope"`
	Mode         *string  `json:"mode"`
	SiteSpaceIDs []string `json:"siteSpaceIds"`
	SiteSpaceID  *string  `json:"siteSpaceId"`
}

// siteSearchScope reads the body's scope (nil: everything).
func (b *searchSiteBody) siteSearchScope() (*graph.SiteSearchScope, error) {
	if b.Scope != nil {
		sc := b.Scope
		if sc.Mode == nil {
			return nil, apperr.InvalidField("scope.mode", "is required: all, default or specific")
		}
		out := &graph.SiteSearchScope{Mode: model.SiteSearchMode(*sc.Mode), SiteSpaceIDs: sc.SiteSpaceIDs, CurrentSiteSpace: sc.CurrentSiteSpace}
		if !out.Mode.IsValid() {
			return nil, apperr.InvalidField("scope.mode", "must be all, default or specific")
		}
		if sc.RestrictTo != nil {
			rt := model.SiteSearchRestriction(*sc.RestrictTo)
			if !rt.IsValid() {
				return nil, apperr.InvalidField("scope.restrictTo", "must be currentSiteSpace or otherSiteSpaces")
			}
			out.RestrictTo = &rt
		}
		return out, nil
	}
	switch {
	case b.SiteSpaceIDs != nil:
		return &graph.SiteSearchScope{Mode: model.SiteSearchModeSpecific, SiteSpaceIDs: b.SiteSpaceIDs}, nil
	case b.Mode == nil || *b.Mode == "all":
		return nil, nil
	case *b.Mode == "current":
		if b.SiteSpaceID == nil {
			return nil, apperr.InvalidField("siteSpaceId", "is required with mode current")
		}
		return &graph.SiteSearchScope{Mode: model.SiteSearchModeDefault, CurrentSiteSpace: b.SiteSpaceID}, nil
	}
	return nil, apperr.InvalidField("mode", "must be all, current or specific (or use scope)")
}

func (a *API) searchSiteContent(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	var in searchSiteBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	scope, err := in.siteSearchScope()
	if err != nil {
		return err
	}
	query := ""
	if in.Query != nil {
		query = *in.Query
	}
	page, err := a.res.SearchSite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId"), query, scope, args)
	return writeList(w, r, page, err, nil, func(_ context.Context, s *model.SiteSearchSpace) (any, error) {
		pages := make([]any, len(s.Pages))
		for i, p := range s.Pages {
			sections := make([]any, len(p.Sections))
			for j, sec := range p.Sections {
				sections[j] = map[string]any{"id": sec.Anchor, "title": sec.Title, "path": sec.Path, "score": p.Score,
					"resultType": "section", "body": sec.Body, "urls": map[string]any{"app": sec.URL}}
			}
			ancestors := make([]any, len(p.Ancestors))
			for j, t := range p.Ancestors {
				ancestors[j] = map[string]any{"title": t}
			}
			kind := "page"
			if len(p.Sections) > 0 {
				kind = "section"
			}
			pages[i] = map[string]any{"id": p.PageID, "title": p.Title, "description": p.Description, "path": p.Path,
				"score": p.Score, "rank": p.Rank, "resultType": kind, "sections": sections, "ancestors": ancestors,
				"urls": map[string]any{"app": p.URL}}
		}
		return map[string]any{"type": "space", "id": s.SpaceID, "title": s.Title, "score": s.Score, "pages": pages}, nil
	})
}
