package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
)

// Session is a person signed in through Folio's pages: the folio_session
// cookie carries a random secret, of which only the SHA-256 is stored (as
// for API tokens), so a copy of the database signs no one in.
type Session struct{ ent.Schema }

func (Session) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Time("created_at").Default(clock.Now).Immutable(),
		// Touched at most once a minute by the session's requests (an
		// exempt write: events.ExemptSession); idle sessions end.
		field.Time("last_seen_at").Default(clock.Now),
		// The absolute end, whatever the use.
		field.Time("expires_at").Immutable(),
		field.String("user_agent").Default("").MaxLen(512),
		field.String("ip").Default("").MaxLen(64),
	}
}

func (Session) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("sessions").Field("user_id").Unique().Required().Immutable(),
	}
}

func (Session) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
	}
}
