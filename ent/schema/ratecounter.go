package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"

	"github.com/folio/folio/internal/clock"
)

// RateCounter counts events of one key (a sign-in's account or client
// address) in a fixed window, in the database so that every instance sees
// the same counts. Its writes are telemetry (events.ExemptRate) except
// where they are the record of a failed sign-in.
type RateCounter struct{ ent.Schema }

func (RateCounter) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

func (RateCounter) Fields() []ent.Field {
	return []ent.Field{
		// "signin:account:<email>" or "signin:addr:<ip>".
		field.String("key").Unique().Immutable().MaxLen(400),
		field.Time("window_start").Default(clock.Now),
		// Failures in the window.
		field.Int("count").Default(0),
		// Attempts refused in the window because count reached the limit.
		field.Int("refused").Default(0),
	}
}
