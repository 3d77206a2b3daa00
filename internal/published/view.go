package published

import (
	"strings"

	"github.com/folio/folio/internal/adaptive"
)

// View is a site as one visitor sees it: sections and site spaces whose
// condition is false for the visitor do not exist for them — not listed,
// not reachable by path or id. Addresses start at Prefix: the site's root
// as the visitor reaches it ("/s/<name>/", "/" on a mapped host, or the
// absolute FOLIO_BASE_URL/s/<name>/ that the APIs hand out).
type View struct {
	Site   *Site
	Prefix string
	claims map[string]any
	// everything: a member's view, in which every condition holds (members
	// manage the site; conditions are for its audience).
	everything bool
	// outcome records each condition's result, for the reader's ETag.
	outcome strings.Builder
}

// NewView is the site as a visitor with claims (as visitor.Claims gives
// them) sees it.
func NewView(s *Site, prefix string, claims map[string]any) *View {
	v := &View{Site: s, Prefix: prefix, claims: claims}
	for _, sec := range s.Sections {
		v.record(sec.Condition)
		for _, ss := range sec.SiteSpaces {
			v.record(ss.Condition)
		}
	}
	for _, ss := range s.Root {
		v.record(ss.Condition)
	}
	return v
}

// MemberView is the site as its members see it: every section and site
// space, whatever its condition.
func MemberView(s *Site, prefix string) *View {
	return &View{Site: s, Prefix: prefix, everything: true}
}

// Outcome is the result of every condition for the visitor, in order:
// two visitors with the same Outcome see the same structure.
func (v *View) Outcome() string { return v.outcome.String() }

func (v *View) record(c *adaptive.Condition) {
	if v.shows(c) {
		v.outcome.WriteByte('1')
	} else {
		v.outcome.WriteByte('0')
	}
}

// shows evaluates a condition (nil: always shown).
func (v *View) shows(c *adaptive.Condition) bool {
	return v.everything || c == nil || c.Eval(v.claims)
}

// SectionShown says whether the visitor sees a section.
func (v *View) SectionShown(sec *Section) bool { return v.shows(sec.Condition) }

// SpaceShown says whether the visitor sees a site space (its section
// aside).
func (v *View) SpaceShown(ss *SiteSpace) bool { return v.shows(ss.Condition) }

// Sections are the sections the visitor sees, in reading order.
func (v *View) Sections() []*Section {
	var out []*Section
	for _, s := range v.Site.Sections {
		if v.SectionShown(s) {
			out = append(out, s)
		}
	}
	return out
}

// SpacesOf are the site spaces the visitor sees in a section (nil: the
// root of a site without sections).
func (v *View) SpacesOf(sec *Section) []*SiteSpace {
	all := v.Site.Root
	if sec != nil {
		all = sec.SiteSpaces
	}
	var out []*SiteSpace
	for _, ss := range all {
		if v.SpaceShown(ss) {
			out = append(out, ss)
		}
	}
	return out
}

// ShowsSection says whether the section with this id exists for the
// visitor.
func (v *View) ShowsSection(id string) bool {
	for _, s := range v.Site.Sections {
		if s.ID == id {
			return v.SectionShown(s)
		}
	}
	return false
}

// SiteSpace finds a site space the visitor sees, with its section (nil at
// the root of a site without sections); ok is false when it does not exist
// for them: hidden by its condition or its section's, or without content.
func (v *View) SiteSpace(id string) (sec *Section, ss *SiteSpace, ok bool) {
	for _, s := range v.Site.Root {
		if s.ID == id {
			return nil, s, v.SpaceShown(s)
		}
	}
	for _, section := range v.Site.Sections {
		for _, s := range section.SiteSpaces {
			if s.ID == id {
				return section, s, v.SectionShown(section) && v.SpaceShown(s)
			}
		}
	}
	return nil, nil, false
}

// Place is where a path leads: a section (nil without sections), its site
// spaces the visitor sees, one of them, and a page path in it ("" for the
// site space's first page).
type Place struct {
	Section   *Section
	Spaces    []*SiteSpace
	SiteSpace *SiteSpace
	PagePath  string
}

// Resolve reads a path below the site's root: each segment is read as a
// section first, then a site space, then the page path; the default section
// and site space may be left out. A section or site space hidden from the
// visitor is not found, never read as something else.
func (v *View) Resolve(rest string) (Place, bool) {
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if len(segs) == 1 && segs[0] == "" {
		segs = nil
	}
	var pl Place
	if len(v.Site.Sections) > 0 {
		shown := v.Sections()
		if len(segs) > 0 {
			for _, s := range v.Site.Sections {
				if s.Path == segs[0] {
					if !v.SectionShown(s) {
						return pl, false
					}
					pl.Section, segs = s, segs[1:]
					break
				}
			}
		}
		if pl.Section == nil {
			for _, s := range shown {
				if s.Default {
					pl.Section = s
				}
			}
			if pl.Section == nil && len(shown) > 0 {
				pl.Section = shown[0]
			}
		}
		if pl.Section == nil {
			return pl, false
		}
	}
	pl.Spaces = v.SpacesOf(pl.Section)
	all := v.Site.Root
	if pl.Section != nil {
		all = pl.Section.SiteSpaces
	}
	if len(segs) > 0 {
		for _, ss := range all {
			if ss.Path == segs[0] {
				if !v.SpaceShown(ss) {
					return pl, false
				}
				pl.SiteSpace, segs = ss, segs[1:]
				break
			}
		}
	}
	if pl.SiteSpace == nil {
		for _, ss := range pl.Spaces {
			if ss.Default {
				pl.SiteSpace = ss
			}
		}
		if pl.SiteSpace == nil && len(pl.Spaces) > 0 {
			pl.SiteSpace = pl.Spaces[0]
		}
	}
	if pl.SiteSpace == nil {
		return pl, false
	}
	pl.PagePath = strings.Join(segs, "/")
	return pl, true
}

// SectionURL is the address of a section: the default one's is the
// site's.
func (v *View) SectionURL(sec *Section) string {
	if sec == nil || sec.Default {
		return v.Prefix
	}
	return v.Prefix + sec.Path + "/"
}

// SpaceURL is the address of a site space, below its section's (the
// default site space's is its section's). Page addresses are this plus the
// page's path.
func (v *View) SpaceURL(sec *Section, ss *SiteSpace) string {
	u := v.SectionURL(sec)
	if !ss.Default {
		u += ss.Path + "/"
	}
	return u
}
