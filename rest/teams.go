package rest

import (
	"context"
	"net/http"
	"sort"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// Area `access`, teams of an organization and their members.
func (a *API) teamRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/teams", handler(a.listTeams))
	r.Method("PUT", "/orgs/{organizationId}/teams", handler(a.createTeam))
	r.Method("GET", "/orgs/{organizationId}/teams/{teamId}", handler(a.getTeam))
	r.Method("PATCH", "/orgs/{organizationId}/teams/{teamId}", handler(a.updateTeam))
	r.Method("DELETE", "/orgs/{organizationId}/teams/{teamId}", handler(a.deleteTeam))
	r.Method("GET", "/orgs/{organizationId}/teams/{teamId}/members", handler(a.listTeamMembers))
	r.Method("PUT", "/orgs/{organizationId}/teams/{teamId}/members", handler(a.updateTeamMembers))
	r.Method("PUT", "/orgs/{organizationId}/teams/{teamId}/members/{userId}", handler(a.addTeamMember))
	r.Method("DELETE", "/orgs/{organizationId}/teams/{teamId}/members/{userId}", handler(a.removeTeamMember))
}

func (a *API) listTeams(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OrganizationTeams(r.Context(), chi.URLParam(r, "organizationId"), args,
		queryString(r, "owner"), queryString(r, "title"))
	return writeList(w, r, page, err, a.res.PrimeTeams, a.presentTeam)
}

// teamTitleBody is the body of createOrganizationTeam and
// updateTeamInOrganizationById.
type teamTitleBody struct {
	Title   *string  `json:"title"`
	Members []string `json:"members"`
}

// decodeTeamTitle reads a teamTitleBody, whose title is required.
func decodeTeamTitle(r *http.Request) (teamTitleBody, string, error) {
	var in teamTitleBody
	if err := decodeJSON(r, &in); err != nil {
		return in, "", err
	}
	if in.Title == nil {
		return in, "", apperr.InvalidField("title", "is required")
	}
	return in, *in.Title, nil
}

func (a *API) createTeam(w http.ResponseWriter, r *http.Request) error {
	in, title, err := decodeTeamTitle(r)
	if err != nil {
		return err
	}
	t, err := a.res.CreateTeam(r.Context(), chi.URLParam(r, "organizationId"), title, in.Members)
	return a.writeTeam(w, r, http.StatusCreated, t, err)
}

func (a *API) getTeam(w http.ResponseWriter, r *http.Request) error {
	t, err := a.res.OrganizationTeam(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"))
	return a.writeTeam(w, r, http.StatusOK, t, err)
}

func (a *API) updateTeam(w http.ResponseWriter, r *http.Request) error {
	_, title, err := decodeTeamTitle(r)
	if err != nil {
		return err
	}
	t, err := a.res.UpdateTeam(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"), title)
	return a.writeTeam(w, r, http.StatusOK, t, err)
}

func (a *API) deleteTeam(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteTeam(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) writeTeam(w http.ResponseWriter, r *http.Request, status int, t *ent.Team, err error) error {
	return writeOne(w, r, status, t, err, a.presentTeam, func(t *ent.Team) string {
		return a.res.BaseURL + "/v1/orgs/" + t.OrganizationID + "/teams/" + t.ID
	})
}

// teamRoleBody is a role in a team, as a request sends it.
type teamRoleBody struct {
	Role *string `json:"role"`
}

// teamMembersBody is the body of updateMembersInOrganizationTeam.
type teamMembersBody struct {
	Add         []string                 `json:"add"`
	Remove      []string                 `json:"remove"`
	Memberships map[string]*teamRoleBody `json:"memberships"`
}

func (a *API) updateTeamMembers(w http.ResponseWriter, r *http.Request) error {
	var in teamMembersBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	// GraphQL has no maps: the memberships become a list, in key order so
	// that a request does the same thing every time.
	users := make([]string, 0, len(in.Memberships))
	for u := range in.Memberships {
		users = append(users, u)
	}
	sort.Strings(users)
	memberships := make([]*model.TeamMembershipInput, 0, len(users))
	for _, u := range users {
		m := in.Memberships[u]
		if m == nil || m.Role == nil {
			return apperr.InvalidField("memberships."+u+".role", "is required (owner or member)")
		}
		memberships = append(memberships, &model.TeamMembershipInput{User: u, Role: model.TeamRole(*m.Role)})
	}
	if _, err := a.res.UpdateTeamMembers(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"),
		in.Add, in.Remove, memberships); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

// teamMemberJSON is GitBook's OrganizationTeamMember object.
type teamMemberJSON struct {
	Organization any                           `json:"organization"`
	Team         teamRoleJSON                  `json:"team"`
	Permissions  *access.TeamMemberPermissions `json:"permissions"`
}

func (a *API) listTeamMembers(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.TeamMembers(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"), args)
	return writeList(w, r, page, err, nil, func(ctx context.Context, tm *ent.TeamMember) (any, error) {
		m, err := a.res.TeamMemberMember(ctx, tm)
		if err != nil {
			return nil, err
		}
		org, err := a.presentMember(ctx, m)
		if err != nil {
			return nil, err
		}
		perms, err := a.res.TeamMemberPermissions(ctx, tm)
		if err != nil {
			return nil, err
		}
		return teamMemberJSON{Organization: org, Team: teamRoleJSON{Role: string(tm.Role)}, Permissions: perms}, nil
	})
}

func (a *API) addTeamMember(w http.ResponseWriter, r *http.Request) error {
	// The body is optional: without one (or without a role) a newcomer
	// joins as a member and an existing member keeps their role.
	var in teamRoleBody
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	var role *model.TeamRole
	if in.Role != nil {
		v := model.TeamRole(*in.Role)
		role = &v
	}
	if _, err := a.res.AddTeamMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"),
		chi.URLParam(r, "userId"), role); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) removeTeamMember(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.RemoveTeamMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"),
		chi.URLParam(r, "userId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}
