package graph

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// Redirects of docs sites (REST: …/sites/{siteId}/redirects). Reading them
// takes what reading the site takes (visibleSite: 404 to strangers);
// writing them what changing the site takes (manageableSite: 403 below the
// create role), as updateSiteById. The reader applies them
// (redirects_reader.go); merges that move published pages write them too
// (redirects_moved.go).

const (
	// MaxRedirectsPerSite bounds a site's redirects, live and draft: the
	// reader keeps a site's live ones in memory (redirects_reader.go).
	MaxRedirectsPerSite = 10000
	// MaxBulkRedirects is the most items one bulk write takes (GitBook's).
	MaxBulkRedirects  = 500
	maxRedirectSource = 512
	maxRedirectURL    = 2048
)

// redirectSourcePattern is GitBook's SiteRedirectSourcePath without its
// lookaheads (Go's regexp has none): segments of unreserved characters or
// percent escapes, an optional trailing `/*` or `*`. A `*` anywhere else
// cannot match a segment, which is what the lookaheads said.
var redirectSourcePattern = regexp.MustCompile(`^/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:/\*|\*)?$`)

// checkRedirectSource refuses a source that is not a site path.
func checkRedirectSource(field, v string) error {
	if len(v) > maxRedirectSource || !redirectSourcePattern.MatchString(v) {
		return apperr.InvalidField(field, "must be a path starting with / (letters, digits, -._~+ or %%XX escapes per segment, no trailing /), optionally ending in /* or *, at most %d characters", maxRedirectSource)
	}
	return nil
}

// redirectDest is a destination as stored.
type redirectDest struct {
	kind              siteredirect.DestinationKind
	id, pageID, toURL *string
}

func strPtr(s string) *string { return &s }

// givenString reads an optional string of an input: nil when absent, null or
// blank.
func givenString(v interface{ Value() *string }) *string {
	p := v.Value()
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	return p
}

