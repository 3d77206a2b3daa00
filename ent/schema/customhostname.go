package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CustomHostname is a host name a site is served at (besides
// /s/<basename>/ of the base URL), set through the site's settings
// (updateSiteById's `hostname`) and checked in DNS on demand
// (dnsRevalidateCustomHostname). A site has at most one; a host name
// belongs to at most one site. Deleted with its site.
type CustomHostname struct{ ent.Schema }

func (CustomHostname) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (CustomHostname) Fields() []ent.Field {
	return []ent.Field{
		// Lower case, without a trailing dot (graph/hostnames.go checks it).
		field.String("hostname").MaxLen(253).Unique(),
		field.String("site_id").Unique().Immutable(),
		// The site's organization, copied: the reader's host table and the
		// API's guard need no join.
		field.String("organization_id").Immutable(),
		// What the last DNS check found, in GitBook's
		// CustomHostnameStatus spelling; nil until the first check. TLS is
		// not Folio's (graph/hostnames.go: the API shows a passed check as
		// ssl_unknown).
		field.Enum("status").Values("dns_passed", "dns_wrong_cname", "dns_no_cname", "internal_error").Optional().Nillable(),
		field.Time("checked_at").Optional().Nillable(),
		// Why the last check failed, for people; nil when it passed.
		field.String("error").Optional().Nillable(),
	}
}

func (CustomHostname) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id")}
}
