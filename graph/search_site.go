package graph

import (
	"context"
	"fmt"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/published"
)

// A site's search (searchSiteContent, Site.search) is the reader's search
// (internal/reader/search.go) over the API: the same ranking
// (searchPages, internal/search), the same site spaces (internal/published's
// View of the caller) and the same pages (hidden pages and the pages under
// them are not found, as the reader does not list them). Who sees what:
//
//   - a site-scoped token (the visitor a published URL was resolved for):
//     the site spaces shown to that visitor's claims;
//   - the site's audience in GraphQL (publishedSite): the site spaces shown
//     to the visitor it was opened as;
//   - a member who can see the site: every site space (conditions are for
//     the audience) whose space the member may read, published or not.
//
// Anyone else: 404.

// SiteSearchScope is where a site search looks (GitBook's SiteSearchScope;
// Mode is model.SiteSearchMode's value, RestrictTo
// model.SiteSearchRestriction's or "").
type SiteSearchScope struct {
	Mode             model.SiteSearchMode
	SiteSpaceIDs     []string
	CurrentSiteSpace *string
	RestrictTo       *model.SiteSearchRestriction
}

// SearchSite searches the site at orgID/siteID (REST's searchSiteContent).
// scope nil searches everything the caller sees (mode all).
func (r *Resolver) SearchSite(ctx context.Context, orgID, siteID, query string, scope *SiteSearchScope, args paging.Args) (paging.Page[*model.SiteSearchSpace], error) {
	v, readable, err := r.searchableSite(ctx, orgID, siteID)
	if err != nil {
		return paging.Page[*model.SiteSearchSpace]{}, err
	}
	return r.searchView(ctx, v, readable, query, scope, args)
}

// SiteSearch is Site.search in GraphQL: s as the request reads it (its
// audience, or a member).
func (r *Resolver) SiteSearch(ctx context.Context, s *ent.Site, query string, scope *SiteSearchScope, args paging.Args) (paging.Page[*model.SiteSearchSpace], error) {
	if loader.For(ctx).ReadsAsAudience(s.ID) {
		v, err := r.siteView(ctx, s)
		if err != nil {
			return paging.Page[*model.SiteSearchSpace]{}, err
		}
		return r.searchView(ctx, v, nil, query, scope, args)
	}
	return r.SearchSite(ctx, s.OrganizationID, s.ID, query, scope, args)
}