// redirectDestination checks a destination against site s and turns it
// into what is stored: sections and site spaces of the site, pages of the
// content a site space shows, absolute http(s) URLs. A `path` destination
// becomes the page at that path (site-page), so the redirect follows the
// page when it moves. field prefixes the fields errors name.
func (r *Resolver) redirectDestination(ctx context.Context, s *ent.Site, field string, in *model.SiteRedirectDestinationInput) (redirectDest, error) {
	var none redirectDest
	if in == nil {
		return none, apperr.InvalidField(field, "is required")
	}
	f := func(name string) string { return field + "." + name }
	siteSpace := func(id *string, name string) (*ent.SiteSpace, error) {
		if id == nil {
			return nil, apperr.InvalidField(f(name), "is required for kind %s", restKind(string(in.Kind)))
		}
		ss, err := r.Client.SiteSpace.Query().Where(sitespace.ID(*id), sitespace.SiteID(s.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.InvalidField(f(name), "%s is not a site space of the site", *id)
		}
		return ss, err
	}
	// pageIn finds a page of the content a site space shows, by id or path.
	pageIn := func(ss *ent.SiteSpace, name string, match func(id, path string) bool) (string, error) {
		sp, err := r.Client.Space.Query().Where(space.ID(ss.SpaceID)).Only(ctx)
		if err != nil {
			return "", err
		}
		if sp.RevisionID != "" {
			n, err := r.PublishedNav(ctx, sp.RevisionID)
			if err != nil {
				return "", err
			}
			for _, p := range n.Pages {
				if match(p.ID, p.Path) {
					return p.ID, nil
				}
			}
		}
		return "", apperr.InvalidField(f(name), "is not a page of the site space's content")
	}
	switch in.Kind {
	case model.SiteRedirectInputKindSiteSection:
		id := givenString(in.SiteSectionID)
		if id == nil {
			return none, apperr.InvalidField(f("siteSectionId"), "is required for kind site-section")
		}
		ok, err := r.Client.SiteSection.Query().Where(sitesection.ID(*id), sitesection.SiteID(s.ID)).Exist(ctx)
		if err != nil {
			return none, err
		}
		if !ok {
			return none, apperr.InvalidField(f("siteSectionId"), "%s is not a section of the site", *id)
		}
		return redirectDest{kind: siteredirect.DestinationKindSiteSection, id: id}, nil
	case model.SiteRedirectInputKindSiteSpace:
		ss, err := siteSpace(givenString(in.SiteSpaceID), "siteSpaceId")
		if err != nil {
			return none, err
		}
		return redirectDest{kind: siteredirect.DestinationKindSiteSpace, id: &ss.ID}, nil
	case model.SiteRedirectInputKindSitePage:
		ss, err := siteSpace(givenString(in.SiteSpaceID), "siteSpaceId")
		if err != nil {
			return none, err
		}
		pid := givenString(in.PageID)
		if pid == nil {
			return none, apperr.InvalidField(f("pageId"), "is required for kind site-page")
		}
		id, err := pageIn(ss, "pageId", func(id, _ string) bool { return id == *pid })
		if err != nil {
			return none, err
		}
		return redirectDest{kind: siteredirect.DestinationKindSitePage, id: &ss.ID, pageID: &id}, nil
	case model.SiteRedirectInputKindPath:
		spaceID, p := givenString(in.SpaceID), givenString(in.Path)
		if spaceID == nil {
			return none, apperr.InvalidField(f("spaceId"), "is required for kind path")
		}
		if p == nil {
			return none, apperr.InvalidField(f("path"), "is required for kind path")
		}
		ss, err := r.Client.SiteSpace.Query().Where(sitespace.SiteID(s.ID), sitespace.SpaceID(*spaceID)).
			Order(ent.Asc(sitespace.FieldPosition), ent.Asc(sitespace.FieldID)).First(ctx)
		if ent.IsNotFound(err) {
			return none, apperr.InvalidField(f("spaceId"), "%s is not a space the site shows", *spaceID)
		}
		if err != nil {
			return none, err
		}
		want := strings.Trim(*p, "/")
		id, err := pageIn(ss, "path", func(_, path string) bool { return path == want })
		if err != nil {
			return none, err
		}
		return redirectDest{kind: siteredirect.DestinationKindSitePage, id: &ss.ID, pageID: &id}, nil
	case model.SiteRedirectInputKindExternal:
		u := givenString(in.URL)
		if u == nil {
			return none, apperr.InvalidField(f("url"), "is required for kind external")
		}
		pu, err := url.Parse(*u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || len(*u) > maxRedirectURL {
			return none, apperr.InvalidField(f("url"), "must be an absolute http(s) URL of at most %d characters", maxRedirectURL)
		}
		return redirectDest{kind: siteredirect.DestinationKindExternal, toURL: u}, nil
	}
	return none, apperr.InvalidField(f("kind"), "must be one of site-section, site-space, site-page, external, path")
}

// restKind is a GraphQL enum value in REST spelling.
func restKind(v string) string { return strings.ReplaceAll(v, "_", "-") }

// destSetter is a create or an update of a redirect; setDest writes its
// destination.
type destSetter[T any] interface {
	SetDestinationKind(siteredirect.DestinationKind) T
	SetNillableDestinationID(*string) T
	SetNillableDestinationPageID(*string) T
	SetNillableDestinationURL(*string) T
}

func setDest[T any](m destSetter[T], d redirectDest) {
	m.SetDestinationKind(d.kind)
	m.SetNillableDestinationID(d.id)
	m.SetNillableDestinationPageID(d.pageID)
	m.SetNillableDestinationURL(d.toURL)
}

// clearDest clears the destination columns an update's new kind leaves
// unused.
func clearDest(u *ent.SiteRedirectUpdateOne, d redirectDest) {
	if d.id == nil {
		u.ClearDestinationID()
	}
	if d.pageID == nil {
		u.ClearDestinationPageID()
	}
	if d.toURL == nil {
		u.ClearDestinationURL()
	}
}

// RedirectDestination is a redirect's destination in GitBook's shape.
func RedirectDestination(rd *ent.SiteRedirect) *model.SiteRedirectDestination {
	d := &model.SiteRedirectDestination{Kind: rd.DestinationKind, URL: rd.DestinationURL, PageID: rd.DestinationPageID}
	if rd.DestinationKind == siteredirect.DestinationKindSiteSection {
		d.SiteSectionID = rd.DestinationID
	} else {
		d.SiteSpaceID = rd.DestinationID
	}
	return d
}

// redirectEvent is an event whose target is redirect rd of site s.
func redirectEvent(action string, s *ent.Site, rd *ent.SiteRedirect, payload map[string]any) events.Event {
	if payload == nil {
		payload = map[string]any{}
	}
	payload["source"] = rd.Source
	if action != events.SiteRedirectPublished {
		payload["draft"] = rd.Draft
	}
	return siteItemEvent(action, s, "site-redirect", rd.ID, rd.Source, payload)
}

// roomForRedirects refuses (400 naming field) a write that would take the
// site past MaxRedirectsPerSite.
func roomForRedirects(ctx context.Context, tx *ent.Client, siteID, field string) error {
	n, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(siteID)).Count(ctx)
	if err != nil {
		return err
	}
	if n >= MaxRedirectsPerSite {
		return apperr.InvalidField(field, "a site has at most %d redirects", MaxRedirectsPerSite)
	}
	return nil
}

// sourceTaken refuses (409 naming source) a source another redirect of the
// same site and state already has.
func sourceTaken(ctx context.Context, tx *ent.Client, siteID, source string, draft bool, except string) error {
	q := tx.SiteRedirect.Query().Where(siteredirect.SiteID(siteID), siteredirect.Source(source), siteredirect.Draft(draft))
	if except != "" {
		q.Where(siteredirect.IDNEQ(except))
	}
	taken, err := q.Exist(ctx)
	if err != nil {
		return err
	}
	if taken {
		state := "live"
		if draft {
			state = "draft"
		}
		return apperr.ConflictField("source", "the site already has a %s redirect from %s", state, source)
	}
	return nil
}

// CreateSiteRedirect creates a redirect of a site.
func (r *Resolver) CreateSiteRedirect(ctx context.Context, orgID, siteID string, in model.CreateSiteRedirectInput) (*ent.SiteRedirect, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if err := checkRedirectSource("source", in.Source); err != nil {
		return nil, err
	}
	d, err := r.redirectDestination(ctx, s, "destination", in.Destination)
	if err != nil {
		return nil, err
	}
	draft, wildcard, permanent := boolOf(in.Draft.Value()), boolOf(in.CaptureWildcard.Value()), boolOf(in.Permanent.Value())
	var created *ent.SiteRedirect
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := roomForRedirects(ctx, tx, s.ID, "source"); err != nil {
			return err
		}
		if err := sourceTaken(ctx, tx, s.ID, in.Source, draft, ""); err != nil {
			return err
		}
		c := tx.SiteRedirect.Create().SetSiteID(s.ID).SetSource(in.Source).SetDraft(draft).
			SetCaptureWildcard(wildcard).SetPermanent(permanent)
		if uid := auth.ViewerID(ctx); uid != "" {
			c.SetCreatedBy(uid)
		}
		setDest(c, d)
		if created, err = c.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, redirectEvent(events.SiteRedirectCreated, s, created, map[string]any{"destination": string(d.kind)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	forgetRedirects(s.ID)
	return created, nil
}

func boolOf(p *bool) bool { return p != nil && *p }

// manageableRedirect is a redirect of a site the caller may change (404 naming
// the redirect when it is not one of siteID's, or the site is hidden).
func (r *Resolver) manageableRedirect(ctx context.Context, orgID, siteID, id string) (*ent.Site, *ent.SiteRedirect, error) {
	return manageableSitePart(ctx, orgID, siteID, id, "site redirect",
		func(ctx context.Context, id string) (*ent.SiteRedirect, error) {
			return r.Client.SiteRedirect.Get(ctx, id)
		},
		func(rd *ent.SiteRedirect) string { return rd.SiteID })
}

// visibleRedirect is a redirect of a site the caller sees (node(id:)).
func (r *Resolver) visibleRedirect(ctx context.Context, id string) (*ent.SiteRedirect, error) {
	rd, err := r.Client.SiteRedirect.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("site redirect %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	if _, _, err := visibleSite(ctx, "", rd.SiteID); err != nil {
		return nil, apperr.NotFoundf("site redirect %s not found", id)
	}
	return rd, nil
}

// UpdateSiteRedirect changes a redirect: only the fields given. Making a
// draft live replaces the live redirect of its source.
func (r *Resolver) UpdateSiteRedirect(ctx context.Context, orgID, siteID, id string, in model.UpdateSiteRedirectInput) (*ent.SiteRedirect, error) {
	s, rd, err := r.manageableRedirect(ctx, orgID, siteID, id)
	if err != nil {
		return nil, err
	}
	source, draft := rd.Source, rd.Draft
	if v := in.Source.Value(); in.Source.IsSet() {
		if v == nil {
			return nil, apperr.InvalidField("source", "must be a path, not null")
		}
		if err := checkRedirectSource("source", *v); err != nil {
			return nil, err
		}
		source = *v
	}
	var d *redirectDest
	if in.Destination.IsSet() {
		dd, err := r.redirectDestination(ctx, s, "destination", in.Destination.Value())
		if err != nil {
			return nil, err
		}
		d = &dd
	}
	if v := in.Draft.Value(); v != nil {
		draft = *v
	}
	var updated *ent.SiteRedirect
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if rd.Draft && !draft {
			// Promoting a draft: it takes the live redirect's place.
			gone, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(s.ID), siteredirect.Source(source),
				siteredirect.Draft(false), siteredirect.IDNEQ(rd.ID)).All(ctx)
			if err != nil {
				return err
			}
			for _, g := range gone {
				if err := tx.SiteRedirect.DeleteOneID(g.ID).Exec(ctx); err != nil {
					return err
				}
				record(ctx, redirectEvent(events.SiteRedirectDeleted, s, g, nil))
			}
		} else if err := sourceTaken(ctx, tx, s.ID, source, draft, rd.ID); err != nil {
			return err
		}
		u := tx.SiteRedirect.UpdateOneID(rd.ID).SetSource(source).SetDraft(draft).SetEditedAt(clock.Now())
		if v := in.CaptureWildcard.Value(); v != nil {
			u.SetCaptureWildcard(*v)
		}
		if v := in.Permanent.Value(); v != nil {
			u.SetPermanent(*v)
		}
		if d != nil {
			setDest(u, *d)
			clearDest(u, *d)
		}
		fields := redirectFields(u.Mutation().Fields())
		if updated, err = u.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, redirectEvent(events.SiteRedirectUpdated, s, updated, map[string]any{"fields": fields}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	forgetRedirects(s.ID)
	return updated, nil
}

// redirectFields are the API names of the fields an update sets.
func redirectFields(cols []string) []string {
	names := map[string]string{
		siteredirect.FieldSource: "source", siteredirect.FieldDraft: "draft", siteredirect.FieldCaptureWildcard: "captureWildcard",
		siteredirect.FieldPermanent: "permanent", siteredirect.FieldDestinationKind: "destination",
	}
	var out []string
	for _, c := range cols {
		if n, ok := names[c]; ok {
			out = append(out, n)
		}
	}
	return out
}

// DeleteSiteRedirect deletes a redirect.
func (r *Resolver) DeleteSiteRedirect(ctx context.Context, orgID, siteID, id string) error {
	s, rd, err := r.manageableRedirect(ctx, orgID, siteID, id)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.SiteRedirect.DeleteOneID(rd.ID).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, redirectEvent(events.SiteRedirectDeleted, s, rd, nil))
		return nil
	})
	if err == nil {
		forgetRedirects(s.ID)
	}
	return err
}

