package access

// Level is a content's defaultLevel: inherit the parent's, a role, or no
// access by default (Role nil and Inherit false).
type Level struct {
	Inherit bool
	Role    *Role
}

// ParseLevel reads a stored default_level: nil means no access, "inherit"
// inherits, anything else is a role.
func ParseLevel(s *string) Level {
	switch {
	case s == nil:
		return Level{}
	case *s == "inherit":
		return Level{Inherit: true}
	}
	r := Role(*s)
	return Level{Role: &r}
}

// SpacePermissions is the `permissions` object of a space.
type SpacePermissions struct {
	View               bool `json:"view"`
	Access             bool `json:"access"`
	Admin              bool `json:"admin"`
	ViewInviteLinks    bool `json:"viewInviteLinks"`
	Edit               bool `json:"edit"`
	TriggerGitSync     bool `json:"triggerGitSync"`
	Comment            bool `json:"comment"`
	Merge              bool `json:"merge"`
	Review             bool `json:"review"`
	InstallIntegration bool `json:"installIntegration"`
}

// SpacePermissionsFor derives a space's permissions from the effective role.
func SpacePermissionsFor(r *Role) SpacePermissions {
	return SpacePermissions{
		View:               r != nil,
		Access:             r != nil,
		Admin:              AtLeast(r, Admin),
		ViewInviteLinks:    AtLeast(r, Admin),
		Edit:               AtLeast(r, Edit),
		TriggerGitSync:     AtLeast(r, Edit),
		Comment:            AtLeast(r, Comment),
		Merge:              AtLeast(r, Edit),
		Review:             AtLeast(r, Review),
		InstallIntegration: AtLeast(r, Admin),
	}
}

// CollectionPermissions is the `permissions` object of a collection.
type CollectionPermissions struct {
	View            bool `json:"view"`
	Admin           bool `json:"admin"`
	ViewInviteLinks bool `json:"viewInviteLinks"`
	Create          bool `json:"create"`
}

// CollectionPermissionsFor derives a collection's permissions from the
// effective role.
func CollectionPermissionsFor(r *Role) CollectionPermissions {
	return CollectionPermissions{
		View:            r != nil,
		Admin:           AtLeast(r, Admin),
		ViewInviteLinks: AtLeast(r, Admin),
		Create:          AtLeast(r, Create),
	}
}
