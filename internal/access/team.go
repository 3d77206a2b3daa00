package access

// TeamPermissions is the `permissions` object of a team.
type TeamPermissions struct {
	Admin bool `json:"admin"`
	View  bool `json:"view"`
}

// CanSeeTeams: members with a role see the organization's teams; guests do
// not (they see only what is shared with them).
func (m Membership) CanSeeTeams() bool { return m.Member && m.Role != nil }

// TeamPermissionsFor: organization admins and the team's owners manage it.
func TeamPermissionsFor(m Membership, teamOwner bool) TeamPermissions {
	return TeamPermissions{
		Admin: m.CanAdminOrganization() || (m.Member && teamOwner),
		View:  m.CanSeeTeams(),
	}
}
