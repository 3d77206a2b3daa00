package model

import "time"

// PublishedContentLookup is what a published URL resolves to
// (graph/urls.go): the content, or where to go instead. Exactly one is
// set.
type PublishedContentLookup struct {
	Content  *PublishedSiteContent
	Redirect *PublishedContentRedirect
}

// PublishedSiteContent is GitBook's PublishedSiteContent: the site, its
// section and site space, the space, the page path, and a site-scoped
// read token for the rest.
type PublishedSiteContent struct {
	OrganizationID    string
	SiteID            string
	SiteSectionID     *string
	SiteSpaceID       string
	SpaceID           string
	ChangeRequestID   *string
	RevisionID        *string
	Pathname          string
	BasePath          string
	SiteBasePath      string
	CanonicalURL      string
	APIToken          string
	APITokenExpiresAt time.Time
	ShareKey          *string
	Complete          bool
	ContextID         *string
	Preview           bool
}

// PublishedContentRedirect is GitBook's PublishedContentRedirect: Target
// is content (another address of the site), application or external (the
// site's visitor-auth fallback); SiteID is set for external.
type PublishedContentRedirect struct {
	Target   string
	Redirect string
	SiteID   *string
}

// APIInformation is GitBook's ApiInformation.
type APIInformation struct {
	Version string
	Build   string
}
