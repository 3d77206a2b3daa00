package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/mail"
)

// People: inviting by email, joining by email domain, and one's own
// profile (REST area `people`).

// MaxInvitees bounds the addresses of one inviteUsersToOrganization: each
// may cost a mail exchange of up to mail.DefaultTimeout, within one
// request's deadline.
const MaxInvitees = 100

// mailMargin is the time left to answer once invitations stop being mailed.
const mailMargin = 2 * time.Second

// Why an invitation's link is answered instead of mailed.
const (
	linkNotConfigured = "NOT_CONFIGURED"
	linkMailFailed    = "FAILED"
)

// invitee is one checked address of an invitation.
type invitee struct {
	email string
	role  access.Role
}

// inviteRole reads an optional role of an invitation: absent is fallback;
// null (a guest) is refused, naming field.
func inviteRole(field string, v *access.Role, given bool, fallback access.Role) (access.Role, error) {
	if !given {
		return fallback, nil
	}
	if v == nil {
		return "", apperr.InvalidField(field, "guests are not invited by email: give a role (admin, create, review, edit, comment, read) or leave it out")
	}
	if !v.Valid() {
		return "", apperr.InvalidField(field, "must be one of admin, create, review, edit, comment, read (got %q)", string(*v))
	}
	return *v, nil
}

// normalizeEmail reads a bare address (no display name), lower-cased as
// users' emails are stored; false when it is not one.
func normalizeEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) < 3 || len(s) > 320 {
		return "", false
	}
	a, err := netmail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", false
	}
	_, domain, _ := strings.Cut(s, "@")
	return s, domain != "" && !strings.ContainsAny(s, " \t\r\n")
}

// checkInvitees validates an invitation's input: 1 to MaxInvitees bare
// addresses, each with a role (its own, the input's, or the fallback).
// Repeats count once; the first wins.
func checkInvitees(in model.InviteUsersToOrganizationInput, fallback access.Role) ([]invitee, error) {
	if len(in.Emails) == 0 || len(in.Emails) > MaxInvitees {
		return nil, apperr.InvalidField("emails", "must list 1 to %d addresses (got %d)", MaxInvitees, len(in.Emails))
	}
	v, given := in.Role.ValueOK()
	role, err := inviteRole("role", v, given, fallback)
	if err != nil {
		return nil, err
	}
	out := make([]invitee, 0, len(in.Emails))
	seen := map[string]bool{}
	for i, e := range in.Emails {
		field := fmt.Sprintf("emails[%d]", i)
		if e == nil {
			return nil, apperr.InvalidField(field, "must be an address")
		}
		addr, ok := normalizeEmail(e.Email)
		if !ok {
			return nil, apperr.InvalidField(field, "%q is not an email address", e.Email)
		}
		v, given := e.Role.ValueOK()
		r, err := inviteRole(field+".role", v, given, role)
		if err != nil {
			return nil, err
		}
		if !seen[addr] {
			seen[addr] = true
			out = append(out, invitee{email: addr, role: r})
		}
	}
	return out, nil
}

// CheckInviter refuses, before a request's body is read, a caller who may
// not invite into orgID: 404 for a stranger, 403 for a member who is not
// an admin (REST reads no body of a path it may not change).
func (r *Resolver) CheckInviter(ctx context.Context, orgID string) error {
	_, err := adminOrganization(ctx, orgID)
	return err
}

