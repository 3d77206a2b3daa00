package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
)

// Area `hostnames`: a site's custom host name. It is set and removed
// through the site's settings (updateSiteById's `hostname`, rest/sites.go);
// these read it, check its DNS and remove it by name.
func (a *API) hostnameRoutes(r chi.Router) {
	const one = "/custom-hostnames/{hostname}"
	r.Method("GET", one, handler(a.getCustomHostname))
	r.Method("PATCH", one, handler(a.revalidateCustomHostname))
	r.Method("DELETE", one, handler(a.removeCustomHostname))
}

func (a *API) getCustomHostname(w http.ResponseWriter, r *http.Request) error {
	h, err := a.res.CustomHostnameByName(r.Context(), chi.URLParam(r, "hostname"))
	return writeOne(w, r, http.StatusOK, h, err, a.presentCustomHostname, nil)
}

// revalidateCustomHostname checks DNS now (dnsRevalidateCustomHostname):
// 204 whatever the check found; getCustomHostname shows it.
func (a *API) revalidateCustomHostname(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.res.RevalidateCustomHostname(r.Context(), chi.URLParam(r, "hostname")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) removeCustomHostname(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.RemoveCustomHostname(r.Context(), chi.URLParam(r, "hostname")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

// customHostnameJSON is GitBook's CustomHostname, with what Folio's DNS
// check found (dnsCheckedAt, dnsError: Folio extensions).
type customHostnameJSON struct {
	Object   string `json:"object"`
	Hostname string `json:"hostname"`
	Target   struct {
		Type string `json:"type"`
		Site string `json:"site"`
	} `json:"target"`
	IsActive bool `json:"isActive"`
	// Status is absent before the first DNS check.
	Status       string  `json:"status,omitempty"`
	DNSCheckedAt *string `json:"dnsCheckedAt,omitempty"`
	DNSError     *string `json:"dnsError,omitempty"`
	URLs         struct {
		Location string `json:"location"`
	} `json:"urls"`
}

func (a *API) presentCustomHostname(ctx context.Context, h *ent.CustomHostname) (any, error) {
	active, err := a.res.CustomHostnameActive(ctx, h)
	if err != nil {
		return nil, err
	}
	out := customHostnameJSON{Object: "custom-hostname", Hostname: h.Hostname, IsActive: active,
		Status: graph.CustomHostnameStatus(h), DNSError: h.Error}
	out.Target.Type, out.Target.Site = "site", h.SiteID
	if h.CheckedAt != nil {
		t := timestamp(*h.CheckedAt)
		out.DNSCheckedAt = &t
	}
	out.URLs.Location = a.res.CustomHostnameLocation(h)
	return out, nil
}
