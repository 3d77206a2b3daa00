package graph

import (
	"context"
	"net/url"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/loader"
)

// The addresses of published sites on the reader (internal/reader):
// FOLIO_BASE_URL/s/<basename>/<section path>/<site-space path>/, the site's
// id standing for a missing basename. `urls.published` of sites, sections,
// site spaces and share links, and of a space published through a site, are
// built here and only here, and only while the site is published: an
// unpublished site answers 404, and Folio hands out no address that does.

// sitePath is the site's root on the reader.
func (r *Resolver) sitePath(siteName string) string {
	return r.BaseURL + "/s/" + url.PathEscape(siteName) + "/"
}

func siteName(s *ent.Site) string {
	if s.Basename != nil && *s.Basename != "" {
		return *s.Basename
	}
	return s.ID
}

// siteSpacePath is a site space's address under its site's root.
func siteSpacePath(sectionPath, siteSpacePath string) string {
	p := ""
	if sectionPath != "" {
		p = url.PathEscape(sectionPath) + "/"
	}
	return p + url.PathEscape(siteSpacePath) + "/"
}

// SitePublishedURL is a site's urls.published; nil while unpublished.
func (r *Resolver) SitePublishedURL(s *ent.Site) *string {
	if !s.Published {
		return nil
	}
	u := r.sitePath(siteName(s))
	return &u
}

// SectionPublishedURL is a section's urls.published; nil while its site is
// unpublished.
func (r *Resolver) SectionPublishedURL(ctx context.Context, sec *ent.SiteSection) (*string, error) {
	s, err := loader.For(ctx).SiteByID.Load(ctx, sec.SiteID)()
	if err != nil || !s.Published {
		return nil, err
	}
	u := r.sitePath(siteName(s)) + url.PathEscape(sec.Path) + "/"
	return &u, nil
}

// SiteSpacePublishedURL is a site space's urls.published; nil while its
// site is unpublished.
func (r *Resolver) SiteSpacePublishedURL(ctx context.Context, ss *ent.SiteSpace) (*string, error) {
	l := loader.For(ctx)
	siteThunk := l.SiteByID.Load(ctx, ss.SiteID)
	var structure func() (*loader.SiteStructure, error)
	if ss.SectionID != nil {
		structure = l.SiteStructure.Load(ctx, ss.SiteID)
	}
	s, err := siteThunk()
	if err != nil || !s.Published {
		return nil, err
	}
	section := ""
	if structure != nil {
		st, err := structure()
		if err != nil {
			return nil, err
		}
		for _, sec := range st.Sections {
			if sec.ID == *ss.SectionID {
				section = sec.Path
			}
		}
		if section == "" {
			return nil, nil
		}
	}
	u := r.sitePath(siteName(s)) + siteSpacePath(section, ss.Path)
	return &u, nil
}

// ShareLinkPublishedURL is a share link's urls.published: the site's root
// with the link's key; nil while the site is unpublished or the link off.
func (r *Resolver) ShareLinkPublishedURL(ctx context.Context, l *ent.SiteShareLink) (*string, error) {
	if !l.Active {
		return nil, nil
	}
	s, err := loader.For(ctx).SiteByID.Load(ctx, l.SiteID)()
	if err != nil || !s.Published {
		return nil, err
	}
	key, err := r.ShareLinkKey(l)
	if err != nil {
		return nil, err
	}
	u := r.sitePath(siteName(s)) + "?shareKey=" + url.QueryEscape(key)
	return &u, nil
}

// spacePublishedURL is where a space published through a site is read,
// and whether that site is public; "" when no published site shows it. It
// comes with the space's counts (loader.Publication), so a page of spaces
// costs no statement more.
func (r *Resolver) spacePublishedURL(ctx context.Context, spaceID string) (string, bool, error) {
	c, err := loader.For(ctx).SpaceCounts.Load(ctx, spaceID)()
	if err != nil || c.Publication == nil {
		return "", false, err
	}
	p := c.Publication
	return r.sitePath(p.SiteName) + siteSpacePath(p.SectionPath, p.SiteSpacePath), p.Visibility == "public", nil
}
