package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
)

// Invitation is what the invitation page (GET /invitations/{org}/{id})
// shows to the holder of the link: the organization, the role, the
// invited address and whether it has an account already (then its owner
// signs in and accepts; otherwise the page makes the account).
type Invitation struct {
	OrganizationID, OrganizationTitle string
	Role, Email                       string
	HasAccount                        bool
}

// InvitationForHolder is the invitation mailed to one address, for its
// link's holder: holding the link is the credential, as for
// AcceptInvitationAsNewUser. An unknown or used invitation, or an invite
// link (not mailed to anyone), is 404.
func (r *Resolver) InvitationForHolder(ctx context.Context, orgID, id string) (*Invitation, error) {
	inv, err := r.inviteOf(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if inv.Email == nil {
		return nil, apperr.NotFoundf("invite %s not found", id)
	}
	org, err := r.Client.Organization.Get(ctx, orgID)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("invite %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	has, err := r.Client.User.Query().Where(user.Email(*inv.Email)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	return &Invitation{OrganizationID: orgID, OrganizationTitle: org.Title, Role: string(inv.Role), Email: *inv.Email, HasAccount: has}, nil
}

// AcceptInvitationWithPassword is the invitation page's form for a person
// without an account: what AcceptInvitationAsNewUser does (the user, the
// membership, the invitation used up), their password and a session, as
// sign-up gives, in one transaction: a failure leaves no account without
// its password. The password is checked first.
func (r *Resolver) AcceptInvitationWithPassword(ctx context.Context, orgID, id, displayName string, a SignInAttempt) (*SignedIn, error) {
	if err := checkPassword(a.Password); err != nil {
		return nil, err
	}
	inv, displayName, err := r.invitationForNewUser(ctx, orgID, id, displayName)
	if err != nil {
		return nil, err
	}
	hash := auth.HashPassword(a.Password)
	// No user acts yet: the invitation page does.
	ctx = events.WithOrigin(ctx, events.Origin{Source: events.SourceUI,
		Actor: events.Actor{Type: events.ActorSystem, ID: "invitation", Label: "Invitation page"}})
	var out *SignedIn
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u, err := acceptInvitationAsNewUser(ctx, tx, inv, displayName)
		if err != nil {
			return err
		}
		if err := tx.User.UpdateOneID(u.ID).SetPasswordHash(hash).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, events.Event{Action: events.UserPasswordChanged, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
			Payload: map[string]any{"userId": u.ID}})
		out, err = r.openSession(ctx, tx, u, a, "invitation")
		return err
	})
	return out, err
}
