package schema

import (
	"github.com/folio/folio/internal/mergerules"

	"regexp"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/fetch"
)

// hostnamePattern is the seed's subdomain pattern: 3-32 lower-case letters,
// digits and inner hyphens.
var hostnamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$`)

// Organization owns spaces, collections, sites, teams and members.
type Organization struct{ ent.Schema }

func (Organization) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Organization) Fields() []ent.Field {
	return []ent.Field{
		field.String("title").Validate(length(2, 255)),
		// Lower-cased email domains whose users may find the organization.
		field.Strings("email_domains").Default([]string{}).Validate(validateEmailDomains),
		field.String("hostname").Optional().Nillable().Unique().
			Validate(all(length(3, 32), matches(hostnamePattern, "lower-case letters, digits and inner hyphens"))),
		field.Enum("type").Values("business", "community").Default("business"),
		field.Enum("use_case").Optional().Nillable().
			Values("internalDocs", "docsSite", "audienceControlledSite", "productDocs", "teamKnowledgeBase",
				"designSystem", "openSourceDocs", "notes", "other"),
		field.Enum("community_type").Optional().Nillable().Values("nonProfit", "openSource", "education"),
		// Role given to members who join without one; nil means guest.
		field.Enum("default_role").GoType(access.Role("")).Optional().Nillable(),
		// {type: "site", site: <id>} or nil.
		field.JSON("default_content", &DefaultContent{}).Optional(),
		// Merge rules of the organization's change requests (type none or
		// rules); absent: none.
		field.JSON("merge_rules", &mergerules.Config{}).Optional(),
		field.String("logo").Optional().Nillable().Validate(all(length(0, 2048), fetch.CheckURL)),
		field.Bool("sso").Default(false),
		field.Bool("ai").Default(false),
		field.Bool("invite_links").Default(true),
		field.String("custom_hostname").Optional().Nillable().Validate(length(0, 512)),
	}
}

func (Organization) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("members", Member.Type),
		edge.To("teams", Team.Type),
		edge.To("invites", Invite.Type),
		edge.To("saml_providers", SAMLProvider.Type),
		edge.To("translations", TranslationSettings.Type),
		edge.To("custom_fields", CustomField.Type),
		edge.To("collections", Collection.Type),
		edge.To("spaces", Space.Type),
	}
}
