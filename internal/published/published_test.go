package published_test

import (
	"strings"
	"testing"

	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/published"
)

// site is Guide (default; site spaces Guide and Pro, Pro for pro plans)
// and Beta (for beta testers).
func site(t *testing.T) *published.Site {
	t.Helper()
	sch, err := adaptive.ParseSchema([]byte(`{"type": "object", "additionalProperties": false, "properties": {
		"plan": {"type": "string", "description": "Plan"},
		"unsigned": {"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
			"properties": {"isBeta": {"type": "boolean", "description": "Beta"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cond := func(src string) *adaptive.Condition {
		c, err := adaptive.Compile(src, sch)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	guide := &published.SiteSpace{ID: "ss-guide", Path: "guide", Default: true, RevisionID: "r1"}
	pro := &published.SiteSpace{ID: "ss-pro", Path: "pro", RevisionID: "r2", Condition: cond(`visitor.claims.plan == "pro"`)}
	beta := &published.SiteSpace{ID: "ss-beta", Path: "beta", Default: true, RevisionID: "r3"}
	return &published.Site{Schema: sch, Sections: []*published.Section{
		{ID: "sec-guide", Path: "guide", Default: true, SiteSpaces: []*published.SiteSpace{guide, pro}},
		{ID: "sec-beta", Path: "beta", Condition: cond("visitor.claims.unsigned.isBeta"), SiteSpaces: []*published.SiteSpace{beta}},
	}}
}

// TestView: conditions decide what exists for a visitor — by path and by
// id —; a member's view holds everything; addresses leave the defaults out.
func TestView(t *testing.T) {
	s := site(t)
	anonymous := published.NewView(s, "/s/docs/", map[string]any{})
	pro := published.NewView(s, "/s/docs/", map[string]any{"plan": "pro", "unsigned": map[string]any{"isBeta": true}})
	member := published.MemberView(s, "https://docs.example.com/s/docs/")
	if anonymous.Outcome() == pro.Outcome() {
		t.Errorf("outcomes: %q %q", anonymous.Outcome(), pro.Outcome())
	}
	for _, c := range []struct {
		v         *published.View
		path      string
		ok        bool
		ss, pages string
	}{
		{anonymous, "", true, "ss-guide", ""},
		{anonymous, "install/linux", true, "ss-guide", "install/linux"},
		{anonymous, "pro/intro", false, "", ""},
		{anonymous, "beta", false, "", ""},
		{pro, "pro/intro", true, "ss-pro", "intro"},
		{pro, "beta/x", true, "ss-beta", "x"},
		{member, "beta", true, "ss-beta", ""},
	} {
		pl, ok := c.v.Resolve(c.path)
		if ok != c.ok || (ok && (pl.SiteSpace.ID != c.ss || pl.PagePath != c.pages)) {
			t.Errorf("Resolve(%q): %v %+v", c.path, ok, pl)
		}
	}
	if anonymous.ShowsSection("sec-beta") || !pro.ShowsSection("sec-beta") || !member.ShowsSection("sec-beta") {
		t.Error("ShowsSection")
	}
	if _, _, ok := anonymous.SiteSpace("ss-pro"); ok {
		t.Error("a hidden site space by id")
	}
	if _, _, ok := pro.SiteSpace("ss-beta"); !ok {
		t.Error("a shown site space by id")
	}
	if got := member.SpaceURL(s.Sections[0], s.Sections[0].SiteSpaces[1]); got != "https://docs.example.com/s/docs/pro/" {
		t.Errorf("SpaceURL: %s", got)
	}
	if got := member.SpaceURL(s.Sections[1], s.Sections[1].SiteSpaces[0]); got != "https://docs.example.com/s/docs/beta/" {
		t.Errorf("SpaceURL: %s", got)
	}
}

// TestNavAndRender: hidden pages and those under them leave the reading
// order; links point at published addresses; a leading title that repeats
// the page's is dropped.
func TestNavAndRender(t *testing.T) {
	pages := []*published.Page{
		{ID: "a", Kind: "document", Title: "Start", Path: "start"},
		{ID: "b", Kind: "document", Title: "Install", Path: "install"},
		{ID: "c", Kind: "document", Title: "Linux", Path: "install/linux", ParentID: "b"},
		{ID: "h", Kind: "document", Title: "Secret", Path: "secret", Hidden: true},
		{ID: "i", Kind: "document", Title: "Under", Path: "secret/under", ParentID: "h"},
		{ID: "z", Kind: "document", Title: "End", Path: "end"},
	}
	c := &published.Content{RevisionID: "r", Pages: pages, ByID: map[string]*published.Page{}, ByPath: map[string]*published.Page{},
		Files: map[string]string{"f1": "https://x/files/abc/a.png"}}
	for _, p := range pages {
		c.ByID[p.ID], c.ByPath[p.Path] = p, p
	}
	pages[1].Children = []*published.Page{pages[2]}
	pages[3].Children = []*published.Page{pages[4]}
	c.Roots = []*published.Page{pages[0], pages[1], pages[3], pages[5]}
	n := published.NewNav(c)
	var order []string
	for _, p := range n.Order() {
		order = append(order, p.ID)
	}
	if strings.Join(order, "") != "abcz" || n.Listed(pages[4]) || n.First() != pages[0] || n.PageAt("secret/under") != pages[4] {
		t.Fatalf("order %v", order)
	}
	if prev, next := n.Neighbours(pages[2]); prev != pages[1] || next != pages[5] {
		t.Errorf("neighbours of Linux: %v %v", prev, next)
	}
	if prev, next := n.Neighbours(pages[3]); prev != nil || next != nil {
		t.Error("a hidden page has neighbours")
	}
	r, err := published.Render("# Install\n\n[Linux](install/linux.md#x), [top](/start), [by id](/pages/z), ![img](/files/f1)\n\n## Steps\n", n, pages[1], "https://d/s/docs/", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`href="https://d/s/docs/install/linux#x"`, `href="https://d/s/docs/start"`, `href="https://d/s/docs/end"`,
		`src="https://x/files/abc/a.png"`, `<h2 id="steps">`} {
		if !strings.Contains(string(r.HTML), want) {
			t.Errorf("no %s in %s", want, r.HTML)
		}
	}
	if strings.Contains(string(r.HTML), "<h1") || len(r.Outline) != 1 || r.Outline[0].ID != "steps" {
		t.Errorf("title and outline: %s %+v", r.HTML, r.Outline)
	}
}
