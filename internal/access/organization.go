package access

// Membership is what the rules need to know of a caller in an organization.
// Member is false for strangers; Role is nil for guests.
type Membership struct {
	Member bool
	Role   *Role
}

// CanSeeOrganization: members and guests see their organization; anyone
// else is answered 404.
func (m Membership) CanSeeOrganization() bool { return m.Member }

// CanAdminOrganization: only admins change the organization's settings.
func (m Membership) CanAdminOrganization() bool { return m.Member && AtLeast(m.Role, Admin) }

// OrganizationPermissions is the `permissions` object of an organization, in
// GitBook's JSON names.
type OrganizationPermissions struct {
	View                bool `json:"view"`
	Admin               bool `json:"admin"`
	OwnTeam             bool `json:"ownTeam"`
	CreateContent       bool `json:"createContent"`
	CreateOpenAPISpec   bool `json:"createOpenAPISpec"`
	IngestConversations bool `json:"ingestConversations"`
	ViewBilling         bool `json:"viewBilling"`
	ListMembers         bool `json:"listMembers"`
	ListTeams           bool `json:"listTeams"`
	ListIntegrations    bool `json:"listIntegrations"`
	ListInstallations   bool `json:"listInstallations"`
	InstallIntegration  bool `json:"installIntegration"`
}

// OrganizationPermissionsFor computes the caller's permissions. ownsTeam
// tells whether the caller owns a team of the organization.
func OrganizationPermissionsFor(m Membership, ownsTeam bool) OrganizationPermissions {
	if !m.Member {
		return OrganizationPermissions{}
	}
	member := m.Role != nil // guests are not full members
	admin := AtLeast(m.Role, Admin)
	return OrganizationPermissions{
		View:              true,
		Admin:             admin,
		OwnTeam:           ownsTeam,
		CreateContent:     AtLeast(m.Role, Create),
		CreateOpenAPISpec: AtLeast(m.Role, Create),
		// Folio has no conversation ingestion, integrations or billing of
		// its own; only admins may see their (empty) settings.
		IngestConversations: false,
		ViewBilling:         admin,
		ListMembers:         member,
		ListTeams:           member,
		ListIntegrations:    member,
		ListInstallations:   admin,
		InstallIntegration:  admin,
	}
}
