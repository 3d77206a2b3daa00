package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/ids"
)

// Download is a file Folio made for someone (a PDF) and serves at
// /downloads/<id> until it expires: the id is the secret.
type Download struct{ ent.Schema }

func (Download) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").DefaultFunc(func() string { return ids.New() + ids.New() }).Immutable().NotEmpty(),
		field.String("blob_key").Immutable(),
		field.String("name").Immutable(),
		field.String("content_type").Immutable(),
		field.Time("expires_at").Immutable(),
		field.Time("created_at").Default(clock.Now).Immutable(),
	}
}

func (Download) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}