// InviteUsersToOrganization invites addresses into orgID (admins only).
// A user with the address becomes a member at once with its role (one who
// is a member already keeps their role and is not counted); anyone else gets
// an invitation, one per address and organization (inviting again changes
// its role and sends it again). Invitations are mailed after the write
// commits; those that could not be (no FOLIO_SMTP_URL, or the server
// refused) are answered in InviteLinks for the admin to hand out, the
// invitation standing either way.
func (r *Resolver) InviteUsersToOrganization(ctx context.Context, orgID string, in model.InviteUsersToOrganizationInput) (*model.InviteUsersToOrganizationResult, error) {
	org, err := adminOrganization(ctx, orgID)
	if err != nil {
		return nil, err
	}
	fallback := access.Read
	if org.DefaultRole != nil {
		fallback = *org.DefaultRole
	}
	list, err := checkInvitees(in, fallback)
	if err != nil {
		return nil, err
	}
	ssoAsked := false
	if v, ok := in.Sso.ValueOK(); ok && v != nil {
		ssoAsked = *v
	}
	addrs := make([]string, len(list))
	for i, x := range list {
		addrs[i] = x.email
	}
	users, err := r.Client.User.Query().Where(user.EmailIn(addrs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	byEmail := map[string]*ent.User{}
	ids := make([]string, 0, len(users))
	for _, u := range users {
		byEmail[u.Email] = u
		ids = append(ids, u.ID)
	}
	// Who is a member here already, and (for sso) an SSO member elsewhere.
	memberships, err := r.Client.Member.Query().
		Where(member.UserIDIn(ids...), member.Or(member.OrganizationID(orgID), member.SSO(true))).
		All(ctx)
	if err != nil {
		return nil, err
	}
	already, ssoElsewhere := map[string]bool{}, map[string]bool{}
	for _, m := range memberships {
		if m.OrganizationID == orgID {
			already[m.UserID] = true
		} else {
			ssoElsewhere[m.UserID] = true
		}
	}
	pending, err := r.Client.Invite.Query().Where(invite.OrganizationID(orgID), invite.EmailIn(addrs...)).All(ctx)
	if err != nil {
		return nil, err
	}
	pendingBy := map[string]*ent.Invite{}
	for _, inv := range pending {
		pendingBy[*inv.Email] = inv
	}

	result := &model.InviteUsersToOrganizationResult{Users: []*ent.User{}, FailedSSOEmails: []string{}, InviteLinks: []*model.InvitationLink{}}
	var invitations []*ent.Invite
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		result.Users, result.FailedSSOEmails, invitations = result.Users[:0], result.FailedSSOEmails[:0], nil
		for _, x := range list {
			if u := byEmail[x.email]; u != nil {
				if already[u.ID] {
					continue
				}
				sso := ssoAsked && !ssoElsewhere[u.ID]
				if ssoAsked && !sso {
					result.FailedSSOEmails = append(result.FailedSSOEmails, x.email)
				}
				if err := tx.Member.Create().SetOrganizationID(orgID).SetUserID(u.ID).SetRole(x.role).SetSSO(sso).Exec(ctx); err != nil {
					if ent.IsConstraintError(err) {
						return apperr.Conflictf("%s became a member meanwhile: try again", x.email)
					}
					return err
				}
				record(ctx, memberEvent(events.MemberAdded, orgID, u.ID, map[string]any{"userId": u.ID, "role": string(x.role), "email": x.email, "sso": sso}))
				result.Users = append(result.Users, u)
				continue
			}
			var inv *ent.Invite
			var err error
			if p := pendingBy[x.email]; p != nil {
				inv, err = tx.Invite.UpdateOne(p).SetRole(x.role).Save(ctx)
			} else {
				inv, err = tx.Invite.Create().SetOrganizationID(orgID).SetEmail(x.email).SetRole(x.role).
					SetCreatedBy(auth.ViewerID(ctx)).Save(ctx)
			}
			if ent.IsConstraintError(err) {
				return apperr.Conflictf("%s was invited by another request meanwhile: try again", x.email)
			}
			if err != nil {
				return entError(err)
			}
			ev := inviteEvent(events.MemberInvited, inv, map[string]any{"email": x.email, "role": string(x.role)})
			ev.Target.Label = x.email
			record(ctx, ev)
			invitations = append(invitations, inv)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(result.Users) > 0 {
		loader.For(ctx).ForgetViewerMembership(ctx, orgID)
	}
	result.Invited = len(result.Users) + len(invitations)
	result.InviteLinks = r.sendInvitations(ctx, org, invitations)
	return result, nil
}

// sendInvitations mails each invitation and answers the links of those it
// could not: all of them when no mail server is configured. A failure is
// logged (never the server's password: mail's errors do not hold it) and
// the others are still tried; once the request's deadline passes the rest
// fail at once.
func (r *Resolver) sendInvitations(ctx context.Context, org *ent.Organization, invs []*ent.Invite) []*model.InvitationLink {
	links := []*model.InvitationLink{}
	inviter := ""
	if u, err := viewerUser(ctx); err == nil {
		inviter = u.DisplayName
	}
	// Mail stops short of the request's deadline, so that the answer (with
	// the links of what was not sent) still reaches the admin.
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-mailMargin))
		defer cancel()
	}
	for _, inv := range invs {
		link := &model.InvitationLink{Email: *inv.Email, URL: r.InvitationURL(inv)}
		if r.Mailer == nil {
			link.Reason = linkNotConfigured
			links = append(links, link)
			continue
		}
		err := r.Mailer.Send(ctx, invitationMessage(inviter, org.Title, link.Email, link.URL))
		if err != nil {
			slog.WarnContext(ctx, "invitation not mailed", "organization", org.ID, "error", err.Error())
			link.Reason = linkMailFailed
			links = append(links, link)
		}
	}
	return links
}

// InvitationURL is the link that accepts an invitation mailed to one
// address: the sign-in pages take the invited person there; a signed-in
// user with that address accepts it with joinOrganizationWithInvite.
func (r *Resolver) InvitationURL(inv *ent.Invite) string {
	return r.BaseURL + "/invitations/" + inv.OrganizationID + "/" + inv.ID
}

