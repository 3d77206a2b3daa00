package access

// CanSeeSites: members with a role read the organization's docs sites;
// guests and strangers do not see them (404).
func (m Membership) CanSeeSites() bool { return m.Member && m.Role != nil }

// CanManageSites: admins and members with the create role create, change,
// publish and delete sites and everything in them.
func (m Membership) CanManageSites() bool { return m.Member && AtLeast(m.Role, Create) }