// SiteRedirectArgs are the paging arguments of a site's redirects: the
// `source` order defaults to alphabetical, the others to newest first.
func SiteRedirectArgs(limit *int, after, order *string, orderBy model.SiteRedirectOrderBy, names paging.Names) (paging.Args, error) {
	args, err := paging.New(limit, after, order, names)
	if err == nil && order == nil && orderBy == model.SiteRedirectOrderBySource {
		args.Order = paging.Asc
	}
	return args, err
}

// RedirectFilter narrows a site's redirects.
type RedirectFilter struct {
	Draft   bool
	Search  string
	OrderBy model.SiteRedirectOrderBy
}

// SiteRedirects pages through a site's live (or draft) redirects.
func (r *Resolver) SiteRedirects(ctx context.Context, orgID, siteID string, args paging.Args, f RedirectFilter) (paging.Page[*ent.SiteRedirect], error) {
	s, _, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return paging.Page[*ent.SiteRedirect]{}, err
	}
	return r.SiteRedirectsOf(ctx, s, args, f)
}

// SiteRedirectsOf is SiteRedirects of a site already read: the redirects
// of every site of a list are read together (two statements).
func (r *Resolver) SiteRedirectsOf(ctx context.Context, s *ent.Site, args paging.Args, f RedirectFilter) (paging.Page[*ent.SiteRedirect], error) {
	if _, _, err := visibleSite(ctx, "", s.ID); err != nil {
		return paging.Page[*ent.SiteRedirect]{}, err
	}
	if !f.OrderBy.IsValid() {
		f.OrderBy = model.SiteRedirectOrderByCreatedAt
	}
	q := r.Client.SiteRedirect.Query().Where(siteredirect.Draft(f.Draft))
	if t := strings.TrimSpace(f.Search); t != "" {
		q.Where(siteredirect.SourceContainsFold(t))
	}
	column := siteredirect.FieldCreatedAt
	keyset := args.Keyset(column)
	key := func(rd *ent.SiteRedirect) paging.Cursor { return paging.Cursor{Time: rd.CreatedAt, ID: rd.ID} }
	switch f.OrderBy {
	case model.SiteRedirectOrderByUpdatedAt:
		column = siteredirect.FieldUpdatedAt
		keyset = args.Keyset(column)
		key = func(rd *ent.SiteRedirect) paging.Cursor { return paging.Cursor{Time: rd.UpdatedAt, ID: rd.ID} }
	case model.SiteRedirectOrderBySource:
		column = siteredirect.FieldSource
		keyset = sourceKeyset(args)
		key = func(rd *ent.SiteRedirect) paging.Cursor { return paging.Cursor{Key: rd.Source, ID: rd.ID} }
	}
	kind := fmt.Sprintf("redirects|%t|%q|%s", f.Draft, f.Search, f.OrderBy)
	return pageUnder(ctx, loader.Sites, kind, s.ID, args, func(ctx context.Context, sites []string) (map[string]paging.Page[*ent.SiteRedirect], error) {
		q := q.Clone().Where(siteredirect.SiteIDIn(sites...))
		return listPagesKeyed(ctx, q, func(s *sql.Selector) string { return s.C(siteredirect.FieldSiteID) }, sites, args,
			column, keyset, key, func(rd *ent.SiteRedirect) string { return rd.SiteID })
	})
}

