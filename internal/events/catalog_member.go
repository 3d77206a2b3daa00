package events

// Members of an organization: their role, joining and leaving.
var (
	MemberRoleUpdated = define("member.role_updated", "Member role updated", "userId", "role")
	MemberRemoved     = define("member.removed", "Member removed", "userId")
	MemberJoined      = define("member.joined", "Member joined", "userId", "role", "inviteId", "emailDomain")
	MemberAdded       = define("member.added", "Member added (by email, or as a guest content was shared with)", "userId", "role", "email", "sso")
	MemberInvited     = define("member.invited", "Member invited by email", "email", "role")
	MemberSSOUpdated  = define("member.sso_updated", "Member set to sign in through SSO", "userId")
)
