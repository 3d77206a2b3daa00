package graph

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/published"
	"github.com/folio/folio/internal/secrets"
)

// A site's publishing preview (getSitePublishingPreviewById): an address of
// the reader that shows the site, published or not, to whoever opens it
// within the hour, as an anonymous visitor would see it once published.
// Like the site token it is stateless: the address carries
// ?folio_preview=<site id>.<expiry in ms>.<HMAC>, keyed by the
// installation's secret key, so any instance can check it.

// PreviewParam is the reader's query parameter holding a preview token.
const PreviewParam = "folio_preview"

// SitePreviewLifetime is how long a preview address works.
const SitePreviewLifetime = time.Hour

const sitePreviewArea = "site publishing preview v1"

func (r *Resolver) sitePreviewMAC(body string) string {
	l := r.Secrets.Lookup(sitePreviewArea, body)
	return l[strings.LastIndexByte(l, ':')+1:]
}

// SitePublishingPreview is a signed address of the reader previewing the
// site for an hour: its root, or the site space siteSpaceID's, or target
// when it is an address of the site. Members who can see the site; anyone
// else 404.
func (r *Resolver) SitePublishingPreview(ctx context.Context, orgID, siteID string, siteSpaceID, target *string) (string, time.Time, error) {
	s, _, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return "", time.Time{}, err
	}
	root := r.sitePath(siteName(s))
	at := root
	if siteSpaceID != nil && *siteSpaceID != "" {
		ps, err := r.publishedStructure(ctx, s)
		if err != nil {
			return "", time.Time{}, err
		}
		v := published.MemberView(ps, root)
		sec, ss, ok := v.SiteSpace(*siteSpaceID)
		if !ok {
			return "", time.Time{}, apperr.InvalidField("siteSpace", "%s is not a site space of this site with content", *siteSpaceID)
		}
		at = v.SpaceURL(sec, ss)
	}
	if target != nil && *target != "" {
		if !strings.HasPrefix(*target, root) || strings.ContainsAny(*target, "?#") {
			return "", time.Time{}, apperr.InvalidField("target", "must be an address of the site, below %s, without a query", root)
		}
		at = *target
	}
	exp := clock.Now().Add(SitePreviewLifetime)
	body := s.ID + "." + strconv.FormatInt(exp.UnixMilli(), 10)
	return at + "?" + PreviewParam + "=" + body + "." + r.sitePreviewMAC(body), exp, nil
}

// ReaderPreviewByToken is the site at /s/<name>/ for whoever brings a
// valid preview token of it (SitePublishingPreview), published or not, its
// structure marked Preview (no visitor gate, never cached). ok is false
// for any other token: the reader then serves the site as to anyone.
func (r *Resolver) ReaderPreviewByToken(ctx context.Context, name, token string) (*published.Site, bool, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || !secrets.Equal(parts[2], r.sitePreviewMAC(parts[0]+"."+parts[1])) {
		return nil, false, nil
	}
	ms, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || !clock.Now().Before(time.UnixMilli(ms)) {
		return nil, false, nil
	}
	row, err := r.Client.Site.Query().Where(site.ID(parts[0]), site.Or(site.Basename(name), site.And(site.ID(name), site.BasenameIsNil()))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s, err := r.publishedStructure(ctx, row)
	if err != nil {
		return nil, false, err
	}
	s.Preview = true
	return s, true, nil
}
