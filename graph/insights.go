package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/siteevent"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// Site insights (issue 29): the events a published site's readers make
// (page views, searches, ratings, link clicks…), tracked in batches by the
// site's front end (trackEventsInSiteById) and recorded by the reader
// itself for every page it serves (insights_writer.go), then aggregated
// for the site's members (insights_aggregate.go).
//
// Insights are telemetry: rows are written under events.ExemptInsights,
// without an audit event each (a page view is not a change anyone made).
// Nothing stored identifies a person: no cookie is read or set, IP
// addresses and user agents are never kept, visitor and session ids are
// kept as hashes, URLs and referrers lose their query strings (where share
// keys and visitor tokens travel).

// Bounds of a tracking call.
const (
	// MaxSiteEvents is the most events one call tracks.
	MaxSiteEvents = 100
	// MaxSiteEventsBody bounds a tracking call's body (REST answers 413
	// past it).
	MaxSiteEventsBody = 256 << 10
	maxEventText      = 512  // queries and feedback comments
	maxEventURL       = 2048 // URLs, as GitBook's URL
	maxEventID        = 128  // ids and other short strings
	maxEventClaims    = 1024 // visitor claims, as canonical JSON
	// eventSkew is how far from now an event's own timestamp may be
	// (GitBook: within 5 minutes).
	eventSkew = 5 * time.Minute
)

// trackableSite is a site the caller may track events of, with the claims
// its events carry: a site-scoped token of that very site (its visitor's
// claims, which the tracker cannot change), or a member who can see the
// site (claims as the events say). Anyone else: 404.
func trackableSite(ctx context.Context, orgID, siteID string) (*ent.Site, *SiteScope, error) {
	if sc := siteScopeOf(ctx); sc != nil {
		if sc.SiteID != siteID || (orgID != "" && sc.OrganizationID != orgID) {
			return nil, nil, apperr.NotFoundf("site %s not found", siteID)
		}
		s, err := siteByID(ctx, siteID)
		if err == nil && (s.OrganizationID != sc.OrganizationID || !s.Published) {
			err = apperr.NotFoundf("site %s not found", siteID)
		}
		return s, sc, err
	}
	s, _, err := visibleSite(ctx, orgID, siteID)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		// Anyone may read a published public or unlisted site, so anyone
		// may count its page views: GitBook's renderer sends them with its
		// own token, whoever's it is.
		if open, oerr := siteByID(ctx, siteID); oerr == nil && open.OrganizationID == orgID && open.Published &&
			(open.Visibility == site.VisibilityPublic || open.Visibility == site.VisibilityUnlisted) {
			return open, nil, nil
		}
	}
	return s, nil, err
}

// insightsSite is a site whose insights the caller may read: members with
// a role in the organization who can see the site. Guests the site is
// shared with: 403; visitors (site-scoped tokens) and strangers: 404.
func insightsSite(ctx context.Context, orgID, siteID string) (*ent.Site, error) {
	if siteScopeOf(ctx) != nil {
		return nil, apperr.NotFoundf("site %s not found", siteID)
	}
	s, m, err := visibleSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if !m.CanSeeSites() {
		return nil, apperr.Forbiddenf("a site's insights are for members of its organization with a role")
	}
	return s, nil
}

// deleteSiteEvents removes a deleted site's insights with it: they name
// pages of a site that no longer exists.
func deleteSiteEvents(ctx context.Context, tx *ent.Client, siteID string) error {
	_, err := tx.SiteEvent.Delete().Where(siteevent.SiteID(siteID)).Exec(ctx)
	return err
}

// siteByID is a site by id (the loader answers 404 for none).
func siteByID(ctx context.Context, id string) (*ent.Site, error) {
	return loader.For(ctx).SiteByID.Load(ctx, id)()
}

// TrackEventsInSite stores a batch of a site's events (each in GitBook's
// SiteInsightsEvent shape, as JSON). Every event is checked before any is
// stored: a bad one is a 400 naming events[i].field and stores nothing.
// raw nil is a call without the list (400), empty one with none (nothing
// stored).
func (r *Resolver) TrackEventsInSite(ctx context.Context, orgID, siteID string, raw []json.RawMessage) error {
	s, sc, err := trackableSite(ctx, orgID, siteID)
	if err != nil {
		return err
	}
	if raw == nil {
		return apperr.InvalidField("events", "is required: a list of events")
	}
	if len(raw) > MaxSiteEvents {
		return apperr.InvalidField("events", "at most %d events in one call (got %d)", MaxSiteEvents, len(raw))
	}
	if len(raw) == 0 {
		return nil
	}
	parts, err := r.siteParts(ctx, s.ID)
	if err != nil {
		return err
	}
	now := clock.Now()
	rows := make([]*ent.SiteEventCreate, 0, len(raw))
	for i, item := range raw {
		e, err := parseSiteEvent(item, fmt.Sprintf("events[%d]", i), sc, parts, now)
		if err != nil {
			return err
		}
		rows = append(rows, e.create(r.Client.SiteEvent, s))
	}
	return r.Client.SiteEvent.CreateBulk(rows...).Exec(events.Exempt(ctx, events.ExemptInsights))
}

