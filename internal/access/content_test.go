package access

import "testing"

func TestEffectiveRole(t *testing.T) {
	role := func(r Role) *Role { return &r }
	lvl := func(s string) Level { return ParseLevel(&s) }
	none := Level{}
	cases := []struct {
		name  string
		m     Membership
		chain []Level
		want  *Role
	}{
		{"stranger", Membership{}, nil, nil},
		{"guest", Membership{Member: true}, []Level{lvl("edit")}, nil},
		{"admin beats no access", Membership{Member: true, Role: role(Admin)}, []Level{none}, role(Admin)},
		{"all inherit: organization role", Membership{Member: true, Role: role(Edit)}, []Level{lvl("inherit"), lvl("inherit")}, role(Edit)},
		{"nearest level wins", Membership{Member: true, Role: role(Edit)}, []Level{lvl("inherit"), lvl("read"), lvl("admin")}, role(Read)},
		{"a level may raise", Membership{Member: true, Role: role(Read)}, []Level{lvl("inherit"), lvl("edit")}, role(Edit)},
		{"null: no access", Membership{Member: true, Role: role(Create)}, []Level{lvl("inherit"), none, lvl("edit")}, nil},
	}
	for _, c := range cases {
		got := EffectiveRole(c.m, c.chain)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