// sourceKeyset is Args.Keyset for the `source` order: (source, id) past
// the cursor's (key, id).
func sourceKeyset(a paging.Args) func(*sql.Selector) {
	return func(s *sql.Selector) {
		if a.After == nil {
			return
		}
		op := sql.OpGT
		if a.Order == paging.Desc {
			op = sql.OpLT
		}
		c, id, after := s.C(siteredirect.FieldSource), s.C("id"), *a.After
		s.Where(sql.P(func(b *sql.Builder) {
			b.Wrap(func(b *sql.Builder) { b.WriteString(c).Comma().WriteString(id) })
			b.WriteOp(op)
			b.Wrap(func(b *sql.Builder) { b.Arg(after.Key).Comma().Arg(after.ID) })
		}))
	}
}

// RedirectSite is the site of a redirect.
func (r *Resolver) RedirectSite(ctx context.Context, rd *ent.SiteRedirect) (*ent.Site, error) {
	return loader.For(ctx).SiteByID.Load(ctx, rd.SiteID)()
}

// SiteForStructure is a site whose structure the caller may read: members
// who see it, or, with a share key, the published site's audience.
func (r *Resolver) SiteForStructure(ctx context.Context, orgID, siteID string, shareKey *string) (*ent.Site, error) {
	return r.readableSite(ctx, orgID, siteID, shareKey)
}

// deleteSiteRedirects deletes a site's redirects with the site (its
// deletion's event says so).
func deleteSiteRedirects(ctx context.Context, tx *ent.Client, siteID string) error {
	_, err := tx.SiteRedirect.Delete().Where(siteredirect.SiteID(siteID)).Exec(ctx)
	forgetRedirects(siteID)
	return err
}

// ManageableSite is a site the caller may change (manageableSite): REST
// asks it before reading a write's body, so that 404 and 403 come first.
func (r *Resolver) ManageableSite(ctx context.Context, orgID, siteID string) (*ent.Site, error) {
	return manageableSite(ctx, orgID, siteID)
}
