package access

import (
	"fmt"
	"testing"
)

func roleName(r *Role) string {
	if r == nil {
		return "none"
	}
	return string(*r)
}

// reversed is grants in the opposite order: the answer must not depend on
// the order grants are read in.
func reversed(grants []Grant) []Grant {
	out := make([]Grant, len(grants))
	for i, g := range grants {
		out[len(grants)-1-i] = g
	}
	return out
}

func TestEffectiveWithGrants(t *testing.T) {
	role := func(r Role) *Role { return &r }
	lvl := func(s string) Level { return ParseLevel(&s) }
	inherit, none := Level{Inherit: true}, Level{}
	member := func(r Role) Membership { return Membership{Member: true, Role: role(r)} }
	guest := Membership{Member: true}
	org := Origin{Kind: OriginOrganization}
	direct := Origin{Kind: OriginDirect}
	team := func(id string) Origin { return Origin{Kind: OriginTeam, Team: id} }
	coll := func(id, teamID string) Origin { return Origin{Kind: OriginCollection, Collection: id, Team: teamID} }

	// The space s is in collection c1, itself in c2.
	objects := []string{"s", "c1", "c2"}
	inherits := []Level{inherit, inherit, inherit}
	cases := []struct {
		name   string
		m      Membership
		chain  []Level
		grants []Grant
		want   *Role
		origin Origin
	}{
		{"stranger with grants", Membership{}, inherits, []Grant{{Role: Admin, Object: "s"}}, nil, Origin{}},
		{"admin: organization, whatever the grants", member(Admin), inherits,
			[]Grant{{Role: Admin, Object: "s"}, {Role: Read, Object: "c1", Team: "t"}}, role(Admin), org},
		{"member, no grant", member(Comment), inherits, nil, role(Comment), org},
		{"guest, no grant: levels give guests nothing", guest, []Level{lvl("edit"), inherit, inherit}, nil, nil, Origin{}},
		{"guest, grant to them", guest, inherits, []Grant{{Role: Read, Object: "s"}}, role(Read), direct},
		{"guest, grant to a team", guest, inherits, []Grant{{Role: Edit, Object: "s", Team: "t"}}, role(Edit), team("t")},
		{"guest, grant on the collection above", guest, inherits, []Grant{{Role: Edit, Object: "c2", Team: "t"}}, role(Edit), coll("c2", "t")},
		{"grant on an object outside the chain: ignored", guest, inherits, []Grant{{Role: Admin, Object: "elsewhere"}}, nil, Origin{}},
		{"grant raises a member", member(Read), inherits, []Grant{{Role: Edit, Object: "s"}}, role(Edit), direct},
		{"grant never lowers a member", member(Create), inherits, []Grant{{Role: Read, Object: "s"}}, role(Create), org},
		{"level of no access, no grant", member(Edit), []Level{none, inherit, inherit}, nil, nil, Origin{}},
		{"level of no access, grant on the collection", member(Edit), []Level{inherit, none, inherit},
			[]Grant{{Role: Read, Object: "c1"}}, role(Read), coll("c1", "")},
		{"level lower than the organization role, grant between", member(Create), []Level{lvl("read"), inherit, inherit},
			[]Grant{{Role: Edit, Object: "c2"}}, role(Edit), coll("c2", "")},
		{"highest grant wins over nearer ones", guest, inherits,
			[]Grant{{Role: Read, Object: "s"}, {Role: Edit, Object: "s", Team: "t"}, {Role: Admin, Object: "c2", Team: "u"}},
			role(Admin), coll("c2", "u")},

		// Ties: the organization, then the object's own grants (the
		// user's before a team's), then the nearest collection's.
		{"tie: organization before a grant", member(Edit), inherits,
			[]Grant{{Role: Edit, Object: "s"}, {Role: Edit, Object: "s", Team: "t"}}, role(Edit), org},
		{"tie: the user's grant before a team's", guest, inherits,
			[]Grant{{Role: Edit, Object: "s", Team: "t"}, {Role: Edit, Object: "s"}}, role(Edit), direct},
		{"tie: a team's grant on the object before the user's on a collection", guest, inherits,
			[]Grant{{Role: Edit, Object: "c1"}, {Role: Edit, Object: "s", Team: "t"}}, role(Edit), team("t")},
		{"tie: the nearer collection", guest, inherits,
			[]Grant{{Role: Edit, Object: "c2"}, {Role: Edit, Object: "c1", Team: "t"}}, role(Edit), coll("c1", "t")},
		{"tie: at one collection, the user's before a team's", member(Read), inherits,
			[]Grant{{Role: Edit, Object: "c2", Team: "t"}, {Role: Edit, Object: "c2"}}, role(Edit), coll("c2", "")},
	}
	for _, c := range cases {
		for i, grants := range [][]Grant{c.grants, reversed(c.grants)} {
			t.Run(fmt.Sprintf("%s/%d", c.name, i), func(t *testing.T) {
				got, origin := Effective(c.m, c.chain, objects, grants)
				if roleName(got) != roleName(c.want) || origin != c.origin {
					t.Fatalf("Effective = %s from %+v, want %s from %+v", roleName(got), origin, roleName(c.want), c.origin)
				}
			})
		}
	}
}

