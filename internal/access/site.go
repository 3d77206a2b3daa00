package access

// CanSeeSites: members with a role read every docs site of the
// organization; guests only those shared with them (SiteRole), strangers
// none (404).
func (m Membership) CanSeeSites() bool { return m.Member && m.Role != nil }

// CanManageSites: admins and members with the create role create, change,
// publish and delete sites and everything in them.
func (m Membership) CanManageSites() bool { return m.Member && AtLeast(m.Role, Create) }
