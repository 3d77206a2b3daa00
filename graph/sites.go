package graph

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/secrets"
)

// Limits of a site's structure. They are the caps the cost model counts
// (cost_caps.go): a site's tree of 20 sections × 10 site spaces, each with a
// full page tree, stays under MaxComplexity (it is the costliest legitimate
// query, which sets the limit: cost.go).
const (
	MaxSectionsPerSite       = 20
	MaxGroupsPerSite         = 20
	MaxSiteSpacesPerSection  = 10
	MaxRootSiteSpacesPerSite = 20
)

var (
	// basenamePattern is a slug: lower-case letters, digits, inner hyphens.
	basenamePattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
	// proxyPattern is GitBook's SiteProxyOrigin.
	proxyPattern = regexp.MustCompile(`^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$`)
	// reservedBasenames are paths of this server a site may not take.
	reservedBasenames = map[string]bool{
		"v1": true, "api": true, "graphql": true, "s": true, "o": true, "app": true, "admin": true,
		"static": true, "assets": true, "login": true, "logout": true, "auth": true, "health": true,
		"healthz": true, "metrics": true, "sso": true, "saml": true, "invite": true, "share": true,
	}
)

// SiteURLs are a site's addresses.
type SiteURLs struct{ Location, App string }

// SiteURLsOf are the API and app addresses of a site.
func (r *Resolver) SiteURLsOf(s *ent.Site) SiteURLs {
	// No app of its own: `app` (required by the reference) is the API
	// location; the published site is SitePublishedURL.
	loc := r.BaseURL + "/v1/orgs/" + s.OrganizationID + "/sites/" + s.ID
	return SiteURLs{Location: loc, App: loc}
}

// SiteProxyTarget is where a proxy origin's requests go: the site's path on
// this server.
func (r *Resolver) SiteProxyTarget(s *ent.Site) string {
	return r.sitePath(siteName(s))
}

// OrganizationSites pages through an organization's sites the caller can
// see (access.SiteRole), newest first unless asked otherwise, filtered by a space they show, their title and
// whether they are published.
func (r *Resolver) OrganizationSites(ctx context.Context, orgID string, args paging.Args, spaceID, title *string, published *bool) (paging.Page[*ent.Site], error) {
	var none paging.Page[*ent.Site]
	if _, err := sitesOrganization(ctx, orgID); err != nil {
		return none, err
	}
	q := r.Client.Site.Query()
	t := ""
	if title != nil && strings.TrimSpace(*title) != "" {
		t = strings.TrimSpace(*title)
		q.Where(site.TitleContainsFold(t))
	}
	pub := "-"
	if published != nil {
		q.Where(site.Published(*published))
		pub = fmt.Sprint(*published)
	}
	if spaceID != nil {
		id := *spaceID
		q.Where(func(s *sql.Selector) {
			t := sql.Table(sitespace.Table)
			s.Where(sql.In(s.C(site.FieldID), sql.Select(t.C(sitespace.FieldSiteID)).From(t).Where(sql.EQ(t.C(sitespace.FieldSpaceID), id))))
		})
	}
	// The sites of every organization a list shows are read together, and
	// shown as one level.
	kind := fmt.Sprintf("sites|%q|%s|%s", t, pub, optionKey(spaceID))
	return pageUnder(ctx, loader.Organizations, kind, orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.Site], error) {
		// Guests see the sites shared with them; the filter is SQL, so
		// the list costs the same whatever the number of sites or grants.
		scopes, err := siteScopes(ctx, orgs)
		if err != nil {
			return nil, err
		}
		q := q.Clone().Where(anyScope(scopes, contentScope.sites))
		pages, err := listPagesInScope(ctx, q, site.FieldOrganizationID, orgs, args, site.FieldCreatedAt, args.Keyset(site.FieldCreatedAt),
			func(s *ent.Site) paging.Cursor { return paging.Cursor{Time: s.CreatedAt, ID: s.ID} },
			func(s *ent.Site) string { return s.OrganizationID })
		if err != nil {
			return nil, err
		}
		sites := itemsOf(pages)
		l := loader.For(ctx)
		for _, s := range sites {
			l.SiteByID.Prime(ctx, s.ID, s)
		}
		l.ShowSitesTogether(sites)
		ids := make([]string, len(sites))
		for i, s := range sites {
			ids[i] = s.ID
		}
		l.ShowParents(loader.Sites, ids)
		return pages, nil
	})
}

