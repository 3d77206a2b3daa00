package access

// Organization settings that are not content: invite links, translation
// settings and custom-field definitions.
//
//   - Invite links: only admins list, read, create, change and delete them;
//     an invite link is a secret that grants a role, so even reading it is
//     an admin's business. Anyone authenticated who holds a link may join.
//   - Translation settings and custom-field definitions: members with a role
//     read them (they describe the organization's content); guests do not;
//     only admins change them.
//
// Members who may see the organization but not do the thing get 403;
// strangers get 404 (see Membership.CanSeeOrganization).

// SettingsPermissions is the `permissions` object ({view, edit}) of
// translation settings and custom fields.
type SettingsPermissions struct {
	View bool `json:"view"`
	Edit bool `json:"edit"`
}

// CanReadSettings: members with a role read translation settings and
// custom-field definitions.
func (m Membership) CanReadSettings() bool { return m.Member && m.Role != nil }

// SettingsPermissionsFor computes the caller's permissions on translation
// settings and custom fields.
func SettingsPermissionsFor(m Membership) SettingsPermissions {
	return SettingsPermissions{View: m.CanReadSettings(), Edit: m.CanAdminOrganization()}
}

// InviteRedundant: an invite link is redundant for a caller who is already a
// member of the organization, whatever their role. Joining only admits
// newcomers: the role of a member is the admin's to set, so a member who
// was demoted (or made a guest) cannot take a higher role back through a
// link they kept.
func InviteRedundant(m Membership) bool { return m.Member }
