package access

import "testing"

func TestSiteRules(t *testing.T) {
	role := func(r Role) *Role { return &r }
	for _, c := range []struct {
		m           Membership
		see, manage bool
	}{
		{Membership{}, false, false},
		{Membership{Member: true}, false, false},
		{Membership{Member: true, Role: role(Read)}, true, false},
		{Membership{Member: true, Role: role(Edit)}, true, false},
		{Membership{Member: true, Role: role(Create)}, true, true},
		{Membership{Member: true, Role: role(Admin)}, true, true},
	} {
		if c.m.CanSeeSites() != c.see || c.m.CanManageSites() != c.manage {
			t.Errorf("%+v: see %v manage %v", c.m, c.m.CanSeeSites(), c.m.CanManageSites())
		}
	}
}
