package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
)

// OAuthGrant is one consent of a user to a client (graph/oauth.go): it
// starts with an authorization code, then holds the access tokens (API
// tokens with its id) and refresh tokens issued from it. Revoking it ends
// them all. Codes and refresh tokens are stored as SHA-256 only.
type OAuthGrant struct{ ent.Schema }

func (OAuthGrant) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (OAuthGrant) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_id").Immutable(),
		field.String("user_id").Immutable(),
		field.Time("created_at").Default(clock.Now).Immutable(),
		field.String("scope").Default("").MaxLen(255).Immutable(),
		// The authorization code's hash, its redirect URI (exactly as the
		// authorization request sent it), its PKCE S256 challenge and end.
		field.String("code_hash").Unique().Immutable().Sensitive(),
		field.String("redirect_uri").MaxLen(2048).Immutable(),
		field.String("code_challenge").MaxLen(128).Immutable(),
		field.Time("code_expires_at").Immutable(),
		// Set when the code was exchanged: a second exchange revokes the
		// grant (RFC 6749 4.1.2).
		field.Time("code_used_at").Optional().Nillable(),
	}
}

func (OAuthGrant) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id"),
		index.Fields("client_id"),
	}
}
