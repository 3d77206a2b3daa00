package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
)

// Areas `space-permissions` and `site-users`: every user with access to a
// space, a collection or a site (the permissions aggregate). Content items
// carry a Folio extension, `origin`, saying where the role comes from.
func (a *API) sharingAggregateRoutes(r chi.Router) {
	r.Method("GET", "/spaces/{spaceId}/permissions/aggregate", handler(a.listSpaceAccess))
	r.Method("GET", "/collections/{collectionId}/permissions/aggregate", handler(a.listCollectionAccess))
	r.Method("GET", "/orgs/{organizationId}/sites/{siteId}/permissions/aggregate", handler(a.listSiteAccess))
}

func (a *API) listSpaceAccess(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.SpaceAccess(r.Context(), chi.URLParam(r, "spaceId"), args, graph.AccessFilter{Role: queryString(r, "role")})
	return writeList(w, r, page, err, nil, a.presentContentAccess)
}

func (a *API) listCollectionAccess(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.CollectionAccess(r.Context(), chi.URLParam(r, "collectionId"), args, graph.AccessFilter{Role: queryString(r, "role")})
	return writeList(w, r, page, err, nil, a.presentContentAccess)
}

func (a *API) listSiteAccess(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	f := graph.AccessFilter{Role: queryString(r, "role"), Search: queryString(r, "search"), Team: queryString(r, "team")}
	if v := queryString(r, "sort"); v != nil {
		sort := model.AccessSort(*v)
		f.Sort = &sort
	}
	page, err := a.res.SiteAccess(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId"), args, f)
	return writeList(w, r, page, err, nil, a.presentSiteAccess)
}

// contentAccessJSON is GitBook's UserContentPermission with Folio's
// `origin`.
type contentAccessJSON struct {
	Permission string            `json:"permission"`
	User       userJSON          `json:"user"`
	Origin     contentOriginJSON `json:"origin"`
}

// contentOriginJSON is where a role on content comes from: {type: direct},
// {type: team, team}, {type: collection, collection, team?} or {type:
// organization, organization}.
type contentOriginJSON struct {
	Type         string `json:"type"`
	Team         string `json:"team,omitempty"`
	Collection   string `json:"collection,omitempty"`
	Organization string `json:"organization,omitempty"`
}

func (a *API) presentContentAccess(ctx context.Context, ua *model.UserAccess) (any, error) {
	u, err := a.res.MemberUser(ctx, ua.Member)
	if err != nil {
		return nil, err
	}
	o := contentOriginJSON{Type: string(ua.Origin.Type), Team: ua.Origin.TeamID, Collection: ua.Origin.CollectionID}
	if ua.Origin.Type == model.AccessOriginTypeOrganization {
		o.Organization = ua.Origin.Organization
	}
	return contentAccessJSON{Permission: string(ua.Role), User: a.presentUser(u), Origin: o}, nil
}

// siteAccessJSON is GitBook's UserSitePermission.
type siteAccessJSON struct {
	Permission string         `json:"permission"`
	User       userJSON       `json:"user"`
	Origin     siteOriginJSON `json:"origin"`
	Disabled   bool           `json:"disabled"`
	LastSeenAt string         `json:"lastSeenAt,omitempty"`
}

// siteOriginJSON is GitBook's UserSitePermissionOrigin: the organization
// ({type: organization, organization}: admins, and members with a role),
// or the site ({type: site, site, reason: member|team, team?}: a grant to
// the user or to one of their teams).
type siteOriginJSON struct {
	Type         string `json:"type"`
	Organization string `json:"organization,omitempty"`
	Site         string `json:"site,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Team         string `json:"team,omitempty"`
}

func (a *API) presentSiteAccess(ctx context.Context, ua *model.UserAccess) (any, error) {
	u, err := a.res.MemberUser(ctx, ua.Member)
	if err != nil {
		return nil, err
	}
	o := siteOriginJSON{Type: "organization", Organization: ua.Origin.Organization}
	switch ua.Origin.Type {
	case model.AccessOriginTypeDirect:
		o = siteOriginJSON{Type: "site", Site: ua.Object, Reason: "member"}
	case model.AccessOriginTypeTeam:
		o = siteOriginJSON{Type: "site", Site: ua.Object, Reason: "team", Team: ua.Origin.TeamID}
	}
	out := siteAccessJSON{Permission: string(ua.Role), User: a.presentUser(u), Origin: o, Disabled: ua.Member.Disabled}
	if ua.Member.LastSeenAt != nil {
		out.LastSeenAt = timestamp(*ua.Member.LastSeenAt)
	}
	return out, nil
}