// OrganizationSite is one site of an organization (orgID may be empty: any
// organization the caller may read it in).
func (r *Resolver) OrganizationSite(ctx context.Context, orgID, siteID string) (*ent.Site, error) {
	s, _, err := visibleSite(ctx, orgID, siteID)
	return s, err
}

// SiteSpaceCount is the number of live site spaces of a site.
// Its published audience counts those shown to the visitor.
func (r *Resolver) SiteSpaceCount(ctx context.Context, s *ent.Site) (int, error) {
	v, err := r.audienceView(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return loader.For(ctx).SiteSpaceCount.Load(ctx, s.ID)()
	}
	n := len(v.SpacesOf(nil))
	for _, sec := range v.Sections() {
		n += len(v.SpacesOf(sec))
	}
	return n, nil
}

// SiteOrganization is the organization of a site; its published audience
// is not told (404).
func (r *Resolver) SiteOrganization(ctx context.Context, s *ent.Site) (*ent.Organization, error) {
	if loader.For(ctx).ReadsAsAudience(s.ID) {
		return nil, apperr.NotFoundf("the site's organization is not shown to its published audience")
	}
	return loader.For(ctx).OrganizationByID.Load(ctx, s.OrganizationID)()
}

// siteTitle checks a site's title: 2 to 128 characters.
func siteTitle(field, v string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(v)); n < 2 || n > 128 {
		return apperr.InvalidField(field, "must be 2 to 128 characters (got %d)", utf8.RuneCountInString(v))
	}
	return nil
}

