package rest

import (
	"bytes"
	"context"
	"errors"
	"io"
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
	r.Get("/orgs/{organizationId}/teams", a.listTeams)
	r.Put("/orgs/{organizationId}/teams", a.createTeam)
	r.Get("/orgs/{organizationId}/teams/{teamId}", a.getTeam)
	r.Patch("/orgs/{organizationId}/teams/{teamId}", a.updateTeam)
	r.Delete("/orgs/{organizationId}/teams/{teamId}", a.deleteTeam)
	r.Get("/orgs/{organizationId}/teams/{teamId}/members", a.listTeamMembers)
	r.Put("/orgs/{organizationId}/teams/{teamId}/members", a.updateTeamMembers)
	r.Put("/orgs/{organizationId}/teams/{teamId}/members/{userId}", a.addTeamMember)
	r.Delete("/orgs/{organizationId}/teams/{teamId}/members/{userId}", a.removeTeamMember)
}

func (a *API) listTeams(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.OrganizationTeams(r.Context(), chi.URLParam(r, "organizationId"), args,
		queryString(r, "owner"), queryString(r, "title"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentTeam)
}

// teamTitleBody is the body of createOrganizationTeam and
// updateTeamInOrganizationById.
type teamTitleBody struct {
	Title   *string  `json:"title"`
	Members []string `json:"members"`
}

func (b teamTitleBody) title() (string, error) {
	if b.Title == nil {
		return "", apperr.InvalidField("title", "is required")
	}
	return *b.Title, nil
}

func (a *API) createTeam(w http.ResponseWriter, r *http.Request) {
	var in teamTitleBody
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	title, err := in.title()
	if err != nil {
		writeError(w, r, err)
		return
	}
	t, err := a.res.Mutation().CreateTeam(r.Context(), chi.URLParam(r, "organizationId"), title, in.Members)
	a.writeTeam(w, r, http.StatusCreated, t, err)
}

func (a *API) getTeam(w http.ResponseWriter, r *http.Request) {
	t, err := a.res.OrganizationTeam(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"))
	a.writeTeam(w, r, http.StatusOK, t, err)
}

func (a *API) updateTeam(w http.ResponseWriter, r *http.Request) {
	var in teamTitleBody
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	title, err := in.title()
	if err != nil {
		writeError(w, r, err)
		return
	}
	t, err := a.res.Mutation().UpdateTeam(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"), title)
	a.writeTeam(w, r, http.StatusOK, t, err)
}

func (a *API) deleteTeam(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().DeleteTeam(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}

func (a *API) writeTeam(w http.ResponseWriter, r *http.Request, status int, t *ent.Team, err error) {
	writeOne(w, r, status, t, err, a.presentTeam, func(t *ent.Team) string {
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

func (a *API) updateTeamMembers(w http.ResponseWriter, r *http.Request) {
	var in teamMembersBody
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
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
			writeError(w, r, apperr.InvalidField("memberships."+u+".role", "is required (owner or member)"))
			return
		}
		memberships = append(memberships, &model.TeamMembershipInput{User: u, Role: model.TeamRole(*m.Role)})
	}
	if _, err := a.res.Mutation().UpdateTeamMembers(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"),
		in.Add, in.Remove, memberships); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}

// teamMemberJSON is GitBook's OrganizationTeamMember object.
type teamMemberJSON struct {
	Organization any                          `json:"organization"`
	Team         teamRoleJSON                 `json:"team"`
	Permissions  access.TeamMemberPermissions `json:"permissions"`
}

func (a *API) listTeamMembers(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.TeamMembers(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, func(ctx context.Context, tm *ent.TeamMember) (any, error) {
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

func (a *API) addTeamMember(w http.ResponseWriter, r *http.Request) {
	// The body is optional: without one (or without a role) a newcomer
	// joins as a member and an existing member keeps their role.
	var in teamRoleBody
	if err := decodeOptionalJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	var role *model.TeamRole
	if in.Role != nil {
		v := model.TeamRole(*in.Role)
		role = &v
	}
	if _, err := a.res.Mutation().AddTeamMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"),
		chi.URLParam(r, "userId"), role); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}

func (a *API) removeTeamMember(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().RemoveTeamMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "teamId"),
		chi.URLParam(r, "userId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}

// decodeOptionalJSON is decodeJSON for operations whose body may be left
// out: an empty body leaves dst as it is.
func decodeOptionalJSON(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apperr.Error{Kind: apperr.TooLarge, Message: "request body is too large"}
		}
		return apperr.Invalidf("could not read the request body")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decodeJSON(r, dst)
}
