package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/ids"
)

// IDMixin gives an entity a random, URL-safe string ID (internal/ids).
type IDMixin struct{ mixin.Schema }

func (IDMixin) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").DefaultFunc(ids.New).Immutable().NotEmpty(),
	}
}

// TimeMixin records creation and last update in UTC from the shared clock.
type TimeMixin struct{ mixin.Schema }

func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(clock.Now).Immutable(),
		field.Time("updated_at").Default(clock.Now).UpdateDefault(clock.Now),
	}
}