// searchableSite is the site as the caller may search it, and for members
// the spaces they may read (nil: no such limit).
func (r *Resolver) searchableSite(ctx context.Context, orgID, siteID string) (*published.View, map[string]bool, error) {
	if sc := siteScopeOf(ctx); sc != nil {
		s, _, err := trackableSite(ctx, orgID, siteID)
		if err != nil {
			return nil, nil, err
		}
		ps, err := r.publishedStructure(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		return published.NewView(ps, r.sitePath(siteName(s)), sc.Claims), nil, nil
	}
	s, _, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return nil, nil, err
	}
	ps, err := r.publishedStructure(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	ids, err := readableSpaceIDs(ctx, r.Client, s.OrganizationID)
	if err != nil {
		return nil, nil, err
	}
	readable := make(map[string]bool, len(ids))
	for _, id := range ids {
		readable[id] = true
	}
	return published.MemberView(ps, r.sitePath(siteName(s))), readable, nil
}

// siteHome is where a space is searched: the first site space showing it.
type siteHome struct {
	sec *published.Section
	ss  *published.SiteSpace
}

// scopeSpaces are the site spaces a scope names, among those v shows.
func scopeSpaces(v *published.View, scope *SiteSearchScope) ([]siteHome, error) {
	var all, defaults []siteHome
	visit := func(sec *published.Section) {
		spaces := v.SpacesOf(sec)
		var def *published.SiteSpace
		for _, ss := range spaces {
			all = append(all, siteHome{sec, ss})
			if ss.Default && def == nil {
				def = ss
			}
		}
		if def == nil && len(spaces) > 0 {
			def = spaces[0]
		}
		if def != nil {
			defaults = append(defaults, siteHome{sec, def})
		}
	}
	if len(v.Site.Sections) == 0 {
		visit(nil)
	}
	for _, sec := range v.Sections() {
		visit(sec)
	}
	if scope == nil || scope.Mode == model.SiteSearchModeAll {
		return all, nil
	}
	find := func(field, id string) (siteHome, error) {
		sec, ss, ok := v.SiteSpace(id)
		if !ok {
			return siteHome{}, apperr.InvalidField(field, "no site space %s in this site", id)
		}
		return siteHome{sec, ss}, nil
	}
	switch scope.Mode {
	case model.SiteSearchModeSpecific:
		if len(scope.SiteSpaceIDs) == 0 {
			return nil, apperr.InvalidField("scope.siteSpaceIds", "name at least one site space")
		}
		var out []siteHome
		for i, id := range scope.SiteSpaceIDs {
			h, err := find(fmt.Sprintf("scope.siteSpaceIds[%d]", i), id)
			if err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, nil
	case model.SiteSearchModeDefault:
		if scope.CurrentSiteSpace == nil {
			if scope.RestrictTo != nil {
				return nil, apperr.InvalidField("scope.currentSiteSpace", "is required with restrictTo")
			}
			return defaults, nil
		}
		cur, err := find("scope.currentSiteSpace", *scope.CurrentSiteSpace)
		if err != nil {
			return nil, err
		}
		var others []siteHome
		for _, h := range defaults {
			if h.ss.ID != cur.ss.ID {
				others = append(others, h)
			}
		}
		switch {
		case scope.RestrictTo == nil:
			return append([]siteHome{cur}, others...), nil
		case *scope.RestrictTo == model.SiteSearchRestrictionCurrentSiteSpace:
			return []siteHome{cur}, nil
		default:
			return others, nil
		}
	}
	return nil, apperr.InvalidField("scope.mode", "must be all, default or specific")
}

// maxSiteSearchPages bounds the pages a site search shows for one space
// (its best ones), whatever the rank limit: GraphQL's cost of
// SiteSearchSpace.pages (cost_caps.go).
const maxSiteSearchPages = 1000

// searchView searches the site spaces of v the scope names (and, when
// readable is not nil, whose space is in it).
func (r *Resolver) searchView(ctx context.Context, v *published.View, readable map[string]bool, query string,
	scope *SiteSearchScope, args paging.Args) (paging.Page[*model.SiteSearchSpace], error) {
	var none paging.Page[*model.SiteSearchSpace]
	homes, err := scopeSpaces(v, scope)
	if err != nil {
		return none, err
	}
	at := map[string]siteHome{} // space id -> where it is searched
	var spaceIDs []string
	for _, h := range homes {
		if _, ok := at[h.ss.SpaceID]; ok || (readable != nil && !readable[h.ss.SpaceID]) {
			continue
		}
		at[h.ss.SpaceID] = h
		spaceIDs = append(spaceIDs, h.ss.SpaceID)
	}
	hits, capped, err := r.searchPages(ctx, query, spaceIDs)
	if err != nil {
		return none, err
	}
	// The pages the reader lists: documents, not hidden, not under a hidden
	// page. Ranks count those only.
	navs := map[string]*published.Nav{}
	type ranked struct {
		hit  hit
		rank int
		page *published.Page
	}
	var order []string
	bySpace := map[string][]ranked{}
	n := 0
	for _, h := range hits {
		home := at[h.spaceID]
		nav := navs[h.spaceID]
		if nav == nil {
			if nav, err = r.PublishedNav(ctx, home.ss.RevisionID); err != nil {
				return none, err
			}
			navs[h.spaceID] = nav
		}
		p := nav.ByID[h.pageID]
		if p == nil || !nav.Listed(p) || p.Kind != "document" {
			continue
		}
		n++
		if _, ok := bySpace[h.spaceID]; !ok {
			order = append(order, h.spaceID)
		}
		if len(bySpace[h.spaceID]) < maxSiteSearchPages {
			bySpace[h.spaceID] = append(bySpace[h.spaceID], ranked{h, n, p})
		}
	}
	page, err := sliceRanked(args, order)
	if err != nil {
		return none, err
	}
	var chosen []hit
	for _, id := range page.Items {
		for _, rk := range bySpace[id] {
			chosen = append(chosen, rk.hit)
		}
	}
	found, err := r.searchResults(ctx, query, chosen, false)
	if err != nil {
		return none, err
	}
	sections := map[string][]*model.SearchSection{}
	for _, f := range found {
		sections[f.Space.ID+"/"+f.Page.PageID] = f.Sections
	}
	out := paging.Page[*model.SiteSearchSpace]{Next: page.Next, HasPrevious: page.HasPrevious, Total: page.Total, TotalIsLowerBound: capped,
		Cursors: page.Cursors}
	for _, id := range page.Items {
		home, nav := at[id], navs[id]
		base := v.SpaceURL(home.sec, home.ss)
		sp := &model.SiteSearchSpace{SiteSpaceID: home.ss.ID, SpaceID: id, Title: home.ss.Title, Pages: []*model.SiteSearchPage{}}
		for i, rk := range bySpace[id] {
			score := max(rk.hit.rank, 0)
			if i == 0 {
				sp.Score = score
			}
			p := rk.page
			res := &model.SiteSearchPage{PageID: p.ID, Title: p.Title, Description: p.Description, Path: p.Path, URL: base + p.Path,
				Score: score, Rank: rk.rank, Ancestors: []string{}, Sections: []*model.SiteSearchSection{}}
			for _, a := range nav.Ancestors(p) {
				res.Ancestors = append(res.Ancestors, a.Title)
			}
			for _, s := range sections[id+"/"+p.ID] {
				u := res.URL
				if s.Section.ID != "" {
					u += "#" + s.Section.ID
				}
				res.Sections = append(res.Sections, &model.SiteSearchSection{Anchor: s.Section.ID, Title: s.Section.Title, Path: s.Path, URL: u, Body: s.Excerpt})
			}
			sp.Pages = append(sp.Pages, res)
		}
		out.Items = append(out.Items, sp)
	}
	return out, nil
}

// siteSearchScopeOf is GraphQL's scope argument as SearchSite reads it.
func siteSearchScopeOf(in *model.SiteSearchScopeInput) *SiteSearchScope {
	if in == nil {
		return nil
	}
	return &SiteSearchScope{Mode: in.Mode, SiteSpaceIDs: in.SiteSpaceIds.Value(),
		CurrentSiteSpace: in.CurrentSiteSpace.Value(), RestrictTo: in.RestrictTo.Value()}
}