// siteParts are the ids of a site's sections, site spaces and share links,
// which events may name (three statements, read once per batch).
type siteParts struct{ sections, siteSpaces, shareLinks map[string]bool }

func (r *Resolver) siteParts(ctx context.Context, siteID string) (siteParts, error) {
	set := func(ids []string, err error) (map[string]bool, error) {
		m := make(map[string]bool, len(ids))
		for _, id := range ids {
			m[id] = true
		}
		return m, err
	}
	var p siteParts
	var err error
	if p.sections, err = set(r.Client.SiteSection.Query().Where(sitesection.SiteID(siteID)).IDs(ctx)); err != nil {
		return p, err
	}
	if p.siteSpaces, err = set(r.Client.SiteSpace.Query().Where(sitespace.SiteID(siteID)).IDs(ctx)); err != nil {
		return p, err
	}
	p.shareLinks, err = set(r.Client.SiteShareLink.Query().Where(sitesharelink.SiteID(siteID)).IDs(ctx))
	return p, err
}

// siteEventJSON is GitBook's SiteInsightsEvent, the fields Folio reads.
// session.cookies, session.ip and session.userAgent are accepted and never
// read: Folio keeps no cookie, address or browser.
type siteEventJSON struct {
	Type    *string `json:"type"`
	Session *struct {
		VisitorID         *string        `json:"visitorId"`
		SessionID         *string        `json:"sessionId"`
		Language          *string        `json:"language"`
		Referrer          *string        `json:"referrer"`
		VisitorAuthClaims map[string]any `json:"visitorAuthClaims"`
	} `json:"session"`
	Location *struct {
		URL            *string `json:"url"`
		DisplayContext *string `json:"displayContext"`
		SiteSection    *string `json:"siteSection"`
		SiteSpace      *string `json:"siteSpace"`
		SiteShareKey   *string `json:"siteShareKey"`
		Space          *string `json:"space"`
		Revision       *string `json:"revision"`
		Page           *string `json:"page"`
	} `json:"location"`
	Timestamp *time.Time `json:"timestamp"`
	Query     *string    `json:"query"`
	Result    *struct {
		SpaceID  *string `json:"spaceId"`
		PageID   *string `json:"pageId"`
		RecordID *string `json:"recordId"`
	} `json:"result"`
	Feedback *struct {
		Rating  *string `json:"rating"`
		Comment *string `json:"comment"`
	} `json:"feedback"`
	Rating *int `json:"rating"`
	Link   *struct {
		Target   map[string]any `json:"target"`
		Position *string        `json:"position"`
	} `json:"link"`
}

// insightEvent is an event as stored, before the site's ids are added.
type insightEvent struct {
	typ                    siteevent.Type
	at                     time.Time
	context                siteevent.DisplayContext
	url, path              string
	section, siteSpace     *string
	shareLink, space       *string
	revision, page         *string
	visitor, session       *string
	language               *string
	referrer, refDomain    *string
	utm                    [5]*string // source, medium, campaign, term, content
	authenticated          *bool
	claims                 *string
	query, record          *string
	rating                 *siteevent.FeedbackRating
	comment                *string
	askRating              *int
	linkKind, linkValue    *string
	linkDomain             *string
	linkPosition           *siteevent.LinkPosition
	rawVisitor, rawSession string // hashed with the site's id in create
}

