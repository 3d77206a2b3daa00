package reader

import (
	"net/http"
	"strings"
)

// storedSite is the site a request's host names among the sites' stored
// custom hostnames (graph/hostnames.go: a copy kept a few seconds, so
// instances agree within graph.HostTableTTL). The base URL's own host is
// never a site's, whatever the database holds.
func (h *Handler) storedSite(r *http.Request) (string, bool) {
	if h.isBaseHost(r.Host) {
		return "", false
	}
	return h.res.HostSite(r.Context(), r.Host)
}

func (h *Handler) isBaseHost(host string) bool {
	base := strings.TrimPrefix(strings.TrimPrefix(h.baseURL, "https://"), "http://")
	base, _, _ = strings.Cut(base, "/")
	return strings.EqualFold(host, base) || hostOnly(host) == hostOnly(base)
}

func hostOnly(host string) string {
	if i := strings.LastIndexByte(host, ':'); i > 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// TLSAskPath is where a TLS proxy that gets certificates on demand asks
// whether a host is Folio's (Caddy's on_demand_tls ask). Ask it at Folio's
// own address (not through a site's host, which serves only its site).
const TLSAskPath = "/_folio/tls-ask"

// TLSAsk answers a TLS proxy's question about ?domain=<host>: 200 when the
// host is a published site's (FOLIO_SITE_HOSTS or a stored custom
// hostname), else 404, so that no certificate is requested for names that
// merely point at Folio. No authentication: the answer says no more than
// DNS and the site itself do.
func (h *Handler) TLSAsk(w http.ResponseWriter, r *http.Request) {
	domain := strings.TrimSpace(r.URL.Query().Get("domain"))
	if domain == "" {
		h.plain(w, http.StatusBadRequest, "domain is required")
		return
	}
	if h.isBaseHost(domain) {
		h.plain(w, http.StatusOK, "ok: the base URL's host")
		return
	}
	ok, err := h.res.HostServesPublishedSite(r.Context(), domain)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !ok {
		h.plain(w, http.StatusNotFound, "not a published site's host")
		return
	}
	h.plain(w, http.StatusOK, "ok")
}
