package graph

import (
	"context"
	"errors"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// Invite links. An invite's id is the secret link token: admins manage the
// links (every operation but joining is theirs alone, reading included);
// any authenticated user who holds one may join with it.

// OrganizationInviteLinks pages through an organization's invite links
// (admins only), newest first unless asked otherwise.
func (r *Resolver) OrganizationInviteLinks(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.Invite], error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return paging.Page[*ent.Invite]{}, err
	}
	return pageUnder(ctx, loader.Organizations, "invites", orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.Invite], error) {
		return listPages(ctx, r.Client.Invite.Query().Where(invite.EmailIsNil()), invite.FieldOrganizationID, orgs, args, invite.FieldCreatedAt,
			func(i *ent.Invite) paging.Cursor { return paging.Cursor{Time: i.CreatedAt, ID: i.ID} },
			func(i *ent.Invite) string { return i.OrganizationID })
	})
}

// InviteLink reads an invite link of orgID (admins only).
func (r *Resolver) InviteLink(ctx context.Context, orgID, id string) (*ent.Invite, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	return r.linkOf(ctx, orgID, id)
}

// InviteRedundant tells whether joining with an invite of its organization
// would change nothing for the caller: they are a member already.
func (r *Resolver) InviteRedundant(ctx context.Context, inv *ent.Invite) (bool, error) {
	m, _, err := membership(ctx, inv.OrganizationID)
	if err != nil {
		return false, err
	}
	return access.InviteRedundant(m), nil
}

// inviteOf finds an invite by id in orgID; invites of other organizations
// are not found.
func (r *Resolver) inviteOf(ctx context.Context, orgID, id string) (*ent.Invite, error) {
	inv, err := r.Client.Invite.Query().Where(invite.ID(id), invite.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("invite %s not found", id)
	}
	return inv, err
}

// linkOf is inviteOf for an invite link: invitations mailed to one address
// (people.go) are not links, and the link operations do not find them.
func (r *Resolver) linkOf(ctx context.Context, orgID, id string) (*ent.Invite, error) {
	inv, err := r.inviteOf(ctx, orgID, id)
	if err == nil && inv.Email != nil {
		return nil, apperr.NotFoundf("invite %s not found", id)
	}
	return inv, err
}

// checkInviteRole accepts a role; guest invites (null) are not offered.
func checkInviteRole(role access.Role) error {
	if !role.Valid() {
		return apperr.InvalidField("role", "must be one of admin, create, review, edit, comment, read (got %q)", string(role))
	}
	return nil
}

