package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
)

// OAuthRefreshToken is a refresh token of a grant, stored as SHA-256 only.
// Each use rotates it: the used one keeps its row with used_at set, so a
// second use (a stolen copy) is recognised and revokes the grant.
type OAuthRefreshToken struct{ ent.Schema }

func (OAuthRefreshToken) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (OAuthRefreshToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("grant_id").Immutable(),
		field.String("hash").Unique().Immutable().Sensitive(),
		field.Time("created_at").Default(clock.Now).Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("used_at").Optional().Nillable(),
	}
}

func (OAuthRefreshToken) Indexes() []ent.Index {
	return []ent.Index{index.Fields("grant_id")}
}
