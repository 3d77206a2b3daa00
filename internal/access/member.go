package access

// Rules on the members of an organization. Strangers never get this far:
// anything in an organization they do not belong to answers 404.

// CanSeeMembers: members with a role list the organization's members and
// see each of them; guests do not (they see only what is shared with them).
func (m Membership) CanSeeMembers() bool { return m.Member && m.Role != nil }

// CanSeeMember: a guest still sees their own membership.
func (m Membership) CanSeeMember(self bool) bool {
	return m.CanSeeMembers() || (m.Member && self)
}

// CanManageMembers: only admins change members' roles and SSO flags.
func (m Membership) CanManageMembers() bool { return m.CanAdminOrganization() }

// CanRemoveMember: admins remove members; any member may leave on their own
// (as on GitBook).
func (m Membership) CanRemoveMember(self bool) bool {
	return m.CanAdminOrganization() || (m.Member && self)
}

// TeamMemberPermissions is the `permissions` object of a team member.
type TeamMemberPermissions struct {
	View bool `json:"view"`
}

// TeamMemberPermissionsFor: whoever may see the organization's members may
// see a team member's membership.
func TeamMemberPermissionsFor(m Membership) TeamMemberPermissions {
	return TeamMemberPermissions{View: m.CanSeeMembers()}
}

// KeepsAnAdmin tells whether an organization that has `admins` admins still
// has one after a change that takes the admin role from `losing` of them:
// the last admin can be neither demoted nor removed.
func KeepsAnAdmin(admins, losing int) bool { return admins-losing >= 1 }
