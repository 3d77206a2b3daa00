package access

// OpenAPI specifications of an organization: members with a role read them
// (guests, who see only what is shared with them, do not); members with the
// create role and above (admins included) add, replace and delete them, as
// the organization's permissions.createOpenAPISpec says.

// CanReadOpenAPISpecs: members with a role.
func (m Membership) CanReadOpenAPISpecs() bool { return m.Member && m.Role != nil }

// CanEditOpenAPISpecs: create and admin members.
func (m Membership) CanEditOpenAPISpecs() bool { return m.Member && AtLeast(m.Role, Create) }

// OpenAPISpecPermissions is the `permissions` object of a spec.
type OpenAPISpecPermissions struct {
	View bool `json:"view"`
	Edit bool `json:"edit"`
}

// OpenAPISpecPermissionsFor computes the caller's permissions on a spec.
func OpenAPISpecPermissionsFor(m Membership) OpenAPISpecPermissions {
	return OpenAPISpecPermissions{View: m.CanReadOpenAPISpecs(), Edit: m.CanEditOpenAPISpecs()}
}
