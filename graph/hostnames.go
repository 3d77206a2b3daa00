package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/customhostname"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// Custom hostnames: a site served at a host name of its own (docs.acme.com),
// stored in the database (ent CustomHostname) and set through the site's
// settings (UpdateSite's hostname). FOLIO_SITE_HOSTS, the configured map,
// stays: a host in it is served as configured whatever the database says
// (the configuration wins), and a stored host name may not be one the
// configuration maps to another site.
//
// DNS decides who reaches Folio under a host name, so Folio serves a stored
// host name as soon as it is set, before any DNS check: a check only tells
// the site's admins whether their records point at Folio. Folio does not
// terminate TLS, so it never knows whether a certificate was issued for a
// host name; the API says so (ssl_unknown) once DNS passes.

// HostResolver answers the DNS questions of a host name check: the
// canonical name a host is a CNAME to and the addresses it has.
// net.DefaultResolver is one; tests give an in-process fake.
type HostResolver interface {
	LookupCNAME(ctx context.Context, host string) (string, error)
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// HostTableTTL is how long an instance serves its copy of the stored host
// names before reading them again: a host name set or removed on another
// instance is served (or not) here within this time. Writes on this
// instance drop the copy at once.
const HostTableTTL = 3 * time.Second

// Hostnames holds what the resolver knows of sites' host names beyond the
// database: the configured map, the DNS to check with, and the stored host
// names as last read.
type Hostnames struct {
	// DNS answers the checks (nil: net.DefaultResolver).
	DNS HostResolver
	// Configured is FOLIO_SITE_HOSTS: host (lower case) -> site id.
	Configured map[string]string
	// TTL overrides HostTableTTL when positive.
	TTL time.Duration

	mu     sync.Mutex
	table  map[string]string // stored host -> site id
	loaded time.Time         // zero: read again before use
	gen    int               // bumped by Forget: a read begun before is stale
	group  singleflight.Group
}

func (h *Hostnames) dns() HostResolver {
	if h.DNS != nil {
		return h.DNS
	}
	return net.DefaultResolver
}

// Forget drops the copy of the stored host names: the next lookup reads
// them again.
func (h *Hostnames) Forget() {
	h.mu.Lock()
	h.loaded, h.table = time.Time{}, nil
	h.gen++
	h.mu.Unlock()
}

// lookup is the site a stored host name maps to. A fresh copy answers at
// once; a stale one answers while one caller reads the table again; with no
// copy at all callers wait for the read. A failed read keeps the old copy
// (an outage of the database does not unmap hosts already known).
func (h *Hostnames) lookup(ctx context.Context, client *ent.Client, host string) (string, bool) {
	ttl := h.TTL
	if ttl <= 0 {
		ttl = HostTableTTL
	}
	h.mu.Lock()
	table, fresh, gen := h.table, !h.loaded.IsZero() && time.Since(h.loaded) < ttl, h.gen
	h.mu.Unlock()
	if !fresh {
		ch := h.group.DoChan("table", func() (any, error) {
			rows, err := client.CustomHostname.Query().
				Select(customhostname.FieldHostname, customhostname.FieldSiteID).All(context.WithoutCancel(ctx))
			if err != nil {
				return nil, err
			}
			t := make(map[string]string, len(rows))
			for _, r := range rows {
				t[r.Hostname] = r.SiteID
			}
			h.mu.Lock()
			if h.gen == gen {
				h.table, h.loaded = t, time.Now()
			}
			h.mu.Unlock()
			return t, nil
		})
		if table == nil {
			select {
			case res := <-ch:
				if res.Err != nil {
					slog.ErrorContext(ctx, "reading the custom hostnames", "err", res.Err)
					return "", false
				}
				table = res.Val.(map[string]string)
			case <-ctx.Done():
				return "", false
			}
		}
	}
	id, ok := table[host]
	return id, ok
}

// NormalHost is a request's host as host names are stored: lower case,
// without port or trailing dot.
func NormalHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// HostSite is the site a host name serves: the configured map's first
// (FOLIO_SITE_HOSTS wins), then the stored host names (HostTableTTL). host
// may carry a port.
func (r *Resolver) HostSite(ctx context.Context, host string) (string, bool) {
	if id, ok := r.configuredHost(host); ok {
		return id, true
	}
	return r.Hostnames.lookup(ctx, r.Client, NormalHost(host))
}

func (r *Resolver) configuredHost(host string) (string, bool) {
	c := r.Hostnames.Configured
	if len(c) == 0 {
		return "", false
	}
	if id, ok := c[strings.ToLower(host)]; ok {
		return id, true
	}
	id, ok := c[NormalHost(host)]
	return id, ok
}

// HostServesPublishedSite says whether host is the host name (configured
// or stored) of a published site: what a TLS proxy asks before it gets a
// certificate for host on demand.
func (r *Resolver) HostServesPublishedSite(ctx context.Context, host string) (bool, error) {
	id, ok := r.HostSite(ctx, host)
	if !ok {
		return false, nil
	}
	return r.Client.Site.Query().Where(site.ID(id), site.Published(true)).Exist(ctx)
}

// hostnamePattern is GitBook's SiteHostname: at least three labels of
// lower-case letters, digits and inner hyphens, each at most 63 characters.
var hostnamePattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$`)

// baseHost is the host name of FOLIO_BASE_URL.
func (r *Resolver) baseHost() string {
	u, err := url.Parse(r.BaseURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// checkHostname reads a host name given for a site: lower-cased (DNS
// names are case-insensitive; a trailing dot is dropped), at most 253 characters, labels of at most 63,
// not the base URL's host.
func (r *Resolver) checkHostname(v string) (string, error) {
	v = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), ".")
	switch {
	case v == "" || len(v) > 253:
		return "", apperr.InvalidField("hostname", "must be a host name of 1 to 253 characters")
	case !hostnamePattern.MatchString(v):
		return "", apperr.InvalidField("hostname", "must be a lower-case DNS name of at least three labels (docs.example.com), "+
			"each of letters, digits and inner hyphens, at most 63 characters")
	case v == r.baseHost():
		return "", apperr.InvalidField("hostname", "%s is Folio's own host (FOLIO_BASE_URL): it serves every site under /s/", v)
	}
	return v, nil
}

// hostnameChange is a site's host name set or removed by UpdateSite,
// checked before its transaction and applied in it.
type hostnameChange struct {
	site *ent.Site
	host *string // nil: remove
}

// siteHostnameChange checks a host name for site s (nil removes it): the
// caller administers its organization (403: other site settings need less,
// but a host name decides where the organization's docs are served), the
// name is valid (400) and no other site has it, stored or configured (409).
func (r *Resolver) siteHostnameChange(ctx context.Context, s *ent.Site, v *string) (*hostnameChange, error) {
	if _, err := adminOrganization(ctx, s.OrganizationID); err != nil {
		return nil, err
	}
	if v == nil {
		return &hostnameChange{site: s}, nil
	}
	host, err := r.checkHostname(*v)
	if err != nil {
		return nil, err
	}
	if id, ok := r.configuredHost(host); ok && id != s.ID {
		return nil, apperr.ConflictField("hostname", "%s is mapped to another site by FOLIO_SITE_HOSTS", host)
	}
	taken, err := r.Client.CustomHostname.Query().Where(customhostname.Hostname(host), customhostname.SiteIDNEQ(s.ID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if taken {
		return nil, apperr.ConflictField("hostname", "%s is taken by another site", host)
	}
	return &hostnameChange{site: s, host: &host}, nil
}

// apply writes the change in tx and records its event; changed is false
// when the site already had that host name (or none to remove).
func (c *hostnameChange) apply(ctx context.Context, tx *ent.Client) (changed bool, err error) {
	loader.For(ctx).HostnameBySite.Clear(ctx, c.site.ID)
	old, err := tx.CustomHostname.Query().Where(customhostname.SiteID(c.site.ID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return false, err
	}
	if c.host == nil {
		if old == nil {
			return false, nil
		}
		if err := tx.CustomHostname.DeleteOne(old).Exec(ctx); err != nil {
			return false, err
		}
		record(ctx, siteEvent(events.SiteHostnameRemoved, c.site, map[string]any{"hostname": old.Hostname}))
		return true, nil
	}
	if old != nil && old.Hostname == *c.host {
		return false, nil
	}
	if old != nil {
		// A new name starts unchecked: the old one's DNS says nothing of it.
		err = tx.CustomHostname.UpdateOne(old).SetHostname(*c.host).ClearStatus().ClearCheckedAt().ClearError().Exec(ctx)
	} else {
		err = tx.CustomHostname.Create().SetHostname(*c.host).SetSiteID(c.site.ID).
			SetOrganizationID(c.site.OrganizationID).Exec(ctx)
	}
	if ent.IsConstraintError(err) {
		return false, apperr.ConflictField("hostname", "%s is taken by another site", *c.host)
	}
	if err != nil {
		return false, err
	}
	payload := map[string]any{"hostname": *c.host}
	if old != nil {
		payload["previous"] = old.Hostname
	}
	record(ctx, siteEvent(events.SiteHostnameSet, c.site, payload))
	return true, nil
}

// deleteSiteHostname removes a deleted site's host name (DeleteSite).
func deleteSiteHostname(ctx context.Context, tx *ent.Client, siteID string) error {
	_, err := tx.CustomHostname.Delete().Where(customhostname.SiteID(siteID)).Exec(ctx)
	return err
}

// SiteHostname is a site's stored host name, nil when it has none.
func (r *Resolver) SiteHostname(ctx context.Context, s *ent.Site) (*string, error) {
	h, err := loader.For(ctx).HostnameBySite.Load(ctx, s.ID)()
	if err != nil || h == nil {
		return nil, err
	}
	return &h.Hostname, nil
}

// CustomHostnameByName is a stored host name, for the admins of its site's
// organization (others: 404; members who are not admins: 403).
func (r *Resolver) CustomHostnameByName(ctx context.Context, hostname string) (*ent.CustomHostname, error) {
	h, _, err := r.adminHostname(ctx, hostname)
	return h, err
}

// RevalidateCustomHostname checks a host name's DNS now and stores what it
// found: passed when the host is a CNAME to Folio's base host or its
// addresses are all the base host's. A failed check is stored too (its
// status and reason), not answered as an error.
func (r *Resolver) RevalidateCustomHostname(ctx context.Context, hostname string) (*ent.CustomHostname, error) {
	h, s, err := r.adminHostname(ctx, hostname)
	if err != nil {
		return nil, err
	}
	status, reason := r.checkDNS(ctx, h.Hostname)
	var updated *ent.CustomHostname
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		up := tx.CustomHostname.UpdateOne(h).SetStatus(status).SetCheckedAt(clock.Now())
		if reason == "" {
			up.ClearError()
		} else {
			up.SetError(reason)
		}
		if updated, err = up.Save(ctx); err != nil {
			return entError(err)
		}
		payload := map[string]any{"hostname": h.Hostname, "status": string(status)}
		record(ctx, siteEvent(events.SiteHostnameChecked, s, payload))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).HostnameBySite.Clear(ctx, s.ID).Prime(ctx, s.ID, updated)
	return updated, nil
}

// RemoveCustomHostname removes a stored host name from its site: Folio
// stops serving the site there (within HostTableTTL on other instances).
func (r *Resolver) RemoveCustomHostname(ctx context.Context, hostname string) error {
	h, s, err := r.adminHostname(ctx, hostname)
	if err != nil {
		return err
	}
	defer r.Hostnames.Forget()
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.CustomHostname.DeleteOne(h).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, siteEvent(events.SiteHostnameRemoved, s, map[string]any{"hostname": h.Hostname}))
		return nil
	})
	if err == nil {
		loader.For(ctx).HostnameBySite.Clear(ctx, s.ID)
	}
	return err
}

// CustomHostnameActive says whether Folio serves h's site there now: the
// site is published and FOLIO_SITE_HOSTS does not give the host to
// another site.
func (r *Resolver) CustomHostnameActive(ctx context.Context, h *ent.CustomHostname) (bool, error) {
	if id, ok := r.configuredHost(h.Hostname); ok && id != h.SiteID {
		return false, nil
	}
	s, err := loader.For(ctx).SiteByID.Load(ctx, h.SiteID)()
	if err != nil {
		return false, err
	}
	return s.Published, nil
}

// CustomHostnameSite is the site a host name serves.
func (r *Resolver) CustomHostnameSite(ctx context.Context, h *ent.CustomHostname) (*ent.Site, error) {
	return loader.For(ctx).SiteByID.Load(ctx, h.SiteID)()
}

// CustomHostnameStatus is a host name's status in GitBook's
// CustomHostnameStatus: the failed DNS check's reason, or, once DNS
// passed, ssl_unknown: Folio does not terminate TLS, so whether a
// certificate was issued is the TLS proxy's to know. Empty before the
// first check.
func CustomHostnameStatus(h *ent.CustomHostname) string {
	switch {
	case h.Status == nil:
		return ""
	case *h.Status == customhostname.StatusDNSPassed:
		return "ssl_unknown"
	}
	return string(*h.Status)
}

// CustomHostnameLocation is a host name's address in the REST API.
func (r *Resolver) CustomHostnameLocation(h *ent.CustomHostname) string {
	return r.BaseURL + "/v1/custom-hostnames/" + url.PathEscape(h.Hostname)
}

// checkDNS asks DNS whether host points at Folio: status and, when it does
// not, the reason for people.
func (r *Resolver) checkDNS(ctx context.Context, host string) (customhostname.Status, string) {
	dns := r.Hostnames.dns()
	base := r.baseHost()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cname, err := dns.LookupCNAME(ctx, host)
	if err != nil && !notFound(err) {
		return customhostname.StatusInternalError, fmt.Sprintf("DNS lookup of %s failed: %v", host, err)
	}
	cname = strings.TrimSuffix(strings.ToLower(cname), ".")
	if cname != "" && cname != host && cname == base {
		return customhostname.StatusDNSPassed, ""
	}
	// Not a CNAME to the base host itself: the addresses decide (a CNAME
	// to a name that resolves as the base host does is as good, as is an
	// A/AAAA record of the base host's address).
	addrs, err := dns.LookupHost(ctx, host)
	if err != nil && !notFound(err) {
		return customhostname.StatusInternalError, fmt.Sprintf("DNS lookup of %s failed: %v", host, err)
	}
	want, werr := dns.LookupHost(ctx, base)
	if werr != nil {
		return customhostname.StatusInternalError, fmt.Sprintf("DNS lookup of Folio's host %s failed: %v", base, werr)
	}
	if len(addrs) > 0 && allIn(addrs, want) {
		return customhostname.StatusDNSPassed, ""
	}
	isCNAME := cname != "" && cname != host
	switch {
	case isCNAME:
		return customhostname.StatusDNSWrongCname, fmt.Sprintf("%s is a CNAME to %s, not to %s", host, cname, base)
	case len(addrs) == 0:
		return customhostname.StatusDNSNoCname, fmt.Sprintf("%s has no DNS records: add a CNAME to %s", host, base)
	}
	return customhostname.StatusDNSNoCname, fmt.Sprintf("%s resolves to %s, not to %s (%s): add a CNAME to %s",
		host, strings.Join(addrs, ", "), base, strings.Join(want, ", "), base)
}

// notFound: DNS answered that the name has no such record.
func notFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

func allIn(a, of []string) bool {
	for _, x := range a {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}
