package access

// Sharing: grants give a user, or a team, a role on one space, collection or
// site (design.md, Access). Effective and SiteRole are the one rule that
// guards enforce, `permissions` objects report and the aggregate lists
// explain; graph's SQL filters express the same rule for lists, and the
// access matrix test holds them to it.

// Grant is a role given on one object to the caller or to one of the
// caller's teams.
type Grant struct {
	Role   Role
	Object string // the space, collection or site the grant is on
	Team   string // the team it was given to; "" for a grant to the user
}

// OriginKind says where an effective role comes from.
type OriginKind string

const (
	// OriginOrganization: the organization gives it (admins everywhere; a
	// member's role through defaultLevel).
	OriginOrganization OriginKind = "organization"
	// OriginDirect: a grant to the user on the object itself.
	OriginDirect OriginKind = "direct"
	// OriginTeam: a grant to one of the user's teams on the object itself.
	OriginTeam OriginKind = "team"
	// OriginCollection: a grant, to the user or a team, on a collection
	// above the object.
	OriginCollection OriginKind = "collection"
)

// Origin is where an effective role comes from: Team names the team of a
// team grant (on the object or on a collection), Collection the collection
// of a collection grant.
type Origin struct {
	Kind       OriginKind
	Team       string
	Collection string
}

// Effective is the caller's role on a space or collection and its origin.
// chain holds the default levels from the content up through its parent
// collections; objects the ids of the same content and collections, in the
// same order; grants the grants to the caller and the caller's teams (any
// grant on an object not in objects is ignored).
//
// Organization admins are admins everywhere. Anyone else gets the highest
// of: the role their membership gives through defaultLevel (members with a
// role only: the nearest level that is not inherit, else their organization
// role), and every grant to them or their teams on the object and on the
// collections above it. Grants only raise a role. On a tie the organization
// is the origin, then the object's own grants (the user's before a team's),
// then the nearest collection's. Strangers have nothing: a grant always
// comes with a membership (guests are members without a role).
func Effective(m Membership, chain []Level, objects []string, grants []Grant) (*Role, Origin) {
	if !m.Member {
		return nil, Origin{}
	}
	org := Origin{Kind: OriginOrganization}
	if AtLeast(m.Role, Admin) {
		r := Admin
		return &r, org
	}
	var best *Role
	origin := Origin{}
	if m.Role != nil {
		best, origin = levelRole(m.Role, chain), org
	}
	depth := func(id string) int {
		for i, o := range objects {
			if o == id {
				return i
			}
		}
		return -1
	}
	for _, g := range grants {
		d := depth(g.Object)
		if d < 0 {
			continue
		}
		o := grantOrigin(g, d)
		if best == nil || g.Role.rank() > best.rank() || (g.Role.rank() == best.rank() && before(o, origin, objects)) {
			r := g.Role
			best, origin = &r, o
		}
	}
	if best == nil {
		return nil, Origin{}
	}
	return best, origin
}

// EffectiveRole is Effective without grants: what a member's organization
// role and the default levels give.
func EffectiveRole(m Membership, chain []Level) *Role {
	r, _ := Effective(m, chain, nil, nil)
	return r
}

// levelRole is what a member with role r gets through the default levels:
// the nearest level that is not inherit, or else r. nil: no access.
func levelRole(r *Role, chain []Level) *Role {
	for _, l := range chain {
		if !l.Inherit {
			return l.Role
		}
	}
	return r
}

// grantOrigin is the origin of grant g found at depth d of the chain.
func grantOrigin(g Grant, d int) Origin {
	switch {
	case d > 0:
		return Origin{Kind: OriginCollection, Team: g.Team, Collection: g.Object}
	case g.Team != "":
		return Origin{Kind: OriginTeam, Team: g.Team}
	default:
		return Origin{Kind: OriginDirect}
	}
}

// before tells whether origin a explains an equal role before b does: the
// organization first, then grants from the nearest object outwards, a
// user's before a team's at each object.
func before(a, b Origin, objects []string) bool {
	order := func(o Origin) int {
		if o.Kind == OriginOrganization {
			return 0
		}
		at := 0 // the object itself
		if o.Kind == OriginCollection {
			for i, id := range objects {
				if id == o.Collection {
					at = i
				}
			}
		}
		n := 2*at + 1
		if o.Team != "" {
			n++
		}
		return n
	}
	return order(a) < order(b)
}

// SiteRole is the caller's role on a docs site and its origin: the same
// rule with site grants and no default levels. Admins are admins; members
// with a role have it on every site; grants to them or their teams on the
// site raise it, and are all a guest has.
func SiteRole(m Membership, siteID string, grants []Grant) (*Role, Origin) {
	return Effective(m, nil, []string{siteID}, grants)
}

// Site actions: who may do what with a docs site, from the role SiteRole
// gives. Reading needs any role; changing a site (settings, sections,
// spaces, publishing, deleting) needs create, as it did before sharing;
// sharing it needs admin.

// CanSeeSite: any role on the site.
func CanSeeSite(r *Role) bool { return r != nil }

// CanChangeSite: the create role on the site.
func CanChangeSite(r *Role) bool { return AtLeast(r, Create) }

// CanShare: the admin role on a space, collection or site shares it.
func CanShare(r *Role) bool { return AtLeast(r, Admin) }

// SitePermissions is the `permissions` object of a site (a Folio
// extension: GitBook's site has none).
type SitePermissions struct {
	View  bool `json:"view"`
	Edit  bool `json:"edit"`
	Admin bool `json:"admin"`
}

// SitePermissionsFor derives a site's permissions from the role SiteRole
// gives.
func SitePermissionsFor(r *Role) SitePermissions {
	return SitePermissions{View: CanSeeSite(r), Edit: CanChangeSite(r), Admin: CanShare(r)}
}

// CanListPermissions: who may see who has access to an object (its grants
// and its aggregate list). Those who may share it, and members with a role
// who can see it; a guest sees the people on an object only when it is
// shared with them as admin, as a guest sees no other member.
func CanListPermissions(m Membership, r *Role) bool {
	return CanShare(r) || (r != nil && m.Member && m.Role != nil)
}
