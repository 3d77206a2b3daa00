// Package access holds the roles and the permission rules of design.md
// (Access). Resolvers decide with these functions and `permissions` objects
// are computed from them, so what the API reports is what it enforces.
package access

import (
	"fmt"
	"io"
	"strconv"
)

// Role is an organization or content role. The zero value is not a role; a
// nil *Role on a member means guest.
type Role string

const (
	Admin   Role = "admin"
	Create  Role = "create"
	Review  Role = "review"
	Edit    Role = "edit"
	Comment Role = "comment"
	Read    Role = "read"
)

// roles lists every role from the highest to the lowest.
var roles = []Role{Admin, Create, Review, Edit, Comment, Read}

// Values lists the roles; ent uses it for the enum columns.
func (Role) Values() []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = string(r)
	}
	return out
}

// Valid tells whether r is one of the roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// rank orders roles: higher is more; 0 is not a role.
func (r Role) rank() int {
	for i, x := range roles {
		if x == r {
			return len(roles) - i
		}
	}
	return 0
}

// AtLeast tells whether a role (nil: guest or no access) reaches min.
func AtLeast(r *Role, min Role) bool {
	return r != nil && r.rank() >= min.rank()
}

// ParseRole reads a role name.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if !r.Valid() {
		return "", fmt.Errorf("%q is not a role (admin, create, review, edit, comment, read)", s)
	}
	return r, nil
}

// MarshalGQL writes the role as a GraphQL enum value.
func (r Role) MarshalGQL(w io.Writer) { io.WriteString(w, strconv.Quote(string(r))) }

// UnmarshalGQL reads a GraphQL enum value.
func (r *Role) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("role must be a string")
	}
	parsed, err := ParseRole(s)
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}
