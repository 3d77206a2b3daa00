package events

// Redirects of docs sites: written by their users (one at a time or in
// bulk) and by merges that move published pages (payload `automatic`).
// Their target is the redirect; the payload names the site.
var (
	SiteRedirectCreated   = define("site_redirect.created", "Site redirect created", "siteId", "source", "draft", "destination", "automatic")
	SiteRedirectUpdated   = define("site_redirect.updated", "Site redirect updated", "siteId", "source", "draft", "fields", "automatic")
	SiteRedirectDeleted   = define("site_redirect.deleted", "Site redirect deleted", "siteId", "source", "draft", "automatic")
	SiteRedirectPublished = define("site_redirect.published", "Site redirect published", "siteId", "source")
)
