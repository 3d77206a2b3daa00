package graph

import (
	"context"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/openapiref"
)

// API reference blocks in pages ({% openapi-operation %}, {% openapi-schemas
// %}): the spec a block names is looked up by slug in the organization of
// the space, at its latest version. Which bodies embed which spec is part of
// their derived data (loader.Derived.Specs, read from the stored document),
// so a new spec version needs no rewrite: links and the published site read
// the latest version each time, and SpecVersionsOf gives the versions a
// body's rendering depends on (for ETags).

// PublishedSpecLookup finds specs of organization orgID for openapi blocks
// without the caller's access check, for the published site, whose readers
// are not members. A spec that does not exist or has no version yet is
// (nil, nil).
func (r *Resolver) PublishedSpecLookup(orgID string) openapiref.SpecLookup {
	return func(ctx context.Context, slug string) (*openapi3.T, error) {
		doc, _, err := r.OpenAPISpecLatestForPublished(ctx, orgID, slug)
		if e, ok := apperr.As(err); ok && e.Status() == http.StatusNotFound {
			return nil, nil
		}
		return doc, err
	}
}

// SpecVersionsOf maps each slug to the id of its spec's latest version in
// organization orgID ("" when there is none): what an openapi block on a
// page renders, so that a cache of the page can key on it.
func (r *Resolver) SpecVersionsOf(ctx context.Context, orgID string, slugs []string) (map[string]string, error) {
	out := make(map[string]string, len(slugs))
	for _, slug := range slugs {
		if _, seen := out[slug]; seen {
			continue
		}
		out[slug] = ""
		spec, err := r.openAPISpec(ctx, orgID, slug)
		if e, ok := apperr.As(err); ok && e.Status() == http.StatusNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		if spec.LastVersionID != nil {
			out[slug] = *spec.LastVersionID
		}
	}
	return out, nil
}

// specLinks resolves the openapi blocks of a revision's bodies as links:
// ok when the block's target exists in the latest version of its spec,
// broken otherwise. Specs are looked up (and parsed) once per call.
type specLinks struct {
	lookup openapiref.SpecLookup
	docs   map[string]*openapi3.T
}

func (r *Resolver) newSpecLinks(ctx context.Context, spaceID string) (*specLinks, error) {
	s, err := loader.For(ctx).SpaceByID.Load(ctx, spaceID)()
	if err != nil {
		return nil, err
	}
	return &specLinks{lookup: r.callerSpecLookup(s.OrganizationID), docs: map[string]*openapi3.T{}}, nil
}

// callerSpecLookup finds specs of organization orgID for the link checks of
// a caller: a spec the caller may not read (a visitor of a public space, a
// guest) is as unknown as a missing one, so its blocks read as broken and
// tell nothing of what the organization's specs hold.
func (r *Resolver) callerSpecLookup(orgID string) openapiref.SpecLookup {
	return func(ctx context.Context, slug string) (*openapi3.T, error) {
		doc, _, err := r.OpenAPISpecLatest(ctx, orgID, slug)
		if e, ok := apperr.As(err); ok && (e.Kind == apperr.NotFound || e.Kind == apperr.Forbidden) {
			return nil, nil
		}
		return doc, err
	}
}

func (l *specLinks) resolve(ctx context.Context, ref markdown.SpecRef) (model.LinkTarget, error) {
	doc, seen := l.docs[ref.Spec]
	if !seen {
		var err error
		if doc, err = l.lookup(ctx, ref.Spec); err != nil {
			return model.LinkTarget{}, err
		}
		l.docs[ref.Spec] = doc
	}
	t := model.LinkTarget{Status: model.LinkOK, Kind: model.LinkOpenAPI, URL: ref.Tag()}
	if openapiref.Check(doc, ref) != nil {
		t.Status = model.LinkBroken
	}
	return t, nil
}
