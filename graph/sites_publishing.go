package graph

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/customization"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/secrets"
)

// MaxShareLinksPerSite bounds a site's share links (and Site.shareLinks).
const MaxShareLinksPerSite = 100

// manageableShareLink is a share link of a site the caller may change.
func (r *Resolver) manageableShareLink(ctx context.Context, orgID, siteID, linkID string) (*ent.Site, *ent.SiteShareLink, error) {
	return manageableSitePart(ctx, orgID, siteID, linkID, "share link", r.Client.SiteShareLink.Get,
		func(l *ent.SiteShareLink) string { return l.SiteID })
}

func shareLinkName(v string) error {
	if utf8.RuneCountInString(v) > 50 {
		return apperr.InvalidField("name", "must be at most 50 characters")
	}
	return nil
}

// SiteShareLinks pages through a site's share links (managers only), newest
// first unless asked otherwise.
func (r *Resolver) SiteShareLinks(ctx context.Context, orgID, siteID string, args paging.Args) (paging.Page[*ent.SiteShareLink], error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return paging.Page[*ent.SiteShareLink]{}, err
	}
	return listPage(ctx, r.Client.SiteShareLink.Query().Where(sitesharelink.SiteID(s.ID)), args, sitesharelink.FieldCreatedAt,
		func(l *ent.SiteShareLink) paging.Cursor { return paging.Cursor{Time: l.CreatedAt, ID: l.ID} })
}

// ShareLinksOf are all of a site's share links, oldest first (managers only).
func (r *Resolver) ShareLinksOf(ctx context.Context, s *ent.Site) ([]*ent.SiteShareLink, error) {
	if _, err := manageableSite(ctx, "", s.ID); err != nil {
		return nil, err
	}
	return loader.For(ctx).SiteShareLinks.Load(ctx, s.ID)()
}

