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
	r.Get("/orgs/{organizationId}/members", a.listMembers)
	r.Get("/orgs/{organizationId}/members/{userId}", a.getMember)
	r.Patch("/orgs/{organizationId}/members/{userId}", a.updateMember)
	r.Delete("/orgs/{organizationId}/members/{userId}", a.removeMember)
	r.Post("/orgs/{organizationId}/members/{userId}/sso", a.setMemberSSO)
	r.Get("/orgs/{organizationId}/members/{userId}/teams", a.listMemberTeams)
}

func (a *API) listMembers(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
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
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentMember)
}

func (a *API) getMember(w http.ResponseWriter, r *http.Request) {
	m, err := a.res.OrganizationMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"))
	a.writeMember(w, r, m, err)
}

func (a *API) updateMember(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateMemberInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := a.res.Mutation().UpdateMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"), in)
	a.writeMember(w, r, m, err)
}

func (a *API) removeMember(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().RemoveMember(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}

func (a *API) setMemberSSO(w http.ResponseWriter, r *http.Request) {
	m, err := a.res.Mutation().SetMemberSso(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"))
	a.writeMember(w, r, m, err)
}

func (a *API) listMemberTeams(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.MemberTeams(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"), args, queryString(r, "title"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, func(ctx context.Context, tm *ent.TeamMember) (any, error) {
		t, err := a.presentTeam(ctx, tm.Edges.Team)
		if err != nil {
			return nil, err
		}
		return map[string]any{"team": t, "member": teamRoleJSON{Role: string(tm.Role)}}, nil
	})
}

func (a *API) writeMember(w http.ResponseWriter, r *http.Request, m *ent.Member, err error) {
	writeOne(w, r, http.StatusOK, m, err, a.presentMember, nil)
}

// teamRoleJSON is GitBook's TeamMember object: a role in a team.
type teamRoleJSON struct {
	Role string `json:"role"`
}
