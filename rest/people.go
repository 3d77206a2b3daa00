package rest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// Area `people`: inviting by email, joining by email domain, and editing
// one's own profile.
func (a *API) peopleRoutes(r chi.Router) {
	r.Method("POST", "/orgs/{organizationId}/invites", handler(a.inviteUsers))
	r.Method("POST", "/orgs/{organizationId}/join", handler(a.joinOrganization))
	r.Method("PATCH", "/users/{userId}", handler(a.updateUser))
}

// inviteBody is GitBook's InviteUsersToOrganization: each of emails is an
// address, or {email, role}.
type inviteBody struct {
	Emails []json.RawMessage               `json:"emails"`
	Role   graphql.Omittable[*access.Role] `json:"role"`
	Sso    graphql.Omittable[*bool]        `json:"sso"`
}

// inviteInput reads the body into the GraphQL input, naming a bad item by
// its index as the resolver names what it refuses.
func inviteInput(r *http.Request) (model.InviteUsersToOrganizationInput, error) {
	var body inviteBody
	if err := decodeJSON(r, &body); err != nil {
		return model.InviteUsersToOrganizationInput{}, err
	}
	in := model.InviteUsersToOrganizationInput{Role: body.Role, Sso: body.Sso, Emails: make([]*model.InviteEmailInput, len(body.Emails))}
	for i, raw := range body.Emails {
		field := fmt.Sprintf("emails[%d]", i)
		item := &model.InviteEmailInput{}
		var err error
		switch {
		case len(raw) > 0 && raw[0] == '"':
			err = json.Unmarshal(raw, &item.Email)
		case len(raw) > 0 && raw[0] == '{':
			err = json.Unmarshal(raw, item)
		default:
			err = fmt.Errorf("not an address")
		}
		if err != nil {
			return in, apperr.InvalidField(field, "must be an address or an object {email, role}")
		}
		in.Emails[i] = item
	}
	return in, nil
}

// inviteUsersJSON is the answer of inviteUsersToOrganization; inviteLinks
// (Folio's) lists the invitations that were not mailed.
type inviteUsersJSON struct {
	Users           []string                `json:"users"`
	Invited         int                     `json:"invited"`
	FailedSSOEmails []string                `json:"failedSSOEmails"`
	InviteLinks     []*model.InvitationLink `json:"inviteLinks,omitempty"`
}

func (a *API) inviteUsers(w http.ResponseWriter, r *http.Request) error {
	// Admins only: anyone else hears 403 or 404 before their body is read.
	if err := a.res.CheckInviter(r.Context(), chi.URLParam(r, "organizationId")); err != nil {
		return err
	}
	in, err := inviteInput(r)
	if err != nil {
		return err
	}
	res, err := a.res.InviteUsersToOrganization(r.Context(), chi.URLParam(r, "organizationId"), in)
	if err != nil {
		return err
	}
	out := inviteUsersJSON{Users: make([]string, len(res.Users)), Invited: res.Invited, FailedSSOEmails: res.FailedSSOEmails, InviteLinks: res.InviteLinks}
	for i, u := range res.Users {
		out.Users[i] = u.ID
	}
	return writeJSON(w, http.StatusOK, out)
}

func (a *API) joinOrganization(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.res.JoinOrganization(r.Context(), chi.URLParam(r, "organizationId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) updateUser(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "userId")
	// The path first: a body sent for another user is not read (no path
	// parameter here names an organization for the boundary to check).
	if err := a.res.EditableUser(r.Context(), id); err != nil {
		return err
	}
	var in model.UpdateUserInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	u, err := a.res.UpdateUser(r.Context(), id, in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, a.presentUser(u))
}
