package events

// Invite links of an organization.
var (
	InviteCreated  = define("invite.created", "Invite link created", "role")
	InviteUpdated  = define("invite.updated", "Invite link updated", "role")
	InviteDeleted  = define("invite.deleted", "Invite link deleted")
	InviteAccepted = define("invite.accepted", "Invite link accepted", "userId", "role")
)
