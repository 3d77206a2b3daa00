package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
)

// A spec's visibility decides who reads its text outside the organization:
//
//   - private (the default): only members with a role, through the API
//     (versions, content, raw content). The unguessable public content URL
//     of its versions (/openapi-content/<key>/<root>) answers 404 and
//     urls.published is absent.
//   - public: the public content URL of each version serves the root
//     document to anyone holding it, urls.published is the latest
//     version's, and a site-scoped token of the organization (what a
//     renderer of a published site holds) reads the latest raw content.
//
// Published sites render the API reference blocks of their pages whatever
// the visibility: publishing a page that shows an operation publishes that
// operation (PublishedSpecLookup); visibility governs the spec file itself.

// OpenAPIVisibility is a visibility as REST spells it (rest imports no ent
// subpackage).
func OpenAPIVisibility(s string) openapispec.Visibility { return openapispec.Visibility(s) }

// UpdateOpenAPISpecVisibility sets a spec's visibility (members who may
// change specs: 403 for others; 400 naming visibility for another value).
func (r *Resolver) UpdateOpenAPISpecVisibility(ctx context.Context, orgID, slug string, v openapispec.Visibility) (*ent.OpenAPISpec, error) {
	if _, err := openAPIEditor(ctx, orgID); err != nil {
		return nil, err
	}
	if err := openapispec.VisibilityValidator(v); err != nil {
		return nil, apperr.InvalidField("visibility", "must be private or public")
	}
	existing, err := r.openAPISpec(ctx, orgID, slug)
	if err != nil {
		return nil, err
	}
	var spec *ent.OpenAPISpec
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if spec, err = tx.OpenAPISpec.UpdateOne(existing).SetVisibility(v).Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, openAPIEvent(events.OpenAPISpecUpdated, spec, map[string]any{"fields": []string{"visibility"}}))
		return nil
	})
	return spec, err
}

// OpenAPIRaw is a version's root document exactly as submitted, and its
// format (json or yaml).
type OpenAPIRaw struct {
	Text, Format string
}

// OpenAPISpecLatestRaw is the latest version's raw root document: for
// members with a role, or, when the spec is public, for a site-scoped
// token of its organization. 404 before a first version.
func (r *Resolver) OpenAPISpecLatestRaw(ctx context.Context, orgID, slug string) (*OpenAPIRaw, error) {
	var v *ent.OpenAPISpecVersion
	var err error
	if sc := siteScopeOf(ctx); sc != nil {
		if sc.OrganizationID != orgID {
			return nil, apperr.NotFoundf("OpenAPI spec %q not found", slug)
		}
		spec, err := r.openAPISpec(ctx, orgID, slug)
		if err != nil {
			return nil, err
		}
		if spec.Visibility != openapispec.VisibilityPublic {
			return nil, apperr.NotFoundf("OpenAPI spec %q not found", slug)
		}
		if v, err = r.SpecLastVersion(ctx, spec); err == nil && v == nil {
			err = apperr.NotFoundf("OpenAPI spec %q has no version yet", slug)
		}
		if err != nil {
			return nil, err
		}
	} else if v, err = r.OpenAPISpecLatestVersion(ctx, orgID, slug); err != nil {
		return nil, err
	}
	text, ok := v.Files[v.Root]
	if !ok {
		return nil, apperr.NotFoundf("OpenAPI spec %q has no raw source for its latest version", slug)
	}
	return &OpenAPIRaw{Text: text, Format: v.Format.String()}, nil
}

// OpenAPISpecPublishedURL is a spec's urls.published: its latest version's
// public content URL while the spec is public; nil otherwise.
func (r *Resolver) OpenAPISpecPublishedURL(ctx context.Context, s *ent.OpenAPISpec) (*string, error) {
	if s.Visibility != openapispec.VisibilityPublic {
		return nil, nil
	}
	v, err := r.SpecLastVersion(ctx, s)
	if v == nil || err != nil {
		return nil, err
	}
	u := r.OpenAPIVersionPublicURL(v)
	return &u, nil
}

// publicVersion keeps a version behind a public content URL only while its
// spec is public.
func (r *Resolver) publicVersion(ctx context.Context, v *ent.OpenAPISpecVersion) (*ent.OpenAPISpecVersion, error) {
	spec, err := r.Client.OpenAPISpec.Get(ctx, v.SpecID)
	if ent.IsNotFound(err) || (err == nil && spec.Visibility != openapispec.VisibilityPublic) {
		return nil, apperr.NotFoundf("not found")
	}
	return v, err
}

// SpecLatestRawObject is OpenAPISpec.latestContentRaw: null before a
// first version.
func (r *Resolver) SpecLatestRawObject(ctx context.Context, s *ent.OpenAPISpec) (*model.OpenAPISpecRawContent, error) {
	raw, err := r.OpenAPISpecLatestRaw(ctx, s.OrganizationID, s.Slug)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &model.OpenAPISpecRawContent{Text: raw.Text, Format: raw.Format}, nil
}
