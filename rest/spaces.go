package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
)

// Area `spaces` (spaces): create, list, read, update, delete and restore,
// duplicate, move, transfer, and a member's spaces.
func (a *API) spaceRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/spaces", handler(a.listOrganizationSpaces))
	r.Method("POST", "/orgs/{organizationId}/spaces", handler(a.createSpace))
	r.Method("GET", "/orgs/{organizationId}/members/{userId}/spaces", handler(a.listMemberSpaces))
	r.Method("GET", "/spaces/{spaceId}", handler(a.getSpace))
	r.Method("PATCH", "/spaces/{spaceId}", handler(a.updateSpace))
	r.Method("DELETE", "/spaces/{spaceId}", handler(a.deleteSpace))
	r.Method("POST", "/spaces/{spaceId}/duplicate", handler(a.duplicateSpace))
	r.Method("POST", "/spaces/{spaceId}/restore", handler(a.restoreSpace))
	r.Method("POST", "/spaces/{spaceId}/move", handler(a.moveSpace))
	r.Method("POST", "/spaces/{spaceId}/transfer", handler(a.transferSpace))
}

// listOrganizationSpaces is a solo read (loader.Solo): the list's one
// statement brings the page with its counts (OrganizationSpacesPresented),
// which primes every load its items' presentation makes.
func (a *API) listOrganizationSpaces(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	r = r.WithContext(loader.Solo(r.Context()))
	page, err := a.res.OrganizationSpacesPresented(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, nil, a.presentSpace)
}

func (a *API) listMemberSpaces(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.MemberSpaces(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "userId"), args)
	return writeList(w, r, page, err, a.primeMemberSpaces, func(ctx context.Context, ms *model.MemberSpace) (memberSpaceJSON, error) {
		s, err := a.presentSpace(ctx, ms.Space)
		return memberSpaceJSON{Permission: ms.Permission, Space: s}, err
	})
}

// memberSpaceJSON is a space of a member's with the member's permission.
type memberSpaceJSON struct {
	Permission access.Role `json:"permission"`
	Space      spaceJSON   `json:"space"`
}

// primeMemberSpaces reads the counts of a page of a member's spaces in
// one statement, before they are presented one after another.
func (a *API) primeMemberSpaces(ctx context.Context, page []*model.MemberSpace) error {
	spaces := make([]*ent.Space, len(page))
	for i, ms := range page {
		spaces[i] = ms.Space
	}
	return a.res.PrimeSpaceCounts(ctx, spaces)
}

// createSpace's body is optional: without one the space is untitled, at the
// root of the organization.
func (a *API) createSpace(w http.ResponseWriter, r *http.Request) error {
	var in model.CreateSpaceInput
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	s, err := a.res.CreateSpace(r.Context(), chi.URLParam(r, "organizationId"), in)
	return a.writeSpace(w, r, http.StatusCreated, s, err)
}

// getSpace is a solo read (loader.Solo): it queues the counts presentSpace
// needs with the space itself, so a space at the root of its organization
// costs one round of loads, dispatched at once; one in a collection, two.
func (a *API) getSpace(w http.ResponseWriter, r *http.Request) error {
	id := chi.URLParam(r, "spaceId")
	r = r.WithContext(loader.Solo(r.Context()))
	a.res.WantSpaceCounts(r.Context(), id)
	s, err := a.res.ReadSpace(r.Context(), id, queryString(r, "shareKey"))
	return a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) updateSpace(w http.ResponseWriter, r *http.Request) error {
	var in model.UpdateSpaceInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	s, err := a.res.UpdateSpace(r.Context(), chi.URLParam(r, "spaceId"), in)
	return a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) deleteSpace(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteSpace(r.Context(), chi.URLParam(r, "spaceId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusResetContent)
}

func (a *API) restoreSpace(w http.ResponseWriter, r *http.Request) error {
	s, err := a.res.RestoreSpace(r.Context(), chi.URLParam(r, "spaceId"))
	return a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) duplicateSpace(w http.ResponseWriter, r *http.Request) error {
	s, err := a.res.DuplicateSpace(r.Context(), chi.URLParam(r, "spaceId"))
	return a.writeSpace(w, r, http.StatusCreated, s, err)
}

func (a *API) moveSpace(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeMove(r)
	if err != nil {
		return err
	}
	s, err := a.res.MoveSpace(r.Context(), chi.URLParam(r, "spaceId"), in)
	return a.writeSpace(w, r, http.StatusOK, s, err)
}

func (a *API) transferSpace(w http.ResponseWriter, r *http.Request) error {
	org, err := decodeTransfer(r)
	if err != nil {
		return err
	}
	s, err := a.res.TransferSpace(r.Context(), chi.URLParam(r, "spaceId"), org)
	return a.writeSpace(w, r, http.StatusOK, s, err)
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

func (a *API) writeSpace(w http.ResponseWriter, r *http.Request, status int, s *ent.Space, err error) error {
	return writeOne(w, r, status, s, err, a.presentSpace, func(s *ent.Space) string { return a.res.BaseURL + "/v1/spaces/" + s.ID })
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
	EditMode            *string                  `json:"editMode,omitempty"`
	MergeRules          mergeRulesBody           `json:"mergeRules"`
	Organization        string                   `json:"organization"`
	Parent              *string                  `json:"parent,omitempty"`
	Revision            string                   `json:"revision"`
	DefaultLevel        *string                  `json:"defaultLevel"`
	Comments            int                      `json:"comments"`
	ChangeRequests      int                      `json:"changeRequests"`
	ChangeRequestsOpen  int                      `json:"changeRequestsOpen"`
	ChangeRequestsDraft int                      `json:"changeRequestsDraft"`
	URLs                *model.SpaceURLs         `json:"urls"`
	Permissions         *access.SpacePermissions `json:"permissions"`
}

// presentSpace presents a space; its counts and permissions come through
// the dataloaders, so a list costs the same whatever its length.
func (a *API) presentSpace(ctx context.Context, s *ent.Space) (spaceJSON, error) {
	// The role behind urls and permissions is the one the read's guard
	// already loaded; the counts were queued with the space (getSpace) or
	// primed by the list (listOrganizationSpaces), or other lists' items
	// read them together on the first ask (ShowSpacesTogether).
	counts, err := a.res.SpaceCounts(ctx, s)
	if err != nil {
		return spaceJSON{}, err
	}
	urls, err := a.res.SpaceURLs(ctx, s)
	if err != nil {
		return spaceJSON{}, err
	}
	perms, err := a.res.SpacePermissions(ctx, s)
	if err != nil {
		return spaceJSON{}, err
	}
	out := spaceJSON{
		Object: "space", ID: s.ID, Title: s.Title, Visibility: s.Visibility.String(),
		CreatedAt: timestamp(s.CreatedAt), UpdatedAt: timestamp(s.UpdatedAt),
		EditMode: optionalString(s.EditMode), MergeRules: mergeRulesJSON(graph.SpaceMergeRules(s)),
		Organization: s.OrganizationID, Parent: s.ParentID, Revision: s.RevisionID, DefaultLevel: optionalString(s.DefaultLevel),
		Comments: counts.OpenComments, ChangeRequests: counts.ChangeRequests, ChangeRequestsOpen: counts.Open, ChangeRequestsDraft: counts.Draft,
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
