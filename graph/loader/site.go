package loader

import (
	"context"
	"sync"
	"sync/atomic"

	"entgo.io/ent/dialect/sql"
	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/internal/published"
)

// SiteStructure is everything below a site: its sections and groups (each
// in the site's order), its site spaces (in order; those whose space is in
// the trash are left out) and those spaces.
type SiteStructure struct {
	Sections   []*ent.SiteSection
	Groups     []*ent.SiteSectionGroup
	SiteSpaces []*ent.SiteSpace
	Spaces     map[string]*ent.Space
}

// SiteLoaders batch the reads of docs sites.
type SiteLoaders struct {
	together together
	audience sync.Map // site id -> *Audience: read by its published audience
	// audienceSpaces are spaces shown to a site's audience who has no role
	// on them: published content, without the activity around it.
	audienceSpaces sync.Map
	views          sync.Map // site id -> *viewMemo
	private        atomic.Bool

	SiteByID *Loader[*ent.Site]
	// SiteStructure reads a site's sections, groups, site spaces and their
	// spaces: four statements for every site a list shows (ShowSitesTogether),
	// whatever their number and size.
	SiteStructure *Loader[*SiteStructure]
	// SiteSpaceCount counts a site's live site spaces.
	SiteSpaceCount *Loader[int]
	// SiteShareLinks are a site's share links, oldest first.
	SiteShareLinks *Loader[[]*ent.SiteShareLink]
}

// ShowSitesTogether records that one list shows these sites: the first
// structure or count asked of any of them reads them all.
func (sl *SiteLoaders) ShowSitesTogether(sites []*ent.Site) {
	ids := make([]string, len(sites))
	for i, s := range sites {
		ids[i] = s.ID
	}
	sl.together.add(ids)
}

// Audience is how this request reads a published site as its audience
// (not as a member): who the visitor is, for the site's conditions.
type Audience struct {
	// Claims are the visitor's claims (visitor.Visitor.Claims).
	Claims map[string]any
	// State digests what let the visitor in and their claims
	// (visitor.Visitor.State).
	State string
}

// ReadAsAudience records that this request reads a published site as this
// audience: its spaces are shown as published content, its sections and
// site spaces as the visitor's conditions say. A request reads a site as
// one visitor: ok is false when another audience (other credentials or
// claims) was recorded for it already.
func (sl *SiteLoaders) ReadAsAudience(siteID string, a *Audience) (ok bool) {
	have, loaded := sl.audience.LoadOrStore(siteID, a)
	return !loaded || have.(*Audience).State == a.State
}

// AudienceOf is the audience recorded for a site, or nil: the request
// reads it as a member.
func (sl *SiteLoaders) AudienceOf(siteID string) *Audience {
	if a, ok := sl.audience.Load(siteID); ok {
		return a.(*Audience)
	}
	return nil
}

// ReadsAsAudience tells whether ReadAsAudience was recorded for the site.
func (sl *SiteLoaders) ReadsAsAudience(siteID string) bool { return sl.AudienceOf(siteID) != nil }

// ShowSpaceToAudience records that a site's audience, who has no role on
// the space, reads it as the site's published content.
func (sl *SiteLoaders) ShowSpaceToAudience(spaceID string) { sl.audienceSpaces.Store(spaceID, true) }

// ShownToAudience tells whether ShowSpaceToAudience was recorded.
func (sl *SiteLoaders) ShownToAudience(spaceID string) bool {
	_, ok := sl.audienceSpaces.Load(spaceID)
	return ok
}

type viewMemo struct {
	once sync.Once
	view *published.View
	err  error
}

// SiteView is a site's published view for this request, built by build
// on first use: its structure with the conditions compiled, once however
// many fields read it.
func (sl *SiteLoaders) SiteView(siteID string, build func() (*published.View, error)) (*published.View, error) {
	m, _ := sl.views.LoadOrStore(siteID, &viewMemo{})
	memo := m.(*viewMemo)
	memo.once.Do(func() { memo.view, memo.err = build() })
	return memo.view, memo.err
}

// ForgetView drops a site's view after its structure or settings changed.
func (sl *SiteLoaders) ForgetView(siteID string) { sl.views.Delete(siteID) }

// KeepPrivate records that the answer depends on a secret the caller sent
// (a share link's key, a visitor token): it must never be kept by a
// shared cache.
func (sl *SiteLoaders) KeepPrivate() { sl.private.Store(true) }

// Private tells whether KeepPrivate was recorded.
func (sl *SiteLoaders) Private() bool { return sl.private.Load() }

// liveSpaces keeps the site spaces whose space is not in the trash.
func liveSpaces(s *sql.Selector) {
	t := sql.Table(space.Table)
	s.Where(sql.In(s.C(sitespace.FieldSpaceID), sql.Select(t.C(space.FieldID)).From(t).Where(sql.IsNull(t.C(space.FieldDeletedAt)))))
}