func invitationMessage(inviter, orgTitle, to, url string) mail.Message {
	who := "You have"
	if inviter != "" {
		who = inviter + " has"
	}
	// Titles and names are single-line by validation, but a subject must
	// never hold a line break whatever they become.
	subject := strings.NewReplacer("\r", " ", "\n", " ").Replace("Invitation to " + orgTitle + " on Folio")
	body := fmt.Sprintf("%s invited you to join %s on Folio.\n\nAccept the invitation:\n%s\n\nThe link is for %s only and works once.\nIf you did not expect this message, ignore it.\n",
		who, orgTitle, url, to)
	return mail.Message{To: to, Subject: subject, Body: body}
}

// checkInvitationHolder refuses (404, as an unknown invite) an invitation
// mailed to an address that is not the caller's; invite links pass.
func checkInvitationHolder(ctx context.Context, inv *ent.Invite) (*ent.User, error) {
	if inv.Email == nil {
		return nil, nil
	}
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if u.Email != *inv.Email {
		return nil, apperr.NotFoundf("invite %s not found", inv.ID)
	}
	return u, nil
}

// JoinOrganization makes the caller a member of orgID with the
// organization's defaultRole (null: guest) when the domain of the caller's
// verified email is one of its emailDomains. An organization whose domains
// do not hold the caller's, like an unknown one, is 404 (the caller may not
// see it: getOrganizationsForEmailDomain would not list it); an unverified
// email is 403. A member already keeps their role, and nothing changes.
func (r *Resolver) JoinOrganization(ctx context.Context, orgID string) (*ent.Organization, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	l := loader.For(ctx)
	orgThunk := l.OrganizationByID.Load(ctx, orgID)
	m, _, err := membership(ctx, orgID)
	if err != nil {
		return nil, err
	}
	org, err := orgThunk()
	if err != nil {
		return nil, err
	}
	_, domain, _ := strings.Cut(u.Email, "@")
	if !slices.Contains(org.EmailDomains, domain) {
		if m.Member {
			return org, nil
		}
		return nil, apperr.NotFoundf("organization %s not found", orgID)
	}
	if m.Member {
		return org, nil
	}
	if !u.EmailVerified {
		return nil, apperr.Forbiddenf("your email address %s is not verified: joining by email domain needs a verified address", u.Email)
	}
	var mem *ent.Member
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		create := tx.Member.Create().SetOrganizationID(orgID).SetUserID(u.ID)
		role := any(nil)
		if org.DefaultRole != nil {
			create.SetRole(*org.DefaultRole)
			role = string(*org.DefaultRole)
		}
		var err error
		if mem, err = create.Save(ctx); ent.IsConstraintError(err) {
			return errJoinedMeanwhile
		} else if err != nil {
			return err
		}
		record(ctx, memberEvent(events.MemberJoined, orgID, u.ID, map[string]any{"userId": u.ID, "role": role, "emailDomain": domain}))
		return nil
	})
	if errors.Is(err, errJoinedMeanwhile) {
		l.ForgetViewerMembership(ctx, orgID)
		return org, nil
	}
	if err != nil {
		return nil, entError(err)
	}
	l.ViewerMembership.Clear(ctx, orgID).Prime(ctx, orgID, mem)
	return org, nil
}

// editableUser is the user id when it is the caller: a user edits only
// their own profile, and any other id, seen or not, answers 404.
func editableUser(ctx context.Context, id string) (*ent.User, error) {
	u, err := viewerUser(ctx)
	if err != nil {
		return nil, err
	}
	if u.ID != id {
		return nil, apperr.NotFoundf("user %s not found", id)
	}
	return u, nil
}

// EditableUser checks, before a request's body is read, that the caller
// may edit user id (REST reads no body of a path it may not change).
func (r *Resolver) EditableUser(ctx context.Context, id string) error {
	_, err := editableUser(ctx, id)
	return err
}

