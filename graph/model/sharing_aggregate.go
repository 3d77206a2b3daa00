package model

import (
	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/access"
)

// UserAccess is one user of an aggregate list (Space.access and the REST
// permissions aggregate): a member of the object's organization with their
// effective role on the object and its origin.
type UserAccess struct {
	Object string // the space, collection or site listed
	Member *ent.Member
	Role   access.Role
	Origin *AccessOrigin
}

// AccessOrigin is where a role on an object comes from (access.Origin),
// with the organization the object is in.
type AccessOrigin struct {
	Type         AccessOriginType
	Organization string
	TeamID       string
	CollectionID string
}

// AccessOriginOf is the GraphQL view of the rule's origin of a role on an
// object of organization org.
func AccessOriginOf(org string, o access.Origin) *AccessOrigin {
	return &AccessOrigin{Type: AccessOriginType(o.Kind), Organization: org, TeamID: o.Team, CollectionID: o.Collection}
}
