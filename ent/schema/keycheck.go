package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// KeyCheck is a known text sealed with the key of the database's secrets
// (one row, id "secrets"): a start with another key fails to open it and
// stops, naming FOLIO_SECRET_KEY (internal/secrets).
type KeyCheck struct{ ent.Schema }

func (KeyCheck) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

func (KeyCheck) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("sealed").Sensitive(),
	}
}
