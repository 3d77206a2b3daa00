package schema

import (
	"encoding/json"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
)

// Passkey is a WebAuthn credential of a user's: a public key whose private
// half stays in the user's authenticator. Nothing here is secret (a copy
// of the database signs no one in), so nothing is sealed.
type Passkey struct{ ent.Schema }

func (Passkey) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (Passkey) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// The credential's id, base64url without padding (at most 1023
		// bytes raw): what an authenticator names in an assertion.
		field.String("credential_id").Unique().Immutable().MaxLen(1400),
		// COSE-encoded public key.
		field.Bytes("public_key").Immutable(),
		// The authenticator's signature counter, last seen: an assertion
		// that does not raise it (when either is non-zero) is refused, as
		// from a cloned authenticator.
		field.Int64("sign_count").Default(0),
		field.Strings("transports").Optional(),
		// The authenticator model's AAGUID (all zeros when it attests none).
		field.String("aaguid").Default("").MaxLen(36),
		field.String("name").MaxLen(100),
		// The library's whole credential record (go-webauthn's Credential as
		// JSON: flags, attestation), for its checks at sign-in.
		field.JSON("credential", json.RawMessage{}),
		field.Time("created_at").Default(clock.Now).Immutable(),
		field.Time("last_used_at").Optional().Nillable(),
	}
}

func (Passkey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("passkeys").Field("user_id").Unique().Required().Immutable(),
	}
}

func (Passkey) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
	}
}
