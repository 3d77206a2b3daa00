package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// OAuthClient is a tool registered through OAuth dynamic registration
// (RFC 7591, graph/oauth_register.go): a public client (no secret) whose
// redirect URIs are loopback addresses, such as the GitBook CLI or an MCP
// client. Anyone may register one; it gets nothing until a user consents.
type OAuthClient struct{ ent.Schema }

func (OAuthClient) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (OAuthClient) Fields() []ent.Field {
	return []ent.Field{
		// client_name as registered: shown on the consent page and next to
		// the tokens it obtained.
		field.String("name").MaxLen(255),
		// redirect_uris as registered (loopback only; matched port-agnostic).
		field.JSON("redirect_uris", []string{}).Immutable(),
		// The address that registered it (for the operator, not a rule).
		field.String("ip").Default("").MaxLen(64).Immutable(),
	}
}
