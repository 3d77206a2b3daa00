package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// Area `spaces` (spaces): create, list, read, update, delete and restore,
// duplicate, move, transfer, and a member's spaces.
func (a *API) spaceRoutes(r chi.Router) {
	r.Get("/orgs/{organizationId}/spaces", a.listOrganizationSpaces)
	r.Post("/orgs/{organizationId}/spaces", a.createSpace)
	r.Get("/orgs/{organizationId}/members/{userId}/spaces", a.listMemberSpaces)
	r.Get("/spaces/{spaceId}", a.getSpace)
	r.Patch("/spaces/{spaceId}", a.updateSpace)
	r.Delete("/spaces/{spaceId}", a.deleteSpace)
	r.Post("/spaces/{spaceId}/duplicate", a.duplicateSpace)
	r.Post("/spaces/{spaceId}/restore", a.restoreSpace)
	r.Post("/spaces/{spaceId}/move", a.moveSpace)
	r.Post("/spaces/{spaceId}/transfer", a.transferSpace)
}

func (a *API) listOrganizationSpaces(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.OrganizationSpaces(r.Context(), chi.URLParam(r, "organizationId"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, a.presentSpace)
}

func (a *API) listMemberSpaces(w http.ResponseWriter, r *http.Request) {
	args, err := listArgs(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := a.res.MemberSpaces(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"), args)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeList(w, r, page, func(ctx context.Context, ms *model.MemberSpace) (any, error) {
		s, err := a.presentSpace(ctx, ms.Space)
		return map[string]any{"permission": ms.Permission, "space": s}, err
	})
}

func (a *API) createSpace(w http.ResponseWriter, r *http.Request) {
	var in model.CreateSpaceInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	s, err := a.res.Mutation().CreateSpace(r.Context(), chi.URLParam(r, "organizationId"), in)
	a.writeSpace(w, r, http.StatusCreated, s, err)
}

func (a *API) getSpace(w http.ResponseWriter, r *http.Request) {
	s, err := a.query().Space(r.Context(), chi.URLParam(r, "spaceId"), queryString(r, "shareKey"))
	a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) updateSpace(w http.ResponseWriter, r *http.Request) {
	var in model.UpdateSpaceInput
	if err := decodeJSON(r, &in); err != nil {
		writeError(w, r, err)
		return
	}
	s, err := a.res.Mutation().UpdateSpace(r.Context(), chi.URLParam(r, "spaceId"), in)
	a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) deleteSpace(w http.ResponseWriter, r *http.Request) {
	if _, err := a.res.Mutation().DeleteSpace(r.Context(), chi.URLParam(r, "spaceId")); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusResetContent)
}

func (a *API) restoreSpace(w http.ResponseWriter, r *http.Request) {
	s, err := a.res.Mutation().RestoreSpace(r.Context(), chi.URLParam(r, "spaceId"))
	a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) duplicateSpace(w http.ResponseWriter, r *http.Request) {
	s, err := a.res.Mutation().DuplicateSpace(r.Context(), chi.URLParam(r, "spaceId"))
	a.writeSpace(w, r, http.StatusCreated, s, err)
}

func (a *API) moveSpace(w http.ResponseWriter, r *http.Request) {
	in, err := decodeMove(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s, err := a.res.Mutation().MoveSpace(r.Context(), chi.URLParam(r, "spaceId"), in)
	a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) transferSpace(w http.ResponseWriter, r *http.Request) {
	org, err := decodeTransfer(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s, err := a.res.Mutation().TransferSpace(r.Context(), chi.URLParam(r, "spaceId"), org)
	a.writeSpace(w, r, http.StatusOK, s, err)
}

// decodeMove reads a move body: at least one of parent and position.
func decodeMove(r *http.Request) (model.MoveInput, error) {
	var in model.MoveInput
	if err := decodeJSON(r, &in); err != nil {
		return in, err
	}
	if !in.Parent.IsSet() && !in.Position.IsSet() {
		return in, apperr.Invalidf("give parent, position or both")
	}
	return in, nil
}

// decodeTransfer reads a transfer body's required `organization`.
func decodeTransfer(r *http.Request) (string, error) {
	var in struct {
		Organization *string `json:"organization"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return "", err
	}
	if in.Organization == nil || *in.Organization == "" {
		return "", apperr.InvalidField("organization", "is required")
	}
	return *in.Organization, nil
}

func (a *API) writeSpace(w http.ResponseWriter, r *http.Request, status int, s *ent.Space, err error) {
	var body any
	if err == nil {
		body, err = a.presentSpace(r.Context(), s)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", a.res.BaseURL+"/v1/spaces/"+s.ID)
	}
	writeJSON(w, status, body)
}

// spaceJSON is GitBook's Space object.
type spaceJSON struct {
	Object              string                   `json:"object"`
	ID                  string                   `json:"id"`
	Title               string                   `json:"title"`
	Emoji               string                   `json:"emoji"`
	Visibility          string                   `json:"visibility"`
	CreatedAt           string                   `json:"createdAt"`
	UpdatedAt           string                   `json:"updatedAt"`
	DeletedAt           *string                  `json:"deletedAt,omitempty"`
	EditMode            *space.EditMode          `json:"editMode,omitempty"`
	MergeRules          map[string]string        `json:"mergeRules"`
	Organization        string                   `json:"organization"`
	Parent              *string                  `json:"parent,omitempty"`
	Revision            string                   `json:"revision"`
	DefaultLevel        *space.DefaultLevel      `json:"defaultLevel"`
	Comments            int                      `json:"comments"`
	ChangeRequests      int                      `json:"changeRequests"`
	ChangeRequestsOpen  int                      `json:"changeRequestsOpen"`
	ChangeRequestsDraft int                      `json:"changeRequestsDraft"`
	URLs                *model.SpaceURLs         `json:"urls"`
	Permissions         *access.SpacePermissions `json:"permissions"`
}

// presentSpace presents a space; its counts and permissions come through
// the dataloaders, so a list costs the same whatever its length.
func (a *API) presentSpace(ctx context.Context, s *ent.Space) (any, error) {
	sr := a.res.Space()
	comments, err := sr.Comments(ctx, s)
	if err != nil {
		return nil, err
	}
	crs, err := sr.ChangeRequestCount(ctx, s)
	if err != nil {
		return nil, err
	}
	open, err := sr.ChangeRequestsOpen(ctx, s)
	if err != nil {
		return nil, err
	}
	draft, err := sr.ChangeRequestsDraft(ctx, s)
	if err != nil {
		return nil, err
	}
	urls, err := sr.Urls(ctx, s)
	if err != nil {
		return nil, err
	}
	perms, err := sr.Permissions(ctx, s)
	if err != nil {
		return nil, err
	}
	out := spaceJSON{
		Object: "space", ID: s.ID, Title: s.Title, Visibility: s.Visibility.String(),
		CreatedAt: timestamp(s.CreatedAt), UpdatedAt: timestamp(s.UpdatedAt),
		EditMode: s.EditMode, MergeRules: map[string]string{"type": "inherit"},
		Organization: s.OrganizationID, Parent: s.ParentID, Revision: s.RevisionID, DefaultLevel: s.DefaultLevel,
		Comments: comments, ChangeRequests: crs, ChangeRequestsOpen: open, ChangeRequestsDraft: draft,
		URLs: urls, Permissions: perms,
	}
	if s.Emoji != nil {
		out.Emoji = *s.Emoji
	}
	if s.DeletedAt != nil {
		d := timestamp(*s.DeletedAt)
		out.DeletedAt = &d
	}
	return out, nil
}