// CreateOrganizationInvite creates an invite link with a role (admins only;
// refused with 403 while the organization's inviteLinks setting is off).
func (r *Resolver) CreateOrganizationInvite(ctx context.Context, orgID string, in model.CreateOrganizationInviteInput) (*ent.Invite, error) {
	org, err := adminOrganization(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if err := inviteLinksEnabled(org); err != nil {
		return nil, err
	}
	if err := checkInviteRole(in.Role); err != nil {
		return nil, err
	}
	var inv *ent.Invite
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if inv, err = tx.Invite.Create().
			SetOrganizationID(orgID).
			SetRole(in.Role).
			SetCreatedBy(auth.ViewerID(ctx)).
			Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, inviteEvent(events.InviteCreated, inv, map[string]any{"role": string(inv.Role)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return inv, nil
}

// UpdateOrganizationInvite changes the role of an invite link (admins only).
func (r *Resolver) UpdateOrganizationInvite(ctx context.Context, orgID, id string, in model.UpdateOrganizationInviteInput) (*ent.Invite, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	inv, err := r.linkOf(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if err := checkInviteRole(in.Role); err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if inv, err = tx.Invite.UpdateOne(inv).SetRole(in.Role).Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, inviteEvent(events.InviteUpdated, inv, map[string]any{"role": string(inv.Role)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return inv, nil
}

// DeleteOrganizationInvite deletes an invite link (admins only); the link
// stops working at once.
func (r *Resolver) DeleteOrganizationInvite(ctx context.Context, orgID, id string) error {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return err
	}
	inv, err := r.linkOf(ctx, orgID, id)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.Invite.DeleteOne(inv).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, inviteEvent(events.InviteDeleted, inv, nil))
		return nil
	})
}

// inviteEvent is an event whose target is inv.
func inviteEvent(action string, inv *ent.Invite, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: inv.OrganizationID,
		Target:  events.Target{Type: "invite", ID: inv.ID},
		Payload: payload,
	}
}

// errJoinedMeanwhile: the caller became a member by another request while
// this one joined (a constraint error, which aborts the transaction on
// PostgreSQL: the write rolls back and the caller answers redundant).
var errJoinedMeanwhile = errors.New("joined meanwhile")

// JoinOrganizationWithInvite makes the caller a member of orgID with the
// invite's role. Any authenticated user holding the link may; an unknown
// invite, or one of another organization, is 404; a disabled inviteLinks
// setting is 403. A caller who is already a member (a guest, or one an
// admin demoted, included) keeps the role the admin set: nothing changes
// and the result says the invite was redundant. The invite link is not
// used up: a link serves every holder until an admin deletes it. An
// invitation mailed to one address (people.go) is another matter: only the
// user with that address may use it (anyone else: 404), whatever the
// inviteLinks setting; it is used up, and it verifies the address.
func (r *Resolver) JoinOrganizationWithInvite(ctx context.Context, orgID, id string) (*model.JoinOrganizationResult, error) {
	l := loader.For(ctx)
	orgThunk := l.OrganizationByID.Load(ctx, orgID)
	inv, err := r.inviteOf(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	org, err := orgThunk()
	if err != nil {
		return nil, err
	}
	invited, err := checkInvitationHolder(ctx, inv)
	if err != nil {
		return nil, err
	}
	if invited == nil {
		if err := inviteLinksEnabled(org); err != nil {
			return nil, err
		}
	}
	m, _, err := membership(ctx, orgID)
	if err != nil {
		return nil, err
	}
	result := &model.JoinOrganizationResult{Invite: inv, Organization: org, Redundant: access.InviteRedundant(m)}
	if result.Redundant {
		return result, nil
	}
	var mem *ent.Member
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		userID := auth.ViewerID(ctx)
		var err error
		mem, err = tx.Member.Create().
			SetOrganizationID(orgID).
			SetUserID(userID).
			SetRole(inv.Role).
			Save(ctx)
		if ent.IsConstraintError(err) {
			return errJoinedMeanwhile
		}
		if err != nil {
			return err
		}
		role := string(inv.Role)
		if invited != nil {
			// The invitation was mailed to this address: holding it
			// proves the address, and it serves once.
			if err := tx.User.UpdateOneID(userID).SetEmailVerified(true).Exec(ctx); err != nil {
				return err
			}
			if err := tx.Invite.DeleteOne(inv).Exec(ctx); err != nil {
				return err
			}
		}
		record(ctx, inviteEvent(events.InviteAccepted, inv, map[string]any{"userId": userID, "role": role}))
		record(ctx, memberEvent(events.MemberJoined, orgID, userID, map[string]any{"userId": userID, "role": role, "inviteId": inv.ID}))
		return nil
	})
	if errors.Is(err, errJoinedMeanwhile) {
		// The caller joined by another request at the same time: that one
		// made them a member, this one changed nothing.
		l.ForgetViewerMembership(ctx, orgID)
		result.Redundant = true
		return result, nil
	}
	if err != nil {
		return nil, entError(err)
	}
	l.ViewerMembership.Clear(ctx, orgID).Prime(ctx, orgID, mem)
	return result, nil
}

// InviteLinkLocation is the API URL of an invite link.
func (r *Resolver) InviteLinkLocation(inv *ent.Invite) string {
	return r.BaseURL + "/v1/orgs/" + inv.OrganizationID + "/link-invites/" + inv.ID
}
