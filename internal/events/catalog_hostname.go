package events

// Sites' custom host names (graph/hostnames.go): set or replaced through
// the site's settings, removed, checked in DNS. Their target is the site.
var (
	SiteHostnameSet     = define("site.hostname_set", "Site custom hostname set", "hostname", "previous")
	SiteHostnameRemoved = define("site.hostname_removed", "Site custom hostname removed", "hostname")
	SiteHostnameChecked = define("site.hostname_checked", "Site custom hostname DNS checked", "hostname", "status")
)
