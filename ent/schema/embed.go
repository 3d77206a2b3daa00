package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// EmbedCache keeps what resolving a URL to an embed found (getEmbedByUrlInSpace),
// shared by every instance: one row per URL, keyed by the URL's SHA-256, read
// until expires_at and replaced by the next resolution after it. A failed
// resolution is kept too (as a link), for a shorter time, so that a URL that
// does not answer is not fetched on every read. Rows past their expiry are
// deleted when a resolution writes (graph/embeds.go), so the table holds about
// the URLs read within one time to live.
type EmbedCache struct{ ent.Schema }

func (EmbedCache) Fields() []ent.Field {
	return []ent.Field{
		// hex SHA-256 of the URL as asked.
		field.String("id").Immutable().NotEmpty(),
		field.Text("url"),
		// JSON of graph.Embed, at most graph.MaxEmbedBytes.
		field.Text("embed"),
		field.Time("created_at"),
		field.Time("expires_at"),
	}
}

func (EmbedCache) Indexes() []ent.Index {
	return []ent.Index{index.Fields("expires_at")}
}