func (e *insightEvent) create(c *ent.SiteEventClient, s *ent.Site) *ent.SiteEventCreate {
	at := e.at.UTC()
	hour := at.Unix() / 3600
	if at.Unix() < 0 {
		hour = (at.Unix() - 3599) / 3600
	}
	dow := int(at.Weekday())
	if dow == 0 {
		dow = 7
	}
	if e.rawVisitor != "" {
		e.visitor = ptr(visitorHash(s.ID, "visitor", e.rawVisitor))
	}
	if e.rawSession != "" {
		e.session = ptr(visitorHash(s.ID, "session", e.rawSession))
	}
	return c.Create().SetSiteID(s.ID).SetOrganizationID(s.OrganizationID).SetType(e.typ).SetTimestamp(at).
		SetHour(hour).SetMonth(at.Year()*12 + int(at.Month()) - 1).SetDayOfWeek(dow).SetHourOfDay(at.Hour()).
		SetDisplayContext(e.context).SetURL(e.url).SetURLPath(e.path).
		SetNillableSiteSectionID(e.section).SetNillableSiteSpaceID(e.siteSpace).SetNillableSiteShareKeyID(e.shareLink).
		SetNillableSpaceID(e.space).SetNillableRevisionID(e.revision).SetNillablePageID(e.page).
		SetNillableVisitorHash(e.visitor).SetNillableSessionHash(e.session).SetNillableLanguage(e.language).
		SetNillableReferrer(e.referrer).SetNillableReferrerDomain(e.refDomain).
		SetNillableUtmSource(e.utm[0]).SetNillableUtmMedium(e.utm[1]).SetNillableUtmCampaign(e.utm[2]).
		SetNillableUtmTerm(e.utm[3]).SetNillableUtmContent(e.utm[4]).
		SetNillableVisitorAuthenticated(e.authenticated).SetNillableVisitorClaims(e.claims).
		SetNillableQuery(e.query).SetNillableResultRecordID(e.record).SetNillableFeedbackRating(e.rating).
		SetNillableFeedbackComment(e.comment).SetNillableAskRating(e.askRating).
		SetNillableLinkTargetKind(e.linkKind).SetNillableLinkTargetValue(e.linkValue).
		SetNillableLinkTargetDomain(e.linkDomain).SetNillableLinkPosition(e.linkPosition)
}

func ptr[T any](v T) *T { return &v }

// visitorHash keeps a tracker's id as a digest of its own per site: the
// same visitor counts once, and the stored value names no one elsewhere.
func visitorHash(siteID, kind, id string) string {
	sum := sha256.Sum256([]byte("folio insights\x00" + siteID + "\x00" + kind + "\x00" + id))
	return hex.EncodeToString(sum[:16])
}

