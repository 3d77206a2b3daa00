package reader

import (
	"net/http"
	"strings"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/visitor"
)

// trackView records a page the reader serves (a 200 of a published site,
// not a member's preview) as a page view of the site's insights. It hands
// the view to the application's buffered writer and returns at once: no
// cookie is set or read, and no address or browser is kept.
func (h *Handler) trackView(r *http.Request, s *published.Site, pl published.Place, p *published.Page, vis visitor.Visitor) {
	if s.Preview || r.Method != http.MethodGet {
		return // a HEAD is no view
	}
	scheme := "http"
	if r.TLS != nil || strings.HasPrefix(h.baseURL, "https://") {
		scheme = "https"
	}
	v := graph.PageView{SiteID: s.ID, OrganizationID: s.OrganizationID, URL: scheme + "://" + r.Host + r.URL.RequestURI(),
		Referrer: r.Referer(), Language: r.Header.Get("Accept-Language"), SiteSpaceID: pl.SiteSpace.ID,
		SpaceID: pl.SiteSpace.SpaceID, RevisionID: pl.SiteSpace.RevisionID, PageID: p.ID, Claims: vis.Claims}
	if pl.Section != nil {
		v.SectionID = pl.Section.ID
	}
	h.res.TrackPageView(v)
}
