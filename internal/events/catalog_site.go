package events

// Sites, their structure (sections, groups, site spaces), publishing, share
// links and customization. Payloads never carry keys.
var (
	SiteCreated               = define("site.created", "Site created", "title", "type", "spaceIds")
	SiteUpdated               = define("site.updated", "Site updated", "fields")
	SiteDeleted               = define("site.deleted", "Site deleted")
	SitePublished             = define("site.published", "Site published")
	SiteUnpublished           = define("site.unpublished", "Site unpublished")
	SiteCustomizationUpdated  = define("site.customization_updated", "Site customization updated")
	SiteVisitorAuthUpdated    = define("site.visitor_auth_updated", "Site visitor authentication updated", "fields")
	SiteAdaptiveSchemaUpdated = define("site.adaptive_schema_updated", "Site adaptive content schema updated")

	SiteSectionCreated = define("site_section.created", "Site section created", "siteId", "spaceId", "title")
	SiteSectionUpdated = define("site_section.updated", "Site section updated", "siteId", "fields")
	SiteSectionDeleted = define("site_section.deleted", "Site section deleted", "siteId")
	SiteSectionMoved   = define("site_section.moved", "Site section moved", "siteId", "groupId")

	SiteSectionGroupCreated = define("site_section_group.created", "Site section group created", "siteId", "title", "sectionIds")
	SiteSectionGroupUpdated = define("site_section_group.updated", "Site section group updated", "siteId", "fields", "sectionId")
	SiteSectionGroupDeleted = define("site_section_group.deleted", "Site section group deleted", "siteId")
	SiteSectionGroupMoved   = define("site_section_group.moved", "Site section group moved", "siteId")

	SiteSpaceCreated = define("site_space.created", "Site space added", "siteId", "spaceId", "sectionId")
	SiteSpaceUpdated = define("site_space.updated", "Site space updated", "siteId", "fields")
	SiteSpaceDeleted = define("site_space.deleted", "Site space removed", "siteId", "spaceId")
	SiteSpaceMoved   = define("site_space.moved", "Site space moved", "siteId", "sectionId")

	SiteShareLinkCreated = define("site_share_link.created", "Site share link created", "siteId", "name")
	SiteShareLinkUpdated = define("site_share_link.updated", "Site share link updated", "siteId", "fields")
	SiteShareLinkDeleted = define("site_share_link.deleted", "Site share link deleted", "siteId")
)
