package loader

import (
	"context"

	"entgo.io/ent/dialect/sql"
	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/ent/openapispecversion"
)

// OpenAPILoaders batch the reads of OpenAPI specs' versions.
type OpenAPILoaders struct {
	// OpenAPISpecByID finds a spec (a version's).
	OpenAPISpecByID *Loader[*ent.OpenAPISpec]
	// OpenAPIVersionByID finds a version (a spec's lastVersion).
	OpenAPIVersionByID *Loader[*ent.OpenAPISpecVersion]
	// OpenAPIVersionsBySpec are a spec's versions, oldest first: one
	// statement for every spec a list shows.
	OpenAPIVersionsBySpec *Loader[[]*ent.OpenAPISpecVersion]
}

func newOpenAPILoaders(b batching, client *ent.Client) *OpenAPILoaders {
	return &OpenAPILoaders{
		OpenAPISpecByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.OpenAPISpec, error) {
			return client.OpenAPISpec.Query().Where(openapispec.IDIn(ids...)).All(ctx)
		}, func(s *ent.OpenAPISpec) string { return s.ID }, "OpenAPI spec"),
		OpenAPIVersionByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.OpenAPISpecVersion, error) {
			return client.OpenAPISpecVersion.Query().Where(openapispecversion.IDIn(ids...)).All(ctx)
		}, func(v *ent.OpenAPISpecVersion) string { return v.ID }, "OpenAPI spec version"),
		OpenAPIVersionsBySpec: batched(b, func(ctx context.Context, specs []string) []*dataloader.Result[[]*ent.OpenAPISpecVersion] {
			rows, err := client.OpenAPISpecVersion.Query().Where(openapispecversion.SpecIDIn(specs...)).
				Order(func(s *sql.Selector) {
					s.OrderBy(sql.Asc(s.C(openapispecversion.FieldCreatedAt)), sql.Asc(s.C(openapispecversion.FieldID)))
				}).All(ctx)
			bySpec := map[string][]*ent.OpenAPISpecVersion{}
			for _, v := range rows {
				bySpec[v.SpecID] = append(bySpec[v.SpecID], v)
			}
			out := make([]*dataloader.Result[[]*ent.OpenAPISpecVersion], len(specs))
			for i, id := range specs {
				out[i] = &dataloader.Result[[]*ent.OpenAPISpecVersion]{Data: bySpec[id], Error: err}
			}
			return out
		}),
	}
}
