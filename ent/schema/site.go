package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// The tables of docs sites hold plain id columns rather than ent edges: a
// site's rows are deleted together by the application (graph/sites.go), and
// a site space names a space without a foreign key so that purging a space
// (graph/spaces_purge.go) removes its site spaces instead of failing on them.

// SiteTypes and SiteVisibilities are GitBook's SiteType and SiteVisibility.
var (
	SiteTypes        = []string{"basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"}
	SiteVisibilities = []string{"public", "unlisted", "share-link", "visitor-auth"}
)

// Site is a docs site of an organization: spaces published together, as
// site spaces, optionally in sections and section groups.
type Site struct{ ent.Schema }

func (Site) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Site) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.Enum("type").Values(SiteTypes...).Default("basic"),
		field.String("title").Validate(length(2, 128)),
		field.Enum("visibility").Values(SiteVisibilities...).Default("public"),
		field.Bool("published").Default(false),
		// The site's path on this server (/s/<basename>/), unique across the
		// installation.
		field.String("basename").Optional().Nillable().Unique(),
		field.String("proxy").Optional().Nillable(),
		field.Bool("adaptive_content").Default(false),
		// The adaptive schema, as JSON; nil until one is set.
		field.Text("adaptive_schema").Optional().Nillable(),
		field.Time("adaptive_schema_updated_at").Optional().Nillable(),
		// Customization settings, as JSON; nil until set.
		field.Text("customization").Optional().Nillable(),
		// Key that signs visitor-auth tokens; regenerating invalidates them.
		// Sealed (internal/secrets, area secrets.SiteAuthKey): read it
		// through Resolver.Secrets.Open.
		field.String("auth_private_key_sealed").StorageKey("auth_private_key").Sensitive(),
		field.String("auth_fallback_url").Optional().Nillable(),
	}
}

func (Site) Indexes() []ent.Index {
	return []ent.Index{
		// Keyset paging of an organization's sites: (created_at, id).
		index.Fields("organization_id", "created_at", "id"),
	}
}

// SiteSection is a section of a site. Ungrouped sections and section groups
// share the site's top-level order (position); a grouped section's position
// is its place in the group.
type SiteSection struct{ ent.Schema }

func (SiteSection) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SiteSection) Fields() []ent.Field {
	return []ent.Field{
		field.String("site_id").Immutable(),
		field.String("title").Validate(length(2, 128)),
		field.String("path").Validate(length(1, 100)),
		field.String("description").Optional().Nillable(),
		field.String("condition").Optional().Nillable(),
		field.String("icon").Optional().Nillable(),
		field.String("group_id").Optional().Nillable(),
		field.Int("position"),
		field.Bool("is_default").Default(false),
	}
}

func (SiteSection) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("site_id", "path").Unique(),
		// A site's sections in order, read by the site's loader.
		index.Fields("site_id", "position", "id"),
		index.Fields("group_id"),
	}
}

// SiteSectionGroup is an ordered group of a site's sections.
type SiteSectionGroup struct{ ent.Schema }

func (SiteSectionGroup) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SiteSectionGroup) Fields() []ent.Field {
	return []ent.Field{
		field.String("site_id").Immutable(),
		field.String("title").Validate(length(1, 100)),
		field.String("icon").Optional().Nillable(),
		field.Int("position"),
	}
}

func (SiteSectionGroup) Indexes() []ent.Index {
	return []ent.Index{index.Fields("site_id", "position", "id")}
}

// SiteSpace links a space to a site, in a section or at the site's root.
type SiteSpace struct{ ent.Schema }

func (SiteSpace) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SiteSpace) Fields() []ent.Field {
	return []ent.Field{
		field.String("site_id").Immutable(),
		// nil at the root of a site without sections.
		field.String("section_id").Optional().Nillable(),
		field.String("space_id"),
		field.String("path").Validate(length(1, 100)),
		field.String("condition").Optional().Nillable(),
		field.Bool("is_default").Default(false),
		field.Int("position"),
	}
}

func (SiteSpace) Indexes() []ent.Index {
	return []ent.Index{
		// A site's site spaces in order (the loader reads them per site).
		index.Fields("site_id", "position", "id"),
		index.Fields("section_id", "position", "id"),
		// The site spaces of a space: the `space` filter, trash and purge.
		index.Fields("space_id"),
	}
}

// SiteShareLink is a secret link that opens a share-link site.
type SiteShareLink struct{ ent.Schema }

func (SiteShareLink) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (SiteShareLink) Fields() []ent.Field {
	return []ent.Field{
		field.String("site_id").Immutable(),
		field.String("name").Validate(length(1, 50)),
		// The link's key, sealed (internal/secrets, area
		// secrets.ShareLinkKey), and its lookup hash, which finds the link
		// by key (nil only until the first start seals rows stored before).
		field.String("key_sealed").StorageKey("key").Sensitive(),
		field.String("key_hash").Optional().Nillable().Unique().Sensitive(),
		field.Bool("active").Default(true),
	}
}

func (SiteShareLink) Indexes() []ent.Index {
	return []ent.Index{index.Fields("site_id", "created_at", "id")}
}