// UpdateUser changes the caller's display name (1-64 characters) or photo
// (an http(s) URL of at most 2048 characters; null removes it). Another
// user's id is 404.
func (r *Resolver) UpdateUser(ctx context.Context, id string, in model.UpdateUserInput) (*ent.User, error) {
	u, err := editableUser(ctx, id)
	if err != nil {
		return nil, err
	}
	var fields []string
	upd := func(*ent.UserUpdateOne) {}
	chain := func(f func(*ent.UserUpdateOne)) {
		prev := upd
		upd = func(x *ent.UserUpdateOne) { prev(x); f(x) }
	}
	if v, ok := in.DisplayName.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("displayName", "cannot be null")
		}
		name := strings.TrimSpace(*v)
		if n := utf8.RuneCountInString(name); n < 1 || n > 64 {
			return nil, apperr.InvalidField("displayName", "must be 1 to 64 characters (got %d)", n)
		}
		if strings.ContainsAny(name, "\r\n") {
			return nil, apperr.InvalidField("displayName", "must be one line")
		}
		fields = append(fields, "displayName")
		chain(func(x *ent.UserUpdateOne) { x.SetDisplayName(name) })
	}
	if v, ok := in.PhotoURL.ValueOK(); ok {
		fields = append(fields, "photoURL")
		if v == nil {
			chain(func(x *ent.UserUpdateOne) { x.ClearPhotoURL() })
		} else {
			if len(*v) > 2048 || fetch.CheckURL(*v) != nil {
				return nil, apperr.InvalidField("photoURL", "must be an absolute http(s) URL of at most 2048 characters")
			}
			url := *v
			chain(func(x *ent.UserUpdateOne) { x.SetPhotoURL(url) })
		}
	}
	if len(fields) == 0 {
		return nil, apperr.Invalidf("request body must change displayName or photoURL")
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		x := tx.User.UpdateOne(u)
		upd(x)
		if u, err = x.Save(ctx); err != nil {
			return entError(err)
		}
		// A user belongs to no organization.
		record(ctx, events.Event{Action: events.UserUpdated, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName},
			Payload: map[string]any{"fields": fields}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).UserByID.Clear(ctx, u.ID).Prime(ctx, u.ID, u)
	return u, nil
}

// AcceptInvitationAsNewUser is how a person without an account accepts an
// invitation mailed to them: the sign-in pages call it for the holder of
// the link (no viewer: holding the link is the credential). It creates the
// user with the invited address, verified (they hold the mail), makes them
// a member with the invitation's role and uses the invitation up. An
// unknown invitation, or an invite link (those need an account), is 404;
// an address that has an account already is 409: that user signs in and
// accepts with JoinOrganizationWithInvite. displayName "" is the
// address's local part.
func (r *Resolver) AcceptInvitationAsNewUser(ctx context.Context, orgID, id, displayName string) (*ent.User, error) {
	inv, displayName, err := r.invitationForNewUser(ctx, orgID, id, displayName)
	if err != nil {
		return nil, err
	}
	var u *ent.User
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		u, err = acceptInvitationAsNewUser(ctx, tx, inv, displayName)
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// invitationForNewUser checks what AcceptInvitationAsNewUser is given: the
// invitation (mailed to an address) and the display name it makes.
func (r *Resolver) invitationForNewUser(ctx context.Context, orgID, id, displayName string) (*ent.Invite, string, error) {
	inv, err := r.inviteOf(ctx, orgID, id)
	if err != nil {
		return nil, "", err
	}
	if inv.Email == nil {
		return nil, "", apperr.NotFoundf("invite %s not found", id)
	}
	displayName = strings.TrimSpace(displayName)
	if displayName == "" {
		displayName, _, _ = strings.Cut(*inv.Email, "@")
	}
	if n := utf8.RuneCountInString(displayName); n > 64 || strings.ContainsAny(displayName, "\r\n") {
		return nil, "", apperr.InvalidField("displayName", "must be one line of 1 to 64 characters")
	}
	return inv, displayName, nil
}

// acceptInvitationAsNewUser is AcceptInvitationAsNewUser's write, in tx:
// the invitation page (invitations_page.go) sets the password and opens
// the session in the same transaction.
func acceptInvitationAsNewUser(ctx context.Context, tx *ent.Client, inv *ent.Invite, displayName string) (*ent.User, error) {
	email, orgID := *inv.Email, inv.OrganizationID
	u, err := tx.User.Create().SetEmail(email).SetDisplayName(displayName).SetEmailVerified(true).Save(ctx)
	if ent.IsConstraintError(err) {
		return nil, apperr.Conflictf("an account with %s exists: sign in to accept the invitation", email)
	}
	if err != nil {
		return nil, entError(err)
	}
	if err := tx.Member.Create().SetOrganizationID(orgID).SetUserID(u.ID).SetRole(inv.Role).Exec(ctx); err != nil {
		return nil, err
	}
	// Deleted by id: another request accepting it at the same time
	// finds nothing to delete and rolls back (its user included).
	if n, err := tx.Invite.Delete().Where(invite.ID(inv.ID)).Exec(ctx); err != nil || n != 1 {
		if err == nil {
			err = apperr.NotFoundf("invite %s not found", inv.ID)
		}
		return nil, err
	}
	role := string(inv.Role)
	record(ctx, events.Event{Action: events.UserCreated, Target: events.Target{Type: "user", ID: u.ID, Label: u.DisplayName}})
	record(ctx, inviteEvent(events.InviteAccepted, inv, map[string]any{"userId": u.ID, "role": role}))
	record(ctx, memberEvent(events.MemberJoined, orgID, u.ID, map[string]any{"userId": u.ID, "role": role, "inviteId": inv.ID}))
	return u, nil
}
