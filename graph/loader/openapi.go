package loader

import (
	"context"

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
}

func newOpenAPILoaders(b batching, client *ent.Client) *OpenAPILoaders {
	return &OpenAPILoaders{
		OpenAPISpecByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.OpenAPISpec, error) {
			return client.OpenAPISpec.Query().Where(openapispec.IDIn(ids...)).All(ctx)
		}, func(s *ent.OpenAPISpec) string { return s.ID }, "OpenAPI spec"),
		OpenAPIVersionByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.OpenAPISpecVersion, error) {
			return client.OpenAPISpecVersion.Query().Where(openapispecversion.IDIn(ids...)).All(ctx)
		}, func(v *ent.OpenAPISpecVersion) string { return v.ID }, "OpenAPI spec version"),
	}
}
