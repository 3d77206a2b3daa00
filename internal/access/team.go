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

// CanCreateTeams: only organization admins create teams.
func (m Membership) CanCreateTeams() bool { return m.CanAdminOrganization() }

// CanManageTeam: organization admins and the team's owners rename and
// delete a team and change its members. teamOwner tells whether the caller
// owns the team.
func (m Membership) CanManageTeam(teamOwner bool) bool {
	return m.CanSeeTeams() && TeamPermissionsFor(m, teamOwner).Admin
}

// CanLeaveTeam: anyone who can see a team may leave it.
func (m Membership) CanLeaveTeam() bool { return m.CanSeeTeams() }

// ManagesAllTeams: a member who administers the organization manages every
// team of it; anyone else manages the teams they own (the `owner` filter).
func ManagesAllTeams(role *Role) bool { return AtLeast(role, Admin) }