func TestSiteRole(t *testing.T) {
	role := func(r Role) *Role { return &r }
	member := func(r Role) Membership { return Membership{Member: true, Role: role(r)} }
	guest := Membership{Member: true}
	org := Origin{Kind: OriginOrganization}
	cases := []struct {
		name   string
		m      Membership
		grants []Grant
		want   *Role
		origin Origin
		perms  SitePermissions
	}{
		{"stranger with a grant", Membership{}, []Grant{{Role: Admin, Object: "site"}}, nil, Origin{}, SitePermissions{}},
		{"guest, no grant", guest, nil, nil, Origin{}, SitePermissions{}},
		{"guest, grant on another site", guest, []Grant{{Role: Admin, Object: "other"}}, nil, Origin{}, SitePermissions{}},
		{"guest, team grant", guest, []Grant{{Role: Edit, Object: "site", Team: "t"}}, role(Edit),
			Origin{Kind: OriginTeam, Team: "t"}, SitePermissions{View: true}},
		{"member: their role on every site", member(Read), nil, role(Read), org, SitePermissions{View: true}},
		{"create member changes sites", member(Create), nil, role(Create), org, SitePermissions{View: true, Edit: true}},
		{"grant raises to create", member(Read), []Grant{{Role: Create, Object: "site"}}, role(Create),
			Origin{Kind: OriginDirect}, SitePermissions{View: true, Edit: true}},
		{"grant never lowers", member(Create), []Grant{{Role: Read, Object: "site"}}, role(Create), org, SitePermissions{View: true, Edit: true}},
		{"shared as admin", guest, []Grant{{Role: Read, Object: "site"}, {Role: Admin, Object: "site", Team: "t"}}, role(Admin),
			Origin{Kind: OriginTeam, Team: "t"}, SitePermissions{View: true, Edit: true, Admin: true}},
		{"tie: the user's grant before a team's", guest, []Grant{{Role: Edit, Object: "site", Team: "t"}, {Role: Edit, Object: "site"}},
			role(Edit), Origin{Kind: OriginDirect}, SitePermissions{View: true}},
		{"organization admin", member(Admin), nil, role(Admin), org, SitePermissions{View: true, Edit: true, Admin: true}},
	}
	for _, c := range cases {
		for i, grants := range [][]Grant{c.grants, reversed(c.grants)} {
			t.Run(fmt.Sprintf("%s/%d", c.name, i), func(t *testing.T) {
				got, origin := SiteRole(c.m, "site", grants)
				if roleName(got) != roleName(c.want) || origin != c.origin {
					t.Fatalf("SiteRole = %s from %+v, want %s from %+v", roleName(got), origin, roleName(c.want), c.origin)
				}
				if p := SitePermissionsFor(got); p != c.perms {
					t.Fatalf("SitePermissionsFor(%s) = %+v, want %+v", roleName(got), p, c.perms)
				}
			})
		}
	}
}
