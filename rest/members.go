package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
)

// Area `access`, members of an organization. Members are addressed by user
// id.
func (a *API) memberRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/members", handler(a.listMembers))
	r.Method("GET", "/orgs/{organizationId}/members/{userId}", handler(a.getMember))
	r.Method("PATCH", "/orgs/{organizationId}/members/{userId}", handler(a.updateMember))
	r.Method("DELETE", "/orgs/{organizationId}/members/{userId}", handler(a.removeMember))
	r.Method("POST", "/orgs/{organizationId}/members/{userId}/sso", handler(a.setMemberSSO))
	r.Method("GET", "/orgs/{organizationId}/members/{userId}/teams", handler(a.listMemberTeams))
}

func (a *API) listMembers(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	f := graph.MemberFilter{Search: queryString(r, "search")}
	if v := queryString(r, "role"); v != nil {
		role := model.MemberRoleFilter(*v)
		f.Role = &role
	}
	if v := queryString(r, "sort"); v != nil {
		sort := model.MemberSort(*v)
		f.Sort = &sort
	}
	page, err := a.res.OrganizationMembers(r.Context(), chi.URLParam(r, "organizationId"), args, f)
	return writeList(w, r, page, err, a.res.PrimeMembers, a.presentMember)
}

func (a *API) getMember(w http.ResponseWriter, r *http.Request) error {
	m, err := a.res.OrganizationMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"))
	return writeOne(w, r, http.StatusOK, m, err, a.presentMember, nil)
}

func (a *API) updateMember(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateMemberInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, err := a.res.UpdateMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"), in)
	return writeOne(w, r, http.StatusOK, m, err, a.presentMember, nil)
}

func (a *API) removeMember(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.RemoveMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) setMemberSSO(w http.ResponseWriter, r *http.Request) error {
	m, err := a.res.SetMemberSSO(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"))
	return writeOne(w, r, http.StatusOK, m, err, a.presentMember, nil)
}

func (a *API) listMemberTeams(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.MemberTeams(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"), args, queryString(r, "title"))
	return writeList(w, r, page, err, nil, func(ctx context.Context, tm *ent.TeamMember) (any, error) {
		t, err := a.presentTeam(ctx, tm.Edges.Team)
		if err != nil {
			return nil, err
		}
		return map[string]any{"team": t, "member": teamRoleJSON{Role: string(tm.Role)}}, nil
	})
}

// teamRoleJSON is GitBook's TeamMember object: a role in a team.
type teamRoleJSON struct {
	Role string `json:"role"`
}
