package markdown

import "testing"

// KeepRobots keeps a page's true robots settings in a frontmatter block that
// NoIndex, Robots and Parse read back, and that Parse strips again: a body
// read and written again keeps them, and nothing else changes.
func TestKeepRobotsRoundTrips(t *testing.T) {
	const body = "# Title\n\n---\n\nText after a rule.\n"
	for _, c := range []struct{ noIndex, noRobots bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		kept := KeepRobots(body, c.noIndex, c.noRobots)
		if !c.noIndex && !c.noRobots && kept != body {
			t.Errorf("nothing to keep: %q", kept)
		}
		if NoIndex(kept) != (c.noIndex || c.noRobots) {
			t.Errorf("%+v: NoIndex(%q) = %v", c, kept, NoIndex(kept))
		}
		ni, nr := Robots(kept)
		if (ni != nil && *ni) != c.noIndex || (nr != nil && *nr) != c.noRobots {
			t.Errorf("%+v: Robots(%q) = %v %v", c, kept, ni, nr)
		}
		m := Parse(kept)
		if m.Body != body || m.Title != "Title" {
			t.Errorf("%+v: Parse(%q) = %+v", c, kept, m)
		}
		if again := KeepRobots(Parse(kept).Body, c.noIndex, c.noRobots); again != kept {
			t.Errorf("%+v: not stable: %q then %q", c, kept, again)
		}
	}
	if ni, nr := Robots("---\nnoIndex: false\nnoRobotsIndex: maybe\n---\n# T\n"); ni == nil || *ni || nr != nil {
		t.Errorf("explicit false, and not a boolean: %v %v", ni, nr)
	}
}
