package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SiteRedirectKinds are GitBook's SiteRedirectDestination kinds, as stored.
// An input destination of kind `path` (a page of a space by its path) is
// resolved to `site-page` when written, so that the redirect follows the
// page wherever it moves later.
var SiteRedirectKinds = []string{"site-section", "site-space", "site-page", "external"}

// SiteRedirect sends a path of a published site (below its root) that no
// longer answers to another place: a section, a site space, a page, or a
// URL. The reader applies it only where it would otherwise answer 404.
type SiteRedirect struct{ ent.Schema }

func (SiteRedirect) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SiteRedirect) Fields() []ent.Field {
	return []ent.Field{
		field.String("site_id").Immutable(),
		// GitBook's SiteRedirectSourcePath: "/a/b", "/a/*" or "/a*".
		field.String("source").Validate(length(2, 512)),
		// A draft redirect is not live: the reader ignores it. A source may
		// have one live and one draft redirect (publishing replaces the
		// live one by the draft).
		field.Bool("draft").Default(false),
		field.Bool("capture_wildcard").Default(false),
		field.Bool("permanent").Default(false),
		field.Enum("destination_kind").Values(SiteRedirectKinds...),
		// The section (site-section) or site space (site-space, site-page).
		field.String("destination_id").Optional().Nillable(),
		// The page (site-page).
		field.String("destination_page_id").Optional().Nillable(),
		// The URL (external).
		field.String("destination_url").Optional().Nillable(),
		// Who wrote it: a user, or nil when a merge made it (a page moved).
		field.String("created_by").Optional().Nillable().Immutable(),
		// Set by updates only: GitBook's updatedAt is absent until then.
		field.Time("edited_at").Optional().Nillable(),
	}
}

func (SiteRedirect) Indexes() []ent.Index {
	return []ent.Index{
		// One live and one draft redirect per source of a site; also the
		// `source` order of lists and the reader's lookups.
		index.Fields("site_id", "draft", "source").Unique(),
		// Lists newest first, and by last update.
		index.Fields("site_id", "draft", "created_at", "id"),
		index.Fields("site_id", "draft", "updated_at", "id"),
	}
}
