package rest

import (
	"context"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `sharing`: the users and teams a space, a collection or a site is
// shared with. (The aggregate lists, …/permissions/aggregate, live with
// their own area file.)
func (a *API) sharingRoutes(r chi.Router) {
	for _, o := range []struct {
		path   string
		object func(*http.Request) graph.SharedObject
		// nullable: PATCH takes MemberRoleOrGuest (null removes the
		// grant); sites take MemberRole.
		nullable bool
	}{
		{"/spaces/{spaceId}", func(r *http.Request) graph.SharedObject {
			return graph.SpaceObject(chi.URLParam(r, "spaceId"))
		}, true},
		{"/collections/{collectionId}", func(r *http.Request) graph.SharedObject {
			return graph.CollectionObject(chi.URLParam(r, "collectionId"))
		}, true},
		{"/orgs/{organizationId}/sites/{siteId}", func(r *http.Request) graph.SharedObject {
			return graph.SiteObject(chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId"))
		}, false},
	} {
		s := sharing{a: a, object: o.object, nullable: o.nullable}
		r.Method("POST", o.path+"/permissions", handler(s.invite))
		r.Method("GET", o.path+"/permissions/users", handler(s.listUsers))
		r.Method("PATCH", o.path+"/permissions/users/{userId}", handler(s.update(graph.ToUser, "userId")))
		r.Method("DELETE", o.path+"/permissions/users/{userId}", handler(s.remove(graph.ToUser, "userId")))
		r.Method("GET", o.path+"/permissions/teams", handler(s.listTeams))
		r.Method("PATCH", o.path+"/permissions/teams/{teamId}", handler(s.update(graph.ToTeam, "teamId")))
		r.Method("DELETE", o.path+"/permissions/teams/{teamId}", handler(s.remove(graph.ToTeam, "teamId")))
	}
}

// sharing is the handlers of one kind of shared object.
type sharing struct {
	a        *API
	object   func(*http.Request) graph.SharedObject
	nullable bool
}

// grantRoleBody is the body of the update operations.
type grantRoleBody struct {
	Role graphql.Omittable[*access.Role] `json:"role"`
}

// userPermissionJSON is UserContentPermission and UserSitePermissionOverride.
type userPermissionJSON struct {
	Permission access.Role `json:"permission"`
	User       userJSON    `json:"user"`
}

// teamPermissionJSON is a team's permission on content, and
// TeamSitePermissionOverride.
type teamPermissionJSON struct {
	Permission access.Role `json:"permission"`
	Team       any         `json:"team"`
}

// invite is inviteToSpace, inviteToCollection and inviteToSite
// (InviteUsersAndTeams).
func (s sharing) invite(w http.ResponseWriter, r *http.Request) error {
	o := s.object(r)
	if err := s.a.res.CheckSharer(r.Context(), o); err != nil {
		return err
	}
	var in model.InviteUsersAndTeamsInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := s.a.res.Share(r.Context(), o, in); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

// update is updateUserPermissionIn… and updateTeamPermissionIn….
func (s sharing) update(kind graph.PrincipalKind, param string) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		o := s.object(r)
		if err := s.a.res.CheckSharer(r.Context(), o); err != nil {
			return err
		}
		var in grantRoleBody
		if err := decodeJSON(r, &in); err != nil {
			return err
		}
		if err := s.a.res.UpdateGrant(r.Context(), o, kind, chi.URLParam(r, param), in.Role, s.nullable); err != nil {
			return err
		}
		return writeStatus(w, http.StatusNoContent)
	}
}

// remove is removeUserFrom… and removeTeamFrom…: 204 whether or not the
// object was shared with them.
func (s sharing) remove(kind graph.PrincipalKind, param string) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.a.res.RemoveGrant(r.Context(), s.object(r), kind, chi.URLParam(r, param)); err != nil {
			return err
		}
		return writeStatus(w, http.StatusNoContent)
	}
}

// listUsers is listUserPermissionsIn….
func (s sharing) listUsers(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := s.a.res.UserGrants(r.Context(), s.object(r), args)
	return writeList(w, r, page, err, nil, func(ctx context.Context, g *ent.Grant) (any, error) {
		u, err := s.a.res.GrantUser(ctx, g)
		if err != nil {
			return nil, err
		}
		return userPermissionJSON{Permission: g.Role, User: s.a.presentUser(u)}, nil
	})
}

// listTeams is listTeamPermissionsIn….
func (s sharing) listTeams(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := s.a.res.TeamGrants(r.Context(), s.object(r), args)
	return writeList(w, r, page, err, nil, func(ctx context.Context, g *ent.Grant) (any, error) {
		t, err := s.a.res.GrantTeam(ctx, g)
		if err != nil {
			return nil, err
		}
		team, err := s.a.presentTeam(ctx, t)
		if err != nil {
			return nil, err
		}
		return teamPermissionJSON{Permission: g.Role, Team: team}, nil
	})
}
