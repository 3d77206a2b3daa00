package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
)

// Area `link-invites`: an organization's invite links, and joining with one.
func (a *API) inviteRoutes(r chi.Router) {
	r.Get("/orgs/{organizationId}/link-invites", a.listInviteLinks)
	r.Post("/orgs/{organizationId}/link-invites", a.createInviteLink)
	r.Get("/orgs/{organizationId}/link-invites/{inviteId}", a.getInviteLink)
	r.Patch("/orgs/{organizationId}/link-invites/{inviteId}", a.updateInviteLink)
	r.Delete("/orgs/{organizationId}/link-invites/{inviteId}", a.deleteInviteLink)
	r.With(anyCaller).Post("/orgs/{organizationId}/invites/{inviteId}", a.joinWithInvite)
}

func (a *API) listInviteLinks(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.OrganizationInviteLinks(r.Context(), chi.URLParam(r, "organizationId"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentInvite)
}

func (a *API) createInviteLink(w http.ResponseWriter, r *http.Request) {
	var in model.CreateOrganizationInviteInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	inv, err := a.res.Mutation().CreateOrganizationInvite(r.Context(), chi.URLParam(r, "organizationId"), in)
	a.writeInvite(w, r, http.StatusCreated, inv, err)
}

func (a *API) getInviteLink(w http.ResponseWriter, r *http.Request) {
	inv, err := a.query().OrganizationInviteLink(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId"))
	a.writeInvite(w, r, http.StatusOK, inv, err)
}

func (a *API) updateInviteLink(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateOrganizationInviteInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	inv, err := a.res.Mutation().UpdateOrganizationInvite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId"), in)
	a.writeInvite(w, r, http.StatusOK, inv, err)
}

func (a *API) deleteInviteLink(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().DeleteOrganizationInvite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusResetContent)
}

// joinWithInvite answers the invite, its `redundant` telling whether the
// caller was already a member (and so kept their role) before joining.
func (a *API) joinWithInvite(w http.ResponseWriter, r *http.Request) {
	res, err := a.res.Mutation().JoinOrganizationWithInvite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, inviteJSON{Object: "invite", ID: res.Invite.ID, Role: res.Invite.Role, Redundant: res.Redundant})
}

func (a *API) writeInvite(w http.ResponseWriter, r *http.Request, status int, inv *ent.Invite, err error) {
	writeOne(w, r, status, inv, err, a.presentInvite, a.res.InviteLinkLocation)
}

// inviteJSON is GitBook's InviteLinkToOrganization object.
type inviteJSON struct {
	Object    string      `json:"object"`
	ID        string      `json:"id"`
	Role      access.Role `json:"role"`
	Redundant bool        `json:"redundant"`
}

func (a *API) presentInvite(ctx context.Context, inv *ent.Invite) (any, error) {
	redundant, err := a.res.Invite().Redundant(ctx, inv)
	if err != nil {
		return nil, err
	}
	return inviteJSON{Object: "invite", ID: inv.ID, Role: inv.Role, Redundant: redundant}, nil
}
