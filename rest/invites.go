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
	r.Method("GET", "/orgs/{organizationId}/link-invites", handler(a.listInviteLinks))
	r.Method("POST", "/orgs/{organizationId}/link-invites", handler(a.createInviteLink))
	r.Method("GET", "/orgs/{organizationId}/link-invites/{inviteId}", handler(a.getInviteLink))
	r.Method("PATCH", "/orgs/{organizationId}/link-invites/{inviteId}", handler(a.updateInviteLink))
	r.Method("DELETE", "/orgs/{organizationId}/link-invites/{inviteId}", handler(a.deleteInviteLink))
	r.With(anyCaller).Method("POST", "/orgs/{organizationId}/invites/{inviteId}", handler(a.joinWithInvite))
}

func (a *API) listInviteLinks(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.OrganizationInviteLinks(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, nil, a.presentInvite)
}

func (a *API) createInviteLink(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateOrganizationInviteInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	inv, err := a.res.CreateOrganizationInvite(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeInvite(w, r, http.StatusCreated, inv, err)
}

func (a *API) getInviteLink(w http.ResponseWriter, r *http.Request) error {
	inv, err := a.res.InviteLink(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId"))
	return a.writeInvite(w, r, http.StatusOK, inv, err)
}

func (a *API) updateInviteLink(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateOrganizationInviteInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	inv, err := a.res.UpdateOrganizationInvite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId"), in)
	return a.writeInvite(w, r, http.StatusOK, inv, err)
}

func (a *API) deleteInviteLink(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteOrganizationInvite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

// joinWithInvite answers the invite, its `redundant` telling whether the
// caller was already a member (and so kept their role) before joining.
func (a *API) joinWithInvite(w http.ResponseWriter, r *http.Request) error {
	res, err := a.res.JoinOrganizationWithInvite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "inviteId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, inviteJSON{Object: "invite", ID: res.Invite.ID, Role: res.Invite.Role, Redundant: res.Redundant})
}

func (a *API) writeInvite(w http.ResponseWriter, r *http.Request, status int, inv *ent.Invite, err error) error {
	return writeOne(w, r, status, inv, err, a.presentInvite, a.res.InviteLinkLocation)
}

// inviteJSON is GitBook's InviteLinkToOrganization object.
type inviteJSON struct {
	Object    string      `json:"object"`
	ID        string      `json:"id"`
	Role      access.Role `json:"role"`
	Redundant bool        `json:"redundant"`
}

func (a *API) presentInvite(ctx context.Context, inv *ent.Invite) (any, error) {
	redundant, err := a.res.InviteRedundant(ctx, inv)
	if err != nil {
		return nil, err
	}
	return inviteJSON{Object: "invite", ID: inv.ID, Role: inv.Role, Redundant: redundant}, nil
}