// parseSiteEvent reads and checks one event; at names it in errors
// (events[3]).
func parseSiteEvent(raw json.RawMessage, at string, sc *SiteScope, parts siteParts, now time.Time) (*insightEvent, error) {
	var in siteEventJSON
	if err := json.Unmarshal(raw, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, apperr.InvalidField(at+"."+te.Field, "must be %s", jsonKind(te.Type.Kind().String()))
		}
		if strings.Contains(err.Error(), "parsing time") {
			return nil, apperr.InvalidField(at+".timestamp", "must be an RFC 3339 date-time")
		}
		return nil, apperr.InvalidField(at, "must be an event object")
	}
	f := func(name string) string { return at + "." + name }
	e := &insightEvent{context: siteevent.DisplayContextSite, at: now}
	if in.Type == nil {
		return nil, apperr.InvalidField(f("type"), "is required")
	}
	e.typ = siteevent.Type(*in.Type)
	if siteevent.TypeValidator(e.typ) != nil {
		return nil, apperr.InvalidField(f("type"), "must be one of GitBook's event types (page_view, search_type_query, page_post_feedback, link_click, …)")
	}
	if in.Timestamp != nil {
		if d := in.Timestamp.Sub(now); d > eventSkew || d < -eventSkew {
			return nil, apperr.InvalidField(f("timestamp"), "must be within 5 minutes of now")
		}
		e.at = *in.Timestamp
	}
	// Location.
	if in.Location == nil {
		return nil, apperr.InvalidField(f("location"), "is required")
	}
	loc := in.Location
	if loc.URL == nil {
		return nil, apperr.InvalidField(f("location.url"), "is required")
	}
	u, err := eventURL(*loc.URL)
	if err != nil {
		return nil, apperr.InvalidField(f("location.url"), "%s", err)
	}
	e.url, e.path = strip(u), u.EscapedPath()
	if e.path == "" {
		e.path = "/"
	}
	q := u.Query()
	for i, k := range []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"} {
		if v := q.Get(k); v != "" {
			e.utm[i] = ptr(clipText(v, maxEventID))
		}
	}
	if loc.DisplayContext != nil {
		e.context = siteevent.DisplayContext(*loc.DisplayContext)
		if siteevent.DisplayContextValidator(e.context) != nil {
			return nil, apperr.InvalidField(f("location.displayContext"), "must be site, server, embed or mcp")
		}
	}
	part := func(name string, v *string, known map[string]bool, what string) (*string, error) {
		if v == nil || *v == "" {
			return nil, nil
		}
		if known != nil && !known[*v] {
			return nil, apperr.InvalidField(f("location."+name), "is not a %s of this site", what)
		}
		if len(*v) > maxEventID {
			return nil, apperr.InvalidField(f("location."+name), "must be at most %d characters", maxEventID)
		}
		return v, nil
	}
	for _, p := range []struct {
		name  string
		v     *string
		known map[string]bool
		what  string
		into  **string
	}{
		{"siteSection", loc.SiteSection, parts.sections, "section", &e.section},
		{"siteSpace", loc.SiteSpace, parts.siteSpaces, "site space", &e.siteSpace},
		{"siteShareKey", loc.SiteShareKey, parts.shareLinks, "share link", &e.shareLink},
		{"space", loc.Space, nil, "", &e.space},
		{"revision", loc.Revision, nil, "", &e.revision},
		{"page", loc.Page, nil, "", &e.page},
	} {
		if *p.into, err = part(p.name, p.v, p.known, p.what); err != nil {
			return nil, err
		}
	}
	// Session.
	if in.Session == nil {
		return nil, apperr.InvalidField(f("session"), "is required")
	}
	ses := in.Session
	for _, id := range []struct {
		name string
		v    *string
		into *string
	}{{"visitorId", ses.VisitorID, &e.rawVisitor}, {"sessionId", ses.SessionID, &e.rawSession}} {
		if id.v != nil {
			if len(*id.v) > maxEventID {
				return nil, apperr.InvalidField(f("session."+id.name), "must be at most %d characters", maxEventID)
			}
			*id.into = *id.v
		}
	}
	if ses.Language != nil && *ses.Language != "" {
		if len(*ses.Language) > 35 {
			return nil, apperr.InvalidField(f("session.language"), "must be a language tag (at most 35 characters)")
		}
		e.language = ses.Language
	}
	if ses.Referrer != nil && *ses.Referrer != "" {
		ref, err := eventURL(*ses.Referrer)
		if err != nil {
			return nil, apperr.InvalidField(f("session.referrer"), "%s", err)
		}
		e.referrer, e.refDomain = ptr(strip(ref)), ptr(strings.ToLower(ref.Hostname()))
	}
	claims := ses.VisitorAuthClaims
	if sc != nil {
		// A visitor's token carries the claims the URL was resolved with:
		// those count, not what the tracker says.
		claims = sc.Claims
	}
	if e.authenticated, e.claims, err = claimsOf(claims); err != nil {
		if sc != nil {
			e.claims = nil // a scope's claims too long to keep: counted as authenticated, not segmented
		} else {
			return nil, apperr.InvalidField(f("session.visitorAuthClaims"), "%s", err)
		}
	}
	// What each type carries.
	text := func(name string, v *string, required bool) (*string, error) {
		if v == nil {
			if required {
				return nil, apperr.InvalidField(f(name), "is required for %s events", e.typ)
			}
			return nil, nil
		}
		if utf8.RuneCountInString(*v) > maxEventText {
			return nil, apperr.InvalidField(f(name), "must be at most %d characters", maxEventText)
		}
		return v, nil
	}
	switch e.typ {
	case siteevent.TypeSearchTypeQuery, siteevent.TypeAskQuestion:
		if e.query, err = text("query", in.Query, true); err != nil {
			return nil, err
		}
	case siteevent.TypeSearchOpenResult:
		if e.query, err = text("query", in.Query, true); err != nil {
			return nil, err
		}
		res := in.Result
		switch {
		case res == nil:
			return nil, apperr.InvalidField(f("result"), "is required for search_open_result events")
		case res.RecordID != nil:
			if e.record, err = text("result.recordId", res.RecordID, true); err != nil {
				return nil, err
			}
		case res.SpaceID != nil && res.PageID != nil && len(*res.SpaceID) <= maxEventID && len(*res.PageID) <= maxEventID:
			e.space, e.page = res.SpaceID, res.PageID
		default:
			return nil, apperr.InvalidField(f("result"), "must be {spaceId, pageId} or {recordId}")
		}
	case siteevent.TypeAskRateResponse:
		if e.query, err = text("query", in.Query, true); err != nil {
			return nil, err
		}
		if in.Rating == nil || (*in.Rating != 1 && *in.Rating != -1) {
			return nil, apperr.InvalidField(f("rating"), "must be 1 or -1")
		}
		e.askRating = in.Rating
	case siteevent.TypePagePostFeedback, siteevent.TypePagePostFeedbackComment:
		if in.Feedback == nil || in.Feedback.Rating == nil {
			return nil, apperr.InvalidField(f("feedback.rating"), "is required for %s events", e.typ)
		}
		rating := siteevent.FeedbackRating(*in.Feedback.Rating)
		if siteevent.FeedbackRatingValidator(rating) != nil {
			return nil, apperr.InvalidField(f("feedback.rating"), "must be bad, ok or good")
		}
		e.rating = &rating
		if e.typ == siteevent.TypePagePostFeedbackComment {
			c := in.Feedback.Comment
			if c == nil || *c == "" {
				return nil, apperr.InvalidField(f("feedback.comment"), "is required for page_post_feedback_comment events (1 to 512 characters)")
			}
			if e.comment, err = text("feedback.comment", c, true); err != nil {
				return nil, err
			}
		}
	case siteevent.TypeLinkClick:
		if in.Link == nil || in.Link.Target == nil || in.Link.Position == nil {
			return nil, apperr.InvalidField(f("link"), "is required for link_click events: {target, position}")
		}
		pos := siteevent.LinkPosition(*in.Link.Position)
		if siteevent.LinkPositionValidator(pos) != nil {
			return nil, apperr.InvalidField(f("link.position"), "must be announcement, header, footer, sidebar or content")
		}
		e.linkPosition = &pos
		if e.linkKind, e.linkValue, e.linkDomain, err = linkTarget(in.Link.Target); err != nil {
			return nil, apperr.InvalidField(f("link.target"), "%s", err)
		}
	}
	return e, nil
}

