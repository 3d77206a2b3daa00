package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SiteEventTypes are GitBook's SiteInsightsEventType; SiteEventContexts its
// SiteInsightsDisplayContext; PageFeedbackRatings its PageFeedbackRating;
// SiteLinkPositions its SiteInsightsLinkPosition.
var (
	SiteEventTypes = []string{"page_view", "page_markdown_request", "search_open", "search_type_query",
		"search_open_result", "page_post_feedback", "page_post_feedback_comment", "agent_feedback", "ask_question",
		"ask_view", "ask_rate_response", "link_click", "api_client_open", "api_client_request", "ad_click",
		"ad_display", "trademark_click", "llms_request", "mcp_request", "rss_request"}
	SiteEventContexts   = []string{"site", "server", "embed", "mcp"}
	PageFeedbackRatings = []string{"bad", "ok", "good"}
	SiteLinkPositions   = []string{"announcement", "header", "footer", "sidebar", "content"}
)

// SiteEvent is one insights event of a published site (issue 29): a page
// view, a search, a rating, a link click… Telemetry, not an edit: events
// are written without an audit event (events.ExemptInsights) and never
// change. Nothing here identifies a person: no IP address, no cookie, no
// user agent; the visitor and session are hashes of what the tracker
// supplied (or nothing), the URL and referrer are kept without their query
// strings (which may hold share keys and visitor tokens), and only the
// claims the site's adaptive content uses are kept.
//
// The time is also stored as whole UTC hours and calendar parts so that
// aggregates group by hour, day, week, month, weekday and hour of day with
// the same integer arithmetic on SQLite and PostgreSQL.
type SiteEvent struct{ ent.Schema }

func (SiteEvent) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (SiteEvent) Fields() []ent.Field {
	opt := func(name string) ent.Field { return field.String(name).Optional().Nillable().Immutable() }
	return []ent.Field{
		field.String("site_id").Immutable(),
		field.String("organization_id").Immutable(),
		field.Enum("type").Values(SiteEventTypes...).Immutable(),
		field.Time("timestamp").Immutable(),
		// Hours since the Unix epoch (UTC); the day is hour/24.
		field.Int64("hour").Immutable(),
		// Year*12 + month-1 (UTC).
		field.Int("month").Immutable(),
		// 1 (Monday) to 7 (Sunday), UTC.
		field.Int("day_of_week").Immutable(),
		// 0 to 23, UTC.
		field.Int("hour_of_day").Immutable(),
		field.Enum("display_context").Values(SiteEventContexts...).Default("site").Immutable(),
		// The location's URL without query string or fragment, and its path.
		field.String("url").Immutable(),
		field.String("url_path").Immutable(),
		opt("site_section_id"),
		opt("site_space_id"),
		opt("site_share_key_id"),
		opt("space_id"),
		opt("revision_id"),
		opt("page_id"),
		// Hashes (per site) of the tracker's visitor and session ids.
		opt("visitor_hash"),
		opt("session_hash"),
		opt("language"),
		// The referrer without query string, and its host.
		opt("referrer"),
		opt("referrer_domain"),
		opt("utm_source"),
		opt("utm_medium"),
		opt("utm_campaign"),
		opt("utm_term"),
		opt("utm_content"),
		// Whether the visitor had claims (visitor-auth or adaptive content),
		// and those claims as canonical JSON (sorted keys), at most 1 KiB.
		field.Bool("visitor_authenticated").Optional().Nillable().Immutable(),
		field.Text("visitor_claims").Optional().Nillable().Immutable(),
		// Searches and questions: the query, at most 512 characters.
		opt("query"),
		// A search result opened: its page (in space_id/page_id) or record.
		opt("result_record_id"),
		field.Enum("feedback_rating").Values(PageFeedbackRatings...).Optional().Nillable().Immutable(),
		opt("feedback_comment"),
		// An AI answer rated: 1 or -1.
		field.Int("ask_rating").Optional().Nillable().Immutable(),
		// A link clicked: the target's kind, its value (URL or id) and the
		// URL's host, and where the link was.
		opt("link_target_kind"),
		opt("link_target_value"),
		opt("link_target_domain"),
		field.Enum("link_position").Values(SiteLinkPositions...).Optional().Nillable().Immutable(),
	}
}

func (SiteEvent) Indexes() []ent.Index {
	return []ent.Index{
		// Every aggregate reads one site's events over a time range.
		index.Fields("site_id", "timestamp"),
	}
}
