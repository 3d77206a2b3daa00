package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// SAMLAssertion remembers an assertion a SAML provider's identity provider
// signed and Folio accepted, until the assertion itself expires: the same
// assertion, captured and posted again, is refused (replay). Rows past
// their expiry are dropped by the next sign-in through the provider. No
// edge to the provider: a deleted provider's rows expire on their own.
type SAMLAssertion struct{ ent.Schema }

func (SAMLAssertion) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (SAMLAssertion) Fields() []ent.Field {
	return []ent.Field{
		field.String("provider_id").Immutable(),
		// The assertion's ID attribute, as the identity provider made it.
		field.String("assertion_id").Immutable().MaxLen(256),
		// When the assertion stops being valid (its NotOnOrAfter).
		field.Time("expires_at").Immutable(),
	}
}

func (SAMLAssertion) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("provider_id", "assertion_id").Unique(),
		index.Fields("provider_id", "expires_at"),
	}
}
