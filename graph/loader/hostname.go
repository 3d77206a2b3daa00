package loader

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/customhostname"
)

// HostnameLoaders batch the reads of sites' custom host names.
type HostnameLoaders struct {
	// HostnameBySite is a site's stored host name, keyed by site id; nil
	// when it has none (Site.hostname of every site a list shows: one
	// statement).
	HostnameBySite *Loader[*ent.CustomHostname]
}

func newHostnameLoaders(b batching, client *ent.Client) *HostnameLoaders {
	return &HostnameLoaders{
		HostnameBySite: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.CustomHostname, error) {
			return client.CustomHostname.Query().Where(customhostname.SiteIDIn(ids...)).All(ctx)
		}, func(h *ent.CustomHostname) string { return h.SiteID }, ""),
	}
}