// CreateSiteShareLink creates an active share link with a fresh secret key.
func (r *Resolver) CreateSiteShareLink(ctx context.Context, orgID, siteID, name string) (*ent.SiteShareLink, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if err := shareLinkName(name); err != nil {
		return nil, err
	}
	n, err := r.Client.SiteShareLink.Query().Where(sitesharelink.SiteID(s.ID)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n >= MaxShareLinksPerSite {
		return nil, apperr.Conflictf("a site has at most %d share links", MaxShareLinksPerSite)
	}
	key := ids.New() + ids.New()
	var l *ent.SiteShareLink
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if l, err = tx.SiteShareLink.Create().SetSiteID(s.ID).SetName(name).SetKeySealed(r.seal(secrets.ShareLinkKey, key)).
			SetKeyHash(r.Secrets.Lookup(secrets.ShareLinkKey, key)).Save(ctx); err != nil {
			return entError(err)
		}
		// Never the key, sealed or hashed.
		record(ctx, shareLinkEvent(events.SiteShareLinkCreated, s, l, map[string]any{"name": l.Name}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// UpdateSiteShareLink renames a share link or switches it on or off.
func (r *Resolver) UpdateSiteShareLink(ctx context.Context, orgID, siteID, linkID string, name *string, active *bool) (*ent.SiteShareLink, error) {
	s, l, err := r.manageableShareLink(ctx, orgID, siteID, linkID)
	if err != nil {
		return nil, err
	}
	if name == nil && active == nil {
		return nil, apperr.Invalidf("give name or active")
	}
	// Prepared here, saved on the write's tx (replay).
	up := r.Client.SiteShareLink.UpdateOneID(l.ID)
	if name != nil {
		if err := shareLinkName(*name); err != nil {
			return nil, err
		}
		up.SetName(*name)
	}
	if active != nil {
		up.SetActive(*active)
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.SiteShareLink.UpdateOneID(l.ID)
		if err := replay(u.Mutation(), up.Mutation()); err != nil {
			return err
		}
		if l, err = u.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, shareLinkEvent(events.SiteShareLinkUpdated, s, l, map[string]any{"fields": changedFields(up.Mutation())}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// DeleteSiteShareLink deletes a share link: its key stops opening the site.
func (r *Resolver) DeleteSiteShareLink(ctx context.Context, orgID, siteID, linkID string) error {
	s, l, err := r.manageableShareLink(ctx, orgID, siteID, linkID)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.SiteShareLink.DeleteOneID(l.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, shareLinkEvent(events.SiteShareLinkDeleted, s, l, nil))
		return nil
	})
}

// shareLinkEvent is an event whose target is share link l of site s.
func shareLinkEvent(action string, s *ent.Site, l *ent.SiteShareLink, payload map[string]any) events.Event {
	return siteItemEvent(action, s, "site-share-link", l.ID, l.Name, payload)
}

// SitePublishingAuth is the visitor-auth signing key of a site (managers).
func (r *Resolver) SitePublishingAuth(ctx context.Context, orgID, siteID string) (*model.SitePublishingAuth, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	return r.publishingAuth(s)
}

// UpdateSitePublishingAuth sets or (null) unsets the fallback URL; absent
// leaves it.
func (r *Resolver) UpdateSitePublishingAuth(ctx context.Context, orgID, siteID string, fallback graphql.Omittable[*string]) (*model.SitePublishingAuth, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if fallback.IsSet() {
		v := fallback.Value()
		if v != nil {
			u, err := url.Parse(*v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(*v) > 2048 {
				return nil, apperr.InvalidField("fallbackURL", "must be an absolute http(s) URL")
			}
		}
		err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
			up := tx.Site.UpdateOneID(s.ID)
			if v == nil {
				up.ClearAuthFallbackURL()
			} else {
				up.SetAuthFallbackURL(*v)
			}
			if s, err = up.Save(ctx); err != nil {
				return err
			}
			record(ctx, siteEvent(events.SiteVisitorAuthUpdated, s, map[string]any{"fields": []string{"fallbackURL"}}))
			return nil
		})
		if err != nil {
			return nil, err
		}
		r.forgetSite(ctx, s)
	}
	return r.publishingAuth(s)
}

// RegenerateSitePublishingAuth replaces the signing key: tokens signed with
// the old key no longer verify.
func (r *Resolver) RegenerateSitePublishingAuth(ctx context.Context, orgID, siteID string) (*model.SitePublishingAuth, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if s, err = tx.Site.UpdateOneID(s.ID).SetAuthPrivateKeySealed(r.seal(secrets.SiteAuthKey, ids.New()+ids.New())).Save(ctx); err != nil {
			return err
		}
		// Names the change, never the key.
		record(ctx, siteEvent(events.SiteVisitorAuthUpdated, s, map[string]any{"fields": []string{"privateKey"}}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetSite(ctx, s)
	return r.publishingAuth(s)
}

// publishingAuth is site s's signing key, opened, and fallback URL.
func (r *Resolver) publishingAuth(s *ent.Site) (*model.SitePublishingAuth, error) {
	key, err := r.SiteAuthKey(s)
	if err != nil {
		return nil, err
	}
	return &model.SitePublishingAuth{PrivateKey: key, FallbackURL: s.AuthFallbackURL}, nil
}

// CustomizationOf is a site's customization settings as JSON: the stored
// ones completed with the defaults (settings stored before 0.202.0's
// additions answer them too), or the defaults.
func CustomizationOf(s *ent.Site) json.RawMessage {
	if s.Customization != nil {
		return customization.Effective([]byte(*s.Customization))
	}
	return json.RawMessage(customization.Default)
}

// SiteCustomization is a site's customization settings (members who read
// the site).
func (r *Resolver) SiteCustomization(ctx context.Context, orgID, siteID string) (json.RawMessage, error) {
	s, _, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	return CustomizationOf(s), nil
}

// UpdateSiteCustomization merges a partial (GitBook 0.202.0) or whole
// (0.143.2) SiteCustomizationSettings onto the site's settings
// (customization.Apply: objects merge, arrays replace), checks the result
// against the reference and stores it; REST's PUT and GraphQL's mutation
// both come here.
func (r *Resolver) UpdateSiteCustomization(ctx context.Context, orgID, siteID string, raw []byte) (json.RawMessage, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// Touch the site's row first (the row lock on PostgreSQL, the write
		// lock on SQLite), then read the settings to merge onto: two partial
		// updates at once merge one after the other, and neither loses the
		// other's properties.
		if err := tx.Site.Update().Where(site.ID(s.ID)).SetUpdatedAt(clock.Now()).Exec(ctx); err != nil {
			return err
		}
		cur, err := tx.Site.Get(ctx, s.ID)
		if err != nil {
			return err
		}
		var stored []byte
		if cur.Customization != nil {
			stored = []byte(*cur.Customization)
		}
		doc, err := customization.Apply(stored, raw)
		var ce *customization.Error
		if errors.As(err, &ce) {
			if ce.Field == "" {
				return apperr.Invalidf("customization: %s", ce.Message)
			}
			return apperr.InvalidField(ce.Field, "%s", ce.Message)
		}
		if err != nil {
			return err
		}
		if s, err = tx.Site.UpdateOneID(s.ID).SetCustomization(string(doc)).Save(ctx); err != nil {
			return err
		}
		record(ctx, siteEvent(events.SiteCustomizationUpdated, s, nil))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetSite(ctx, s)
	return CustomizationOf(s), nil
}

// SiteShareKeyActive says whether key is the key of an active share link of
// the site. It asks for no caller: the key is the credential. The published
// site answer (PublishedSite) and the reader's access gate
// (internal/visitor, on every request carrying a share cookie) both ask it,
// so deactivating or deleting a link shuts both at once.
func (r *Resolver) SiteShareKeyActive(ctx context.Context, siteID, key string) (bool, error) {
	if siteID == "" || key == "" {
		return false, nil
	}
	return r.Client.SiteShareLink.Query().Where(sitesharelink.SiteID(siteID), // By its lookup hash: the key itself is sealed.
		sitesharelink.KeyHash(r.Secrets.Lookup(secrets.ShareLinkKey, key)),
		sitesharelink.Active(true)).Exist(ctx)
}