// CreateSite creates a site with spaces as its root site spaces (or a new
// space titled after the site).
func (r *Resolver) CreateSite(ctx context.Context, orgID string, in model.CreateSiteInput) (*ent.Site, error) {
	if _, err := siteCreatingOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	title := "Untitled site"
	if v := in.Title.Value(); v != nil {
		if err := siteTitle("title", *v); err != nil {
			return nil, err
		}
		title = *v
	} else if in.Title.IsSet() {
		return nil, apperr.InvalidField("title", "must be 2 to 128 characters, not null")
	}
	typ := site.TypeBasic
	if v := in.Type.Value(); v != nil {
		if err := site.TypeValidator(*v); err != nil {
			return nil, apperr.InvalidField("type", "must be one of basic, premium, ultimate, sponsored, legacy-basic, legacy-premium")
		}
		typ = *v
	}
	vis := site.VisibilityPublic
	if v := in.Visibility.Value(); v != nil {
		if err := site.VisibilityValidator(*v); err != nil {
			return nil, apperr.InvalidField("visibility", "must be one of public, unlisted, share-link, visitor-auth")
		}
		vis = *v
	}
	spaceIDs := in.Spaces.Value()
	newSpace := in.NewSpace.Value() != nil && *in.NewSpace.Value()
	if newSpace && len(spaceIDs) > 0 {
		return nil, apperr.InvalidField("spaces", "is either a list of space ids or \"new\"")
	}
	if len(spaceIDs) > MaxRootSiteSpacesPerSite {
		return nil, apperr.InvalidField("spaces", "may name at most %d spaces", MaxRootSiteSpacesPerSite)
	}
	probe := &ent.Site{OrganizationID: orgID}
	spaces := make([]*ent.Space, len(spaceIDs))
	for i, id := range spaceIDs {
		sp, err := siteSpaceOf(ctx, probe, id)
		if err != nil {
			return nil, err
		}
		spaces[i] = sp
	}
	var created *ent.Site
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if newSpace {
			t := title
			if utf8.RuneCountInString(t) > 50 {
				t = string([]rune(t)[:50])
			}
			sp, err := r.createSpaceTx(ctx, tx, orgID, model.CreateSpaceInput{Title: graphql.OmittableOf(&t)})
			if err != nil {
				return err
			}
			spaces = []*ent.Space{sp}
		}
		created, err = tx.Site.Create().SetOrganizationID(orgID).SetTitle(title).SetType(typ).
			SetVisibility(vis).SetAuthPrivateKeySealed(r.seal(secrets.SiteAuthKey, ids.New()+ids.New())).Save(ctx)
		if err != nil {
			return entError(err)
		}
		var taken []string
		for i, sp := range spaces {
			path := freePath(slugOr(sp.Title, "space"), taken)
			taken = append(taken, path)
			if err := tx.SiteSpace.Create().SetSiteID(created.ID).SetSpaceID(sp.ID).SetPath(path).
				SetPosition(i).SetIsDefault(i == 0).Exec(ctx); err != nil {
				return entError(err)
			}
		}
		spaceIDs := make([]string, len(spaces))
		for i, sp := range spaces {
			spaceIDs[i] = sp.ID
		}
		record(ctx, siteEvent(events.SiteCreated, created, map[string]any{"title": created.Title, "type": string(created.Type), "spaceIds": spaceIDs}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SiteByID.Prime(ctx, created.ID, created)
	return created, nil
}

// UpdateSite changes a site's settings.
func (r *Resolver) UpdateSite(ctx context.Context, orgID, siteID string, in model.UpdateSiteInput) (*ent.Site, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	var sets []func(*ent.SiteUpdateOne)
	if in.Title.IsSet() {
		v := in.Title.Value()
		if v == nil {
			return nil, apperr.InvalidField("title", "must be 2 to 128 characters, not null")
		}
		if err := siteTitle("title", *v); err != nil {
			return nil, err
		}
		sets = append(sets, func(u *ent.SiteUpdateOne) { u.SetTitle(*v) })
	}
	if in.Visibility.IsSet() {
		v := in.Visibility.Value()
		if v == nil || site.VisibilityValidator(*v) != nil {
			return nil, apperr.InvalidField("visibility", "must be one of public, unlisted, share-link, visitor-auth")
		}
		sets = append(sets, func(u *ent.SiteUpdateOne) { u.SetVisibility(*v) })
	}
	if in.Basename.IsSet() {
		v := in.Basename.Value()
		if v == nil {
			sets = append(sets, func(u *ent.SiteUpdateOne) { u.ClearBasename() })
		} else {
			if err := checkBasename(*v); err != nil {
				return nil, err
			}
			taken, err := r.Client.Site.Query().Where(site.Basename(*v), site.IDNEQ(s.ID)).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if taken {
				return nil, apperr.ConflictField("basename", "%q is taken by another site", *v)
			}
			sets = append(sets, func(u *ent.SiteUpdateOne) { u.SetBasename(*v) })
		}
	}
	if in.AdaptiveContent.IsSet() {
		v := in.AdaptiveContent.Value()
		if v == nil {
			return nil, apperr.InvalidField("adaptiveContent", "must be an object with enabled")
		}
		sets = append(sets, func(u *ent.SiteUpdateOne) { u.SetAdaptiveContent(*v) })
	}
	if in.Proxy.IsSet() {
		v := in.Proxy.Value()
		if v == nil {
			sets = append(sets, func(u *ent.SiteUpdateOne) { u.ClearProxy() })
		} else {
			if len(*v) > 512 || !proxyPattern.MatchString(*v) {
				return nil, apperr.InvalidField("proxy", "must be a domain and a path (such as example.com/docs), at most 512 characters")
			}
			sets = append(sets, func(u *ent.SiteUpdateOne) { u.SetProxy(*v) })
		}
	}
	var host *hostnameChange
	if in.Hostname.IsSet() {
		if host, err = r.siteHostnameChange(ctx, s, in.Hostname.Value()); err != nil {
			return nil, err
		}
		defer r.Hostnames.Forget()
	}
	var defSpace, defSection *string
	if in.DefaultSiteSpace.IsSet() {
		if defSpace = in.DefaultSiteSpace.Value(); defSpace == nil {
			return nil, apperr.InvalidField("defaultSiteSpace", "must be a site space id")
		}
	}
	if in.DefaultSiteSection.IsSet() {
		if defSection = in.DefaultSiteSection.Value(); defSection == nil {
			return nil, apperr.InvalidField("defaultSiteSection", "must be a section id")
		}
	}
	var updated *ent.Site
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		st, err := readSite(ctx, tx, s.ID)
		if err != nil {
			return err
		}
		if defSection != nil {
			sec := st.section(*defSection)
			if sec == nil {
				return apperr.InvalidField("defaultSiteSection", "%s is not a section of the site", *defSection)
			}
			if err := setDefaultSection(ctx, tx, st, sec); err != nil {
				return err
			}
		}
		if defSpace != nil {
			ss := st.siteSpace(*defSpace)
			var home *string
			if d := st.defaultSection(); d != nil {
				home = &d.ID
			}
			if ss == nil || !sameContainer(ss.SectionID, home) {
				return apperr.InvalidField("defaultSiteSpace", "%s is not a site space of the site's root or default section", *defSpace)
			}
			if err := setDefaultSiteSpace(ctx, tx, st, ss); err != nil {
				return err
			}
		}
		up := tx.Site.UpdateOneID(s.ID)
		for _, set := range sets {
			set(up)
		}
		fields := changedFields(up.Mutation())
		if defSection != nil {
			fields = append(fields, "defaultSiteSection")
		}
		if defSpace != nil {
			fields = append(fields, "defaultSiteSpace")
		}
		if host != nil {
			if changed, err := host.apply(ctx, tx); err != nil {
				return err
			} else if changed {
				fields = append(fields, "hostname")
			}
		}
		if updated, err = up.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, siteEvent(events.SiteUpdated, updated, map[string]any{"fields": fields}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetSite(ctx, updated)
	return updated, nil
}

// checkBasename: a slug of 1 to 100 characters that is not reserved.
func checkBasename(v string) error {
	switch {
	case len(v) < 1 || len(v) > 100:
		return apperr.InvalidField("basename", "must be 1 to 100 characters")
	case !basenamePattern.MatchString(v):
		return apperr.InvalidField("basename", "must be lower-case letters, digits and inner hyphens")
	case reservedBasenames[v]:
		return apperr.InvalidField("basename", "%q is reserved", v)
	}
	return nil
}

// forgetSite replaces a site in the request's loaders after a change.
func (r *Resolver) forgetSite(ctx context.Context, s *ent.Site) {
	l := loader.For(ctx)
	l.SiteByID.Clear(ctx, s.ID).Prime(ctx, s.ID, s)
	l.SiteStructure.Clear(ctx, s.ID)
	l.SiteSpaceCount.Clear(ctx, s.ID)
	l.ForgetView(s.ID)
}

// forgetStructure drops a site's structure from the request's loaders.
func (r *Resolver) forgetStructure(ctx context.Context, siteID string) {
	l := loader.For(ctx)
	l.SiteStructure.Clear(ctx, siteID)
	l.SiteSpaceCount.Clear(ctx, siteID)
	l.ForgetView(siteID)
}

// DeleteSite deletes a site with its sections, groups, site spaces, share
// links and grants.
func (r *Resolver) DeleteSite(ctx context.Context, orgID, siteID string) error {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return err
	}
	defer r.Hostnames.Forget()
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.SiteSpace.Delete().Where(sitespace.SiteID(s.ID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.SiteSection.Delete().Where(sitesection.SiteID(s.ID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.SiteSectionGroup.Delete().Where(sitesectiongroup.SiteID(s.ID)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.SiteShareLink.Delete().Where(sitesharelink.SiteID(s.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := deleteSiteHostname(ctx, tx, s.ID); err != nil {
			return err
		}
		if err := deleteSiteRedirects(ctx, tx, s.ID); err != nil {
			return err
		}
		if err := deleteSiteEvents(ctx, tx, s.ID); err != nil {
			return err
		}
		if err := removeObjectGrants(ctx, tx, grant.ObjectKindSite, s.Title, s.ID); err != nil {
			return err
		}
		if err := tx.Site.DeleteOneID(s.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, siteEvent(events.SiteDeleted, s, nil))
		return nil
	})
}

// siteEvent is an event whose target is s.
func siteEvent(action string, s *ent.Site, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: s.OrganizationID,
		Target:  events.Target{Type: "site", ID: s.ID, Label: s.Title},
		Payload: payload,
	}
}

// siteItemEvent is an event whose target is a part of site s (typ:
// "site-section", "site-section-group", "site-space", "site-share-link");
// its payload names the site.
func siteItemEvent(action string, s *ent.Site, typ, id, label string, payload map[string]any) events.Event {
	if payload == nil {
		payload = map[string]any{}
	}
	payload["siteId"] = s.ID
	return events.Event{
		Action: action, OrganizationID: s.OrganizationID,
		Target:  events.Target{Type: typ, ID: id, Label: label},
		Payload: payload,
	}
}

// PublishSite sets whether a site is published.
func (r *Resolver) PublishSite(ctx context.Context, orgID, siteID string, published bool) (*ent.Site, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if s, err = tx.Site.UpdateOneID(s.ID).SetPublished(published).Save(ctx); err != nil {
			return err
		}
		action := events.SitePublished
		if !published {
			action = events.SiteUnpublished
		}
		record(ctx, siteEvent(action, s, nil))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetSite(ctx, s)
	return s, nil
}
