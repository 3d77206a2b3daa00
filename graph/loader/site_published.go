package loader

import (
	"fmt"
	"strings"

	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitespace"
)

// Publication is where a space is published: a site space of a published
// site, with the paths that make its address on the reader.
type Publication struct {
	// SiteName is the site's basename, or its id without one.
	SiteName, Visibility string
	// SectionPath is "" for a site space at the site's root.
	SectionPath, SiteSpacePath string
}

// publicationSQL is a scalar subquery of the space row whose id is spaceID
// (a qualified column): the first place a published site shows the space —
// the oldest such site, there its first site space — as
// "name|section path|site-space path|visibility", or "" when none. It rides
// with the space's counts (spaceCountsSQL), so a space's urls.published
// costs no statement of its own. Basenames and paths are slugs ([a-z0-9-]),
// ids are URL-safe: "|" cannot occur in them.
func publicationSQL(spaceID string) string {
	return fmt.Sprintf("COALESCE((SELECT COALESCE(pst.%[1]s, pst.%[2]s) || '|' || COALESCE(psec.%[3]s, '') || '|' || pss.%[4]s || '|' || pst.%[5]s"+
		" FROM %[6]s pss JOIN %[7]s pst ON pst.%[2]s = pss.%[8]s LEFT JOIN %[9]s psec ON psec.%[10]s = pss.%[11]s"+
		" WHERE pss.%[12]s = %[13]s AND pst.%[14]s = true"+
		" ORDER BY pst.%[15]s, pst.%[2]s, pss.%[16]s, pss.%[17]s LIMIT 1), '')",
		site.FieldBasename, site.FieldID, sitesection.FieldPath, sitespace.FieldPath, site.FieldVisibility,
		sitespace.Table, site.Table, sitespace.FieldSiteID, sitesection.Table, sitesection.FieldID, sitespace.FieldSectionID,
		sitespace.FieldSpaceID, spaceID, site.FieldPublished,
		site.FieldCreatedAt, sitespace.FieldPosition, sitespace.FieldID)
}

// parsePublication reads publicationSQL's value.
func parsePublication(v string) *Publication {
	parts := strings.Split(v, "|")
	if len(parts) != 4 || parts[0] == "" || parts[2] == "" {
		return nil
	}
	return &Publication{SiteName: parts[0], SectionPath: parts[1], SiteSpacePath: parts[2], Visibility: parts[3]}
}