func newSiteLoaders(b batching, client *ent.Client, l *Loaders) *SiteLoaders {
	sl := &SiteLoaders{}
	structure := byLevel(&sl.together, "structure", func(ctx context.Context, ids []string) (map[string]*SiteStructure, error) {
		return readStructure(ctx, client, l, ids)
	})
	counts := byLevel(&sl.together, "count", func(ctx context.Context, ids []string) (map[string]int, error) {
		var rows []struct {
			SiteID string `json:"site_id"`
			Count  int    `json:"count"`
		}
		err := client.SiteSpace.Query().Where(sitespace.SiteIDIn(ids...), liveSpaces).
			GroupBy(sitespace.FieldSiteID).Aggregate(ent.Count()).Scan(ctx, &rows)
		out := make(map[string]int, len(rows))
		for _, r := range rows {
			out[r.SiteID] = r.Count
		}
		return out, err
	})
	sl.SiteByID = newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Site, error) {
		return client.Site.Query().Where(site.IDIn(ids...)).All(ctx)
	}, func(s *ent.Site) string { return s.ID }, "site")
	sl.SiteStructure = batched(b, func(ctx context.Context, ids []string) []*dataloader.Result[*SiteStructure] {
		byID, err := structure(ctx, ids)
		out := make([]*dataloader.Result[*SiteStructure], len(ids))
		for i, id := range ids {
			st := byID[id]
			if st == nil {
				st = &SiteStructure{Spaces: map[string]*ent.Space{}}
			}
			out[i] = &dataloader.Result[*SiteStructure]{Data: st, Error: err}
		}
		return out
	})
	sl.SiteSpaceCount = newCountLoader(b, counts)

	links := byLevel(&sl.together, "links", func(ctx context.Context, ids []string) (map[string][]*ent.SiteShareLink, error) {
		rows, err := client.SiteShareLink.Query().Where(sitesharelink.SiteIDIn(ids...)).
			Order(ent.Asc(sitesharelink.FieldCreatedAt), ent.Asc(sitesharelink.FieldID)).All(ctx)
		out := make(map[string][]*ent.SiteShareLink, len(ids))
		for _, l := range rows {
			out[l.SiteID] = append(out[l.SiteID], l)
		}
		return out, err
	})
	sl.SiteShareLinks = batched(b, func(ctx context.Context, ids []string) []*dataloader.Result[[]*ent.SiteShareLink] {
		byID, err := links(ctx, ids)
		out := make([]*dataloader.Result[[]*ent.SiteShareLink], len(ids))
		for i, id := range ids {
			v := byID[id]
			if v == nil {
				v = []*ent.SiteShareLink{}
			}
			out[i] = &dataloader.Result[[]*ent.SiteShareLink]{Data: v, Error: err}
		}
		return out
	})
	return sl
}

// readStructure reads the structure of sites in four statements, primes the
// spaces' loader (with the viewer's memberships) and shows the spaces
// together, so that their revisions and pages are read in one go too.
func readStructure(ctx context.Context, client *ent.Client, l *Loaders, ids []string) (map[string]*SiteStructure, error) {
	out := make(map[string]*SiteStructure, len(ids))
	for _, id := range ids {
		out[id] = &SiteStructure{Spaces: map[string]*ent.Space{}}
	}
	sections, err := client.SiteSection.Query().Where(sitesection.SiteIDIn(ids...)).
		Order(ent.Asc(sitesection.FieldPosition), ent.Asc(sitesection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range sections {
		out[s.SiteID].Sections = append(out[s.SiteID].Sections, s)
	}
	groups, err := client.SiteSectionGroup.Query().Where(sitesectiongroup.SiteIDIn(ids...)).
		Order(ent.Asc(sitesectiongroup.FieldPosition), ent.Asc(sitesectiongroup.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		out[g.SiteID].Groups = append(out[g.SiteID].Groups, g)
	}
	siteSpaces, err := client.SiteSpace.Query().Where(sitespace.SiteIDIn(ids...), liveSpaces).
		Order(ent.Asc(sitespace.FieldPosition), ent.Asc(sitespace.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	var spaceIDs []string
	for _, ss := range siteSpaces {
		out[ss.SiteID].SiteSpaces = append(out[ss.SiteID].SiteSpaces, ss)
		spaceIDs = append(spaceIDs, ss.SpaceID)
	}
	if len(spaceIDs) == 0 {
		return out, nil
	}
	spaces, err := client.Space.Query().Where(space.IDIn(spaceIDs...), space.DeletedAtIsNil()).All(ctx)
	if err != nil {
		return nil, err
	}
	if l.viewerID != "" {
		if err := l.primeViewerMemberships(ctx, client, l.viewerID, spaces); err != nil {
			return nil, err
		}
	}
	byID := make(map[string]*ent.Space, len(spaces))
	for _, s := range spaces {
		byID[s.ID] = s
		l.SpaceByID.Prime(ctx, s.ID, s)
	}
	for _, ss := range siteSpaces {
		if s := byID[ss.SpaceID]; s != nil {
			out[ss.SiteID].Spaces[s.ID] = s
		}
	}
	l.ShowSpacesTogether(ctx, spaces)
	return out, nil
}