// linkTarget reads a ContentRef: its kind, its value (the URL without query
// string for urls, else the id it names) and a URL's host.
func linkTarget(t map[string]any) (kind, value, domain *string, err error) {
	k, _ := t["kind"].(string)
	keys := map[string]string{"url": "url", "page": "page", "file": "file", "anchor": "anchor", "space": "space",
		"collection": "collection", "user": "user", "reusable-content": "reusableContent"}
	key, ok := keys[k]
	if !ok {
		return nil, nil, nil, errors.New("must be a content reference: kind url, page, file, anchor, space, collection, user or reusable-content")
	}
	v, _ := t[key].(string)
	if v == "" {
		return nil, nil, nil, fmt.Errorf("a %s reference needs %s", k, key)
	}
	if k == "url" {
		u, err := eventURL(v)
		if err != nil {
			return nil, nil, nil, err
		}
		return &k, ptr(strip(u)), ptr(strings.ToLower(u.Hostname())), nil
	}
	if len(v) > maxEventID {
		return nil, nil, nil, fmt.Errorf("%s must be at most %d characters", key, maxEventID)
	}
	return &k, &v, nil, nil
}

// eventURL reads an absolute http(s) URL of at most 2048 characters.
func eventURL(s string) (*url.URL, error) {
	if len(s) > maxEventURL {
		return nil, fmt.Errorf("must be at most %d characters", maxEventURL)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("must be an absolute http or https URL")
	}
	return u, nil
}

// strip is a URL without its query string, fragment and credentials: share
// keys and visitor tokens travel in query strings.
func strip(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.User, c.ForceQuery = "", "", "", nil, false
	return c.String()
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// claimsOf is whether claims make the visitor authenticated (a claim other
// than the adaptive "unsigned" ones) and the claims as canonical JSON
// (sorted keys; nil for none), refused past 1 KiB.
func claimsOf(claims map[string]any) (*bool, *string, error) {
	if len(claims) == 0 {
		return nil, nil, nil
	}
	kept := map[string]any{}
	signed := false
	for k, v := range claims {
		if k == "unsigned" {
			if m, ok := v.(map[string]any); ok && len(m) == 0 {
				continue
			}
		} else {
			signed = true
		}
		kept[k] = v
	}
	auth := signed
	if len(kept) == 0 {
		return &auth, nil, nil
	}
	b, err := json.Marshal(kept) // maps marshal with sorted keys
	if err != nil {
		return &auth, nil, errors.New("must be an object of claims")
	}
	if len(b) > maxEventClaims {
		return &auth, nil, fmt.Errorf("must be at most %d bytes as JSON", maxEventClaims)
	}
	return &auth, ptr(string(b)), nil
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	}
	return "of another type"
}

// rawJSONs are GraphQL's Any values as the JSON REST receives.
func rawJSONs(values []any) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(values))
	for i, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, apperr.InvalidField(fmt.Sprintf("events[%d]", i), "must be an event object")
		}
		out[i] = b
	}
	return out, nil
}
